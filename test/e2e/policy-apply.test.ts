// apply and policies: a mandatory violation stops apply before approval and before any write, whether it plans
// itself or is given a saved plan; a saved plan checked under other policies than a plan made now is refused.
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { liveInventory, shopGateway, world, type World } from './helpers.js';

const config = (expiresInDays: number | null) => `version: 1
${shopGateway}    tokens:
      ci: { scopes: [run], expiresInDays: ${expiresInDays === null ? 'null' : expiresInDays} }
policies:
  tokens-expire:
    level: mandatory
    kinds: [gateway_token]
    rule: "after.expiresInDays != null && after.expiresInDays <= \${env.MAX_TOKEN_DAYS}"
    message: Tokens must expire within the team's limit.
`;

// Each test arranges its own world; an apply before the step under test runs in-process.
let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(() => w.close());

it('apply refuses a plan with a mandatory violation, and nothing is created', async () => {
  w.config(config(null));
  const run = await w.cli(['apply', w.dir, '--auto-approve'], { MAX_TOKEN_DAYS: '90' });
  expect(run.code).toBe(1);
  expect(run.stdout).toContain("x mandatory gateway_token.main/ci: tokens-expire: Tokens must expire within the team's limit.");
  expect(run.stderr).toContain(
    "cplane apply refused by policy: 1 mandatory finding; nothing was changed:\n  - gateway_token.main/ci: tokens-expire: Tokens must expire within the team's limit.",
  );
  const live = await liveInventory(w.client);
  expect(live.projects).not.toContain('shop');
  expect(live.gateways).not.toContain('main');
});

it('apply refuses a saved plan with a mandatory violation (the plan was saved, and failed)', async () => {
  w.config(config(null));
  const plan = await w.cli(['plan', w.dir, '--out', join(w.dir, '..', 'bad.plan.json')], { MAX_TOKEN_DAYS: '90' });
  expect(plan.code).toBe(1);
  const run = await w.cli(['apply', join(w.dir, '..', 'bad.plan.json')], { MAX_TOKEN_DAYS: '90' });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('cplane apply refused by policy: 1 mandatory finding; nothing was changed');
  expect((await liveInventory(w.client)).projects).not.toContain('shop');
});

it('a saved plan whose policies changed since it was made is refused', async () => {
  w.config(config(60));
  const planFile = join(w.dir, '..', 'ok.plan.json');
  const plan = await w.cli(['plan', w.dir, '--out', planFile], { MAX_TOKEN_DAYS: '90' });
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('Policies: 1 policy, 1 check: all passed.');
  // The same files, but the rule now reads another limit: the plan was reviewed under other policies.
  const run = await w.cli(['apply', planFile], { MAX_TOKEN_DAYS: '30' });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    `The saved plan ${planFile} was checked under other policies: the policies changed since the plan was made (1 then, 1 now). Nothing was applied.`,
  );
  expect((await liveInventory(w.client)).projects).not.toContain('shop');
  // Under the policies it was made with, it applies.
  const applied = await w.cli(['apply', planFile], { MAX_TOKEN_DAYS: '90' });
  expect(applied.code).toBe(0);
  expect((await liveInventory(w.client)).tokens).toContain('main/ci');
});

it('a policy on `after` does not judge a removal: revoking the token is not refused', async () => {
  w.config(config(60));
  const applied = await w.run(['apply', w.dir, '--auto-approve'], { MAX_TOKEN_DAYS: '90' });
  expect(applied.code, applied.stderr).toBe(0);
  w.config(config(60).replace(/ {4}tokens:\n.*\n/, ''));
  const run = await w.cli(['apply', w.dir, '--auto-approve'], { MAX_TOKEN_DAYS: '90' });
  // The exit code first, with stderr as its message: what went wrong is then said when it fails.
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout, run.stderr).toContain('# gateway_token.main/ci will be revoked');
  expect(run.stdout).toContain('Policies: 1 policy, 0 checks: all passed.');
  expect((await liveInventory(w.client)).tokens).not.toContain('main/ci');
});
