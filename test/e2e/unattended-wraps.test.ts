// What runs with no person never wraps a value for a reader key the API chose (docs/security.md, "What an
// unattended run may do"). A lying proxy offers an attacker's key for ci-deployer, a Service Account granted
// without a pin (with a consistent key id), and `cplane reconcile` runs through it: the rotation that is really
// due (the emulator's clock moved), the one the server only claims is due, and the rotation of rotateOnRevoke
// after a grant ended are held back with the grant's key change, naming the reader and both key ids, and no write
// body reconcile sends holds a wrapper whose header names the attacker's key id; a renewed token's delivery is held
// the same way. The honest API afterwards lets reconcile rotate, and ci-deployer reads the new value. An autoApprove
// rule never approves a plan that changes a reader key or adds a reader, whatever it says.
import { afterEach, describe, expect, it } from 'vitest';
import { keyIdOf } from '@cplane/sdk/internal/key-id';
import { generateKeyPair } from '@cplane/sdk/internal/hpke';
import { fixtures } from '../../src/emulator/fixtures.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { lyingProxy, type LyingProxy, type ProxiedRequest } from '../helpers/lying-proxy.js';
import { directoryYaml, privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';
import { deliveredConfig, readAs } from './token-delivery-config.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const dana = fixtures.users[2]!;
const attacker = generateKeyPair();
const attackerKeyId = keyIdOf(attacker.publicKey);
const realKeyId = keyIdOf(fixtureKeyPair(ciDeployer.id).publicKey);

let w: World;
let proxy: LyingProxy;
afterEach(async () => {
  await proxy?.close();
  await w?.close();
});

/** Every write (not a GET) the proxy forwarded, with its body. */
let writes: ProxiedRequest[] = [];

/** ci-deployer listed with the attacker's key and its matching key id; with `dueRecord`, that record listed as due a day ago. */
function lie(dueRecord?: string) {
  return (r: ProxiedRequest, a: { json: unknown }) => {
    if (r.method !== 'GET') writes.push(r);
    if (r.method === 'GET' && r.path === '/v1/service-accounts') {
      const envelope = a.json as { data: { service_account_id: string; public_key: string; key_id: string }[] };
      for (const sa of envelope.data.filter((s) => s.service_account_id === ciDeployer.id)) {
        sa.public_key = Buffer.from(attacker.publicKey).toString('base64');
        sa.key_id = attackerKeyId;
      }
      return envelope;
    }
    if (dueRecord && r.method === 'GET' && r.path === '/v1/records') {
      const envelope = a.json as { data: { name: string; secret_due_at: string | null }[] };
      for (const record of envelope.data.filter((x) => x.name === dueRecord))
        record.secret_due_at = new Date(Date.now() - 86_400_000).toISOString();
      return envelope;
    }
    return undefined;
  };
}

/** The write bodies that carry a wrapper whose header names the attacker's key (cplane-hpke2.<account>.<version>.<recipient>.<keyId>…). */
const wrappedForAttacker = () => writes.filter((r) => JSON.stringify(r.body ?? null).includes(`.${attackerKeyId}.`));

const rotating = (extra = '') => `version: 1
projects:
  atk:
    name: atk-unattended
    records:
      signing:
        rotationIntervalDays: 10
        secretDueAt: ${new Date(Date.now() + 10 * 86_400_000 - 3_600_000).toISOString()}
        value: { generate: { length: 32 } }
        grants: { serviceAccounts: [ci-deployer] }
${extra}`;

const versionOf = async (name: string) => (await w.client.listAll('listRecords', {})).find((r) => r.name === name)!;
const readAsCiDeployer = (recordId: string) =>
  w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId], { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) });

/** The held-back step's line names the reader and both key ids. */
function expectHeldBack(stdout: string, address: string): void {
  expect(stdout).toContain('Not applied');
  const line = stdout.split('\n').find((l) => l.includes(address) && l.includes('[change]'));
  expect(line, stdout).toBeDefined();
  expect(line).toContain(
    `wraps for Service Account ci-deployer's key ${attackerKeyId}, which the API offers and no pin fixes; state recorded ${realKeyId}`,
  );
}

