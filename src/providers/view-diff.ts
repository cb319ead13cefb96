/**
 * Helpers shared by the kind definitions: comparing views field by field, the small
 * normalisations that make a configured value and a live value comparable,
 * and reference templates for ids that exist only at apply time.
 */
import { ApiError } from '../api/errors.js';
import { classifyError } from '../errors.js';
import { localPart, type FieldChange } from '../plan-model/index.js';
import type { Known, Problem, View } from './types.js';

/** Whether `path` is covered by an `ignoreChanges` entry (the entry itself or a parent of it). */
export function isIgnored(path: string, ignoreChanges: string[]): boolean {
  // Loops, not `some` and `every`, here and below: these run for every field of every address of a plan.
  for (const entry of ignoreChanges) if (path === entry || (path.startsWith(entry) && path[entry.length] === '.')) return true;
  return false;
}

/** Deep equality of JSON values in which undefined equals null and the order of object keys does not matter. */
export function sameValue(a: unknown, b: unknown): boolean {
  if ((a ?? null) === (b ?? null)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const k of keys) if (!Object.hasOwn(right, k) || !sameValue(left[k], right[k])) return false;
  return true;
}

/** Whether an object has an own enumerable key; unlike `Object.keys(o).length`, it makes no array (asked for every address of a plan). */
export function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/** Changes from `live` to `desired`, for every managed (present) key of `desired` that is not ignored. */
export function diffViews(desired: View, live: View, ignoreChanges: string[]): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const path in desired) {
    if (isIgnored(path, ignoreChanges)) continue;
    if (!sameValue(desired[path], live[path])) changes.push({ path, before: live[path] ?? null, after: desired[path] ?? null });
  }
  return inPathOrder(changes);
}

/**
 * `changes` sorted by path (as `.sort()` orders the paths). Sorting the few changes found, rather than every path
 * compared, matters at 10,000 unchanged resources: V8's sort copies its array on each call, and that was the
 * largest allocation of the desired stage.
 */
export function inPathOrder(changes: FieldChange[]): FieldChange[] {
  return changes.length < 2 ? changes : changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Write-only fields that changed, as sensitive changes (never with a value). */
export function sensitiveChanges(changedSecrets: string[], ignoreChanges: string[]): FieldChange[] {
  return changedSecrets.filter((field) => !isIgnored(field, ignoreChanges)).map((path) => ({ path, sensitive: true }));
}

/** Sorted copy of a set-like list, so order never shows as a change. */
export function sortedSet(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values.length < 2 ? [...values] : [...new Set(values)].sort();
}

/** A date-time in one canonical form (`toISOString`), so `...00Z` and `...00.000Z` compare equal. */
export function canonicalTime(value: string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** Leaves of a nested object as `prefix.a.b` keys; arrays are leaves. */
export function flatten(prefix: string, value: unknown, into: View = {}): View {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (child !== undefined) flatten(`${prefix}.${key}`, child, into);
    }
  } else {
    into[prefix] = value;
  }
  return into;
}

/** The remote id of `address` as a template: the literal id when known now, a `$ref` resolved at apply otherwise. */
export function ref(known: Known, address: string): string | { $ref: string } {
  return known.idOf(address) ?? { $ref: address };
}

/** Runs a read and turns a not-found answer into null. */
export async function nullWhenNotFound<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isRefusal(error) && error.status === 404) return null;
    throw error;
  }
}

/**
 * A read the API refused (403, or a per-resource 404) rather than one that failed: refusals are reported as
 * unreadable, while a bad token, a wrong address, rate limiting or a failing service ends the plan, since a
 * plan made from a half-read account would be wrong rather than incomplete. The rule is `classifyError`'s.
 */
export function isRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && classifyError(error) === 'refused';
}

export { localPart };

/** A vendor name the API does not know (`provider: opnai`). */
export function unknownVendor(name: string): Problem {
  return {
    code: 'unknown_vendor',
    summary: `unknown provider "${name}"`,
    detail: 'Use the name of one of the AI providers the API lists (GET /providers).',
  };
}

/** Code-unit order, independent of the locale of the machine (for lists written into files). */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
