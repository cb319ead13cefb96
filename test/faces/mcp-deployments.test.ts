// cplane_plan takes a deployment of the configuration's deployments: its account, workspace and variables; the
// plan it returns applies with cplane_apply in that account, whatever CPLANE_ACCOUNT the server inherited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { world, type World } from '../e2e/helpers.js';
import { call, json, session, SESSION_BUDGET_MS, type Session } from './mcp-session.js';

const [t1, t2] = [extraAccount(1).id, extraAccount(2).id];
const config = `version: 1
variables:
  env: {}
deployments:
  staging: { account: ${t1}, variables: { env: staging } }
  prod: { account: ${t2}, variables: { env: prod }, after: [staging] }
projects:
  shop:
    name: shop-\${var.env}
    description: Shop
`;

describe('cplane_plan with a deployment', () => {
  let w: World;
  let s: Session;
  beforeAll(async () => {
    w = await world({ accounts: 2 });
    w.config(config);
    s = await session(w, fixtures.tokens.admin, ['--allow-apply']);
  }, SESSION_BUDGET_MS);
  afterAll(async () => {
    await s?.close();
    await w?.close();
  });

  it(
    'plans one deployment in its account, and applies it there',
    async () => {
      const result = await call(s, 'cplane_plan', { deployment: 'prod' });
      expect(result.isError).toBeUndefined();
      const { planId, deployment, plan } = json(result) as {
        planId: string;
        deployment: string;
        plan: { account: string; origin: { deployment: string; variables: Record<string, unknown> }; summary: { add: number } };
      };
      expect([deployment, plan.account, plan.origin.deployment, plan.origin.variables.env, plan.summary.add]).toEqual([
        'prod',
        t2,
        'prod',
        'prod',
        1,
      ]);
      const applied = await call(s, 'cplane_apply', { planId });
      expect(applied.isError).toBeUndefined();
      const client = createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: t2 });
      expect((await client.listAll('listProjects', {})).map((p) => p.name)).toEqual(['shop-prod']);
      await client.close();
    },
    SESSION_BUDGET_MS,
  );

  it(
    'without a deployment, or with an unknown one, says what to give',
    async () => {
      const none = await call(s, 'cplane_plan');
      expect(none.isError).toBe(true);
      expect(none.content[0]!.text).toContain('has deployments (staging, prod)');
      const unknown = await call(s, 'cplane_plan', { deployment: 'prd' });
      expect(unknown.isError).toBe(true);
      expect(unknown.content[0]!.text).toContain('the configuration has no deployment "prd"; did you mean "prod"?');
    },
    SESSION_BUDGET_MS,
  );
});
