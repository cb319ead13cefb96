/**
 * `cplane force-unlock LOCK_ID`: clears a state lock left by a run that died.
 * Only the lock with that id is removed, so a lock taken since is safe; a
 * holder still running on this host is refused unless --force is given.
 */
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { forceUnlockState, printableLock } from '../../state/index.js';
import { locateStateOnly } from '../../session/workspace.js';

const usage = 'force-unlock LOCK_ID [dir] [options]';

export const forceUnlockCommand: CommandModule = {
  async run(ctx) {
    const [lockId, dir, ...extra] = ctx.positionals;
    if (!lockId || extra.length > 0) throw new AbortError('Expected LOCK_ID (and an optional [dir]).', `Usage: cplane ${usage}`);
    const location = await locateStateOnly(ctx, dir);
    const { path, removed } = await forceUnlockState({ ...location, lockId, force: ctx.values.force === true });
    const shown = printableLock(removed);
    ctx.stdout.write(
      `Removed lock ${shown.id} of ${path} (held by pid ${shown.pid} on ${shown.host}, \`${shown.command}\`, since ${shown.time}).\n`,
    );
    return 0;
  },
};
