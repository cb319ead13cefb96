/**
 * The chain of upgrades of the state file format, one function per version
 * step (after OpenTofu): `upgrades[n]` turns a version-n document into version
 * n+1. A file is upgraded in memory on load and written in the new format only
 * by the next save.
 */
import { StateError } from './errors.js';

export const CURRENT_VERSION = 2;

export type StateDocument = Record<string, unknown>;
export type Upgrade = (document: StateDocument) => StateDocument;

/**
 * 1 → 2: sealed values are bound to account, lineage and address (before, to
 * the address only). Re-sealing needs the key, so the upgrade only marks the
 * document; the store re-seals when it opens it with the lock.
 */
const bindSealedValues: Upgrade = (document) => ({ ...document, resealFrom: 1 });

export const stateUpgrades: readonly (Upgrade | undefined)[] = [undefined, bindSealedValues];

export function upgradeDocument(
  document: StateDocument,
  path: string,
  upgrades: readonly (Upgrade | undefined)[] = stateUpgrades,
  current: number = CURRENT_VERSION,
): StateDocument {
  const version = document.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
    throw new StateError(
      'STATE_VERSION_UNKNOWN',
      `The state file ${path} has no valid version field (found ${JSON.stringify(version)}).`,
      'Restore it from its backup (state.json.backup) or from your own copy.',
    );
  }
  if (version > current) {
    throw new StateError(
      'STATE_VERSION_FUTURE',
      `The state file ${path} has format version ${version}, written by a newer cplane; this cplane reads up to version ${current}.`,
      'Upgrade cplane. The file was left untouched.',
    );
  }
  let upgraded = document;
  for (let from = version; from < current; from++) {
    const upgrade = upgrades[from];
    if (!upgrade) {
      throw new StateError(
        'STATE_VERSION_UNKNOWN',
        `The state file ${path} has format version ${version}, which this cplane cannot upgrade.`,
        'Restore it from its backup (state.json.backup).',
      );
    }
    upgraded = { ...upgrade(upgraded), version: from + 1 };
  }
  return upgraded;
}
