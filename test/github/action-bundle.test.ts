// The action as a workflow's job gets it at a release tag: only action.yml and action/dist/ (the bundle a release
// builds with `npm run build:action` and commits onto its release ref; never committed on main), no node_modules,
// no package.json, nothing installed. The bundle is built from the sources into a temporary copy
// (test/helpers/action-bundle.ts), and the action's own steps run from that copy against the emulator and a
// stand-in for the comments API.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { actionCopy } from '../helpers/action-bundle.js';
import { actionSteps, commentsApi, fakeRunner, pullRequestJobEnv, repoRoot, type CommentsApi, type Runner } from './fake-github.js';

const account = fixtures.accounts[1]!;
const repository = 'acme/infra';
const copy = mkdtempSync(join(tmpdir(), 'cplane-action-copy-'));

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let api: CommentsApi;
let runner: Runner;
let env: NodeJS.ProcessEnv;

/** Every file under `dir`, relative to it, with the SHA-256 of its content. */
function digests(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return [path.slice(dir.length + 1), createHash('sha256').update(readFileSync(path)).digest('hex')];
      })
      .sort(([a], [b]) => (a! < b! ? -1 : 1)),
  );
}

beforeAll(async () => {
  actionCopy(join(copy, 'action'));
  emulator = await startEmulator();
  api = await commentsApi(repository, 7);
  runner = fakeRunner(join(copy, 'action'));
  mkdirSync(join(runner.workspace, 'infra'));
  // A policy, so the plan runs the CEL worker, which imports the library from beside the bundle.
  writeFileSync(
    join(runner.workspace, 'infra', 'main.yaml'),
    `version: 1
account: ${account.id}
projects:
  shop:
    name: shop
    description: first
policies:
  described:
    level: advisory
    kinds: [project]
    rule: "after.description != 'first'"
    message: Say more than first.
`,
  );
  env = pullRequestJobEnv(runner, {
    emulatorUrl: emulator.url,
    token: fixtures.tokens.admin,
    stateKeyByte: 5,
    apiUrl: api.url,
    repository,
    pullRequest: 7,
  });
});
afterAll(async () => {
  runner.close();
  await api.close();
  await emulator.close();
  rmSync(copy, { recursive: true, force: true });
});

describe('the action from a copy of only its files', () => {
  it('sets up Node itself and installs nothing: no step runs npm, and the copy holds no node_modules or package.json', () => {
    const steps = actionSteps();
    expect(steps[0]).toMatchObject({ id: 'node', uses: 'actions/setup-node@v4', with: { 'node-version': '20' } });
    for (const step of steps) expect(step.run ?? '').not.toMatch(/\bnpm\b|\bnpx\b/);
    const files = Object.keys(digests(copy));
    expect(files).toEqual(
      expect.arrayContaining([
        'action/action.yml',
        'action/action/dist/cplane.mjs',
        'action/action/dist/pr-comment.mjs',
        'action/action/dist/drift-issue.mjs',
        'action/action/dist/cel.mjs',
      ]),
    );
    expect(files.filter((file) => /(^|\/)(node_modules|package\.json)(\/|$)/.test(file))).toEqual([]);
  });

  it('is not committed: git ignores action/dist/, so a change to src/ changes no bundle', () => {
    const tracked = execFileSync('git', ['ls-files', 'action'], { cwd: repoRoot, encoding: 'utf8' });
    expect(tracked).toBe('');
    expect(execFileSync('git', ['check-ignore', 'action/dist/cplane.mjs'], { cwd: repoRoot, encoding: 'utf8' }).trim()).toBe(
      'action/dist/cplane.mjs',
    );
  });

  it('plans with a policy, writes the step outputs and summary, and keeps the pull request comment', async () => {
    const inputs = { command: 'plan', 'working-directory': '.', args: 'infra --out prod.plan.json', comment: 'true' };
    const run = await runner.step('cplane', inputs, env);
    expect(run.stderr).toContain('Saved the plan to');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('described: Say more than first.');
    expect(run.outputs).toMatchObject({
      has_changes: 'true',
      add: '1',
      plan_file: join(runner.workspace, 'prod.plan.json'),
      comment_key: `infra:${account.id}@default`,
    });
    expect(runner.summary()).toContain('**Plan: 1 to add, 0 to change, 0 to replace, 0 to remove.**');

    const comment = await runner.step('comment', inputs, env);
    expect(comment.stdout).toBe(`Plan comment for infra:${account.id}@default: 1 created, 0 updated, 0 deleted.\n`);
    expect(api.comments[0]!.body).toContain('| `+` | `project.shop` | create |');

    const applied = await runner.step('cplane', { command: 'apply', 'working-directory': '.', args: 'prod.plan.json' }, env);
    expect(applied.code).toBe(0);
    const again = await runner.step('cplane', { ...inputs, args: 'infra' }, env);
    expect(again.outputs).toMatchObject({ has_changes: 'false', add: '0' });
  });

  it('carries the PostgreSQL driver: a state URL reaches the connection, not a missing package', async () => {
    const run = await runner.step(
      'cplane',
      { command: 'plan', 'working-directory': '.', args: 'infra' },
      { ...env, CPLANE_STATE: 'postgres://cplane:pw@127.0.0.1:9/state' },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'Cannot use the PostgreSQL state at postgres://cplane:***@127.0.0.1:9/state: connect ECONNREFUSED 127.0.0.1:9.',
    );
    expect(run.stderr).not.toContain('pw@');
  });
});

it('a ref without the bundle (a branch of main) fails the step, saying to pin a release tag', async () => {
  const bare = mkdtempSync(join(tmpdir(), 'cplane-action-nobundle-'));
  writeFileSync(join(bare, 'action.yml'), readFileSync(join(repoRoot, 'action.yml')));
  const noBundle = fakeRunner(bare);
  try {
    const run = await noBundle.step('cplane', { command: 'validate', args: '.' }, { PATH: process.env.PATH, HOME: noBundle.workspace });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::cplane action: this ref has no action/dist/ bundle. Pin a release tag (uses: OWNER/cplane@v0)');
  } finally {
    noBundle.close();
    rmSync(bare, { recursive: true, force: true });
  }
});
