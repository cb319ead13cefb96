// Wrappers made the way a client library makes them, for the emulator's fixture readers (whose key pairs the
// emulator derives from a public seed), so tests can grant and share records with wrappers that open.
import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../../src/api/client.js';
import { encodeReaderCredential } from '@cplane/sdk';
import { wrapDataKey } from '@cplane/sdk/internal/data-key-wrap';
import { deriveKeyPair, recipientOf } from '@cplane/sdk/internal/hpke';
import { valueDigest } from '../../src/crypto/record-value.js';
import { fixtureKeyPair, printableKeyPair } from '../../src/emulator/keys.js';
import { fixtures } from '../../src/emulator/index.js';

/** A writer key of the tests' own (not cplane's): the writer of the wrappers these helpers make. */
const testWriterPair = deriveKeyPair(new TextEncoder().encode('cplane tests: a writer key (a public test value)'));
export const testWriter = {
  sender: recipientOf(testWriterPair.privateKey),
  publicKey: Buffer.from(testWriterPair.publicKey).toString('base64'),
};

/** The value version a wrapper is made for: its record, account, version and the digest of its ciphertext. */
export interface ValuePlace {
  accountId: string;
  recordId: string;
  version: number;
  digest: string;
}

/** The place of a record's current value, read as its owner (the fields' ciphertext gives the digest). */
export async function placeOf(client: ApiClient, recordId: string, accountId: string = fixtures.accounts[0]!.id): Promise<ValuePlace> {
  const fields = (await client.call('readRecord', { path: { id: recordId }, body: { scope: ['fields'] } })).fields!;
  return { accountId, recordId, version: fields.version, digest: valueDigest(fields) };
}

/** A data key wrapped for a fixture reader (Service Account, user or group id) for one value version, by the tests' writer. */
export function wrapperFor(place: ValuePlace, readerId: string, dataKey: Uint8Array = randomBytes(32)): string {
  const { accountId, recordId, version, digest } = place;
  return wrapDataKey({
    dataKey,
    recipientPublicKey: fixtureKeyPair(readerId).publicKey,
    accountId,
    recordId,
    version,
    recipientId: readerId,
    valueDigest: digest,
    writer: testWriter.sender,
    wrappedAt: new Date(),
  });
}

/** A fixture reader's private key, base64, as `cplane emulator --print-fixtures` prints it. */
export function privateKeyOf(readerId: string): string {
  return Buffer.from(fixtureKeyPair(readerId).privateKey).toString('base64');
}

/** A `directory:` block declaring fixture users and groups (local name -> id) with their public keys. */
export function directoryYaml(readers: { users?: Record<string, string>; groups?: Record<string, string> }): string {
  const section = (name: string, entries: Record<string, string> | undefined) =>
    entries
      ? `  ${name}:\n${Object.entries(entries)
          .map(([local, id]) => `    ${local}: { id: ${id}, publicKey: "${printableKeyPair(id).publicKey}" }\n`)
          .join('')}`
      : '';
  return `directory:\n${section('users', readers.users)}${section('groups', readers.groups)}`;
}

/** The configuration the reader tests read through a lying server: two records granted to the CI deployer. */
export function twoGrantedRecords(projectName: string): string {
  return `version: 1
projects:
  payments:
    name: ${projectName}
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants: { serviceAccounts: [ci-deployer] }
      db-password:
        value: { env: DB_PASSWORD }
        grants: { serviceAccounts: [ci-deployer] }
`;
}

/** The CI deployer's reader credential (its token and the private key the emulator derives for it). */
export function ciDeployerCredential(): string {
  return encodeReaderCredential({
    token: fixtures.tokens.serviceAccount,
    privateKey: Buffer.from(privateKeyOf(fixtures.serviceAccounts[0]!.id), 'base64'),
  });
}
