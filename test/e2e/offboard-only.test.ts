// An offboarding plan plans only the offboarding (issue 50 §3): a gateway setting changed by hand is not set back by
// `cplane access offboard` and its apply, the offboarding says other changes wait, and the next plan shows the drift.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { acme, world, type World } from './helpers.js';

const dana = fixtures.users.find((u) => u.name === 'Dana Developer')!;

let w: World;
beforeAll(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  shop:
    name: shop-offboard-only
    records:
      api-key:
        value: { generate: { length: 32 } }
        grants:
          users: [alice]
credentials:
  openai: { provider: openai, label: openai-offboard-only, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: shop
    name: Shop gateway
    slug: shop-offboard-only
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
directory:
  users:
    alice: { id: ${dana.id}, publicKey: "${printableKeyPair(dana.id).publicKey}" }
`);
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
});
afterAll(() => w.close());

const gateway = async () => (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-offboard-only')!;

it('leaves a hand-made gateway change to the next plan, and says so', async () => {
  await w.client.call('updateGateway', { path: { id: (await gateway()).gateway_id }, body: { defaultModel: 'gpt-4o' } });

  const offboard = await w.cli(['access', 'offboard', 'alice', w.dir, '--out', 'p.plan']);
  expect(offboard.code, offboard.stderr).toBe(0);
  expect(offboard.stdout).toContain('- user_share.shop/api-key/alice: share revoked');
  expect(offboard.stdout).not.toContain('gateway.main');
  expect(offboard.stdout).toContain(
    'Only the offboarding is planned: other changes (drift, edits of the configuration) wait for the next plan.',
  );

  const applied = await w.cli(['apply', join(w.temp, 'p.plan')]);
  expect(applied.code, applied.stderr).toBe(0);
  expect(applied.stdout).not.toContain('gateway.main');
  expect((await gateway()).default_model).toBe('gpt-4o');

  const next = await w.cli(['plan', w.dir, '--detailed-exitcode']);
  expect(next.code).toBe(2);
  expect(next.stdout).toContain('gateway.main');
  expect(next.stdout).toMatch(/defaultModel.*"gpt-4o"/);
});
