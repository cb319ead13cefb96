// CPLANE_READER, the one secret of an application: a Service Account's token and private key as one string. What is
// wrong with a damaged one is said by part (prefix, parts, check, token, key), never echoing the string or a part;
// a personal access token is never made into one. And the manifest's own checks: a file that is not one, a deployment
// left unnamed among several.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ManifestError } from '@cplane/sdk';
import { checkManifest, createReader, decodeReaderCredential, encodeReaderCredential, ReaderCredentialError } from '@cplane/sdk';

const token = 'sk-svc-sa-reader.credential.test-4471';
const privateKey = new Uint8Array(randomBytes(32));
const credential = encodeReaderCredential({ token, privateKey });

/** The error `decodeReaderCredential` throws for `text`, checked to echo no part of it. */
function refusal(text: string | undefined): string {
  try {
    decodeReaderCredential(text, 'CPLANE_READER');
  } catch (error) {
    expect(error).toBeInstanceOf(ReaderCredentialError);
    expect((error as ReaderCredentialError).code).toBe('READER_CREDENTIAL_INVALID');
    const { message } = error as Error;
    for (const part of (text ?? '').split('.').slice(1)) if (part.length > 3) expect(message).not.toContain(part);
    expect(message).not.toContain(token);
    return message;
  }
  throw new Error('accepted');
}

describe('the reader credential', () => {
  it('holds the token and the key, and gives them back', () => {
    expect(credential.startsWith('cplane-reader-1.')).toBe(true);
    expect(credential).not.toContain(token);
    expect(decodeReaderCredential(`  ${credential}\n`, 'CPLANE_READER')).toEqual({ token, privateKey });
  });

  it('says which part of a damaged one is wrong', () => {
    const [prefix, tokenPart, keyPart, check] = credential.split('.') as [string, string, string, string];
    expect(refusal(undefined)).toMatch(/^CPLANE_READER is not set/);
    expect(refusal('sk-svc-sa-plain-token')).toBe('CPLANE_READER does not start with "cplane-reader-1.": it is not a reader credential.');
    expect(refusal(credential.replace(prefix, 'cplane-reader-2'))).toContain(
      'a format this version of @cplane/sdk does not read: upgrade it',
    );
    expect(refusal(`${prefix}.${tokenPart}.${keyPart}`)).toBe(
      'CPLANE_READER has 3 parts separated by dots, not 4 (cplane-reader-1, token, key, check): copy it again whole.',
    );
    expect(refusal(`${prefix}.${tokenPart}.${keyPart.slice(1)}.${check}`)).toBe(
      'CPLANE_READER fails its check (its last part): it was cut short or altered in a copy; copy it again whole.',
    );
  });

  it('names the token or the key part when the check passes but the part is not one', () => {
    const made = (tokenText: string, key: Uint8Array) => {
      const body = `cplane-reader-1.${Buffer.from(tokenText).toString('base64url')}.${Buffer.from(key).toString('base64url')}`;
      // The check of a well-formed string, computed as the encoder does (it refuses these parts itself).
      return `${body}.${createHash('sha256').update(body).digest('base64url').slice(0, 8)}`;
    };
    expect(refusal(made('sk-svc-pat-human', privateKey))).toBe(
      'The token part of CPLANE_READER (its second part) is not a Service Account token.',
    );
    expect(refusal(made(token, privateKey.subarray(0, 16)))).toBe(
      'The key part of CPLANE_READER (its third part) is not an X25519 private key of 32 bytes.',
    );
  });

  it('is never made from a personal access token', () => {
    expect(() => encodeReaderCredential({ token: 'sk-svc-pat-someone', privateKey })).toThrow(/must be a Service Account token/);
  });
});

describe('the manifest', () => {
  const deployment = { baseUrl: 'https://api.example.com', accountId: '0a000000-0000-4000-8000-000000000001', writerKeys: [], records: {} };

  it('refuses a file that is not a manifest this version reads, saying what to do', () => {
    expect(() => checkManifest({ version: 2, serviceAccount: 'x', deployments: {} }, 'm.json')).toThrow(
      'The reader manifest m.json is not valid: its version is 2, and this version of @cplane/sdk reads version 1 (upgrade @cplane/sdk for a newer one). Write it again with `cplane reader-manifest`.',
    );
    expect(() => checkManifest({ version: 1, serviceAccount: 'x', deployments: { prod: deployment } }, 'm.json')).toThrow(
      'deployment "prod": writerKeys is not a list of writer keys',
    );
  });

  it('wants a deployment named when it has several', () => {
    const error = (() => {
      try {
        createReader({ manifest: { version: 1, serviceAccount: 'x', deployments: {} }, credential, deployment: '' });
      } catch (caught) {
        return caught as ManifestError;
      }
    })();
    expect(error?.code).toBe('DEPLOYMENT_REQUIRED');
  });
});