/** `all`: the configuration has deployments (`apply --all`). */
async function arrange(config: string, options: { clockOffset?: string; all?: boolean } = {}): Promise<void> {
  w = await world({ account: acme, ...(options.clockOffset ? { clockOffset: options.clockOffset } : {}) });
  proxy = await lyingProxy(w.emulator.url);
  writes = [];
  w.config(config);
  const applied = await w.run(['apply', ...(options.all ? ['--all'] : []), w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
}

describe('cplane reconcile never wraps a value for a key the API offers', () => {
  for (const story of ['really due (the clock moved)', 'claimed due by the server'] as const) {
    it(`holds back a rotation ${story} with the grant's key change, and sends no wrapper for the attacker's key`, async () => {
      await arrange(rotating());
      const before = await versionOf('signing');
      if (story === 'really due (the clock moved)') w.emulator.moveClock('11d');
      proxy.setLie(lie(story === 'claimed due by the server' ? 'signing' : undefined));
      const run = await w.cli(['reconcile', w.dir], { CPLANE_BASE_URL: proxy.url });
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout).toBe(exitCodes.changes);
      expectHeldBack(run.stdout, 'record.atk/signing');
      expectHeldBack(run.stdout, 'service_account_grant.atk/signing/ci-deployer');
      expect(wrappedForAttacker()).toEqual([]);
      expect((await versionOf('signing')).current_version).toBe(before.current_version);

      // The honest API: the rotation is maintenance again, and ci-deployer reads the new value.
      proxy.setLie(undefined);
      if (story === 'claimed due by the server') w.emulator.moveClock('11d');
      const honest = await w.cli(['reconcile', w.dir]);
      expect(honest.code, honest.stdout + honest.stderr).toBe(exitCodes.ok);
      expect(honest.stdout).toContain('[maintenance] ~ record.atk/signing will have its secret rotated');
      expect((await versionOf('signing')).current_version).toBe((before.current_version ?? 0) + 1);
      const read = await readAsCiDeployer(before.record_id);
      expect(read.code, read.stderr).toBe(0);
    });
  }

  it('holds back the rotation of rotateOnRevoke after a grant ended, and still revokes the ended grant', { timeout: 90_000 }, async () => {
    // A day ahead of both clocks when it is granted; past on the API's clock once the emulator's moves two days.
    const until = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await arrange(`version: 1
projects:
  atk:
    name: atk-unattended
    records:
      shared:
        value: { generate: { length: 24 } }
        rotateOnRevoke: true
        grants:
          serviceAccounts: [ci-deployer]
          users: [{ name: dana, until: "${until}", reason: INC-7 }]
${directoryYaml({ users: { dana: dana.id } })}`);
    w.emulator.moveClock('2d');
    const before = await versionOf('shared');
    proxy.setLie(lie());
    const run = await w.cli(['reconcile', w.dir], { CPLANE_BASE_URL: proxy.url });
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(exitCodes.changes);
    expect(run.stdout).toMatch(/\[maintenance\] - user_share\.atk\/shared\/dana will be revoked/);
    expectHeldBack(run.stdout, 'record.atk/shared');
    expect(wrappedForAttacker()).toEqual([]);
    expect((await versionOf('shared')).current_version).toBe(before.current_version);
    expect((await versionOf('shared')).grants?.user_ids).toEqual([]);
  });
});

describe('cplane reconcile delivers a renewed token only for the keys state recorded', () => {
  it(
    "renews the token, holds back its delivery with the key change (the old token stays until it is delivered), and sends no wrapper for the attacker's key",
    { timeout: 90_000 },
    async () => {
      await arrange(deliveredConfig('unattended'), { clockOffset: '-25d' });
      w.emulator.setClockOffset(0);
      const recordId = (await versionOf('ci-token')).record_id;
      const before = await versionOf('ci-token');
      proxy.setLie(lie());
      const run = await w.cli(['reconcile', w.dir], { CPLANE_BASE_URL: proxy.url });
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout).toBe(exitCodes.changes);
      expect(run.stdout).toMatch(/\[maintenance\] ~ gateway_token\.main\/ci will be renewed/);
      expectHeldBack(run.stdout, 'record.core/ci-token');
      expect(wrappedForAttacker()).toEqual([]);
      expect((await versionOf('ci-token')).current_version).toBe(before.current_version);
      // ci-deployer still reads the token it had, which is still active: its revocation waits for the delivery.
      const read = await readAs(w, recordId);
      expect(read.code, read.stderr).toBe(0);
      const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'unattended-main')!;
      const active = (await w.client.listAll('listGatewayTokens', { path: { id: gateway.gateway_id } })).filter(
        (t) => t.revoked_at === null,
      );
      expect(active).toHaveLength(2);
      expect(active.some((t) => read.stdout.trim().startsWith(t.token_prefix))).toBe(true);
    },
  );
});

