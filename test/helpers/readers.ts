// Wrappers made the way a client library makes them, for the emulator's fixture readers (whose key pairs the
// emulator derives from a public seed), so tests can grant and share records with wrappers that open.
import { randomBytes } from 'node:crypto';
import { wrapDataKey } from '../../src/crypto/data-key-wrap.js';
import { fixtureKeyPair, printableKeyPair } from '../../src/emulator/keys.js';

/** A data key wrapped for a fixture reader (Service Account, user or group id) for one record version. */
export function wrapperFor(recordId: string, version: number, readerId: string, dataKey: Uint8Array = randomBytes(32)): string {
  return wrapDataKey({ dataKey, recipientPublicKey: fixtureKeyPair(readerId).publicKey, recordId, version, recipientId: readerId });
}

/** A fixture reader's private key, base64, as `cplane emulator --print-fixtures` prints it. */
export function privateKeyOf(readerId: string): string {
  return Buffer.from(fixtureKeyPair(readerId).privateKey).toString('base64');
}

/** A `directory:` block declaring fixture users and groups (local name -> id) with their public keys. */
export function directoryYaml(readers: { users?: Record<string, string>; groups?: Record<string, string> }): string {
  const section = (name: string, entries: Record<string, string> | undefined) =>
    entries ? `  ${name}:\n${Object.entries(entries).map(([local, id]) => `    ${local}: { id: ${id}, publicKey: "${printableKeyPair(id).publicKey}" }\n`).join('')}` : '';
  return `directory:\n${section('users', readers.users)}${section('groups', readers.groups)}`;
}
