/**
 * Builds the writes kind definitions return: the operation, its path and body
 * templates, what to record in state, and a one-line summary for people.
 */
import type { OperationName } from '../api/operations.js';
import { routes } from '../api/routes.js';
import type { Template, WriteEffects } from '../plan-model/index.js';
import type { WriteSpec } from './types.js';

export function writeSpec(
  operation: OperationName,
  parts: { path?: Record<string, Template>; body?: Template; effects?: WriteEffects },
  what: string,
): WriteSpec {
  const spec = routes[operation];
  const write: WriteSpec = {
    operation,
    path: parts.path ?? {},
    effects: parts.effects ?? {},
    summary: `${spec.method} ${spec.path} (${what})`,
  };
  if (parts.body !== undefined) write.body = parts.body;
  return write;
}
