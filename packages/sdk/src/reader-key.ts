/**
 * A reader's X25519 private key as a person hands it to cplane: base64 of 32
 * bytes, from an environment variable (CPLANE_SA_KEY) or from a key file that
 * only its owner can read (mode 0600, checked on the open file, as the state
 * key file is). Errors never quote the key.
 */
import { readOwnerOnlyFile } from './owner-only-file.js';

export type ReaderKeyErrorCode = 'READER_KEY_INVALID' | 'READER_KEY_FILE_OPEN' | 'READER_KEY_FILE_MISSING';

export class ReaderKeyError extends Error {
  override readonly name = 'ReaderKeyError';
  constructor(
    readonly code: ReaderKeyErrorCode,
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Decodes base64 of exactly 32 bytes; `where` names the source for the error (e.g. `CPLANE_SA_KEY`). */
export function decodeReaderKey(text: string, where: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || bytes.length !== 32) {
    throw new ReaderKeyError(
      'READER_KEY_INVALID',
      `${where} must be base64 of an X25519 private key of exactly 32 bytes (it decodes to ${bytes.length} bytes).`,
      "Give the Service Account's private key, base64 of 32 bytes, as it was issued with the Service Account.",
    );
  }
  return new Uint8Array(bytes);
}

/** Reads a private key file, refusing one that others can read. */
export function readReaderKeyFile(path: string): Uint8Array {
  const read = readOwnerOnlyFile(path);
  if (read.found === 'missing')
    throw new ReaderKeyError('READER_KEY_FILE_MISSING', `The key file ${path} does not exist.`, 'Check the path of the key file.');
  if (read.found === 'open-to-others') {
    throw new ReaderKeyError(
      'READER_KEY_FILE_OPEN',
      `The key file ${path} can be read by others (mode ${read.mode}); a private key that others may have copied is refused.`,
      `Make it private with \`chmod 600 ${path}\`, and if others may have read it, rotate the Service Account's key in the dashboard.`,
    );
  }
  return decodeReaderKey(read.text, `The key file ${path}`);
}
