// Export during a renewal's overlap: the gateway has the old token and its renewal, both active, of the same
// name. The folder declares the token once (the renewal's settings), never the old one as a permanent `ci-2`,
// and the report counts the old one as left out. Time passes by moving the emulator's clock, never by waiting.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

// Each test arranges its own world, the overlap included (in-process: the process is not the subject).
let w: World;

beforeEach(async () => {
  // Made 25 days ago (by the emulator's clock) to live 30 days, renewed 7 days before it expires.
  w = await world({ clockOffset: '-25d' });
  w.config(smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 30\n        renewBeforeDays: 7'));
  expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
  w.emulator.setClockOffset(0);
  const renewed = await w.run(['apply', w.dir, '--auto-approve']);
  expect(renewed.stdout).toContain('renewed id=');
  expect(renewed.code).toBe(0);
});
afterEach(async () => w.close());

describe('export during a renewal overlap', () => {
  it('writes the token once and counts the superseded one as left out', async () => {
    const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!;
    const live = (await w.client.listAll('listGatewayTokens', { path: { id: gateway.gateway_id } })).filter((t) => t.revoked_at === null);
    // The overlap: two active tokens named ci.
    expect(live.map((t) => t.name)).toEqual(['ci', 'ci']);

    const out = join(w.dir, '..', 'exported');
    const exported = await w.cli(['export', '--out', out]);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('Skipped (not exported): 1 token superseded by a renewal, left out.');
    const project = readFileSync(join(out, 'project-shop.yaml'), 'utf8');
    expect(project).toMatch(/\n {4}tokens:\n {6}ci:\n {8}expiresInDays: 30\n {8}scopes: \[run\]\n(?! {6}\S)/);
    expect(project).not.toContain('ci-2');
  });

  it('with --adopt during the overlap keeps the superseded token in state, so the first apply after the overlap revokes it', async () => {
    type Entry = { kind: string; id: string; superseded?: { id: string }[] };
    const resources = () => (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, Entry> }).resources;
    const renewal = resources()['gateway_token.main/ci']!;
    const entry = () => Object.values(resources()).find((r) => r.kind === 'gateway_token' && r.id === renewal.id)!;
    const superseded = renewal.superseded!;
    expect(superseded).toHaveLength(1);
    const adopted = await w.cli(['export', '--out', w.dir, '--force', '--adopt']);
    expect(adopted.stderr).toBe('');
    expect(adopted.code).toBe(0);
    expect(entry().superseded).toEqual(superseded);
    w.emulator.moveClock('25h');
    const plan = await w.cli(['plan', w.dir], { CPLANE_SECRET_MISTRAL_STAGING: 'sk-x', CPLANE_SECRET_OPENAI_SHOP: 'sk-y' });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain(`      - revoke superseded token = "${superseded[0]!.id}"\n`);
  });

  it('gives the same folder once the overlap ends and the old token is revoked', async () => {
    const out = join(w.dir, '..', 'exported');
    expect((await w.run(['export', '--out', out])).code).toBe(0);
    const before = readFileSync(join(out, 'project-shop.yaml'), 'utf8');
    w.emulator.moveClock('25h');
    expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    const exported = await w.cli(['export', '--out', out]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('Skipped (not exported): 1 revoked token.');
    expect(readFileSync(join(out, 'project-shop.yaml'), 'utf8')).toBe(before);
  });
});
