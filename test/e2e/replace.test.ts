// `--replace ADDRESS` on plan and apply: a token is issued again (the new one created before the old one is revoked),
// a `generate`d record value is generated again and rotated, a credential's secret is rotated from its source.
// A saved plan carries the addresses; an unknown one is refused with a suggestion.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

interface StateFile {
  resources: Record<string, { id: string; fingerprints: Record<string, string> }>;
}

let w: World;
const state = () => (JSON.parse(readFileSync(w.statePath, 'utf8')) as StateFile).resources;

// Each test starts from its own world with the configuration applied in-process (arrangement, not the subject).
beforeEach(async () => {
  w = await world();
  w.config(
    smallConfig().replace(
      '    lifecycle: { preventDestroy: false }\n',
      '    lifecycle: { preventDestroy: false }\n    records:\n      salt:\n        value: { generate: { length: 32 } }\n',
    ),
  );
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});
afterEach(async () => w.close());

describe('--replace', () => {
  it('re-issues a gateway token: the new token is created before the old one is revoked', async () => {
    const before = state()['gateway_token.main/ci']!.id;
    const plan = await w.cli(['plan', w.dir, '--replace', 'gateway_token.main/ci', '--json']);
    expect(plan.code).toBe(0);
    const step = JSON.parse(plan.stdout) as {
      replace: string[];
      steps: { address: string; action: string; writes: { operation: string }[] }[];
    };
    expect(step.replace).toEqual(['gateway_token.main/ci']);
    expect(step.steps.map((s) => [s.address, s.action, s.writes.map((x) => x.operation)])).toEqual([
      ['gateway_token.main/ci', 'replace', ['createGatewayToken', 'revokeGatewayToken']],
    ]);

    const applied = await w.cli(['apply', w.dir, '--auto-approve', '--replace', 'gateway_token.main/ci']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(
      '# gateway_token.main/ci must be replaced (--replace asks for a new one: a new one is created, then the old one is revoked)',
    );
    const after = state()['gateway_token.main/ci']!.id;
    expect(after).not.toBe(before);
    const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!;
    const tokens = await w.client.listAll('listGatewayTokens', { path: { id: gateway.gateway_id } });
    expect(tokens.find((t) => t.token_id === before)!.revoked_at).not.toBeNull();
    expect(tokens.filter((t) => !t.revoked_at).map((t) => t.token_id)).toEqual([after]);
  });

  it('generates a record value again and rotates it (POST /records/{id}/rotate)', async () => {
    const before = state()['record.shop/salt']!;
    const versions = async () => w.client.call('listRecordVersions', { path: { id: before.id } });
    const count = (await versions()).length;
    w.emulator.resetStats();
    const applied = await w.cli(['apply', w.dir, '--auto-approve', '--replace', 'record.shop/salt']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('# record.shop/salt will have its secret rotated');
    expect(applied.stdout).toContain('~ value = (sensitive)');
    expect(w.emulator.stats().byOperation.rotateRecord).toBe(1);
    expect(await versions()).toHaveLength(count + 1);
    // A new random value: its fingerprint in state changed.
    expect(state()['record.shop/salt']!.fingerprints.value).not.toBe(before.fingerprints.value);
  });

  it('rotates a credential secret from its source', async () => {
    w.emulator.resetStats();
    const applied = await w.cli(['apply', w.dir, '--auto-approve', '--replace', 'credential.openai']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('# credential.openai will have its secret rotated');
    expect(w.emulator.stats().byOperation.rotateCredential).toBe(1);
    expect((await w.cli(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
  });

  it('is carried by a saved plan, and refused beside one', async () => {
    const planFile = join(w.dir, '..', 'replace.plan.json');
    const plan = await w.cli(['plan', w.dir, '--replace', 'gateway_token.main/ci', '--out', planFile]);
    expect(plan.code).toBe(0);
    const beside = await w.cli(['apply', planFile, '--replace', 'record.shop/salt']);
    expect(beside.code).toBe(1);
    expect(beside.stderr).toContain('--replace cannot be used with a saved plan');
    const before = state()['gateway_token.main/ci']!.id;
    const applied = await w.cli(['apply', planFile]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete: 1 done, 0 failed, 0 skipped');
    expect(state()['gateway_token.main/ci']!.id).not.toBe(before);
  });

  it('refuses an unknown address, naming it with a suggestion', async () => {
    // Diagnostics, in-process: the message is the subject.
    const run = await w.run(['plan', w.dir, '--replace', 'gateway_token.ci']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--replace gateway_token.ci: no such address in the configuration');
    expect(run.stderr).toContain('Did you mean gateway_token.main/ci?');
  });

  it('refuses an address with nothing to issue again', async () => {
    const run = await w.run(['plan', w.dir, '--replace', 'project.shop']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('project.shop: --replace: a project without a secret value has nothing to issue again');
  });
});
