/**
 * The folder an export writes to. Export replaces only what it wrote before:
 * a folder is taken as its own when every YAML file in it carries the marker
 * line. Anything else that is not empty is refused unless --force, which
 * removes its YAML files (the loader would merge them with the export). Files
 * are written beside their final name and renamed, so a reader never sees half
 * a file; YAML files of an earlier export that this one does not produce are removed.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AbortError } from '../errors.js';
import { MARKER, type EmittedFile } from './emit-yaml.js';

const YAML_FILE = /\.ya?ml$/i;

export interface WriteResult {
  written: string[];
  /** YAML files removed: from an earlier export, or (with --force) not written by export. */
  removed: string[];
}

/** Refuses a folder that holds files export did not write; returns the YAML files now in it. */
export async function checkOutputFolder(dir: string, force: boolean): Promise<string[]> {
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) return [];
  if (!info.isDirectory()) throw new AbortError(`${dir} is not a folder.`, 'Give --out a folder (it is created when missing).');
  // Dot entries (.git, .cplane with its state, .gitignore) belong to the folder's owner and never make it foreign.
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.name.startsWith('.'));
  const yamlFiles = entries
    .filter((e) => e.isFile() && YAML_FILE.test(e.name))
    .map((e) => e.name)
    .sort();
  const marked = await Promise.all(
    yamlFiles.map(async (name) => (await readFile(join(dir, name), 'utf8')).split('\n', 6).some((line) => line.includes(MARKER))),
  );
  const ours = yamlFiles.length > 0 && marked.every(Boolean);
  if (entries.length > 0 && !ours && !force) {
    const foreign = yamlFiles.filter((_, i) => !marked[i]);
    throw new AbortError(
      `${dir} is not empty and was not written by cplane export` +
        (foreign.length > 0 ? ` (no "${MARKER}" line in ${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''})` : '') +
        '. Nothing was written.',
      'Choose a new or empty folder with --out, or pass --force to replace the YAML files in it.',
    );
  }
  return yamlFiles;
}

export async function writeOutputFolder(dir: string, files: EmittedFile[], existing: string[]): Promise<WriteResult> {
  await mkdir(dir, { recursive: true });
  for (const file of files) {
    const temporary = join(dir, `.${file.name}.tmp`);
    await writeFile(temporary, file.text, 'utf8');
    await rename(temporary, join(dir, file.name));
  }
  const names = new Set(files.map((f) => f.name));
  const removed = existing.filter((name) => !names.has(name));
  for (const name of removed) await rm(join(dir, name), { force: true });
  return { written: files.map((f) => f.name), removed };
}
