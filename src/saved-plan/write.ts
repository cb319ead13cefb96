/**
 * `cplane plan --out FILE`: the plan written as JSON, with its MAC (mac.ts), for its owner only (0600) and never
 * through a symbolic link.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { AbortError } from '../errors.js';
import type { Plan } from '../plan-model/index.js';

/** The digest of a saved plan file's bytes (`sha256:HEX`): what an approval and the open-plan registry name. */
export const planDigest = (text: string | Buffer): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Writes the plan file and returns its digest. */
export async function writePlanFile(path: string, plan: Plan): Promise<string> {
  let file;
  try {
    // O_NOFOLLOW: a link planted at the path (to ~/.bashrc, to a file another user reads) is refused, not followed.
    file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new AbortError(
        `${path} is a symbolic link: cplane does not write a plan through a link.`,
        'Give --out a path that is not a link (remove the link, or choose another name).',
      );
    throw new AbortError(`cannot write the plan file ${path} (${code ?? 'error'})`, 'Give --out a path in a folder you can write to.');
  }
  try {
    // An existing file keeps its mode on open: narrow it before writing anything.
    await file.chmod(0o600);
    const text = `${JSON.stringify(plan, null, 2)}\n`;
    await file.writeFile(text, 'utf8');
    return planDigest(text);
  } finally {
    await file.close();
  }
}
