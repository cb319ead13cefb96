// The commands cplane suggests are shell-quoted: the apply summary's reveal command for a token of a forEach
// instance (brackets are a glob in zsh, and a key may hold a quote, a `$` or spaces) runs as printed in a shell.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { builtCli } from '../helpers/built-cli.js';
import { teamGateways, world, type World } from './helpers.js';

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
  expect(applied.stdout).toContain("cplane output 'gateway_token.team[payments]/ci' --reveal");
  expect(applied.stdout).toContain(`cplane output 'gateway_token.team[o'\\''neil $HOME x]/ci' --reveal`);

  // `cplane` on the PATH is the built CLI; the suggested lines are run by sh exactly as printed, from the config folder.
  const bin = join(w.temp, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'cplane'), `#!/bin/sh\nexec "${process.execPath}" "${builtCli()}" "$@"\n`);
  chmodSync(join(bin, 'cplane'), 0o755);
  const suggested = [...new Set([...applied.stdout.matchAll(/cplane output .* --reveal/g)].map((m) => m[0]))];
  expect(suggested).toHaveLength(2);
  const revealed: string[] = [];
  for (const command of suggested) {
    const { stdout } = await promisify(execFile)('sh', ['-c', command], {
      cwd: w.dir,
      env: { ...w.env, PATH: `${bin}:${process.env.PATH}` },
    });
    revealed.push(stdout);
  }
  // Each command reached its own token: the address arrived whole, quote, `$` and spaces included.
  for (const token of revealed) expect(token).toMatch(/^gwt_\S+\n$/);
  expect(new Set(revealed).size).toBe(2);
});
