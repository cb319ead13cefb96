// action.yml's script steps, run as GitHub would run them: what lands in the step summary, the step outputs and
// the pull request's comments (through a stand-in for the comments API), including a plan split across comments.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { parseMarker } from '../../src/github/comment-parts.js';
import { actionSteps, commentsApi, fakeRunner, pullRequestJobEnv, type CommentsApi, type Runner } from './fake-github.js';

const account = fixtures.accounts[1]!;
const repository = 'acme/infra';

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let api: CommentsApi;
let runner: Runner;
let env: NodeJS.ProcessEnv;

const config = (description: string) => `version: 1
account: ${account.id}
projects:
  shop:
    name: shop
    description: ${description}
`;

beforeAll(async () => {
  emulator = await startEmulator();
  api = await commentsApi(repository, 7);
  runner = fakeRunner();
  mkdirSync(join(runner.workspace, 'infra'));
  writeFileSync(join(runner.workspace, 'infra', 'main.yaml'), config('first'));
  env = pullRequestJobEnv(runner, {
    emulatorUrl: emulator.url,
    token: fixtures.tokens.admin,
    stateKeyByte: 3,
    apiUrl: api.url,
    repository,
    pullRequest: 7,
  });
});
afterAll(async () => {
  runner.close();
  await api.close();
  await emulator.close();
});

