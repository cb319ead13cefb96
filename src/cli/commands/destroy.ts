/**
 * `cplane destroy [dir]`: archives, deletes and revokes everything in the
 * state, in reverse dependency order, honouring preventDestroy. It is an apply
 * of the destroy plan, with the same journal, approval and output.
 */
import type { CommandModule } from '../../session/command-context.js';
import { runApply } from './apply.js';

export const destroyCommand: CommandModule = {
  run: (ctx) => runApply(ctx, 'destroy'),
};
