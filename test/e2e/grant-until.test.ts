// Grants that end: a Service Account's grant with `until` and `reason`, and a user's share with a later `until`.
// Before the end the plan lists the grant that ends within 7 days with the time left; once the emulator's clock
// passes `until` (moved, never slept), every plan revokes it (cause `grant-expired`) and, with rotateOnRevoke,
// rotates the value for the readers left; after the apply the Service Account can no longer read, and the grant is
// never created again. Policies see `until`, `reason` and `now`: one requires a reason, one caps the duration.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { directoryYaml, privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const [ciDeployer, dana] = [fixtures.serviceAccounts[0]!, fixtures.users[2]!];
const DAY = 86_400_000;

// Each test arranges its own world: the steps before the one under test run in-process (the CLI's entry, no
// subprocess); the step under test runs the real CLI.
let w: World;
let recordId: string;

const at = (ms: number) => new Date(w.emulator.now().getTime() + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const config = (grants: string, policies = '') => `version: 1
projects:
  shop:
    name: shop-until
    records:
      db-password:
        value: { generate: { length: 32 } }
        rotateOnRevoke: true
        grants:
${grants}
${directoryYaml({ users: { dana: dana.id } })}${policies}`;

const readAsServiceAccount = () =>
  w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId], { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) });
/** Dana's private key in a 0600 file, for `cplane read --key-file`. */
function danaKeyFile(): string {
  const keyFile = join(w.temp, 'dana.key');
  writeFileSync(keyFile, privateKeyOf(dana.id), { mode: 0o600 });
  return keyFile;
}
/** `cplane read` as Dana (her token), her private key in a 0600 file. */
async function readAsDana(): Promise<string> {
  const read = await w.cliAs(fixtures.tokens.recordOwner, ['read', '--record-id', recordId, '--key-file', danaKeyFile()]);
  expect(read.code, read.stderr).toBe(0);
  return read.stdout;
}
let danaRead: string;
let saUntil: string;
const granted = () =>
  config(
    `          serviceAccounts: [{ name: ci-deployer, until: "${saUntil}", reason: INC-123 }]\n          users: [{ name: dana, until: "${at(30 * DAY)}" }]`,
  );

/** The story so far, in-process: the grants applied (the value Dana reads kept in `danaRead`), then `steps`. */
async function arranged(...steps: ('expired' | 'revoked')[]): Promise<void> {
  saUntil = at(3 * DAY);
  w.config(granted());
  await appliedInProcess();
  recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'db-password')!.record_id;
  const { CPLANE_STATE_KEY: _stateKey, ...readerEnv } = w.env;
  const read = await runInProcess(
    ['read', '--record-id', recordId, '--key-file', danaKeyFile()],
    { ...readerEnv, CPLANE_TOKEN: fixtures.tokens.recordOwner, CPLANE_WRITER_KEY: w.writerKey },
    w.temp,
  );
  expect(read.code, read.stderr).toBe(0);
  danaRead = read.stdout;
  if (steps.includes('expired')) {
    w.emulator.moveClock('3d');
    w.emulator.moveClock('1h');
  }
  if (steps.includes('revoked')) await appliedInProcess();
}
async function appliedInProcess(): Promise<void> {
  const run = await w.run(['apply', w.dir, '--auto-approve']);
  expect(run.code, run.stderr).toBe(0);
}
const liveGrants = async () => (await w.client.listAll('listRecords', {})).find((r) => r.record_id === recordId)!.grants!;

interface JsonPlan {
  steps: { address: string; action: string; causes?: string[]; reason?: string; changes: { path: string; note?: string }[] }[];
  notices: { code: string; address?: string; kind?: string; data: Record<string, unknown> }[];
}

beforeEach(async () => {
  w = await world({ account: acme });
});
afterEach(async () => w.close());

