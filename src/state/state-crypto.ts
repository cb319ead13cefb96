/**
 * The state's cryptography, apart from its storage: fingerprints of write-only
 * values, sealing of one-time secrets and journal bodies, and client-side
 * encryption of record values, all under keys derived from the state key.
 *
 * A sealed value's associated data binds it to the account, the lineage (this
 * state's history) and the address, so a value copied from another state made
 * with the same key, or to another address, does not open.
 */
import type { EncryptedValueT } from '../api/shapes.js';
import { fingerprint as fingerprintOf } from '../crypto/fingerprint.js';
import { decryptRecordValue, openDataKey, recordKek, sealRecordValue, type ValueBinding } from '../crypto/record-value.js';
import type { WriterKey } from '@cplane/sdk/internal/writer-key';
import { openSecret, sealSecret, SealError } from '../crypto/seal.js';
import type { SealedValue } from '../crypto/seal.js';
import { deriveSubkey } from '../crypto/state-key.js';
import { StateError } from './errors.js';

export interface StateCrypto {
  /** HMAC-SHA256 (hex) of a write-only value, keyed by the state key and bound to `${address}:${field}`. */
  fingerprint(address: string, field: string, value: string): string;
  /**
   * What a write-only field's fingerprint is while the step that writes it has not finished (no value's
   * fingerprint is this): a value written, but not yet wrapped for its readers, is written again by the next plan.
   */
  unfinished(address: string, field: string): string;
  /** Seals a one-time secret of `address`; it opens only in this state, for the same address and key. */
  seal(address: string, plaintext: string): SealedValue;
  open(address: string, sealed: SealedValue): string;
  /** Seals the exact body bytes of a journal entry for `address`. */
  sealBody(address: string, bytes: string): SealedValue;
  openBody(address: string, sealed: SealedValue): string;
  /**
   * Encrypts a record value on the client into the API's EncryptedValue, under a key derived from the state key
   * and bound to its place (account, record, version); also returns the value's fresh data key and digest, so
   * the same apply can wrap it for the record's readers.
   */
  sealRecordValue(plaintext: string, binding: ValueBinding): { value: EncryptedValueT; dataKey: Uint8Array; digest: string };
  decryptRecordValue(value: EncryptedValueT, binding: ValueBinding): string;
  /**
   * The data key of a value this state encrypted for that place, from cplane's own wrapper: what is wrapped
   * again for each reader (@cplane/sdk: packages/sdk/src/data-key-wrap.ts). Refused (WrapError) for a value of another place.
   */
  openRecordDataKey(value: EncryptedValueT, binding: ValueBinding): Uint8Array;
  /** cplane's writer key (@cplane/sdk: packages/sdk/src/writer-key.ts), derived from the state key: readers' wrappers are sealed with it. */
  writerKey(): Promise<WriterKey>;
  /** A key derived from the state key for a use outside state, named by `use` (the MAC of a saved plan: saved-plan/mac.ts). */
  subkey(use: 'plan file mac'): Uint8Array;
}

/** Which state a sealed value belongs to. */
export interface SealBinding {
  account: string;
  lineage: string;
}

/** Associated data of a sealed value: format 2 binds account, lineage and address; format 1 (before the migration) only the address. */
export function sealedAad(binding: SealBinding | 'address-only', address: string, use: 'value' | 'body'): string {
  const place = use === 'body' ? `journal:${address}` : address;
  if (binding === 'address-only') return place;
  return `cplane/sealed/v2\0${binding.account}\0${binding.lineage}\0${place}`;
}

export interface StateKeys {
  seal: Uint8Array;
  fingerprint: Uint8Array;
  record: Uint8Array;
  /** A key for a use outside state (see `StateCrypto.subkey`). */
  subkey: (use: 'plan file mac') => Uint8Array;
  /** Derived when first used (loading HPKE then): most commands, a plan among them, wrap nothing. */
  writer: () => Promise<WriterKey>;
}

export function stateKeys(key: Uint8Array): StateKeys {
  let writer: Promise<WriterKey> | undefined;
  return {
    seal: deriveSubkey(key, 'seal'),
    fingerprint: deriveSubkey(key, 'fingerprint'),
    record: recordKek(key),
    subkey: (use) => deriveSubkey(key, use),
    writer: () =>
      (writer ??= import('@cplane/sdk/internal/writer-key').then(({ writerKeyOf }) => writerKeyOf(deriveSubkey(key, 'writer key')))),
  };
}

/**
 * `fingerprintAddress` names the address a resource's fingerprints were made
 * for (it differs after `cplane state mv`, since they cannot be remade without the secret).
 */
export function createStateCrypto(
  keys: () => StateKeys,
  binding: SealBinding | 'address-only',
  fingerprintAddress: (address: string) => string,
): StateCrypto {
  const openWith = (address: string, sealed: SealedValue, aad: string): string => {
    try {
      return openSecret(keys().seal, sealed, aad);
    } catch (error) {
      if (!(error instanceof SealError)) throw error;
      throw new StateError(
        'STATE_SEALED_VALUE',
        `A sealed value of ${address} does not open: it was sealed for another address or another state, or altered.`,
        'Sealed values cannot be moved by editing the file; use `cplane state mv` to rename an address.',
        { cause: error },
      );
    }
  };
  return {
    fingerprint: (address, field, value) => fingerprintOf(keys().fingerprint, value, `${fingerprintAddress(address)}:${field}`),
    unfinished: (address, field) => fingerprintOf(keys().fingerprint, '', `${fingerprintAddress(address)}:${field}:unfinished`),
    seal: (address, plaintext) => sealSecret(keys().seal, plaintext, sealedAad(binding, address, 'value')),
    open: (address, sealed) => openWith(address, sealed, sealedAad(binding, address, 'value')),
    sealBody: (address, bytes) => sealSecret(keys().seal, bytes, sealedAad(binding, address, 'body')),
    openBody: (address, sealed) => openWith(address, sealed, sealedAad(binding, address, 'body')),
    sealRecordValue: (plaintext, binding) => sealRecordValue(keys().record, plaintext, binding),
    decryptRecordValue: (value, binding) => decryptRecordValue(keys().record, value, binding),
    openRecordDataKey: (value, binding) => openDataKey(keys().record, value, binding),
    writerKey: () => keys().writer(),
    subkey: (use) => keys().subkey(use),
  };
}

/** Re-seals a value sealed under format 1 (bound to the address only) for this state (format 2). */
export function resealLegacy(
  keys: StateKeys,
  binding: SealBinding,
  address: string,
  use: 'value' | 'body',
  sealed: SealedValue,
): SealedValue {
  let plaintext: string;
  try {
    plaintext = openSecret(keys.seal, sealed, sealedAad('address-only', address, use));
  } catch (error) {
    if (!(error instanceof SealError)) throw error;
    throw new StateError(
      'STATE_SEALED_VALUE',
      `A sealed value of ${address} does not open while upgrading the state: it was sealed for another address, or altered.`,
      'Restore the state from state.json.backup or your own copy, or remove the address with `cplane state rm`.',
      { cause: error },
    );
  }
  return sealSecret(keys.seal, plaintext, sealedAad(binding, address, use));
}
