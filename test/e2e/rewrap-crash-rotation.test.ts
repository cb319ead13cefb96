// A generated record granted to `ci-deployer` is due for rotation, and the apply is killed with SIGKILL right after
// the API answered the rotation, before the step re-wrapped the new data key for its reader. The due date moves only
// with the step's last write, so the next plan still sees the rotation due: the next apply resends the rotation with
// its key and rotates once more, wrapped for the reader, who then reads the value cplane itself reads.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;

let w: World;
let recordId: string;
let firstValue: string;

const readAsServiceAccount = () =>
  w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId], { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) });
const readAsCplane = () => w.cli(['read', 'record.shop/api-key', w.dir]);

// Each test arranges its own world: the first apply, read and due date run in-process (the CLI's entry, no
// subprocess); a killed apply stays a real subprocess (in-process, SIGKILL would kill the runner); the step under
// test runs the real CLI.
beforeEach(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  shop:
    name: shop-rewrap-rotation
    records:
      api-key:
        value: { generate: { length: 40 } }
        rotationIntervalDays: 30
        grants:
          serviceAccounts: [ci-deployer]
`);
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'api-key')!.record_id;
  const { CPLANE_STATE_KEY: _stateKey, ...readerEnv } = w.env;
  firstValue = (
    await runInProcess(
      ['read', '--record-id', recordId],
      {
        ...readerEnv,
        CPLANE_TOKEN: fixtures.tokens.serviceAccount,
        CPLANE_WRITER_KEY: w.writerKey,
        CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
      },
      w.temp,
    )
  ).stdout;
  expect(firstValue).toMatch(/^.{40}\n$/);
  // Due since long ago: the next apply rotates it.
  expect(
    (await w.run(['api', 'updateRecord', '--param', `id=${recordId}`, '--body', JSON.stringify({ secretDueAt: '2020-01-01T00:00:00Z' })]))
      .code,
  ).toBe(0);
});
afterEach(async () => w.close());

/** The apply killed right after the API answered the rotation (a real subprocess), with `args` added. */
const killedApply = (...args: string[]) =>
  w.cli(['apply', w.dir, '--auto-approve', ...args], { CPLANE_TEST_KILL_AFTER_OPERATION: 'rotateRecord' });
async function killed(): Promise<void> {
  const run = await killedApply();
  if (run.signal !== 'SIGKILL') throw new Error(`the apply was not killed: ${run.stderr}`);
}
/** The story of the first two tests: the killed apply, then the apply that converges (in-process). */
async function converged(): Promise<void> {
  await killed();
  const rerun = await w.run(['apply', w.dir, '--auto-approve']);
  if (rerun.code !== 0) throw new Error(`the converging apply failed: ${rerun.stderr}`);
}

it('is killed after the rotation was answered, before its re-wrap; the next plan is not "No changes"', { timeout: 90_000 }, async () => {
  const run = await killedApply();
  expect(run.signal).toBe('SIGKILL');
  const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
  expect(plan.code, plan.stderr).toBe(2);
  expect(plan.stdout).toMatch(/record\.shop\/api-key: rotateRecord will be resent first/);
});

it(
  'the next apply rotates and re-wraps: the reader reads the value cplane reads, a new one, with one grant',
  { timeout: 90_000 },
  async () => {
    await killed();
    const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/rotate: due \d+ days ago; re-wrapped for 1 reader/);

    const read = await readAsServiceAccount();
    expect(read.stderr).toBe('');
    expect(read.stdout).toMatch(/^.{40}\n$/);
    expect(read.stdout).not.toBe(firstValue);
    expect(read.stdout).toBe((await readAsCplane()).stdout);
    expect((await w.client.listAll('listRecords', {})).find((r) => r.record_id === recordId)!.grants?.service_account_ids).toEqual([
      ciDeployer.id,
    ]);

    const again = await w.run(['plan', w.dir, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  },
);

it(
  'the same for a rotation asked with --replace: a plain apply after the kill rotates again and re-wraps',
  { timeout: 90_000 },
  async () => {
    await converged();
    const before = (await readAsServiceAccount()).stdout;
    const run = await killedApply('--replace', 'record.shop/api-key');
    expect(run.signal).toBe('SIGKILL');
    // Nothing due and no --replace now: only the mark the killed step left on the value says it is unfinished.
    const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/re-wrapped for 1 reader/);

    const read = await readAsServiceAccount();
    expect(read.stderr).toBe('');
    expect(read.stdout).not.toBe(before);
    expect(read.stdout).toBe((await readAsCplane()).stdout);
    const again = await w.run(['plan', w.dir, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  },
);
