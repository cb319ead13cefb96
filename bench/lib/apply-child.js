/* global performance */
// One apply, run in its own process by bench/lib/run-apply-child.mjs so its CPU time and peak RSS are the CLI's alone (the
// emulator runs in the parent). Prints one JSON line. Usage: apply-child.js URL DIR PARALLELISM real|noop [ACCOUNT]
import { applyPlan, stateKeyRing } from '../../dist/applier/index.js';
import { createClient } from '../../dist/api/index.js';
import { resolveSecret } from '../../dist/config/index.js';
import { loadConfiguration } from '../../dist/providers/index.js';
import { fixtures } from '../../dist/emulator/fixtures.js';
import { makePlan } from '../../dist/planner/index.js';
import { openState } from '../../dist/state/index.js';

const [url, dir, parallelismText, mode, accountArg] = process.argv.slice(2);
const parallelism = Number(parallelismText);
const account = accountArg ?? fixtures.accounts[1].id;
const env = { CPLANE_STATE_KEY: Buffer.alloc(32, 5).toString('base64'), OPENAI_API_KEY: 'sk-bench-openai-key-0000' };

/** A backend that stores nothing: the apply with its state writes replaced by a no-op, for comparison. */
function noopBackend() {
  return {
    location: 'memory',
    load: async () => undefined,
    append: async () => undefined,
    compact: async () => undefined,
    lock: async (info) => ({ id: info.id, info }),
    unlock: async () => undefined,
    forceUnlock: async () => {
      throw new Error('not locked');
    },
  };
}

const { desired, diagnostics } = await loadConfiguration(dir, { env, cwd: dir, account });
if (!desired) throw new Error(diagnostics.map((d) => d.summary).join('\n'));
const state = await openState({
  configDir: dir,
  account,
  env,
  command: 'bench',
  lock: true,
  ...(mode === 'noop' ? { backend: noopBackend() } : {}),
});
const client = createClient({ baseUrl: url, token: fixtures.tokens.admin, accountId: account, concurrency: parallelism });
const plan = await makePlan({ desired, state, client, account, mode: 'normal', targets: [], parallelism, env });
const writes = plan.steps.reduce((n, s) => n + s.writes.length, 0);
process.stdout.write(`${JSON.stringify({ planned: true })}\n`);
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await applyPlan({ plan, state, client, parallelism, keyRing: stateKeyRing(state, (s) => resolveSecret(s, env), client) });
await state.close();
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
await client.close();
if (result.failed.length > 0) throw new Error(`${result.failed.length} steps failed: ${result.failed[0].reason}`);
process.stdout.write(
  `${JSON.stringify({ steps: result.done.length, writes, wallMs, cpuS: (cpu.user + cpu.system) / 1e6, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
