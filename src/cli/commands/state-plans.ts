/**
 * `cplane state plans [--forget PR]`: the open plans registered with the state (docs/state.md), and forgetting a
 * closed pull request's. Registry entries are untrusted text: printed through safeText.
 */
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { openStateFor } from '../../session/workspace.js';
import { safeText } from '../../text/safe-text.js';
import { takePositionals } from './state.js';
import { jsonText } from '../../text/json-text.js';

export const statePlansCommand: CommandModule = {
  async run(ctx) {
    const { dir } = takePositionals(ctx, [], 'state plans [dir] [--forget PR] [--json]');
    const forget = ctx.values.forget;
    if (forget !== undefined && (typeof forget !== 'string' || !/^[1-9][0-9]{0,9}$/.test(forget)))
      throw new AbortError(
        `--forget expects a pull request number, got ${JSON.stringify(forget)}.`,
        'Run `cplane state plans` to list them.',
      );
    const store = await openStateFor(ctx, dir, { lock: false, command: 'state plans' });
    try {
      const registry = store.openPlans;
      if (!registry) throw new AbortError(`The state ${store.path} keeps no open plans.`);
      if (typeof forget === 'string') {
        const forgotten = await registry.forget(Number(forget));
        ctx.stdout.write(forgotten ? `Forgot the plan of PR #${forget}.\n` : `No plan of PR #${forget} is registered.\n`);
        return 0;
      }
      const plans = await registry.list();
      if (ctx.values.json === true) ctx.stdout.write(`${jsonText({ plans }, 2)}\n`);
      else if (plans.length === 0) ctx.stdout.write('No open plans are registered.\n');
      else
        for (const p of plans)
          ctx.stdout.write(
            safeText(
              `PR #${p.pr}  ${p.commit.slice(0, 12)}  ${p.plannedAt}  ${p.digest}  ${p.addresses.length} address(es): ${p.addresses.join(', ')}`,
            ) + '\n',
          );
      return 0;
    } finally {
      await store.close();
    }
  },
};
