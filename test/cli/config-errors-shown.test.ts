// A command that loads the configuration only to find its account and state (`cplane state list`) says the
// configuration's errors as `validate` does, at file:line:col, instead of "No account given" (issue 49, section 5).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'cplane-config-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
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

it('state list names the invalid name at its place, as validate does', async () => {
  writeFileSync(join(dir, 'main.yaml'), 'version: 1\naccount: acc_1\nprojects:\n  "Bad Name!": {}\n');
  const validate = await cli('validate');
  const listed = await cli('state', 'list');
  expect(validate.code).not.toBe(0);
  expect(listed.code).not.toBe(0);
  expect(listed.stderr).not.toContain('No account');
  const place = /main\.yaml:4:\d+: error: [^\n]+/.exec(validate.stdout + validate.stderr)![0];
  expect(listed.stderr).toContain(place);
});
