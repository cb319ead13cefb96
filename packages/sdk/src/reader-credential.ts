/**
 * The one secret an application holds (`CPLANE_READER`): its Service Account's token and private key as one
 * string, `cplane-reader-1.<token>.<key>.<check>`, each part base64url. The token is encoded because a bearer
 * token may itself hold dots (the API declares JWT); the check (8 characters of a SHA-256 of the rest) tells a
 * string cut short or mistyped in a copy from one that is whole. Errors say which part is wrong and never echo
 * the string or a part of it.
 */
import { createHash } from 'node:crypto';

export const READER_CREDENTIAL_PREFIX = 'cplane-reader-1';

export interface ReaderCredential {
  /** The Service Account token (`sk-svc-sa-…`). */
  token: string;
  /** The Service Account's X25519 private key (32 bytes). */
  privateKey: Uint8Array;
}

/** A credential that cannot be read; the message names the part, never its text. */
export class ReaderCredentialError extends Error {
  override readonly name = 'ReaderCredentialError';
  readonly code = 'READER_CREDENTIAL_INVALID';
}

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const checkOf = (body: string) => createHash('sha256').update(body).digest('base64url').slice(0, 8);

/** The credential string of a Service Account token and private key. */
export function encodeReaderCredential(credential: ReaderCredential): string {
  if (!credential.token.startsWith('sk-svc-sa-'))
    throw new ReaderCredentialError(
      'The token of a reader credential must be a Service Account token (sk-svc-sa-…): an application never holds a personal access token.',
    );
  if (/\s/.test(credential.token))
    throw new ReaderCredentialError('The Service Account token contains white space: copy it again without spaces or line breaks.');
  if (credential.privateKey.length !== 32)
    throw new ReaderCredentialError('The private key of a reader credential is an X25519 private key of exactly 32 bytes.');
  const body = `${READER_CREDENTIAL_PREFIX}.${base64url(credential.token)}.${base64url(credential.privateKey)}`;
  return `${body}.${checkOf(body)}`;
}

/** The token and key of a credential string; `where` names its source (e.g. `CPLANE_READER`). */
export function decodeReaderCredential(text: string | undefined, where: string): ReaderCredential {
  if (text === undefined || text.trim() === '') {
    throw new ReaderCredentialError(
      `${where} is not set: give the application its reader credential (cplane-reader-1.…), made by the owner of the configuration from the Service Account's token and private key.`,
    );
  }
  const parts = text.trim().split('.');
  if (parts[0] !== READER_CREDENTIAL_PREFIX) {
    const hint = parts[0]?.startsWith('cplane-reader-')
      ? 'a format this version of @cplane/sdk does not read: upgrade it'
      : 'not a reader credential';
    throw new ReaderCredentialError(`${where} does not start with "${READER_CREDENTIAL_PREFIX}.": it is ${hint}.`);
  }
  if (parts.length !== 4)
    throw new ReaderCredentialError(
      `${where} has ${parts.length} parts separated by dots, not 4 (${READER_CREDENTIAL_PREFIX}, token, key, check): copy it again whole.`,
    );
  const [, tokenPart, keyPart, check] = parts as [string, string, string, string];
  if (checkOf(parts.slice(0, 3).join('.')) !== check)
    throw new ReaderCredentialError(
      `${where} fails its check (its last part): it was cut short or altered in a copy; copy it again whole.`,
    );
  const isBase64url = (part: string) => /^[A-Za-z0-9_-]+$/.test(part);
  const token = isBase64url(tokenPart) ? Buffer.from(tokenPart, 'base64url').toString('utf8') : '';
  if (!token.startsWith('sk-svc-sa-') || /\s/.test(token))
    throw new ReaderCredentialError(`The token part of ${where} (its second part) is not a Service Account token.`);
  const privateKey = isBase64url(keyPart) ? new Uint8Array(Buffer.from(keyPart, 'base64url')) : new Uint8Array();
  if (privateKey.length !== 32)
    throw new ReaderCredentialError(`The key part of ${where} (its third part) is not an X25519 private key of 32 bytes.`);
  return { token, privateKey };
}
