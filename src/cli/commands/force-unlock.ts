/**
 * `cplane force-unlock LOCK_ID`: clears a state lock left by a run that died.
 * Only the lock with that id is removed, so a lock taken since is safe.
 */
import type { Command } from '../command.js';
import { AbortError } from '../errors.js';
import { forceUnlockState } from '../../state/index.js';
import { stateHelp, stateLocation, stateOptions } from './state.js';

const usage = 'force-unlock LOCK_ID [dir] [--account ID] [--state PATH|URL] [--force]';

export const forceUnlockCommand: Command = {
  name: ['force-unlock'],
  summary: 'Remove a stale state lock, given its lock id',
  usage,
  help: ['LOCK_ID         the lock id printed by the error that reported the lock', ...stateHelp, '--force         PostgreSQL state: end the live database session that holds the lock'],
  options: { ...stateOptions, force: { type: 'boolean' } },
  async run(ctx) {
    const [lockId, dir, ...extra] = ctx.positionals;
    if (!lockId || extra.length > 0) throw new AbortError('Expected LOCK_ID (and an optional [dir]).', `Usage: cplane ${usage}`);
    const { path, removed } = await forceUnlockState({ ...stateLocation(ctx, dir), lockId, terminate: ctx.values.force === true });
    ctx.stdout.write(`Removed lock ${removed.id} of ${path} (held by pid ${removed.pid} on ${removed.host}, \`${removed.command}\`, since ${removed.time}).\n`);
    return 0;
  },
};
