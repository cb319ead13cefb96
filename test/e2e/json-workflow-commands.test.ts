// `--json` output printed in a GitHub Actions step (issue 47 §3, workflow commands): the runner reads `##[` anywhere in a
// line, so account text holding `##[add-mask]` or `##[stop-commands]` would be obeyed. Every `--json` writer goes
// through one helper (src/text/json-text.ts) that writes that `#` as `\u0023`: the document parses to the very value
// the account holds, and no line of it carries a workflow command. The real CLI, against the emulator.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { account, world, type World } from './helpers.js';

const HOSTILE = 'pwn ##[add-mask]sk-live ##[stop-commands]tok ::warning::x';
let w: World;
beforeAll(async () => {
  w = await world();
  await w.client.call('createProject', { body: { accountId: account, name: 'app', description: HOSTILE } });
  w.config(`version: 1\nprojects:\n  app: { description: app }\n`);
});
afterAll(() => w.close());

/** The runner's reading of a line: `##[` anywhere, `::` at its start. */
const commandLines = (text: string) => text.split('\n').filter((line) => line.includes('##[') || /^\s*::/.test(line));

async function expectNeutralised(args: string[]) {
  const run = await w.cli(args, { GITHUB_ACTIONS: 'true' });
  expect(run.stdout, args.join(' ')).toContain('\\u0023#[add-mask]');
  expect(commandLines(run.stdout), args.join(' ')).toEqual([]);
  // The same value as the account holds, byte for byte.
  expect(JSON.stringify(JSON.parse(run.stdout)), args.join(' ')).toContain(JSON.stringify(HOSTILE).slice(1, -1));
}

it('plan --json, api and (after an apply) drift --json keep the hostile text as its value, with no workflow command in any line', async () => {
  await expectNeutralised(['plan', 'infra', '--json']);
  await expectNeutralised(['api', 'listProjects', '--param', `accountId=${account}`]);
  const applied = await w.cli(['apply', 'infra', '--auto-approve', '--json'], { GITHUB_ACTIONS: 'true' });
  expect(applied.code, applied.stderr).toBe(0);
  expect(commandLines(applied.stdout)).toEqual([]);
  const project = (
    (await w.client.listAll('listProjects', { query: { accountId: account } })) as { project_id: string; name: string }[]
  ).find((p) => p.name === 'app');
  await w.client.call('updateProject', { path: { id: project!.project_id }, body: { name: 'app', description: HOSTILE, isActive: true } });
  await expectNeutralised(['drift', 'infra', '--json']);
});

it('no --json writer in src/ prints JSON.stringify directly', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
  const src = join(import.meta.dirname, '..', '..', 'src');
  const direct = ['cli', 'render', 'faces', 'ui', 'access', 'export']
    .flatMap((folder) => files(join(src, folder)))
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${file.slice(src.length + 1)}:${i + 1}`, line }))
        .filter(({ line }) => /(stdout\.write|out)\(`\$\{JSON\.stringify\(|return `\$\{JSON\.stringify\(/.test(line)),
    )
    .map(({ where }) => where);
  expect(direct).toEqual([]);
});
