/**
 * Canonical JSON: object keys sorted, so equal values always give equal text.
 * A saved plan's steps are compared with a fresh plan's this way.
 */

/**
 * An object's keys in the order `.sort()` gives (by UTF-16 code units, as `<` compares). Objects here have a
 * handful of keys, and V8's sort copies its array into a new one on every call: at 10,000 state entries that was
 * most of what checking their MACs allocated. Insertion sort on the fresh array of `Object.keys` allocates nothing more.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * Appends the canonical JSON of `value` to `out`, piece by piece: object keys sorted (by UTF-16 code
 * units, as `<` compares), undefined members left out, undefined elsewhere written as null. One array of
 * pieces instead of a string per node keeps this cheap at 10,000 resources. `omit` leaves out a member of
 * the top object (an entry's own MAC), where a copy without it would cost an object per entry.
 */
function writeCanonical(value: unknown, out: string[], omit?: string): void {
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
    for (const key of sortedKeys(record)) {
      const member = record[key];
      if (member === undefined || key === omit) continue;
      out.push(first ? '' : ',', JSON.stringify(key), ':');
      first = false;
      writeCanonical(member, out);
    }
    out.push('}');
  } else {
    out.push(JSON.stringify(value));
  }
}

/** JSON with object keys sorted, so equal values always give equal text; `omit` leaves out a member of the top object. */
export function canonicalJson(value: unknown, omit?: string): string {
  const out: string[] = [];
  writeCanonical(value, out, omit);
  return out.join('');
}
