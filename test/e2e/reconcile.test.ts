// The scheduled job: `cplane reconcile` applies what time made due with no person (a renewal, the revocation after
// the overlap), and leaves a change of the configuration, or drift, for a person unless reconcile.autoApply allows its
// class; `cplane drift` lists what is due. Time passes by moving the emulator's clock, never by waiting. The applies
// that arrange a story run in-process (the CLI's entry, no subprocess); drift and reconcile run the real CLI.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { acme, smallConfig, world, type World } from './helpers.js';
import { deliveredConfig, readAs } from './token-delivery-config.js';

let w: World;
afterEach(async () => w?.close());

const renewing = (extra = '') =>
  smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 30\n        renewBeforeDays: 7') + extra;
interface StateEntry {
  id: string;
  superseded?: { id: string }[];
}
const stateOf = (): Record<string, StateEntry> =>
  (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, StateEntry> }).resources;
const activeTokens = async () => {
  const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!;
  const now = Date.now() + w.emulator.clockOffsetMs();
  return (await w.client.listAll('listGatewayTokens', { path: { id: gateway.gateway_id } })).filter(
    (t) => t.revoked_at === null && Date.parse(t.expires_at!) > now,
  );
};
/** A token made 25 days ago (the emulator's clock) to live 30 days, renewed 7 days before its expiry: due now. */
async function tokenInItsRenewalWindow(extra = ''): Promise<void> {
  w = await world({ clockOffset: '-25d' });
  w.config(renewing(extra));
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  w.emulator.setClockOffset(0);
}

describe('cplane drift lists what is due', () => {
  it('says nothing is due before the renewal window, and lists the token in its own section (exit 2) inside it', async () => {
    w = await world({ clockOffset: '-25d' });
    w.config(renewing());
    expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    const early = await w.cli(['drift', w.dir]);
    expect(early.stdout).toContain('No drift: every managed object matches what cplane last applied.');
    expect(early.code).toBe(exitCodes.ok);

    w.emulator.setClockOffset(0);
    const due = await w.cli(['drift', w.dir]);
    expect(due.stderr).toBe('');
    expect(due.code).toBe(exitCodes.changes);
    expect(due.stdout).toContain('Due (time made these due; `cplane reconcile` or `cplane apply` does them):');
    expect(due.stdout).toMatch(/ {2}! gateway_token\.main\/ci in its renewal window: renew: expires in 5 days/);
    expect(due.stdout).toContain('No drift, but 1 item due: `cplane reconcile` (or apply) does it.');
    const json = JSON.parse((await w.cli(['drift', w.dir, '--json'])).stdout) as {
      hasDrift: boolean;
      hasDue: boolean;
      due: { address: string; cause: string }[];
    };
    expect(json).toMatchObject({ hasDrift: false, hasDue: true, due: [{ address: 'gateway_token.main/ci', cause: 'renewal' }] });
  });
});