describe('a grant with until', () => {
  it('is created like any grant, and the plan lists the one that ends within 7 days with the time left', { timeout: 90_000 }, async () => {
    saUntil = at(3 * DAY);
    w.config(granted());
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Grants that end within 7 days (every plan after the time shown revokes each):');
    expect(plan.stdout).toContain(
      `service_account_grant.shop/db-password/ci-deployer: ends in 3 days, at ${saUntil.slice(0, 16).replace('T', ' ')} UTC (INC-123)`,
    );
    expect(plan.stdout).not.toMatch(/user_share\.shop\/db-password\/dana: ends/);
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'db-password')!.record_id;
    expect((await readAsServiceAccount()).code).toBe(0);
    danaRead = await readAsDana();
    expect(await liveGrants()).toMatchObject({ service_account_ids: [ciDeployer.id], user_ids: [dana.id] });
    const json = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as JsonPlan;
    expect(json.steps).toEqual([]);
    expect(json.notices.filter((n) => n.code === 'ending_soon')).toMatchObject([
      {
        address: 'service_account_grant.shop/db-password/ci-deployer',
        kind: 'service_account_grant',
        data: { until: saUntil.replace('Z', '.000Z'), left: 'in 3 days', reason: 'INC-123' },
      },
    ]);
  });

  it(
    'past until on the API clock, the plan revokes it and rotates the value for the reader left, as maintenance',
    { timeout: 90_000 },
    async () => {
      await arranged();
      w.emulator.moveClock('3d');
      w.emulator.moveClock('1h');
      const json = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as JsonPlan;
      const grant = json.steps.find((s) => s.address === 'service_account_grant.shop/db-password/ci-deployer')!;
      expect(grant).toMatchObject({
        action: 'revoke',
        causes: ['grant-expired'],
        reason: `it ended 1 hour ago (until ${saUntil.slice(0, 16).replace('T', ' ')} UTC, INC-123)`,
      });
      const record = json.steps.find((s) => s.address === 'record.shop/db-password')!;
      expect(record).toMatchObject({ action: 'rotate', causes: ['grant-expired'] });
      expect(record.changes.find((c) => c.path === 'value')!.note).toBe(
        'rotate: 1 reader removed (its grant ended); re-wrapped for 1 reader',
      );
      expect(json.steps).toHaveLength(2);
    },
  );

  it('drift lists it in its Due section (what reconcile revokes), and exits 2', { timeout: 90_000 }, async () => {
    await arranged('expired');
    const drift = await w.cli(['drift', w.dir]);
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain('Due (time made these due; `cplane reconcile` or `cplane apply` does them):');
    expect(drift.stdout).toContain(
      `  ! service_account_grant.shop/db-password/ci-deployer a grant past its until, to revoke: it ended 1 hour ago (until ${saUntil.slice(0, 16).replace('T', ' ')} UTC, INC-123)`,
    );
    expect(drift.stdout).not.toContain('user_share.shop/db-password/dana');
  });

  it('apply revokes it: the Service Account can no longer read, the user still holds the new value', { timeout: 90_000 }, async () => {
    await arranged('expired');
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const read = await readAsServiceAccount();
    expect(read.code).not.toBe(0);
    expect(read.stdout).toBe('');
    expect(await liveGrants()).toMatchObject({ service_account_ids: [], user_ids: [dana.id] });
    const now = await readAsDana();
    expect(now).toMatch(/^\S{32}\n$/);
    expect(now).not.toBe(danaRead);
  });

  it('is not created again by later plans, though it stays in the configuration', { timeout: 90_000 }, async () => {
    await arranged('expired', 'revoked');
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).toContain('No changes');
  });
});

describe('policies on grants that end', () => {
  const policies = `policies:
  grants-say-why:
    level: mandatory
    kinds: [service_account_grant, user_share, group_share]
    rule: "has(after.reason)"
    message: Every grant says why (reason).
  grants-end-within-30-days:
    level: mandatory
    kinds: [service_account_grant, user_share, group_share]
    rule: "has(after.until) && timestamp(after.until) - now <= duration('720h')"
    message: Every grant ends within 30 days.
`;

  // A new grant of ci-deployer (its earlier one ended and was revoked): policies judge the grants a plan makes.
  beforeEach(async () => arranged('expired', 'revoked'));

  it('a grant without a reason that ends too late fails the plan, naming each policy', { timeout: 90_000 }, async () => {
    w.config(
      config(
        `          serviceAccounts: [{ name: ci-deployer, until: "${at(60 * DAY)}" }]\n          users: [{ name: dana, until: "${at(30 * DAY)}" }]`,
        policies,
      ),
    );
    const plan = await w.cli(['plan', w.dir, '--json']);
    expect(plan.code).toBe(1);
    const findings = (JSON.parse(plan.stdout) as { policies: { findings: { policy: string; address: string; outcome: string }[] } })
      .policies.findings;
    expect(findings.map((f) => [f.policy, f.address, f.outcome])).toEqual([
      ['grants-end-within-30-days', 'service_account_grant.shop/db-password/ci-deployer', 'violated'],
      ['grants-say-why', 'service_account_grant.shop/db-password/ci-deployer', 'violated'],
    ]);
  });

  it('grants with a reason that end within 30 days pass', { timeout: 90_000 }, async () => {
    w.config(
      config(
        `          serviceAccounts: [{ name: ci-deployer, until: "${at(20 * DAY)}", reason: INC-124 }]\n          users: [{ name: dana, until: "${at(29 * DAY)}", reason: ONCALL-7 }]`,
        policies,
      ),
    );
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
