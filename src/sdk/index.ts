/**
 * cplane as a library (`import … from 'cplane/sdk'`): the typed API client and
 * the local cryptography of records, for an application that reads its secret
 * with its Service Account credential (docs/sdk.md has the example), and for
 * tools that grant a record to a reader by wrapping its data key.
 */
export { ApiClient, createClient, type ClientOptions, type CallOptions } from '../api/client.js';
export { ApiError, IdentityRefusedError, NetworkError } from '../api/errors.js';
export type { OperationName, RequestOf, ResultOf } from '../api/operations.js';
export type { EncryptedValueT, RecordMetaT, ServiceAccountT } from '../api/shapes.js';
export { wrapDataKey, unwrapDataKey, keyIdOf, isHpkeWrapper, WrapError, WRAP_FORMAT } from '../crypto/data-key-wrap.js';
export type { WrapDataKeyRequest, UnwrapDataKeyRequest, WrapErrorCode } from '../crypto/data-key-wrap.js';
export { generateKeyPair, publicKeyOf, type HpkeKeyPair } from '../crypto/hpke.js';
export { decryptAsReader, type RecordFields } from '../crypto/read-value.js';
export { decodeReaderKey, readReaderKeyFile, ReaderKeyError } from '../crypto/reader-key.js';
export { readSecret, readRecordFields, type ReadSecretOptions } from './read-secret.js';
