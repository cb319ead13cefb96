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
 * The canonical JSON of `value`: object keys sorted (by UTF-16 code units, as `<` compares), undefined members left
 * out, undefined elsewhere written as null. Appending to one string (V8 keeps it as a rope until it is read) was a
 * fifth faster than an array of pieces joined at the end, on the 400 plans of a merge. `omit` leaves out a member of
 * the top object (an entry's own MAC), where a copy without it would cost an object per entry.
 */
export function canonicalJson(value: unknown, omit?: string): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  if (typeof value !== 'object') return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of sortedKeys(record)) {
    const member = record[key];
    if (member === undefined || key === omit) continue;
    out += (out.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(member);
  }
  return out + '}';
}
