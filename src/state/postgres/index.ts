/**
 * The PostgreSQL state backend: a `postgres://` URL given as --state,
 * CPLANE_STATE or `state: { url }` selects it. See docs/state.md.
 */
export { PostgresBackend, DEFAULT_WORKSPACE } from './backend.js';
export type { PostgresBackendOptions, StateVersion } from './backend.js';
export { isPostgresUrl, maskUrl, parsePostgresUrl, DEFAULT_SCHEMA } from './url.js';
