/**
 * `cplane destroy [dir]`: archives, deletes and revokes everything in the
 * state, in reverse dependency order, honouring preventDestroy. It is an apply
 * of the destroy plan, with the same journal, approval and output.
 */
import type { Command } from '../command.js';
import { applyHelp, applyOptions, runApply } from './apply.js';

export const destroyCommand: Command = {
  name: ['destroy'],
  summary: 'Archive, delete and revoke everything in the state (honours preventDestroy)',
  usage: 'destroy [dir] [--auto-approve] [--target ADDRESS ...] [--parallelism N] [--json] [--no-input] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
  help: applyHelp,
  options: applyOptions,
  run: (ctx) => runApply(ctx, 'destroy'),
};
