/**
 * Where cplane's own files are (package.json, schema/, examples/, bin/). The code runs from
 * src/ in the tests, from dist/ after tsc and from dist/bundle/chunks/ in the CLI, so a path
 * relative to this module would differ in each: the package root is the nearest folder above
 * it that holds a package.json.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

function packageRoot(): string {
  if (root) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    if (dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}: is cplane installed whole?`);
  }
}

/** The absolute path of a file of the package, e.g. `packageFile('schema', 'config.schema.json')`. */
export function packageFile(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}
