// A pull request's configuration names the runner's state key file as a var file: by an absolute path, by a
// ../ path, and through a link inside the folder. `plan --all --github` (the real CLI) refuses each at its
// file:line:col and reads nothing: neither its output nor the step summary, the outputs or the comment's file
// holds a byte of the key. `cplane validate` says the same, and the MCP tool `cplane_plan` refuses the same
// paths in its `varFiles` input (test/faces/mcp-var-files-outside.test.ts).
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extraAccount } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

const [t1, t2] = [extraAccount(1).id, extraAccount(2).id];
/** What the runner's state key file holds: no output of any run may contain it. */
const KEY = 'q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8=';

const configuration = (varFile: string) => `version: 1
variables:
  env: { type: string, default: x }
deployments:
  staging: { account: ${t1}, varFiles: [${varFile}] }
  prod: { account: ${t2}, after: [staging] }
projects:
  app: { description: "\${var.env} app" }
`;

/** Every file a directory tree holds, read. */
const filesUnder = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(root, e.name)) : [readFileSync(join(root, e.name), 'utf8')],
  );

describe('a pull request naming a file outside the configuration folder', () => {
  let w: World;
  let keyFile: string;
  beforeEach(async () => {
    w = await world({ accounts: 2 });
    keyFile = join(w.temp, 'config', 'cplane', 'state.key');
    mkdirSync(join(w.temp, 'config', 'cplane'), { recursive: true });
    writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
    mkdirSync(join(w.dir, 'vars'));
    symlinkSync(keyFile, join(w.dir, 'vars', 'staging.yaml'));
  });
  afterEach(() => w.close());

  it.each([
    ['an absolute path', () => keyFile],
    ['a ../ path', () => '../config/cplane/state.key'],
    ['a link inside the folder', () => 'vars/staging.yaml'],
  ])('plan --all --github: %s is refused at its line, and no output holds the key', async (_what, path) => {
    w.config(configuration(path()));
    const gh = join(w.temp, 'gh');
    mkdirSync(gh);
    const env = { GITHUB_OUTPUT: join(gh, 'out'), GITHUB_STEP_SUMMARY: join(gh, 'summary'), RUNNER_TEMP: gh, GITHUB_WORKSPACE: w.temp };
    const { code, stdout, stderr } = await w.cli(['plan', '--all', '--github', 'infra'], env);
    expect(code).toBe(1);
    expect(stdout + stderr).toContain('infra/main.yaml:5:');
    expect(stdout).toMatch(/^::error file=infra\/main\.yaml,line=5,col=\d+,title=path_outside::The var file /m);
    for (const text of [stdout, stderr, ...filesUnder(gh)]) expect(text).not.toContain(KEY);
  });

  it('cplane validate reports it as a diagnostic at file:line:col', async () => {
    w.config(configuration('../config/cplane/state.key'));
    const { code, stdout } = await w.cli(['validate', '--json', 'infra']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      valid: boolean;
      diagnostics: { code: string; range: { file: string; line: number; col: number } }[];
    };
    expect(report.valid).toBe(false);
    expect(report.diagnostics.map((d) => [d.code, d.range])).toEqual([['path_outside', { file: 'infra/main.yaml', line: 5, col: 72 }]]);
    expect(stdout).not.toContain(KEY);
  });
});
