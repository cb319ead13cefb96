// The plan format: a step is named by its address alone (format 3). A plan file of format 2 (steps named twice,
// `id` and `address`) is refused before it is read as format 3, with what to do; a step carrying an `id` is not a
// step of this format.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION } from '../../src/plan-model/index.js';
import { planSchemaProblems, readPlanFile } from '../../src/saved-plan/index.js';
import { samplePlan } from '../render/plan-fixture.js';

const folder = mkdtempSync(join(tmpdir(), 'cplane-plan-format-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const saved = (name: string, document: unknown) => {
  const path = join(folder, name);
  writeFileSync(path, JSON.stringify(document));
  return path;
};

describe('plan format', () => {
  it('is 3, and a plan of it names each step by its address only', async () => {
    const plan = {
      ...samplePlan(),
      origin: { workspace: 'default', accountName: null, configDir: '.', files: [], variables: {}, state: { path: 'state.json' } },
    };
    expect(PLAN_FORMAT_VERSION).toBe(3);
    expect(await planSchemaProblems(plan)).toEqual([]);
    expect(plan.steps.every((step) => !('id' in step))).toBe(true);
    expect((await readPlanFile(saved('now.plan.json', plan))).steps.map((s) => s.address)).toEqual(plan.steps.map((s) => s.address));
  });

  it('refuses a plan file of format 2 as made by an older cplane, saying to plan again', async () => {
    const old = { ...samplePlan(), formatVersion: 2, steps: samplePlan().steps.map((step) => ({ id: step.address, ...step })) };
    const path = saved('old.plan.json', old);
    const refusal = await readPlanFile(path).catch((error: unknown) => error as { message: string; hint?: string });
    expect(refusal).toMatchObject({
      message: `${path} was made by an older cplane (plan format 2): this cplane reads plan format 3 only.`,
      hint: 'Run `cplane plan --out FILE` again with this cplane, review the plan, and apply that.',
    });
  });

  it('finds a step that carries an id not a step of this format', async () => {
    const plan = samplePlan();
    const edited = { ...plan, steps: [{ id: 'project.payments', ...plan.steps[0]! }, ...plan.steps.slice(1)] };
    expect(await planSchemaProblems(edited)).toEqual(['/steps/0: must NOT have additional properties']);
  });
});
