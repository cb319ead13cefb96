/**
 * `cplane/sdk`, kept for applications that import it from the cplane package: everything of `@cplane/sdk` (the
 * package an application installs on its own, packages/sdk; docs/sdk.md), with cplane's typed client of every
 * operation in place of the SDK's small client of the read operations. `readSecret` takes either.
 */
export * from '@cplane/sdk';
export { ApiClient, createClient, type ClientOptions, type CallOptions } from '../api/client.js';
export { ApiError, IdentityRefusedError, NetworkError } from '../api/errors.js';
export type { OperationName, RequestOf, ResultOf } from '../api/operations.js';
export type { EncryptedValueT, RecordMetaT, ServiceAccountT } from '../api/shapes.js';
