// A saved plan crosses a trust boundary: an edited plan file is refused before it can send a secret anywhere,
// and a plan file is written for its owner only, never through a link.
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import type { Plan } from '../../src/planner/index.js';
import { planMac, planMacKey } from '../../src/saved-plan/index.js';
import { smallConfig, world, type CliResult, type World } from './helpers.js';

// Each test arranges its own world: the plan file it alters is made in-process (the CLI's entry, no subprocess);
// the step under test runs the real CLI. The leak scan runs the refused applies itself first.
let w: World;
let outputs: CliResult[];
const kept = (result: CliResult) => {
  outputs.push(result);
  return result;
};
const cli = async (args: string[], env?: NodeJS.ProcessEnv) => kept(await w.cli(args, env));
/** The CLI in-process (`w.run`), its output kept for the leak scan like `cli`'s. */
const inProcess = async (args: string[], env?: NodeJS.ProcessEnv) => kept(await w.run(args, env));

beforeEach(async () => {
  w = await world();
  w.config(smallConfig({ description: 'harmless' }));
  outputs = [];
});
afterEach(async () => w.close());

/**
 * Makes a fresh plan file and returns it edited by `edit`. With `remac` the edit is made by someone who holds the
 * state key (the file's MAC is made again), so the checks behind the MAC are what refuses it.
 */
async function editedPlan(name: string, edit: (plan: Plan) => void, options: { remac?: boolean } = { remac: true }): Promise<string> {
  const path = join(w.dir, '..', name);
  expect((await inProcess(['plan', w.dir, '--out', path])).code).toBe(0);
  const plan = JSON.parse(readFileSync(path, 'utf8')) as Plan;
  edit(plan);
  if (options.remac) plan.auth = { mac: planMac(planMacKey(Buffer.from(w.env.CPLANE_STATE_KEY!, 'base64')), plan) };
  writeFileSync(path, JSON.stringify(plan));
  return path;
}

const stepOf = (plan: Plan, address: string) => plan.steps.find((s) => s.address === address)!;

// The edits of the refused plans, each its test's subject, and all of them run again by the leak scan.
const elsewhere = () => join(w.dir, '..', 'elsewhere.json');
const stateMoved = (plan: Plan) => void (plan.origin!.state = { path: elsewhere() });
const otherKey = { CPLANE_STATE_KEY: Buffer.alloc(32, 7).toString('base64') };
const secretInDescription = (source: { env: string } | { file: string }) => (plan: Plan) => {
  const step = stepOf(plan, 'project.shop');
  (step.writes[0]!.body as Record<string, unknown>).description = { $secret: 'x' };
  step.secrets = { x: source };
};
const tokenInDescription = secretInDescription({ env: 'CPLANE_TOKEN' });
const hostnameInDescription = secretInDescription({ file: '/etc/hostname' });
const sourceChanged = (plan: Plan) => void (stepOf(plan, 'credential.openai').secrets = { secret: { env: 'CPLANE_TOKEN' } });
const nameEdited = (plan: Plan) => void ((stepOf(plan, 'project.shop').writes[0]!.body as Record<string, unknown>).name = 'attacker');

