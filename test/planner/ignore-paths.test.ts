// lifecycle.ignoreChanges takes any path the plan shows: one gateway setting, one OTel header value.
import { describe, expect, it } from 'vitest';
import { loadConfiguration } from '../../src/providers/index.js';
import { eachTestHarness, fullConfig, secrets } from './harness.js';

const withIgnores = fullConfig
  .replace('    settings:\n', '    lifecycle: { ignoreChanges: [settings.requestsPerMinute] }\n    settings:\n')
  .replace('      exportTraces: false\n', '      exportTraces: false\n      lifecycle: { ignoreChanges: [headers.Authorization] }\n');

describe('ignoreChanges paths', () => {
  const h = eachTestHarness({ config: withIgnores, converge: true });
  const id = (address: string) => h().state.data.resources[address]!.id;

  it('ignores settings.requestsPerMinute changed outside cplane, while the other settings are still managed', async () => {
    await h().client.call('updateGatewaySettings', {
      path: { id: id('gateway.prod') },
      body: { requestsPerMinute: 5, cache: { enabled: false, ttlSeconds: 300 } },
    });
    const plan = await h().plan();
    expect(plan.drift).toEqual([
      {
        address: 'gateway.prod',
        kind: 'gateway',
        type: 'changed',
        changes: [{ path: 'settings.cache.enabled', before: true, after: false }],
      },
    ]);
    expect(plan.steps.map((s) => [s.address, s.changes.map((c) => c.path)])).toEqual([['gateway.prod', ['settings.cache.enabled']]]);
    expect(plan.steps[0]!.writes.map((w) => w.body)).toEqual([{ cache: { enabled: true, ttlSeconds: 300 } }]);
  });

  it('ignores a changed header value named headers.Authorization (and only with it)', async () => {
    h().env.OTEL_AUTH = `${secrets.OTEL_AUTH}-rotated`;
    expect((await h().plan()).steps).toEqual([]);
    h().config(fullConfig);
    expect((await h().plan()).steps.map((s) => [s.address, s.changes.map((c) => c.path)])).toContainEqual([
      'otel_export.prod',
      ['headers.Authorization'],
    ]);
  });

  it('refuses a path the plan never shows, naming the ones it does', async () => {
    h().config(fullConfig.replace('    settings:\n', '    lifecycle: { ignoreChanges: [settings.requestPerMinute] }\n    settings:\n'));
    const { diagnostics } = await loadConfiguration(h().dir, { env: h().env, cwd: h().dir });
    expect(diagnostics.map((d) => d.code)).toEqual(['invalid_value']);
    expect(diagnostics[0]!.summary).toContain(
      'must be one of name, slug, defaultProvider, defaultModel, credentials, settings, settings.requestsPerMinute,',
    );
    expect(diagnostics[0]!.summary).toContain('got "settings.requestPerMinute"; did you mean "settings.requestsPerMinute"');
  });
});
