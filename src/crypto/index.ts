/**
 * Cryptography of the state store: sealing secrets, fingerprinting write-only
 * values, and finding the state key.
 */
export { sealSecret, openSecret, SealError } from './seal.js';
export type { SealErrorCode } from './seal.js';
export { fingerprint } from './fingerprint.js';
export { resolveStateKey, keyFilePath, keyCheckOf, keyMatchesCheck, deriveSubkey, newKdfParams, SCRYPT_PARAMS } from './state-key.js';
export type { KdfParams, KeySource, StateKey, ResolveKeyOptions, KeyErrorCode } from './state-key.js';
export { KeyError } from './state-key.js';
export type { SealedValue } from './seal.js';
