/**
 * A diagnostic quotes a line of a file (its snippet) and sometimes a value (`gives "..."`): neither may show the
 * value of a secret source. A var file that is also a secret source's file, or a configuration line that holds
 * an environment secret's value, would otherwise print it into a log or a pull-request comment. The values of
 * the configuration's `{ env: NAME }` and `{ file: PATH }` sources (only those inside its bounds) are taken out, those
 * of every deployment: an interpolated name (`DB_PASSWORD_${var.env}`) stands for every variable it can become.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { secretEnvMatcher, secretFileSources } from '../files/config-folder.js';
import { checkPathInside, type PathBounds } from '../files/path-bounds.js';
import type { SourceFile } from '../files/source-file.js';
import type { Diagnostic } from '../types.js';

/** What a secret value is shown as in a diagnostic. */
const HIDDEN = '<redacted>';

/** Shorter values are not taken out: they would blank out ordinary words (text/safe-text.ts has the same bound). */
const MIN_LENGTH = 6;

/**
 * The values of the secret sources the files name that are at hand now (set variables, readable files inside the
 * bounds). `isSourceName` adds the variables of the sources as written, before interpolation made them one deployment's.
 */
export async function secretSourceValues(
  files: readonly SourceFile[],
  env: NodeJS.ProcessEnv,
  bounds: PathBounds,
  isSourceName: (variable: string) => boolean = () => false,
): Promise<string[]> {
  const isSource = secretEnvMatcher(
    files.map((f) => f.value),
    { bareReference: 'none' },
  );
  const values = Object.entries(env)
    .filter(([name]) => isSource(name) || isSourceName(name))
    .map(([, value]) => value ?? '');
  for (const file of files) {
    for (const { written } of secretFileSources(file)) {
      const checked = await checkPathInside(resolve(dirname(file.path), written), bounds);
      if ('real' in checked) values.push((await readFile(checked.real, 'utf8').catch(() => '')).replace(/\r?\n$/, ''));
    }
  }
  // Each line of a value too: a snippet shows one line.
  return [...new Set(values.flatMap((v) => [v, ...v.split(/\r?\n/)]))]
    .filter((v) => v.trim().length >= MIN_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** The diagnostics with every one of `values` taken out of their snippets, summaries and details. */
export function withoutSecretValues(diagnostics: Diagnostic[], values: readonly string[]): Diagnostic[] {
  if (values.length === 0) return diagnostics;
  const hide = (text: string) => values.reduce((out, value) => out.split(value).join(HIDDEN), text);
  return diagnostics.map((d) => ({
    ...d,
    summary: hide(d.summary),
    ...(d.snippet !== undefined ? { snippet: hide(d.snippet) } : {}),
    ...(d.detail !== undefined ? { detail: hide(d.detail) } : {}),
  }));
}
