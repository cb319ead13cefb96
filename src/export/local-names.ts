/**
 * Deterministic local names for exported objects. A name is the slug of the
 * object's own name (project name, credential label, gateway slug, record or
 * token name); objects whose slugs collide are told apart by `-2`, `-3`, ...
 * in the order of (name, id), so the same account always gets the same names.
 */

/** Room left under the 100-character limit of a local name for a `-N` suffix. */
const MAX_SLUG = 90;

/** Lowercase, `[a-z0-9-]` only, dashes collapsed and trimmed; `fallback` when nothing is left. */
export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? fallback : slug;
}

export interface Named {
  id: string;
  name: string;
}

/**
 * Local names by id for one scope (one map of the configuration). Every object
 * whose slug is unique, or first of its slug in (name, id) order, keeps the slug;
 * the others get the first free `slug-N` with N from 2, so a real name such as
 * `api-2` is never taken away by a suffixed duplicate of `api`.
 */
export function assignLocalNames(items: readonly Named[], fallback: string): Map<string, string> {
  const ordered = [...items].sort((a, b) => compare(a.name, b.name) || compare(a.id, b.id));
  const slugs = new Map(ordered.map((item) => [item.id, slugify(item.name, fallback)]));
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const item of ordered) {
    const slug = slugs.get(item.id)!;
    if (!taken.has(slug)) {
      taken.add(slug);
      names.set(item.id, slug);
    }
  }
  for (const item of ordered) {
    if (names.has(item.id)) continue;
    const slug = slugs.get(item.id)!;
    let n = 2;
    while (taken.has(`${slug}-${n}`)) n++;
    taken.add(`${slug}-${n}`);
    names.set(item.id, `${slug}-${n}`);
  }
  return names;
}

/** Code-unit order, independent of the locale of the machine that exports. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `openai-prod` -> `OPENAI_PROD`: the part of an environment variable name made from a name. */
export function upperSnake(name: string): string {
  return (
    name
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'X'
  );
}
