/**
 * "Did you mean" for unknown keys and names: the closest candidates by
 * Levenshtein distance, close enough to be a plausible typo.
 */

export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(current[j - 1]! + 1, previous[j]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Up to `max` candidates within a distance of 40% of the name's length (at least 2), closest first. */
export function closest(name: string, candidates: Iterable<string>, max = 3): string[] {
  const limit = Math.max(2, Math.floor(name.length * 0.4));
  return [...new Set(candidates)]
    .map((candidate) => ({ candidate, distance: levenshtein(name.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ distance }) => distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, max)
    .map(({ candidate }) => candidate);
}

/** `; did you mean "x"?` or `; did you mean "x" or "y"?`, or '' when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const found = closest(name, candidates);
  if (found.length === 0) return '';
  const quoted = found.map((c) => `"${c}"`);
  const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return `; did you mean ${list}?`;
}
