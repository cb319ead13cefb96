// A record granted to `ci-deployer` gets a new value, and the apply is killed with SIGKILL right after the API
// answered the new value version, before the step re-wrapped the new data key for its reader. The value's
// fingerprint is recorded only with the step's last write, so nothing tells the next plan the value is done:
// it says what is pending (exit 2), the next apply writes the value again and re-wraps it for the reader, the
// Service Account reads the NEW value, it holds exactly one grant, and a second plan has no changes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const FIRST = 'sk_live_rewrap_first_4417';
const SECOND = 'sk_live_rewrap_second_9302';

let w: World;
let recordId: string;

/** `cplane read` as ci-deployer: its token and its private key. */
const readAsServiceAccount = () =>
  w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId], { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) });

const liveRecord = async () => (await w.client.listAll('listRecords', {})).find((r) => r.record_id === recordId)!;

// Each test arranges its own world: the first apply and read run in-process (the CLI's entry, no subprocess); the
// killed apply stays a real subprocess (in-process, SIGKILL would kill the runner); the step under test runs the
// real CLI.
beforeEach(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  shop:
    name: shop-rewrap
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants:
          serviceAccounts: [ci-deployer]
`);
  const applied = await w.run(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: FIRST });
  expect(applied.code, applied.stderr).toBe(0);
  recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'stripe-key')!.record_id;
  const { CPLANE_STATE_KEY: _stateKey, ...readerEnv } = w.env;
  const read = await runInProcess(
    ['read', '--record-id', recordId],
    {
      ...readerEnv,
      CPLANE_TOKEN: fixtures.tokens.serviceAccount,
      CPLANE_WRITER_KEY: w.writerKey,
      CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
    },
    w.temp,
  );
  expect(read.stdout).toBe(`${FIRST}\n`);
});
afterEach(async () => w.close());

/** The apply of SECOND killed right after the API answered the new value version (a real subprocess). */
const killedApply = () =>
  w.cli(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: SECOND, CPLANE_TEST_KILL_AFTER_OPERATION: 'createRecordVersion' });
async function killed(): Promise<void> {
  const run = await killedApply();
  if (run.signal !== 'SIGKILL') throw new Error(`the apply was not killed: ${run.stderr}`);
}

it(
  'is killed after the new value version was answered, before its re-wrap: the reader cannot read the new value yet',
  { timeout: 90_000 },
  async () => {
    const run = await killedApply();
    expect(run.signal).toBe('SIGKILL');
    const read = await readAsServiceAccount();
    expect(read.code).not.toBe(0);
    expect(read.stdout).not.toContain(FIRST);
    expect(read.stdout).not.toContain(SECOND);
  },
);

it('the next plan is truthful: the value write is pending, so it is not "No changes"', { timeout: 90_000 }, async () => {
  await killed();
  const plan = await w.cli(['plan', w.dir, '--detailed-exitcode'], { STRIPE_KEY: SECOND });
  expect(plan.code, plan.stderr).toBe(2);
  expect(plan.stdout).toMatch(/record\.shop\/stripe-key: createRecordVersion will be resent first/);
  expect(plan.stdout).not.toContain('No changes');
});

it(
  'the next apply converges: the value is written again and re-wrapped, and the reader reads the NEW value',
  { timeout: 90_000 },
  async () => {
    await killed();
    const rerun = await w.cli(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: SECOND });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain('re-wrapped for 1 reader');

    const read = await readAsServiceAccount();
    expect(read.stderr).toBe('');
    expect(read.stdout).toBe(`${SECOND}\n`);
    // Exactly one grant, for ci-deployer.
    expect((await liveRecord()).grants?.service_account_ids).toEqual([ciDeployer.id]);

    const again = await w.cli(['plan', w.dir, '--detailed-exitcode'], { STRIPE_KEY: SECOND });
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes');
  },
);

it('leaves no value in plaintext in the state folder (state and journal)', { timeout: 90_000 }, async () => {
  // The story: the killed apply, then the apply that converges (in-process).
  await killed();
  const rerun = await w.run(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: SECOND });
  if (rerun.code !== 0) throw new Error(`the converging apply failed: ${rerun.stderr}`);
  const stored = await w.stored();
  expect(stored.length).toBeGreaterThan(0);
  for (const text of stored) for (const secret of [FIRST, SECOND, w.env.CPLANE_STATE_KEY!]) expect(text).not.toContain(secret);
});
