/**
 * The state snapshot on disk: the state data plus a header that recognises the
 * key (and holds the passphrase's scrypt parameters). Parsing turns every way
 * a file can be damaged into its own clear error; nothing here writes.
 */
import { StateError } from './errors.js';
import { upgradeDocument } from './migrations.js';
import type { StateDocument } from './migrations.js';
import type { StateFileContents } from './types.js';
import { schemaProblems } from './validate.js';

export type { StateFileContents, StateHeader } from './types.js';

const RESTORE_HINT = 'The file was left untouched. Restore it from state.json.backup next to it, or from your own copy.';

function isTruncation(text: string, error: Error): boolean {
  if (text.trim() === '' || /end of JSON input|Unterminated/.test(error.message)) return true;
  const position = /at position (\d+)/.exec(error.message)?.[1];
  return position !== undefined && Number(position) >= text.trimEnd().length;
}

/**
 * Parses and upgrades a snapshot. `checked` says these exact bytes were
 * written (and checked) by cplane, as their hash in the change log shows: the
 * schema check is then skipped, since it is the slowest part of a load.
 */
export function parseStateFile(text: string, path: string, options: { checked?: boolean } = {}): StateFileContents {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message;
    if (isTruncation(text, error as Error)) {
      throw new StateError('STATE_TRUNCATED', `The state file ${path} is truncated (${text.length} bytes; ${detail}).`, RESTORE_HINT, {
        cause: error,
      });
    }
    throw new StateError('STATE_CORRUPT', `The state file ${path} is not valid JSON: ${detail}.`, RESTORE_HINT, { cause: error });
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new StateError('STATE_CORRUPT', `The state file ${path} does not hold a JSON object.`, RESTORE_HINT);
  }
  if ('resealFrom' in document) {
    throw new StateError(
      'STATE_SCHEMA',
      `The state file ${path} does not match schema/state.schema.json: /resealFrom: is set only while upgrading a state.`,
      RESTORE_HINT,
    );
  }
  const before = (document as StateDocument).version;
  const upgraded = upgradeDocument(document as StateDocument, path);
  // An upgraded document was never checked in its new form.
  if (!options.checked || upgraded.version !== before) {
    const problems = schemaProblems(upgraded);
    if (problems.length > 0) {
      throw new StateError(
        'STATE_SCHEMA',
        `The state file ${path} does not match schema/state.schema.json: ${problems.join('; ')}.`,
        RESTORE_HINT,
      );
    }
  }
  return upgraded as unknown as StateFileContents;
}

export function serializeStateFile(contents: StateFileContents): string {
  const { version, header, account, lineage, serial, resources, journal, ...rest } = contents;
  // A fixed field order keeps the file readable and its diffs small.
  return `${JSON.stringify({ version, header, account, lineage, serial, ...rest, resources, journal }, null, 2)}\n`;
}
