/**
 * The line that tells yaml-language-server (and editors built on it) which schema a configuration file follows:
 * `cplane init` puts it at the top of each configuration file of the folder that lacks one, as export writes it
 * into the files it makes (docs/editors.md). The path is relative to the file, to the schema this cplane ships.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { packageFile } from '../../package-files.js';

const SCHEMA_LINE = /^#\s*yaml-language-server:\s*\$schema=/m;

/** Adds the line to each *.yaml and *.yml file of `dir` without one; the names of the files it changed, sorted. */
export async function addSchemaLines(dir: string): Promise<string[]> {
  const schema = relative(dir, packageFile('schema', 'config.schema.json')).split(sep).join('/');
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
    .map((e) => e.name)
    .sort();
  const changed: string[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8');
    if (SCHEMA_LINE.test(text)) continue;
    await writeFile(join(dir, name), `# yaml-language-server: $schema=${schema}\n${text}`);
    changed.push(name);
  }
  return changed;
}
