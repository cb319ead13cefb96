/**
 * A fingerprint of a desired state, so a saved plan can tell whether the
 * configuration changed since it was made. Source positions are left out
 * (moving a block is not a change); secret sources are in, as references.
 */
import { createHash } from 'node:crypto';
import type { DesiredState } from './types.js';

/**
 * Appends the canonical JSON of `value` to `out`, piece by piece: object keys sorted (by UTF-16 code
 * units, as `<` compares), undefined members left out, undefined elsewhere written as null. One array of
 * pieces instead of a string per node keeps this cheap at 10,000 resources.
 */
function writeCanonical(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('null');
  } else if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      writeCanonical(value[i], out);
    }
    out.push(']');
  } else if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    let first = true;
    out.push('{');
    for (const key of Object.keys(record).sort()) {
      const member = record[key];
      if (member === undefined) continue;
      out.push(first ? '' : ',', JSON.stringify(key), ':');
      first = false;
      writeCanonical(member, out);
    }
    out.push('}');
  } else {
    out.push(JSON.stringify(value));
  }
}

/** JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, out);
  return out.join('');
}

/** sha256 of canonicalJson({ account, resources, refactoring }), fed to the hash one resource at a time. */
export function configDigest(desired: DesiredState): string {
  const hash = createHash('sha256');
  const resources = [...desired.resources].sort((a, b) => (a.address < b.address ? -1 : 1));
  hash.update(`{"account":${JSON.stringify(desired.account ?? null)},"resources":[`);
  resources.forEach(({ kind, address, localName, attributes, secrets, lifecycle, dependsOn }, i) => {
    const out: string[] = i > 0 ? [','] : [];
    writeCanonical({ kind, address, localName, attributes, secrets, lifecycle, dependsOn }, out);
    hash.update(out.join(''));
  });
  // Refactoring blocks change what a plan does (a move instead of a delete and a create): they count, their positions do not.
  const blocks = desired.refactoring;
  const out: string[] = [];
  writeCanonical(blocks && {
    moved: blocks.moved.map(({ from, to }) => ({ from, to })),
    removed: blocks.removed.map(({ from }) => ({ from })),
    imports: blocks.imports.map(({ to, id }) => ({ to, id })),
  }, out);
  return hash.update(`],"refactoring":${out.join('')}}`).digest('hex');
}
