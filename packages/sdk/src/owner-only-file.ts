/**
 * Reading a key file that only its owner may read (the state key file, a reader's private key file). The
 * mode is checked on the open file, so the file read is the file checked; each caller words its own refusal.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';

export type OwnerOnlyRead = { found: 'missing' } | { found: 'open-to-others'; mode: string } | { found: 'private'; text: string };

export function readOwnerOnlyFile(path: string): OwnerOnlyRead {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: 'missing' };
    throw error;
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) !== 0) return { found: 'open-to-others', mode: mode.toString(8).padStart(3, '0') };
    return { found: 'private', text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}
