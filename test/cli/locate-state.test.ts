/**
 * Every command finds the account and state the same way (locateState): --account, then CPLANE_ACCOUNT,
 * then the configuration's `account:` (read with --var and --var-file), then the one state in .cplane/.
 * With two environments in one folder, `--var-file` picks the state for output, state list and
 * force-unlock, as it does for plan and apply.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { openState } from '../../src/state/index.js';

const dir = mkdtempSync(join(tmpdir(), 'cplane-locate-'));
const env = { CPLANE_STATE_KEY: Buffer.alloc(32, 7).toString('base64') };

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) => ({ write: (text: string) => (append(text), true) }) as unknown as NodeJS.WritableStream;
  const code = await runCli(argv, {
    env,
    cwd: dir,
    stdout: sink((t) => (stdout += t)),
    stderr: sink((t) => (stderr += t)),
    stdin: process.stdin,
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  writeFileSync(join(dir, 'main.yaml'), 'version: 1\naccount: ${var.account}\nvariables:\n  account: {}\nprojects:\n  web: {}\n');
  writeFileSync(join(dir, 'staging.yaml.vars'), 'account: acc_staging\n');
  writeFileSync(join(dir, 'prod.yaml.vars'), 'account: acc_prod\n');
  for (const account of ['acc_staging', 'acc_prod']) {
    const store = await openState({ configDir: dir, account, env, command: 'seed', lock: true });
    await store.update((draft) => {
      const now = new Date().toISOString();
      draft.resources['project.web'] = {
        kind: 'project',
        id: `prj_${account}`,
        inputs: { name: 'web' },
        fingerprints: {},
        createdAt: now,
        updatedAt: now,
      };
    });
    await store.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('--var-file names the account, so state list reads that environment', async () => {
  expect(await cli('state', 'list', '--var-file', 'staging.yaml.vars')).toEqual({
    code: 0,
    stderr: '',
    stdout: 'project.web  project  prj_acc_staging\n',
  });
  expect(await cli('state', 'list', '--var', 'account=acc_prod')).toEqual({
    code: 0,
    stderr: '',
    stdout: 'project.web  project  prj_acc_prod\n',
  });
});

it('--account wins over the configuration', async () => {
  expect((await cli('state', 'list', '--var-file', 'staging.yaml.vars', '--account', 'acc_prod')).stdout).toBe(
    'project.web  project  prj_acc_prod\n',
  );
});

it('without any account, two states in the folder must be chosen between', async () => {
  expect(await cli('output')).toEqual({
    code: 1,
    stdout: '',
    stderr: `Error: ${join(dir, '.cplane')} holds the states of 2 accounts: acc_prod, acc_staging.\nChoose one with --account ID or CPLANE_ACCOUNT.\n`,
  });
  expect(await cli('output', '--var-file', 'prod.yaml.vars')).toEqual({
    code: 0,
    stderr: '',
    stdout: 'The state holds no gateway tokens.\n',
  });
});