describe('an autoApprove rule never approves a plan that changes who can read a record', () => {
  const deployed = (records: string) => `version: 1
deployments:
  prod: { account: ${acme}, autoApprove: "plan.remove == 0 && plan.replace == 0" }
projects:
  atk:
    name: atk-unattended
    records:
${records}`;
  const granted = (names: string[], users = '') =>
    names.map((n) => `      ${n}: { value: { generate: { length: 16 } }, grants: { serviceAccounts: [ci-deployer]${users} } }\n`).join('');

  it("refuses a reader-key swap the docs' own rule would pass, naming the steps, and sends no wrapper for the attacker's key", async () => {
    await arrange(deployed(granted(['one', 'two', 'three'])), { all: true });
    proxy.setLie(lie());
    const run = await w.cli(['apply', '--all', w.dir], { CPLANE_BASE_URL: proxy.url });
    expect(run.code, run.stdout + run.stderr).toBe(exitCodes.error);
    expect(run.stdout).not.toContain('Approved by the autoApprove rule');
    expect(run.stdout).toContain(
      'Deployment prod needs approval: no autoApprove rule approves a plan that changes who can read a record: service_account_grant.atk/one/ci-deployer changes the key a reader is wrapped for',
    );
    expect(run.stdout).toContain(
      `wraps for Service Account ci-deployer's key ${attackerKeyId}, which the API offers and no pin fixes; state recorded ${realKeyId}`,
    );
    expect(wrappedForAttacker()).toEqual([]);
  });

  it("refuses a plan that adds a reader, even one the repository names, and approves the same rule's plan without it", async () => {
    await arrange(deployed(granted(['one'])), { all: true });
    w.config(`${deployed(granted(['one'], ', users: [dana]'))}${directoryYaml({ users: { dana: dana.id } })}`);
    const added = await w.cli(['apply', '--all', w.dir]);
    expect(added.code, added.stdout + added.stderr).toBe(exitCodes.error);
    expect(added.stdout).toContain(
      'Deployment prod needs approval: no autoApprove rule approves a plan that changes who can read a record: user_share.atk/one/dana adds a reader to a record',
    );
    w.config(`${deployed(granted(['one', 'two']))}`);
    // A new record granted to ci-deployer adds a reader too; a new record alone is the rule's to decide.
    expect((await w.cli(['apply', '--all', w.dir])).stdout).toContain(
      'service_account_grant.atk/two/ci-deployer adds a reader to a record',
    );
    w.config(`${deployed(`${granted(['one'])}      two: { value: { generate: { length: 16 } } }\n`)}`);
    const approved = await w.cli(['apply', '--all', w.dir]);
    expect(approved.code, approved.stdout + approved.stderr).toBe(exitCodes.ok);
    expect(approved.stdout).toContain('Approved by the autoApprove rule of deployment prod.');
  });
});
