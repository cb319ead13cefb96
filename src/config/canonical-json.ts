/**
 * Canonical JSON: object keys sorted, so equal values always give equal text.
 * A saved plan's steps are compared with a fresh plan's this way.
 */

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