describe('cplane reconcile', () => {
  it("needs only the sources of the steps it applies: a renewal goes ahead with the credential's key unset, which a change would need", async () => {
    await tokenInItsRenewalWindow();
    const run = await w.cli(['reconcile', w.dir], { OPENAI_API_KEY: '' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(exitCodes.ok);
    expect(run.stdout).toMatch(/\[maintenance\] ~ gateway_token\.main\/ci will be renewed/);
    // A reconcile that may apply changes cannot tell whether the unread value changed: it says so.
    w.config(renewing('reconcile: { autoApply: [maintenance, change] }\n'));
    const changes = await w.cli(['reconcile', w.dir], { OPENAI_API_KEY: '' });
    expect(changes.code).toBe(exitCodes.error);
    expect(changes.stderr).toContain(
      'error: credential.openai: Secret source "env OPENAI_API_KEY": environment variable OPENAI_API_KEY is not set',
    );
  });

  it('renews a token in its renewal window with no person, then revokes the old one after the overlap', async () => {
    await tokenInItsRenewalWindow();
    const oldId = stateOf()['gateway_token.main/ci']!.id;
    const run = await w.cli(['reconcile', w.dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(exitCodes.ok);
    expect(run.stdout).toContain('Reconcile applies: maintenance');
    expect(run.stdout).toMatch(/\[maintenance\] ~ gateway_token\.main\/ci will be renewed \(renew: expires in 5 days/);
    expect(run.stdout).toContain('Applies 1 step; nothing waits for a person.');
    expect(stateOf()['gateway_token.main/ci']!.id).not.toBe(oldId);
    expect((await activeTokens()).length).toBe(2);

    // Within the overlap there is nothing to do; after it, the old token goes.
    w.emulator.moveClock('23h');
    expect((await w.cli(['reconcile', w.dir])).stdout).toContain('Nothing to apply; nothing waits for a person.');
    w.emulator.moveClock('2h');
    const finish = await w.cli(['reconcile', w.dir]);
    expect(finish.code).toBe(exitCodes.ok);
    expect(finish.stdout).toMatch(/\[maintenance\] ~ gateway_token\.main\/ci will be renewed \(finishing a renewal/);
    expect((await activeTokens()).map((t) => t.token_id)).toEqual([stateOf()['gateway_token.main/ci']!.id]);
    expect(stateOf()['gateway_token.main/ci']!.superseded).toBeUndefined();
    expect((await w.cli(['drift', w.dir])).code).toBe(exitCodes.ok);
  });

  it('does not apply a change of the configuration by default: it renews the token, reports the change and exits 2', async () => {
    await tokenInItsRenewalWindow();
    w.config(renewing().replace('description: Shop services', 'description: Shop services, changed'));
    const run = await w.cli(['reconcile', w.dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(exitCodes.changes);
    expect(run.stdout).toMatch(/\[maintenance\] ~ gateway_token\.main\/ci will be renewed/);
    expect(run.stdout).toContain(
      'Not applied (run `cplane plan infra` and `cplane apply infra`, or add the class to reconcile.autoApply):',
    );
    expect(run.stdout).toContain('[change] ~ project.shop will be updated in place');
    expect(run.stdout).toContain('Applies 1 step; 1 step waits for a person (not in reconcile.autoApply: maintenance).');
    const project = (await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop')!;
    expect(project.description).toBe('Shop services');

    const json = JSON.parse((await w.cli(['reconcile', w.dir, '--json'])).stdout.split('\n')[0]!) as {
      apply: unknown[];
      withheld: { address: string; class: string }[];
    };
    expect(json.apply).toEqual([]);
    expect(json.withheld).toEqual([{ address: 'project.shop', kind: 'project', action: 'update', class: 'change' }]);
  });

  it('applies a change of the configuration when reconcile.autoApply lists change', async () => {
    await tokenInItsRenewalWindow('reconcile: { autoApply: [maintenance, change] }\n');
    w.config(
      renewing('reconcile: { autoApply: [maintenance, change] }\n').replace(
        'description: Shop services',
        'description: Shop services, changed',
      ),
    );
    const run = await w.cli(['reconcile', w.dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(exitCodes.ok);
    expect(run.stdout).toContain('Reconcile applies: maintenance, change');
    expect(run.stdout).toContain('[change] ~ project.shop will be updated in place');
    expect(run.stdout).toMatch(/\[maintenance\] ~ gateway_token\.main\/ci will be renewed/);
    expect((await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop')!.description).toBe('Shop services, changed');
  });

  it('classes a change made outside cplane as drift: withheld by default, set back with autoApply [drift]', async () => {
    w = await world();
    w.config(smallConfig());
    expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    const project = (await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop')!;
    await w.client.call('updateProject', {
      path: { id: project.project_id },
      body: { name: 'shop', description: 'changed in the console' },
    });
    const held = await w.cli(['reconcile', w.dir]);
    expect(held.code).toBe(exitCodes.changes);
    expect(held.stdout).toContain(
      '[drift] ~ project.shop will be updated in place (changed outside cplane (description): setting it back)',
    );
    // The class is plain data on the plan's step, from its causes.
    const planned = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as {
      steps: { address: string; causes: string[]; class: string }[];
    };
    expect(planned.steps.find((s) => s.address === 'project.shop')).toMatchObject({ causes: ['changed-outside'], class: 'drift' });

    w.config(`${smallConfig()}reconcile: { autoApply: [drift] }\n`);
    const fixed = await w.cli(['reconcile', w.dir]);
    expect(fixed.code).toBe(exitCodes.ok);
    expect(fixed.stdout).toContain('[drift] ~ project.shop will be updated in place');
    expect((await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop')!.description).toBe('Shop services');
  });

  it('--dry-run prints what it would apply and writes nothing', async () => {
    await tokenInItsRenewalWindow();
    const before = readFileSync(w.statePath, 'utf8');
    const writes = w.emulator.stats().writes;
    const run = await w.cli(['reconcile', w.dir, '--dry-run']);
    expect(run.code).toBe(exitCodes.ok);
    expect(run.stdout).toContain('Reconcile applies: maintenance (dry run: nothing is written)');
    expect(run.stdout).toMatch(/Would apply:\n {2}\[maintenance\] ~ gateway_token\.main\/ci will be renewed/);
    expect(run.stdout).toContain('Would apply 1 step; nothing waits for a person.');
    expect(readFileSync(w.statePath, 'utf8')).toBe(before);
    expect((await activeTokens()).length).toBe(1);
    expect(w.emulator.stats().writes).toBe(writes);
  });

  it('refuses an unknown class in reconcile.autoApply at its file:line:col', async () => {
    w = await world();
    w.config(`${smallConfig()}reconcile:\n  autoApply: [maintenance, everything]\n`);
    const run = await w.cli(['reconcile', w.dir]);
    expect(run.code).toBe(exitCodes.error);
    expect(run.stderr).toMatch(
      /main\.yaml:\d+:28: error: "reconcile\.autoApply\[1\]" must be one of maintenance, drift, change; got "everything"/,
    );
    expect(w.emulator.stats().writes).toBe(0);
  });
});

describe('cplane reconcile killed with SIGKILL mid-run', () => {
  it(
    'converges on the next reconcile: one new token, no duplicate, the old one revoked after its overlap',
    { timeout: 90_000 },
    async () => {
      await tokenInItsRenewalWindow();
      const gatewayId = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!.gateway_id;
      const named = async () => (await w.client.listAll('listGatewayTokens', { path: { id: gatewayId } })).filter((t) => t.name === 'ci');
      const oldId = stateOf()['gateway_token.main/ci']!.id;
      const killed = await w.cli(['reconcile', w.dir], { CPLANE_TEST_KILL_AFTER_OPERATION: 'createGatewayToken' });
      expect(killed.signal).toBe('SIGKILL');
      expect(stateOf()['gateway_token.main/ci']!.id).toBe(oldId);

      const rerun = await w.cli(['reconcile', w.dir]);
      expect(rerun.code, rerun.stderr).toBe(exitCodes.ok);
      expect(rerun.stderr).toContain('Took over the state lock');
      const tokens = await named();
      expect(tokens).toHaveLength(2);
      const created = tokens.find((t) => t.token_id !== oldId)!;
      expect(stateOf()['gateway_token.main/ci']!.id).toBe(created.token_id);
      // Nothing left to do: the resend finished the renewal, which a third run does not repeat.
      expect((await w.cli(['reconcile', w.dir])).stdout).toContain('Nothing to apply; nothing waits for a person.');

      w.emulator.moveClock('25h');
      expect((await w.cli(['reconcile', w.dir])).code).toBe(exitCodes.ok);
      const after = await named();
      expect(after).toHaveLength(2);
      expect(after.filter((t) => t.revoked_at === null).map((t) => t.token_id)).toEqual([created.token_id]);
    },
  );
});

describe('a rotation that is due', () => {
  it('is listed by cplane drift and rotated by cplane reconcile as maintenance, with no person', async () => {
    w = await world();
    // The first due date is the configuration's; each rotation moves it an interval ahead.
    // An hour early: the API's clock (from its Date header, whole seconds) may lag this process's by a second.
    const firstDue = new Date(Date.now() + 10 * 86_400_000 - 3_600_000).toISOString();
    w.config(
      smallConfig().replace(
        '    lifecycle: { preventDestroy: false }\n',
        `    lifecycle: { preventDestroy: false }\n    records:\n      signing:\n        rotationIntervalDays: 10\n        secretDueAt: ${firstDue}\n        value: { generate: { length: 32 } }\n`,
      ),
    );
    expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    const version = async () => (await w.client.listAll('listRecords', {})).find((r) => r.name === 'signing')!.current_version;
    const first = await version();
    w.emulator.moveClock('11d');
    const drift = await w.cli(['drift', w.dir]);
    expect(drift.code).toBe(exitCodes.changes);
    expect(drift.stdout).toMatch(/! record\.shop\/signing rotation due: rotate: due 1 day ago/);
    const run = await w.cli(['reconcile', w.dir]);
    expect(run.code, run.stderr).toBe(exitCodes.ok);
    expect(run.stdout).toContain('[maintenance] ~ record.shop/signing will have its secret rotated');
    expect(await version()).toBe((first ?? 0) + 1);
    expect((await w.cli(['drift', w.dir])).code).toBe(exitCodes.ok);
  });
});

describe('reconcile with tokens delivered to records and grants that end', () => {
  it('renews a delivered token and delivers it as maintenance, and revokes a grant past its until', { timeout: 90_000 }, async () => {
    w = await world({ account: acme, clockOffset: '-25d' });
    // A day ahead of this machine's clock: the grant is made, and it has ended once the API's clock is two days ahead.
    const until = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const config = deliveredConfig('rc').replace(
      '      ci-token:\n        grants:\n          serviceAccounts: [ci-deployer]\n',
      `      ci-token:\n        grants:\n          serviceAccounts: [ci-deployer]\n      shared:\n        value: { generate: { length: 24 } }\n        grants:\n          serviceAccounts: [{ name: ci-deployer, until: "${until}", reason: INC-1 }]\n`,
    );
    w.config(config);
    const applied = await w.run(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    w.emulator.setClockOffset(0);
    w.emulator.moveClock('2d');
    const run = await w.cli(['reconcile', w.dir]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(exitCodes.ok);
    expect(run.stdout).toMatch(/\[maintenance\] ~ gateway_token\.main\/ci will be renewed/);
    expect(run.stdout).toMatch(/\[maintenance\] . record\.core\/ci-token /);
    expect(run.stdout).toMatch(/\[maintenance\] - service_account_grant\.core\/shared\/ci-deployer will be revoked/);
    expect(run.stdout).toContain('nothing waits for a person.');
    const revealed = (await w.run(['output', 'gateway_token.main/ci', w.dir, '--reveal'])).stdout.trim();
    const recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'ci-token')!.record_id;
    const read = await readAs(w, recordId);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.trim() === revealed).toBe(true);
  });
});
