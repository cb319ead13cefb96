/**
 * @cplane/sdk: what an application needs to read its secrets with its Service Account credential (docs/sdk.md):
 * a small client of the read operations, local decryption of a record's value with the reader's private key,
 * accepted only from a pinned writer key and never at an older version than already seen, and the errors that
 * say what is missing and who must act. Tools that grant a record to a reader wrap its data key with
 * `wrapDataKey`. An application that reads by name uses `createReader` with a manifest and one credential.
 */
export {
  Client,
  createClient,
  identityOf,
  type Account,
  type ClientOptions,
  type ReaderClient,
  type ReaderOperations,
  type TokenIdentity,
} from './client.js';
export { AccountError, ApiError, NetworkError, WatchError, type AccountErrorCode, type WatchErrorCode } from './errors.js';
export { discoverAccount } from './account.js';
export { wrapDataKey, unwrapDataKey, keyIdOf, isHpkeWrapper, WrapError, WRAP_FORMAT } from './data-key-wrap.js';
export type { WrapDataKeyRequest, UnwrapDataKeyRequest, UnwrappedDataKey, WrapErrorCode } from './data-key-wrap.js';
export { generateKeyPair, publicKeyOf, recipientOf, type HpkeKeyPair, type HpkeSender } from './hpke.js';
export { decryptAsReader, type RecordFields, type ReaderValue } from './read-value.js';
export { valueDigest, type EncryptedValue } from './record-value.js';
export { decodeReaderKey, readReaderKeyFile, ReaderKeyError, type ReaderKeyErrorCode } from './reader-key.js';
export { parseWriterKeys, WriterKeyListError } from './writer-key.js';
export { readSecret, readSecretValue, readRecordFields, type ReadSecretOptions } from './read-secret.js';
export {
  createReader,
  type NamedValue,
  type PollTimers,
  type Reader,
  type ReaderOptions,
  type WatchedVersion,
  type WatchOptions,
} from './reader.js';
export {
  checkManifest,
  loadManifest,
  ManifestError,
  MANIFEST_VERSION,
  type ManifestDeployment,
  type ManifestErrorCode,
  type ManifestRecord,
  type ReaderManifest,
} from './manifest.js';
export {
  decodeReaderCredential,
  encodeReaderCredential,
  ReaderCredentialError,
  READER_CREDENTIAL_PREFIX,
  type ReaderCredential,
} from './reader-credential.js';
