// Refresh reads with account-wide lists and the largest page: requests grow with pages, not with resources.
import { describe, expect, it } from 'vitest';
import { eachTestHarness } from './harness.js';

describe('refresh requests', () => {
  const h = eachTestHarness();

  it('reads 250 records in 2 list pages, with no request per record or per project, and no list of a kind it does not use', async () => {
    const names = Array.from({ length: 250 }, (_, i) => `r${i}`);
    h().config(`projects:\n  a: {}\n  b:\n    records:\n${names.map((n) => `      ${n}: {}`).join('\n')}\n`);
    const { project_id: projectId } = await h().client.call('createProject', {
      body: { accountId: h().state.data.account, name: 'b', description: '' },
    });
    await Promise.all(names.map((name) => h().client.call('createRecord', { body: { projectId, name } })));
    h().emulator.resetStats();

    const plan = await h().plan();
    expect(plan.steps.filter((s) => s.action === 'import')).toHaveLength(251);
    const sent = Object.fromEntries(Object.entries(h().emulator.stats().byOperation).filter(([, n]) => n > 0));
    expect(sent).toEqual({ listProjects: 1, listRecords: 2 });
  });
});
