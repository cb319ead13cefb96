// One configuration folder planned for two accounts with two var files (the pattern of examples/multi-env):
// `plan --github` gives each its own comment_key, so the two plans keep two pull-request comments.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { world, type World } from '../e2e/helpers.js';
import { parseOutputs } from './fake-github.js';

let w: World;
const [staging, prod] = [fixtures.accounts[1]!.id, fixtures.accounts[0]!.id];

beforeAll(async () => {
  w = await world();
  w.config('version: 1\naccount: ${var.account}\nvariables:\n  account: {}\nprojects:\n  app:\n    name: app\n');
  mkdirSync(join(w.dir, 'vars'));
  writeFileSync(join(w.dir, 'vars', 'staging.yaml'), `account: ${staging}\n`);
  writeFileSync(join(w.dir, 'vars', 'prod.yaml'), `account: ${prod}\n`);
});
afterAll(() => w.close());

async function commentKey(varFile: string, workspace?: string): Promise<string> {
  const output = join(w.dir, '..', `output-${varFile}-${workspace ?? ''}`);
  writeFileSync(output, '');
  // RUNNER_TEMP as a runner gives it: the plan's Markdown goes there, inside the world's folder.
  const env = { CPLANE_ACCOUNT: '', GITHUB_OUTPUT: output, GITHUB_WORKSPACE: join(w.dir, '..'), RUNNER_TEMP: w.temp };
  // The key it writes is the subject, not the process: in-process (World.run).
  const run = await w.run(
    ['plan', 'infra', '--github', '--var-file', `infra/vars/${varFile}.yaml`, ...(workspace ? ['--workspace', workspace] : [])],
    env,
  );
  expect(run.stderr).not.toContain('Error');
  expect(run.code).toBe(0);
  return parseOutputs(readFileSync(output, 'utf8')).comment_key!;
}

it('names the folder, the account and the workspace', async () => {
  expect(await commentKey('staging')).toBe(`infra:${staging}@default`);
  expect(await commentKey('prod')).toBe(`infra:${prod}@default`);
  expect(await commentKey('prod', 'blue')).toBe(`infra:${prod}@blue`);
});
