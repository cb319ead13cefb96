/**
 * The API layer: the operation table, the typed client and its errors. All
 * knowledge of wire shapes lives in this folder.
 */
export {
  ApiClient,
  createClient,
  identityOf,
  isLoopbackHost,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  MAX_PAGE_SIZE,
  DEFAULT_LIST_LIMITS,
  type ListLimits,
  type ClientEvent,
  type ClientOptions,
  type CallOptions,
  type RawRequest,
  type ApiResponse,
  type TokenIdentity,
  type ItemOf,
} from './client.js';
export {
  ApiError,
  IdentityRefusedError,
  InsecureTransportError,
  ListTooLargeError,
  NetworkError,
  ResponseTooLargeError,
} from './errors.js';
export { routes, routeNames, fillPath, type Route, type RouteName } from './routes.js';
export type { NotFoundReason } from './operations.js';
export {
  operations,
  operationNames,
  type OperationName,
  type OperationSpec,
  type RequestOf,
  type ResultOf,
  type BodyOf,
  type QueryOf,
  type PathParams,
} from './operations.js';
export { defaultRetryPolicy, type RetryPolicy } from '@cplane/sdk/internal/retry';
export type * from './shapes.js';
