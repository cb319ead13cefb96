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
export type { WrapDataKeyRequest, UnwrapDataKeyRequest, UnwrappedDataKey, WrapErrorCode } from '../crypto/data-key-wrap.js';
export { generateKeyPair, publicKeyOf, recipientOf, type HpkeKeyPair, type HpkeSender } from '../crypto/hpke.js';
export { decryptAsReader, type RecordFields, type ReaderValue } from '../crypto/read-value.js';
export { valueDigest } from '../crypto/record-value.js';
export { decodeReaderKey, readReaderKeyFile, ReaderKeyError } from '../crypto/reader-key.js';
export { parseWriterKeys } from '../crypto/writer-key.js';
export { readSecret, readSecretValue, readRecordFields, type ReadSecretOptions } from './read-secret.js';
