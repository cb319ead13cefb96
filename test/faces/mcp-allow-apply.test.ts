// An assistant cannot apply on its own: `cplane mcp` without --allow-apply offers no cplane_apply, and a call
// to it by name is refused, sending nothing, with the way a person turns it on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNames } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/index.js';
import { liveInventory, smallConfig, world, type World } from '../e2e/helpers.js';
import { call, json, session, SESSION_BUDGET_MS, type Session } from './mcp-session.js';

describe('cplane mcp without --allow-apply', () => {
  let w: World;
  let s: Session;
  beforeAll(async () => {
    w = await world();
    w.config(smallConfig());
    s = await session(w, fixtures.tokens.admin);
  }, SESSION_BUDGET_MS);
  afterAll(async () => {
    await s?.close();
    await w?.close();
  });

  it('lists cplane_validate and cplane_plan but no cplane_apply, and says so on stderr', async () => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('cplane_plan');
    expect(names).toContain('cplane_validate');
    expect(names).not.toContain('cplane_apply');
    // A tool per operation, cplane_validate and cplane_plan, and the three helpers.
    const served = operationNames.length + 2 + 3;
    expect(tools).toHaveLength(served);
    expect(tools.find((t) => t.name === 'cplane_plan')!.description).toContain(
      'Applying is left to a person (`cplane apply`): this server was started without --allow-apply.',
    );
    expect(s.stderr()).toContain(
      `cplane mcp: serving ${served} tools over stdio (human token; cplane_apply off (start with --allow-apply to offer it);`,
    );
  });

  it(
    'plans, but refuses to apply the plan, sending no write and saying how to enable it',
    async () => {
      const planned = await call(s, 'cplane_plan');
      expect(planned.isError).toBeUndefined();
      const { planId, plan } = json(planned) as { planId: string; plan: { summary: Record<string, number> } };
      expect(plan.summary).toMatchObject({ add: 4 });

      w.emulator.resetStats();
      const refused = await call(s, 'cplane_apply', { planId });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toBe(
        'cplane_apply is not offered: this MCP server was started without --allow-apply, so applying a plan is left to a person. ' +
          'Show the plan to the user and let them run `cplane apply` themselves, or ask them to restart the server with `cplane mcp --allow-apply` (see docs/mcp.md).',
      );
      expect(w.emulator.stats().writes).toBe(0);
      expect((await liveInventory(w.client)).projects).not.toContain('shop');
    },
    SESSION_BUDGET_MS,
  );

  it('documents the flag in `cplane mcp --help`', async () => {
    const help = await w.run(['mcp', '--help']);
    expect(help.stdout).toContain(
      '--allow-apply       offer cplane_apply, so the assistant can change the account with no person approving',
    );
  });
});
