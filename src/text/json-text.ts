/**
 * A document cplane prints as JSON (`--json`, NDJSON events, `cplane api`). In a GitHub Actions step the runner
 * reads `##[` anywhere in a line as a workflow command (`##[add-mask]`, `##[stop-commands]`), and a name from the
 * account can hold one. Where a `##[` would appear inside a string, its `#` is written `\u0023`: the document
 * parses to the same value, and the runner sees no command. `::` never starts a line of JSON (a line starts with
 * blanks, then `{`, `[`, `"`, `}`, `]`, a digit or a letter), so it needs nothing.
 */
export function jsonText(value: unknown, indent?: number): string {
  // `#` is never part of a JSON escape, so the `\u0023` cannot join a backslash before it.
  return JSON.stringify(value, null, indent).replace(/##\[/g, '\\u0023#[');
}