describe('action.yml', () => {
  it('passes inputs to its scripts only through env, never through ${{ }} inside a script', () => {
    const steps = actionSteps();
    expect(steps.map((s) => s.id)).toEqual(['node', 'cplane', 'comment', 'drift-issue']);
    for (const step of steps) expect(step.run ?? '').not.toContain('${{');
  });

  it('plan: Markdown in the step summary, counts in the step outputs, and one comment that later runs update', async () => {
    const inputs = { command: 'plan', 'working-directory': '.', args: 'infra --out prod.plan.json', comment: 'true' };
    const run = await runner.step('cplane', inputs, env);
    expect(run.stderr).toContain('Saved the plan to');
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({
      has_changes: 'true',
      add: '1',
      change: '0',
      replace: '0',
      remove: '0',
      plan_file: join(runner.workspace, 'prod.plan.json'),
      comment_key: `infra:${account.id}@default`,
    });
    expect(runner.summary()).toContain(`#### cplane plan for account \`${account.name}\` (\`${account.id}\`), workspace \`default\``);
    expect(runner.summary()).toContain('**Plan: 1 to add, 0 to change, 0 to replace, 0 to remove.**');

    expect((await runner.step('comment', inputs, env)).code).toBe(0);
    expect(api.comments).toHaveLength(1);
    expect(parseMarker(api.comments[0]!.body)).toEqual({ key: `infra:${account.id}@default`, part: 0 });
    expect(api.comments[0]!.body).toContain('| `+` | `project.shop` | create |');

    // The same plan again: the comment stays as it is. A changed plan: the same comment is updated.
    await runner.step('cplane', inputs, env);
    await runner.step('comment', inputs, env);
    writeFileSync(join(runner.workspace, 'infra', 'main.yaml'), config('second'));
    await runner.step('cplane', inputs, env);
    const updated = await runner.step('comment', inputs, env);
    expect(updated.stdout).toContain(`Plan comment for infra:${account.id}@default: 0 created, 1 updated, 0 deleted.`);
    expect(api.comments).toHaveLength(1);
    expect(api.comments[0]!.body).toContain('+     description = "second"');
  });

  it('splits a plan above 65,536 characters across several comments, and deletes the extra ones when it shrinks', async () => {
    const long = [
      '#### cplane plan',
      '',
      '```diff',
      ...Array.from({ length: 2600 }, (_, i) => `+ project.p${i} will be created ${'x'.repeat(40)}`),
      '```',
      '',
      '**Plan: 2600 to add.**',
      '',
    ].join('\n');
    expect(long.length).toBeGreaterThan(2 * 65_536);
    expect(long.length).toBeLessThan(2.9 * 65_536);
    const file = join(runner.workspace, 'long.md');
    writeFileSync(file, long);
    runner.setOutputs('cplane', { markdown_file: file, comment_key: 'big@default' });
    const run = await runner.step('comment', {}, env);
    expect(run.stderr).toBe('');
    const parts = api.comments.filter((c) => parseMarker(c.body)?.key === 'big@default');
    expect(parts.map((c) => parseMarker(c.body)!.part)).toEqual([0, 1, 2]);
    for (const [i, part] of parts.entries()) {
      expect(part.body.length).toBeLessThanOrEqual(65_536);
      expect(part.body).toContain(`_Plan, part ${i + 1} of 3_`);
      // Each part is valid Markdown on its own: a diff block cut by the split is closed and opened again.
      expect((part.body.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const joined = parts.map((c) => c.body).join('\n');
    for (const i of [0, 1300, 2599]) expect(joined).toContain(`+ project.p${i} will be created`);
    expect(parts[2]!.body).toContain('**Plan: 2600 to add.**');

    writeFileSync(file, '#### cplane plan\n\n**No changes.**\n');
    const shrunk = await runner.step('comment', {}, env);
    expect(shrunk.stdout).toContain('Plan comment for big@default: 0 created, 1 updated, 2 deleted.');
    expect(api.comments.filter((c) => parseMarker(c.body)?.key === 'big@default')).toHaveLength(1);
    // The other configuration's comment was left alone.
    expect(api.comments.filter((c) => parseMarker(c.body)?.key === `infra:${account.id}@default`)).toHaveLength(1);
  });

  it('validate: annotations on the configuration lines, the errors in the step summary, and a failed step', async () => {
    mkdirSync(join(runner.workspace, 'broken'));
    writeFileSync(join(runner.workspace, 'broken', 'main.yaml'), 'version: 1\nprojects:\n  a:\n    name: a\n    active: maybe\n');
    const run = await runner.step('cplane', { command: 'validate', 'working-directory': '.', args: 'broken' }, env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error file=broken\/main\.yaml,line=5,col=13,title=wrong_type::Wrong type for "active"/m);
    expect(runner.summary()).toContain('#### cplane validate');
    expect(runner.summary()).toContain('- error: `broken/main.yaml:5:13` Wrong type for "active"');
  });

  it('plan of a broken configuration: annotations and a failure note in the summary', async () => {
    const run = await runner.step('cplane', { command: 'plan', 'working-directory': '.', args: 'broken' }, env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error file=broken\/main\.yaml,line=5,col=13,title=wrong_type::/m);
    expect(runner.summary()).toContain('#### cplane plan failed');
  });

  it('refuses a command other than validate, plan, apply, drift, reconcile or deployments', async () => {
    const run = await runner.step('cplane', { command: 'destroy', 'working-directory': '.', args: '' }, env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "::error::cplane action: command must be validate, plan, apply, drift, reconcile or deployments, not 'destroy'",
    );
  });

  it('deployments: a wave of the fleet as the step output matrix, for the jobs after it', async () => {
    const [first, second] = [fixtures.accounts[0]!.id, account.id];
    mkdirSync(join(runner.workspace, 'fleet'));
    writeFileSync(
      join(runner.workspace, 'fleet', 'main.yaml'),
      `version: 1\ndeployments:\n  staging: { account: ${first} }\n  prod: { account: ${second}, after: [staging] }\n`,
    );
    const run = await runner.step('cplane', { command: 'deployments', 'working-directory': '.', args: 'fleet --wave 2 --matrix' }, env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.outputs.matrix!)).toEqual({
      include: [{ deployment: 'prod', account: second, workspace: 'default', wave: 2, environment: 'prod' }],
    });
    expect(run.outputs).toMatchObject({ count: '1', waves: '2' });
  });

  it('apply of the saved plan: the result in the summary, the counts in the outputs', async () => {
    writeFileSync(join(runner.workspace, 'infra', 'main.yaml'), config('applied'));
    const inputs = { command: 'plan', 'working-directory': '.', args: 'infra --out prod.plan.json' };
    expect((await runner.step('cplane', inputs, env)).code).toBe(0);
    const applied = await runner.step('cplane', { command: 'apply', 'working-directory': '.', args: 'prod.plan.json' }, env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.outputs).toMatchObject({ has_changes: 'true', add: '1', plan_file: join(runner.workspace, 'prod.plan.json') });
    expect(runner.summary()).toContain('#### cplane apply result');
    expect(readFileSync(runner.summaryFile, 'utf8')).toMatch(/Apply complete: 1 done/);
  });
});
