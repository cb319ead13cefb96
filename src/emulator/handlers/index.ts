/**
 * One handler per operation of the table, gathered from the area modules. The
 * `satisfies Handlers` check makes a missing or mistyped handler a type error.
 */
import type { Handlers } from '../handler-call.js';
import { accessHandlers } from './access.js';
import { auditHandlers } from './audit.js';
import { gatewayHandlers } from './gateways.js';
import { projectHandlers } from './projects.js';
import { providerHandlers } from './providers.js';
import { recordHandlers } from './records.js';
import { tokenHandlers } from './tokens.js';
import { usageHandlers } from './usage.js';

export const handlers = {
  ...projectHandlers,
  ...recordHandlers,
  ...auditHandlers,
  ...providerHandlers,
  ...gatewayHandlers,
  ...tokenHandlers,
  ...usageHandlers,
  ...accessHandlers,
} satisfies Handlers;
