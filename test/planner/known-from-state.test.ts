// A kind known only from state (a project's group role) sends no read: the plan compares it with what state
// recorded, never plans it again for want of a read (not even with a Service Account's token, which may read
// nothing of it), and lists it as not verifiable from the API; destroy forgets it with its project.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { harness, type Harness } from './harness.js';

const production = fixtures.accounts[0]!.id;
const platform = fixtures.groups.find((g) => g.name === 'platform')!;
const config = `
projects:
  roles-app:
    groupRoles: { platform: admin }
directory:
  groups: { platform: { id: ${platform.id}, publicKey: "${printableKeyPair(platform.id).publicKey}" } }
  roles: { admin: { id: ${fixtures.roles.find((r) => r.name === 'admin')!.id} } }
`;
const ADDRESS = 'project_group_role.roles-app/platform';

describe('a kind known only from state', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness({ account: production });
    h.config(config);
    await h.converge();
  });
  afterEach(async () => h.close());

  it('is in state after apply, and the next plan sends no read of it and plans nothing', async () => {
    expect(h.state.data.resources[ADDRESS]).toMatchObject({ kind: 'project_group_role', id: platform.id, inputs: { role: 'admin' } });
    h.events.length = 0;
    const plan = await h.plan();
    expect(plan.steps).toEqual([]);
    expect(plan.notices.filter((n) => n.code === 'not_verifiable')).toMatchObject([{ address: ADDRESS, kind: 'project_group_role' }]);
    const paths = h.events.filter((e) => e.type === 'request').map((e) => (e as { path: string }).path);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => path.includes('group'))).toEqual([]);
    // No token names a Service Account: GET /service-accounts (human-only) is not read either.
    expect(paths.filter((path) => path.includes('service-accounts'))).toEqual([]);
  });

  it('is neither unreadable nor re-created when a Service Account`s token plans', async () => {
    const sa = createClient({ baseUrl: h.emulator.url, token: fixtures.tokens.serviceAccount, accountId: production });
    try {
      const plan = await h.plan({ client: sa });
      expect(plan.steps.filter((s) => s.address === ADDRESS)).toEqual([]);
      expect(plan.unreadable.filter((u) => u.kind === 'project_group_role')).toEqual([]);
      expect(plan.notices.filter((n) => n.code === 'not_verifiable')).toMatchObject([{ address: ADDRESS, kind: 'project_group_role' }]);
    } finally {
      await sa.close();
    }
  });

  it('is forgotten with its project on destroy, without a write of its own', async () => {
    const plan = await h.plan({ mode: 'destroy' });
    const step = plan.steps.find((s) => s.address === ADDRESS)!;
    expect(step).toMatchObject({ action: 'forget', forget: true, writes: [], reason: 'forgotten with project.roles-app' });
    expect(plan.notices.filter((n) => n.code === 'not_verifiable')).toEqual([]);
  });
});
