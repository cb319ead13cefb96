// An address without state whose natural key exists live is imported (adopted), never created a second time.
import { describe, expect, it } from 'vitest';
import { actions, eachTestHarness, fullConfig } from './harness.js';

describe('adoption', () => {
  const h = eachTestHarness();

  it('imports objects that already exist and updates them where they differ', async () => {
    const { project_id } = await h().client.call('createProject', {
      body: { accountId: h().state.data.account, name: 'payments', description: 'made by hand' },
    });
    h().config(fullConfig);
    const plan = await h().plan();
    expect(actions(plan)).toEqual([
      'import project.payments',
      'create credential.openai',
      'create record.payments/stripe-key',
      'create gateway.prod',
      'create gateway_token.prod/ci',
      'create otel_export.prod',
    ]);
    const [project] = plan.steps;
    expect(project).toMatchObject({ reason: 'created outside cplane: adopting it', adopt: { id: project_id } });
    expect(project!.changes).toEqual([{ path: 'description', before: 'made by hand', after: 'Payment services' }]);
    expect(project!.writes.map((w) => w.operation)).toEqual(['updateProject']);
    // The record is created in the adopted project by its literal id: no $ref needed.
    expect(plan.steps[2]!.writes[0]!.body).toMatchObject({ projectId: project_id });
    expect(plan.summary).toMatchObject({ import: 1, add: 5 });

    expect((await h().apply(plan)).failed).toEqual([]);
    expect(h().state.data.resources['project.payments']!.id).toBe(project_id);
    const projects = await h().client.listAll('listProjects', { query: { includeArchived: true } });
    expect(projects.filter((p) => p.name === 'payments')).toHaveLength(1);
    expect((await h().plan()).steps).toEqual([]);
  });

  it('adopts one live object for one address only', async () => {
    const openai = (await h().client.call('listProviders', {})).find((p) => p.name === 'openai')!;
    const live = await h().client.call('createCredential', {
      body: { providerId: openai.provider_id, label: 'shared', secret: 'x-secret' },
    });
    h().config(
      'credentials:\n  a: { provider: openai, label: shared, secret: { env: OPENAI_KEY } }\n  b: { provider: openai, label: shared, secret: { env: OPENAI_KEY } }\n',
    );
    const plan = await h().plan();
    expect(actions(plan)).toEqual(['import credential.a', 'create credential.b']);
    expect(plan.steps[0]!.adopt).toEqual({ id: live.credential_id });
  });

  it('plans normally for objects adopted by a run that stopped before recording their inputs', async () => {
    h().config(fullConfig);
    await h().converge();
    await h().state.update((draft) => {
      for (const entry of Object.values(draft.resources)) entry.inputs = {};
    });
    const plan = await h().plan();
    expect(plan.drift).toEqual([]);
    // Only the token's expiry needs what was applied, and it is compared by whether it expires at all.
    expect(plan.steps).toEqual([]);
  });

  it('imports without writes when the live object already matches, and finds children by their parent', async () => {
    h().config(fullConfig);
    await h().converge();
    // Forget everything, as after losing the state file: the next plan adopts every object instead of duplicating it.
    await h().state.update((draft) => {
      draft.resources = {};
    });
    const plan = await h().plan();
    expect(plan.steps.map((s) => s.action)).toEqual(['import', 'import', 'import', 'import', 'import', 'import']);
    const writes = plan.steps.filter((s) => s.writes.length > 0).map((s) => `${s.address}: ${s.changes.map((c) => c.path).join(', ')}`);
    // Write-only values cannot be compared without a fingerprint: cplane writes the ones it holds.
    expect(writes).toEqual(['credential.openai: secret', 'record.payments/stripe-key: value', 'otel_export.prod: headers.Authorization']);
    expect(plan.steps.find((s) => s.address === 'gateway_token.prod/ci')).toMatchObject({ action: 'import', writes: [] });
  });
});
