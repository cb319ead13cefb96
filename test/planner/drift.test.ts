// Changes made directly through the API show as drift, field by field, and the plan brings them back to the configuration.
import { describe, expect, it } from 'vitest';
import { renderPlanMarkdown, renderPlanText } from '../../src/render/index.js';
import { actions, eachTestHarness, fullConfig } from './harness.js';

describe('drift', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });
  const id = (address: string) => h().state.data.resources[address]!.id;

  it('reports fields changed outside cplane and plans them back', async () => {
    await h().client.call('updateProject', {
      path: { id: id('project.payments') },
      body: { name: 'payments', description: 'edited in the dashboard', isActive: true },
    });
    await h().client.call('updateGatewaySettings', {
      path: { id: id('gateway.prod') },
      body: { cache: { enabled: false, ttlSeconds: 300 } },
    });
    await h().client.call('updateRecord', { path: { id: id('record.payments/stripe-key') }, body: { tags: ['x'] } });
    const plan = await h().plan();
    expect(plan.drift).toEqual([
      {
        address: 'project.payments',
        kind: 'project',
        type: 'changed',
        changes: [{ path: 'description', before: 'Payment services', after: 'edited in the dashboard' }],
      },
      {
        address: 'record.payments/stripe-key',
        kind: 'record',
        type: 'changed',
        changes: [{ path: 'tags', before: ['payments'], after: ['x'] }],
      },
      {
        address: 'gateway.prod',
        kind: 'gateway',
        type: 'changed',
        changes: [{ path: 'settings.cache.enabled', before: true, after: false }],
      },
    ]);
    expect(actions(plan)).toEqual(['update project.payments', 'update record.payments/stripe-key', 'update gateway.prod']);
    expect(plan.steps[2]!.writes.map((w) => w.body)).toEqual([{ cache: { enabled: true, ttlSeconds: 300 } }]);
    expect((await h().apply(plan)).failed).toEqual([]);
    const after = await h().plan();
    expect(after.drift).toEqual([]);
    expect(after.steps).toEqual([]);
  });

  it('re-creates what was deleted outside cplane, with the reason, and the tokens of a deleted gateway with it', async () => {
    await h().client.call('deleteGateway', { path: { id: id('gateway.prod') } });
    const plan = await h().plan();
    expect(plan.drift.map((d) => `${d.type} ${d.address}`)).toEqual([
      'deleted gateway.prod',
      'deleted gateway_token.prod/ci',
      'deleted otel_export.prod',
    ]);
    expect(actions(plan)).toEqual(['create gateway.prod', 'create gateway_token.prod/ci', 'create otel_export.prod']);
    expect(plan.steps.map((s) => s.reason)).toEqual(['deleted outside cplane', 'deleted outside cplane', 'deleted outside cplane']);
    // The new token is made on the new gateway, known only at apply.
    expect(plan.steps[1]!.writes[0]!.path).toEqual({ id: { $ref: 'gateway.prod' } });
  });

  it('says a token revoked outside cplane was revoked (not deleted), and creates it again', async () => {
    await h().client.call('revokeGatewayToken', { path: { id: id('gateway.prod'), tokenId: id('gateway_token.prod/ci') } });
    const plan = await h().plan();
    expect(plan.drift).toEqual([
      { address: 'gateway_token.prod/ci', kind: 'gateway_token', type: 'deleted', reason: 'revoked outside cplane', changes: [] },
    ]);
    expect(plan.steps).toMatchObject([{ action: 'create', address: 'gateway_token.prod/ci', reason: 'revoked outside cplane' }]);
    expect(renderPlanText(plan, { color: false })).toContain('  - gateway_token.prod/ci was revoked outside cplane\n');
    expect(renderPlanMarkdown(plan)).toContain('- `gateway_token.prod/ci`: revoked outside cplane');
  });

  it('gives every drift repair a reason in the Markdown Why column', async () => {
    await h().client.call('updateProject', {
      path: { id: id('project.payments') },
      body: { name: 'payments', description: 'edited in the dashboard', isActive: true },
    });
    const plan = await h().plan();
    expect(plan.steps).toMatchObject([{ action: 'update', reason: 'changed outside cplane (description): setting it back' }]);
    expect(renderPlanMarkdown(plan)).toContain(
      '| `~` | `project.payments` | update | changed outside cplane (description): setting it back |',
    );
  });

  it('unarchives a project archived outside cplane', async () => {
    await h().client.call('archiveProject', { path: { id: id('project.payments') }, body: { archived: true } });
    const plan = await h().plan();
    expect(plan.drift[0]).toEqual({
      address: 'project.payments',
      kind: 'project',
      type: 'changed',
      changes: [{ path: 'archived', before: false, after: true }],
    });
    expect(plan.steps[0]).toMatchObject({ action: 'update', reason: 'archived outside cplane: unarchiving it' });
    expect(plan.steps[0]!.writes.map((w) => [w.operation, w.body])).toEqual([['archiveProject', { archived: false }]]);
    expect((await h().apply(plan)).failed).toEqual([]);
    expect((await h().plan()).steps).toEqual([]);
  });

  it('with --refresh-only plans no writes, only the drift', async () => {
    await h().client.call('renameGatewayToken', {
      path: { id: id('gateway.prod'), tokenId: id('gateway_token.prod/ci') },
      body: { name: 'renamed-outside' },
    });
    const plan = await h().plan({ mode: 'refresh-only' });
    expect(plan.drift).toEqual([
      {
        address: 'gateway_token.prod/ci',
        kind: 'gateway_token',
        type: 'changed',
        changes: [{ path: 'name', before: 'ci', after: 'renamed-outside' }],
      },
    ]);
    expect(plan.steps.flatMap((s) => s.writes)).toEqual([]);
    expect(plan.steps).toMatchObject([{ action: 'no-op', inputs: { name: 'renamed-outside', scopes: ['run'] } }]);
    expect(plan.summary).toEqual({ add: 0, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 });

    // Applying it records the live values in state and sends no write.
    const writesBefore = (await h().client.listAll('listGatewayTokens', { path: { id: id('gateway.prod') } })).length;
    expect((await h().apply(plan)).failed).toEqual([]);
    expect(h().state.data.resources['gateway_token.prod/ci']!.inputs).toMatchObject({ name: 'renamed-outside' });
    expect((await h().plan({ mode: 'refresh-only' })).drift).toEqual([]);
    expect((await h().client.listAll('listGatewayTokens', { path: { id: id('gateway.prod') } })).length).toBe(writesBefore);
  });
});
