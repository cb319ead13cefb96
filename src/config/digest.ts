/**
 * A fingerprint of a desired state, so a saved plan can tell whether the
 * configuration changed since it was made. Source positions are left out
 * (moving a block is not a change); secret sources are in, as references.
 */
import { createHash } from 'node:crypto';
import type { DesiredState } from './types.js';

/** JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function configDigest(desired: DesiredState): string {
  const resources = [...desired.resources]
    .sort((a, b) => (a.address < b.address ? -1 : 1))
    .map(({ kind, address, localName, attributes, secrets, lifecycle, dependsOn }) => ({ kind, address, localName, attributes, secrets, lifecycle, dependsOn }));
  // Refactoring blocks change what a plan does (a move instead of a delete and a create): they count, their positions do not.
  const blocks = desired.refactoring;
  const refactoring = blocks && {
    moved: blocks.moved.map(({ from, to }) => ({ from, to })),
    removed: blocks.removed.map(({ from }) => ({ from })),
    imports: blocks.imports.map(({ to, id }) => ({ to, id })),
  };
  return createHash('sha256').update(canonicalJson({ account: desired.account ?? null, resources, refactoring })).digest('hex');
}
