/**
 * `cplane compare A B` (docs/deployments.md): parity drift between two deployments' live accounts. Both
 * accounts are read as export reads them (read-account.ts) and turned into the entries export would write
 * (build-model.ts), so two objects are compared in configuration terms (local names, not ids). What their
 * variables explain is not a difference: in every name and value, each variable's value (where the two
 * deployments give it different text, also as the environment variable names export derives from names, and the
 * elements of list variables) is first replaced by `${var.NAME}` on both sides, where it stands as a word. What is left (an object only one
 * account has, a setting that differs) is reported, of the objects the deployments' states manage (all of them
 * with `--unmanaged`).
 */
import { canonicalJson } from '../config/index.js';
import type { VariableValue } from '../plan-model/index.js';
import type { AccountObjects } from './account-objects.js';
import { buildModel, type ExportedEntry } from './build-model.js';
import { upperSnake } from './local-names.js';
import { definitionOf } from '../providers/index.js';

export interface ParityDifference {
  /** The address as export would write it, with variable values replaced by `${var.NAME}`. */
  address: string;
  /** `only-in-a`: the first account has it and the second does not. */
  kind: 'only-in-a' | 'only-in-b' | 'different';
  /** For `different`: the field of the entry that differs (`settings`, `scopes`, ...). */
  field?: string;
  a?: unknown;
  b?: unknown;
}

type Variables = Record<string, VariableValue>;

/** Marks an element of a list variable that only one side's list holds: what forEach makes of it is explained. */
const LIST_ELEMENT = '[*]}';

/**
 * The text replacements of one side, longest first: its value of each variable the two sides give different
 * text, also as an environment variable name export makes from a name (`staging` in `OTEL_HEADERS_SHOP_STAGING`),
 * and each element of a list variable that the other side's list does not hold (`${var.NAME[*]}`).
 */
function replacements(own: Variables, other: Variables): [string, string][] {
  const out: [string, string][] = [];
  const add = (text: string, token: string) => {
    if (text.length < 2) return;
    out.push([text, token]);
    if (upperSnake(text) !== text) out.push([upperSnake(text), token]);
  };
  for (const [name, value] of Object.entries(own)) {
    if (typeof value === 'string' && other[name] !== value) add(value, `\${var.${name}}`);
    if (!Array.isArray(value)) continue;
    const theirs = Array.isArray(other[name]) ? (other[name] as unknown[]) : [];
    for (const element of value)
      if (typeof element === 'string' && !theirs.includes(element)) add(element, `\${var.${name}${LIST_ELEMENT}`);
  }
  return out.sort((x, y) => y[0].length - x[0].length);
}

/**
 * `text` with each value replaced where it stands as a word: between the text's ends, spaces or punctuation
 * (`-`, `_`, `.`, `/`...), as a name template puts it (`app-${var.region}`), never inside another word (`ap`
 * in `app`), which would make two identical accounts differ.
 */
function replaceWords(text: string, from: string, to: string): string {
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), () => to);
}

function normalise(value: unknown, swaps: readonly [string, string][]): unknown {
  if (typeof value === 'string') return swaps.reduce((text, [from, to]) => replaceWords(text, from, to), value);
  if (Array.isArray(value)) return value.map((v) => normalise(v, swaps));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [normalise(k, swaps) as string, normalise(v, swaps)]));
  return value;
}

/** Every exported entry of an account by (normalised) address, without the entries declared inside it; with `managed`, only those. */
function entriesOf(
  objects: AccountObjects,
  swaps: readonly [string, string][],
  managed: ReadonlySet<string> | undefined,
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const walk = (entry: ExportedEntry) => {
    if (!managed || managed.has(managedKey(entry.kind, definitionOf(entry.kind).identify({ live: entry.live as never }).id))) {
      out.set(normalise(entry.address, swaps) as string, normalise(entry.entry, swaps) as Record<string, unknown>);
    }
    entry.children.forEach(walk);
  };
  for (const file of buildModel(objects, { onlyUsedCredentials: false }).files) file.entries.forEach(walk);
  return out;
}

/** How a managed object is named in `managed`: its kind and id (as state records them). */
export const managedKey = (kind: string, id: string) => `${kind} ${id}`;

/** One side: its live objects, its variable values, and (unless `--unmanaged`) the objects its state manages. */
export interface CompareSide {
  objects: AccountObjects;
  variables: Variables;
  managed?: ReadonlySet<string>;
}

export function compareAccounts(a: CompareSide, b: CompareSide): ParityDifference[] {
  const left = entriesOf(a.objects, replacements(a.variables, b.variables), a.managed);
  const right = entriesOf(b.objects, replacements(b.variables, a.variables), b.managed);
  const differences: ParityDifference[] = [];
  for (const address of [...new Set([...left.keys(), ...right.keys()])].sort()) {
    const x = left.get(address);
    const y = right.get(address);
    // An object made from an element of a list variable that only one side's list holds: the list explains it.
    if ((!x || !y) && address.includes(LIST_ELEMENT)) continue;
    if (!y) differences.push({ address, kind: 'only-in-a' });
    else if (!x) differences.push({ address, kind: 'only-in-b' });
    else {
      for (const field of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
        // Entries declared inside this one are compared at their own address.
        if (isChildMap(x[field]) || isChildMap(y[field])) continue;
        if (canonicalJson(x[field] ?? null) !== canonicalJson(y[field] ?? null))
          differences.push({ address, kind: 'different', field, a: x[field], b: y[field] });
      }
    }
  }
  return differences;
}

/** A map of entries by local name (a project's `records`, a gateway's `tokens`), which `children` holds too. */
function isChildMap(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).length > 0 &&
    Object.values(value).every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))
  );
}
