/**
 * Readers' key pairs of the emulator's fixtures: every Service Account, user
 * and group has a fixed X25519 key pair, derived (RFC 9180 DeriveKeyPair) from
 * a fixed public seed and its id, so they are the same on every run and
 * `cplane emulator --print-fixtures` can print them. They are test values,
 * public by design; no real service derives keys like this.
 *
 * The emulator uses the private keys to check that a grant's or share's
 * wrapper opens with the recipient's key. The real service checks a wrapper's
 * binding differently (it never holds a reader's private key); the emulator
 * is stricter, which is what tests need: a fake wrapper is refused.
 */
import { keyIdOf } from '@cplane/sdk/internal/key-id';
import { parseWrappedDek, unwrapDataKey } from '@cplane/sdk/internal/data-key-wrap';
import { WrapError } from '@cplane/sdk/internal/wrap-error';
import { deriveKeyPair, recipientOf, type HpkeKeyPair, type HpkeRecipient } from '@cplane/sdk/internal/hpke';
import { valueDigest } from '../crypto/record-value.js';
import { badRequest, conflict } from './errors.js';
import type { Db } from './store.js';

const SEED = 'cplane emulator fixture key v1 (a public test value)';

/** Users that have not set up a key yet (shares to them are `recipient_public_key_not_found`). */
export const KEYLESS_USER_IDS: readonly string[] = ['0b000000-0000-4000-8000-000000000002'];

const pairs = new Map<string, HpkeKeyPair>();
const recipients = new Map<string, HpkeRecipient>();

/** The fixture private key made ready for opening, kept: the emulator checks every grant with it. */
function fixtureRecipient(principalId: string): HpkeRecipient {
  let recipient = recipients.get(principalId);
  if (!recipient) {
    recipient = recipientOf(fixtureKeyPair(principalId).privateKey);
    recipients.set(principalId, recipient);
  }
  return recipient;
}

/** The fixed key pair of a fixture principal (Service Account, user or group) by id. */
export function fixtureKeyPair(principalId: string): HpkeKeyPair {
  let pair = pairs.get(principalId);
  if (!pair) {
    pair = deriveKeyPair(new TextEncoder().encode(`${SEED}\0${principalId}`));
    pairs.set(principalId, pair);
  }
  return pair;
}

/** What the emulator stores and lists of a reader's key: public key (base64) and key id. */
export function publicKeyFields(principalId: string): { public_key: string; key_id: string } {
  const { publicKey } = fixtureKeyPair(principalId);
  return { public_key: Buffer.from(publicKey).toString('base64'), key_id: keyIdOf(publicKey) };
}

/** The base64 key pair as `--print-fixtures` shows it. */
export function printableKeyPair(principalId: string): { publicKey: string; privateKey: string; keyId: string } {
  const { publicKey, privateKey } = fixtureKeyPair(principalId);
  return {
    publicKey: Buffer.from(publicKey).toString('base64'),
    privateKey: Buffer.from(privateKey).toString('base64'),
    keyId: keyIdOf(publicKey),
  };
}

/** The record a wrapper is checked against: its id, account, and current value version (with its ciphertext). */
export interface WrappedRecord {
  record_id: string;
  account_id: string;
  current_version: number | null;
  versions: readonly { version: number; ciphertext: string; wrapper: { nonce?: string } }[];
}

/**
 * "Wrapper valid" (spec, Service Account key on a record): the wrapper is in cplane's HPKE format, made for
 * the record's current value version, its account and ciphertext, and this recipient, and opens with the
 * recipient's key as sealed by the writer its header names (the emulator judges no writer's trust: readers
 * do). A wrapper of an older version is 409 `key_version_conflict`; anything else that does not open is
 * 400 `invalid_wrapper`.
 */
export function checkWrapper(wrappedDek: string, record: WrappedRecord, recipientId: string): void {
  const { record_id: recordId, current_version: currentVersion } = record;
  let header;
  try {
    header = parseWrappedDek(wrappedDek);
  } catch (error) {
    if (error instanceof WrapError) throw badRequest('invalid_wrapper', [`wrappedDek: ${error.message}`]);
    throw error;
  }
  if (currentVersion === null) throw conflict('record_has_no_value');
  if (header.version !== currentVersion) throw conflict('key_version_conflict');
  const current = record.versions.find((v) => v.version === currentVersion)!;
  try {
    if (header.accountId !== record.account_id)
      throw new WrapError('WRAP_OPEN_FAILED', `the wrapper is for account ${header.accountId}, not ${record.account_id}`);
    unwrapDataKey({
      wrappedDek,
      recipientPrivateKey: fixtureRecipient(recipientId),
      recordId,
      version: currentVersion,
      recipientId,
      valueDigest: valueDigest(current),
      trustedWriters: 'any',
    });
  } catch (error) {
    if (error instanceof WrapError) throw badRequest('invalid_wrapper', [`wrappedDek: ${error.message}`]);
    throw error;
  }
}

/** A data file saved before readers had keys: gives its Service Accounts, users and groups their fixed keys. */
export function addMissingReaderKeys(db: Db): Db {
  for (const sa of db.serviceAccounts) if (!sa.public_key) Object.assign(sa, publicKeyFields(sa.service_account_id));
  for (const user of db.users)
    if (user.public_key === undefined)
      user.public_key = KEYLESS_USER_IDS.includes(user.user_id) ? null : publicKeyFields(user.user_id).public_key;
  for (const group of db.groups) if (!group.public_key) group.public_key = publicKeyFields(group.group_id).public_key;
  return db;
}
