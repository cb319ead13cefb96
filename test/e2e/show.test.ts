// `cplane show PLANFILE`: a saved plan printed as `cplane plan` printed it, or as its JSON; its MAC checked when
// the state key is at hand, refused when forged, shown marked UNVERIFIED when no key is at hand; a file larger
// than the plan file limit is not read. `cplane graph --plan` draws the same file's steps by action. One plan is
// saved first; each test reads it, or a copy it alters, and changes nothing else.
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PLAN_FILE_BYTES, planSchemaProblems } from '../../src/saved-plan/index.js';
import { parseMermaid } from '../helpers/graph-formats.js';
import { smallConfig, world, type World } from './helpers.js';

let w: World;
let planFile: string;
let printed: string;
/** The environment of a job with no state key at hand: no CPLANE_STATE_KEY, and HOME holds no key file. */
let noKey: NodeJS.ProcessEnv;

beforeAll(async () => {
  w = await world();
  w.config(smallConfig());
  planFile = join(w.temp, 'saved.plan.json');
  const plan = await w.cli(['plan', w.dir, '--out', planFile]);
  expect(plan.code).toBe(0);
  printed = plan.stdout;
  noKey = { CPLANE_STATE_KEY: '' };
});
afterAll(async () => w.close());

/** A copy of the saved plan with `edit` applied, written next to it. */
function altered(name: string, edit: (plan: Record<string, unknown> & { steps: { address: string }[] }) => void): string {
  const plan = JSON.parse(readFileSync(planFile, 'utf8'));
  edit(plan);
  const path = join(w.temp, name);
  writeFileSync(path, JSON.stringify(plan, null, 2));
  return path;
}

describe('cplane show PLANFILE', () => {
  it('prints the plan exactly as `cplane plan --out` printed it, with the key at hand and no warning', async () => {
    const run = await w.cli(['show', planFile]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(printed);
    expect(run.stdout).toContain('project.shop');
  });

  it('prints with --json the plan of the file (its MAC aside), valid against schema/plan.schema.json', async () => {
    const run = await w.cli(['show', planFile, '--json']);
    expect(run.code).toBe(0);
    const { auth, ...saved } = JSON.parse(readFileSync(planFile, 'utf8'));
    expect(auth.mac).toMatch(/^[0-9a-f]{64}$/);
    const shown = JSON.parse(run.stdout);
    expect(shown).toEqual(saved);
    expect(await planSchemaProblems(shown)).toEqual([]);
  });

  it('refuses a forged plan when the key is at hand: a step added by hand no longer matches the MAC', async () => {
    const forged = altered('forged.plan.json', (plan) => {
      plan.steps[0]!.address = 'project.attacker';
    });
    const run = await w.cli(['show', forged]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `The saved plan ${forged} was changed since it was made, or made with another state key: its MAC does not match. It is not shown`,
    );
    expect(run.stdout).toBe('');
    expect((await w.cli(['show', forged, '--json'])).stdout).toBe('');
    expect((await w.cli(['graph', '--plan', forged])).code).toBe(1);
  });

  it('refuses a plan whose MAC was removed when the key is at hand', async () => {
    const stripped = altered('stripped.plan.json', (plan) => {
      delete plan.auth;
    });
    const run = await w.cli(['show', stripped]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`The saved plan ${stripped} carries no MAC`);
    expect(run.stdout).toBe('');
  });

  it('without the state key says so in one line, and shows the plan all the same', async () => {
    const run = await w.cli(['show', planFile], noKey);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `UNVERIFIED: no state key at hand (CPLANE_STATE_KEY, CPLANE_PASSPHRASE or the key file), so the MAC of ${planFile} was not checked: it may have been altered.\n`,
    );
    expect(run.stdout).toBe(printed);
  });

  it('refuses a file larger than the plan file limit without reading it all', async () => {
    const big = join(w.temp, 'big.plan.json');
    writeFileSync(big, '');
    truncateSync(big, MAX_PLAN_FILE_BYTES + 1);
    const run = await w.cli(['show', big]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${big} is larger than 32 MiB: it is not a plan file cplane wrote, and is not read further.`);
  });

  it('names the usage without a file, and refuses a folder without saved plans', async () => {
    const none = await w.cli(['show']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No plan file given.');
    expect(none.stderr).toContain('Usage: cplane show PLANFILE [--json]');
    const folder = await w.cli(['show', w.dir]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain('holds no saved plans (NAME.plan.json).');
  });
});

describe('cplane graph --plan PLANFILE', () => {
  it("draws the saved plan's steps coloured by action, an arrow from each to the steps it waits for", async () => {
    const run = await w.cli(['graph', '--plan', planFile]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const graph = parseMermaid(run.stdout);
    const steps = (JSON.parse(readFileSync(planFile, 'utf8')) as { steps: { address: string; action: string; dependsOn: string[] }[] })
      .steps;
    expect([...graph.nodes.values()]).toEqual(steps.map((s) => `+ ${s.address}`));
    expect((graph.styles.get('add') ?? []).length).toBe(steps.length);
    expect(graph.edges.length).toBe(steps.reduce((n, s) => n + s.dependsOn.length, 0));
    expect(graph.edges.length).toBeGreaterThan(0);
  });

  it('takes no configuration folder with --plan', async () => {
    const run = await w.cli(['graph', w.dir, '--plan', planFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('graph --plan takes no configuration folder');
  });
});
