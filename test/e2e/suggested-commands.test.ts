// The commands cplane suggests run as printed. They are shell-quoted: the apply summary's reveal command for a token of a forEach
// instance (brackets are a glob in zsh, and a key may hold a quote, a `$` or spaces) runs as printed in a shell.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { builtCli } from '../helpers/built-cli.js';
import { smallConfig, teamGateways, world, type World } from './helpers.js';

const hostileKey = "o'neil $HOME x";
let w: World;
beforeAll(async () => {
  w = await world();
  w.config(`version: 1
projects:
  core: { description: Core }
credentials:
  openai: { provider: openai, label: openai-quoting, secret: { env: OPENAI_API_KEY } }
${teamGateways(`\n      payments: { slug: gw-payments }\n      ${JSON.stringify(hostileKey)}: { slug: gw-oneil }`, { name: '${each.value.slug}', slug: '${each.value.slug}', body: '    tokens:\n      ci: { scopes: [run] }\n' })}`);
});
afterAll(() => w.close());

test('the apply summary suggests quoted reveal commands, which a shell runs as printed', async () => {
  const applied = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(applied.code).toBe(0);
  // The folder as given, from where the command ran (w.temp): the hint reads the same state.
  expect(applied.stdout).toContain("cplane output 'gateway_token.team[payments]/ci' infra --reveal");
  expect(applied.stdout).toContain(`cplane output 'gateway_token.team[o'\\''neil $HOME x]/ci' infra --reveal`);

  // `cplane` on the PATH is the built CLI; the suggested lines are run by sh exactly as printed, from the folder apply ran in.
  const bin = join(w.temp, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'cplane'), `#!/bin/sh\nexec "${process.execPath}" "${builtCli()}" "$@"\n`);
  chmodSync(join(bin, 'cplane'), 0o755);
  const suggested = [...new Set([...applied.stdout.matchAll(/cplane output .* --reveal/g)].map((m) => m[0]))];
  expect(suggested).toHaveLength(2);
  const revealed: string[] = [];
  for (const command of suggested) {
    const { stdout } = await promisify(execFile)('sh', ['-c', command], {
      cwd: w.temp,
      env: { ...w.env, PATH: `${bin}:${process.env.PATH}` },
    });
    revealed.push(stdout);
  }
  // Each command reached its own token: the address arrived whole, quote, `$` and spaces included.
  for (const token of revealed) expect(token).toMatch(/^gwt_\S+\n$/);
  expect(new Set(revealed).size).toBe(2);
});

// Every hint is a command that runs as printed for the deployment at hand (issue 50 §3): after
// `apply --deployment staging infra`, `drift --deployment staging infra` and a refused apply, each `cplane …` it
// suggests is run by sh from the same folder against the emulator, and none fails for want of a deployment,
// account or folder.
describe('a configuration with deployments', () => {
  let fleet: World;
  beforeAll(async () => {
    fleet = await world({ accounts: 2 });
    fleet.config(
      smallConfig().replace(
        'version: 1\n',
        `version: 1\ndeployments:\n  staging: { account: ${extraAccount(1).id} }\n  prod: { account: ${extraAccount(2).id}, after: [staging] }\n`,
      ),
    );
  });
  afterAll(() => fleet.close());

  const cplaneOnPath = () => {
    const bin = join(fleet.temp, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'cplane'), `#!/bin/sh\nexec "${process.execPath}" "${builtCli()}" "$@"\n`);
    chmodSync(join(bin, 'cplane'), 0o755);
    return { ...fleet.env, PATH: `${bin}:${process.env.PATH}` };
  };
  /** Runs a printed command line as a person pastes it, from the folder the command ran in. */
  const runHint = async (line: string) =>
    promisify(execFile)('sh', ['-c', line], { cwd: fleet.temp, env: cplaneOnPath() }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  const quoted = (text: string) => [...text.matchAll(/`(cplane [^`]*)`/g)].map((m) => m[1]!);

  test('each hint names the folder and the deployment, and runs as printed', async () => {
    const applied = await fleet.cli(['apply', '--deployment', 'staging', 'infra', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const reveals = [...new Set([...applied.stdout.matchAll(/cplane output .*? --reveal/g)].map((m) => m[0]))];
    expect(reveals).toEqual(['cplane output gateway_token.main/ci infra --deployment staging --reveal']);

    const staging = createClient({ baseUrl: fleet.emulator.url, token: fixtures.tokens.admin, accountId: extraAccount(1).id });
    const gateway = (await staging.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!;
    await staging.call('updateGateway', { path: { id: gateway.gateway_id }, body: { defaultModel: 'gpt-4o' } });
    await staging.close();
    const drift = await fleet.cli(['drift', '--deployment', 'staging', 'infra']);
    expect(drift.code, drift.stderr).toBe(2);
    const driftHints = quoted(drift.stdout);
    expect(driftHints).toContain('cplane plan infra --deployment staging');

    const refused = await fleet.cli(['apply', '--deployment', 'staging', 'infra']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cplane apply --deployment staging needs approval for staging');
    expect(refused.stderr).not.toContain('--all');

    // A line with a placeholder (FILE) is a pattern to fill in, not a command to run as printed.
    const runnable = [...reveals, ...driftHints, ...quoted(refused.stderr)].filter((line) => !/\b[A-Z]{2,}\b/.test(line));
    expect(runnable).toHaveLength(2);
    for (const line of runnable) {
      const ran = await runHint(line);
      expect(ran.stderr, line).not.toMatch(/has deployments|No account|No configuration|not found/i);
      expect(ran.code, `${line}\n${ran.stderr}`).not.toBe(1);
    }
    const revealed = await runHint(reveals[0]!);
    expect(revealed.stdout).toMatch(/^gwt_\S+\n$/);
  });
});