describe('apply of an altered plan file', () => {
  it('refuses any edit by someone without the state key (here the state location) before opening any connection', async () => {
    const path = await editedPlan('location.plan.json', stateMoved, { remac: false });
    const before = w.emulator.stats().requests;
    const run = await cli(['apply', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: The saved plan ${path} was changed since it was made, or made with another state key: its MAC does not match. Nothing was applied, and no connection was opened.`,
    );
    expect(w.emulator.stats().requests).toBe(before);
    expect(existsSync(elsewhere())).toBe(false);
  });

  it('refuses a plan file made with another state key', async () => {
    const path = await editedPlan('other-key.plan.json', () => undefined, { remac: false });
    const run = await cli(['apply', path], otherKey);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('its MAC does not match');
  });

  it('refuses a $secret placeholder in a field that is not write-only, reading CPLANE_TOKEN, before sending any request', async () => {
    const path = await editedPlan('token.plan.json', tokenInDescription);
    w.emulator.resetStats();
    const run = await cli(['apply', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: The saved plan ${path} was altered: it sends secrets where no plan made by cplane does. Nothing was applied:`,
    );
    expect(run.stderr).toContain(
      '  - project.shop: project.shop#0 body.description takes a secret ("x"), but project has no such write-only field',
    );
    expect(run.stderr).toContain('  - project.shop: secrets.x is not a write-only field of project');
    expect(w.emulator.stats().requests).toBe(0);
  });

  it('refuses the same edit with a {file: /etc/hostname} source, before sending any request', async () => {
    const path = await editedPlan('file.plan.json', hostnameInDescription);
    w.emulator.resetStats();
    const run = await cli(['apply', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('project.shop#0 body.description takes a secret ("x"), but project has no such write-only field');
    expect(w.emulator.stats().requests).toBe(0);
  });

  it('refuses a write-only field whose source was changed in the file: sources come from the configuration only', async () => {
    const path = await editedPlan('source.plan.json', sourceChanged);
    w.emulator.resetStats();
    const run = await cli(['apply', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: The saved plan ${path} is stale or was altered at 1 address: a plan made now from the configuration and the live objects has other steps there`,
    );
    expect(run.stderr).toContain('  - credential.openai: differs at secrets.secret.env');
    expect(w.emulator.stats().writes).toBe(0);
  });

  it('refuses a body edited in a way the displayed changes hide', async () => {
    const path = await editedPlan('body.plan.json', nameEdited);
    w.emulator.resetStats();
    const run = await cli(['apply', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('  - project.shop: differs at writes[0].body.name');
    expect(w.emulator.stats().writes).toBe(0);
  });

  it('applies the unedited plan, and nothing of the run holds the token or its base64 form', async () => {
    // The story so far, in-process: every altered plan above made and refused.
    const refused = async (path: Promise<string>, env?: NodeJS.ProcessEnv) =>
      expect((await inProcess(['apply', await path], env)).code).toBe(1);
    await refused(editedPlan('location.plan.json', stateMoved, { remac: false }));
    await refused(
      editedPlan('other-key.plan.json', () => undefined, { remac: false }),
      otherKey,
    );
    await refused(editedPlan('token.plan.json', tokenInDescription));
    await refused(editedPlan('file.plan.json', hostnameInDescription));
    await refused(editedPlan('source.plan.json', sourceChanged));
    await refused(editedPlan('body.plan.json', nameEdited));
    const path = join(w.dir, '..', 'clean.plan.json');
    expect((await cli(['plan', w.dir, '--out', path])).code).toBe(0);
    const run = await cli(['apply', path]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Apply complete: 4 done/);
    expect((await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop')?.description).toBe('harmless');

    const token = fixtures.tokens.admin;
    const hostname = existsSync('/etc/hostname') ? readFileSync('/etc/hostname', 'utf8').trim() : '';
    const secrets = [token, Buffer.from(token).toString('base64'), ...(hostname.length >= 6 ? [hostname] : [])];
    const texts = outputs.flatMap((o) => [o.stdout, o.stderr]);
    const files = (folder: string): string[] =>
      readdirSync(folder, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(folder, e.name)) : [join(folder, e.name)]));
    for (const file of files(join(w.dir, '..'))) texts.push(readFileSync(file, 'utf8'));
    const live = [
      ...(await w.client.listAll('listProjects', {})).map((p) => `${p.name} ${p.description}`),
      ...(await w.client.listAll('listCredentials', {})).map((c) => c.label),
    ];
    texts.push(...live);
    for (const secret of secrets) for (const text of texts) expect(text.includes(secret)).toBe(false);
  });
});

describe('plan --out', () => {
  it('writes the plan file for its owner only (0600), also over an existing file with a wider mode', async () => {
    const path = join(w.dir, '..', 'mode.plan.json');
    writeFileSync(path, 'old', { mode: 0o644 });
    expect((await cli(['plan', w.dir, '--out', path])).code).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('never writes through a symbolic link', async () => {
    const target = join(w.dir, '..', 'victim.txt');
    writeFileSync(target, 'keep me');
    const link = join(w.dir, '..', 'link.plan.json');
    symlinkSync(target, link);
    const run = await cli(['plan', w.dir, '--out', link]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Error: ${link} is a symbolic link: cplane does not write a plan through a link.`);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});
