/**
 * Where a state lives: `<config dir>/.cplane/<account id>/state.json` unless
 * `--state PATH` says otherwise. The `.cplane` folder gets a `.gitignore` of
 * `*` on first use, so state is not committed by accident.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StateError } from './errors.js';

const ACCOUNT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function stateFolder(configDir: string): string {
  return join(resolve(configDir), '.cplane');
}

export function resolveStatePath(options: { configDir: string; account?: string; statePath?: string }): string {
  if (options.statePath) return resolve(options.configDir, options.statePath);
  if (!options.account) {
    throw new StateError(
      'STATE_ACCOUNT_MISSING',
      'No account given: cplane keeps one state per account.',
      'Pass --account ID, set CPLANE_ACCOUNT, or give the state file with --state PATH.',
    );
  }
  if (!ACCOUNT_PATTERN.test(options.account)) {
    throw new StateError(
      'STATE_ACCOUNT_INVALID',
      `The account id ${JSON.stringify(options.account)} cannot name a state folder.`,
      'Account ids hold only letters, digits, ".", "_" and "-".',
    );
  }
  return join(stateFolder(options.configDir), options.account, 'state.json');
}

export async function writeStateGitignore(configDir: string): Promise<void> {
  const folder = stateFolder(configDir);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  try {
    await writeFile(join(folder, '.gitignore'), '# cplane state: never commit it (it is per account and holds sealed secrets).\n*\n', {
      flag: 'wx',
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
