// The plan format: a step is named by its address alone (format 3), and what the plan says beside its steps is one
// list of notices (format 4). A plan file of format 3 is read into notices, its MAC checked over what it holds; one
// of format 2 (steps named twice, `id` and `address`) is refused, with what to do; a step carrying an `id` is not a
// step of this format.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION } from '../../src/plan-model/index.js';
import { planMac, planMacKey, planSchemaProblems, readPlanFile, readPlanToShow } from '../../src/saved-plan/index.js';
import { samplePlan } from '../render/plan-fixture.js';

const folder = mkdtempSync(join(tmpdir(), 'cplane-plan-format-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const saved = (name: string, document: unknown) => {
  const path = join(folder, name);
  writeFileSync(path, JSON.stringify(document));
  return path;
};

describe('plan format', () => {
  it('is 4, and a plan of it names each step by its address only', async () => {
    const plan = {
      ...samplePlan(),
      origin: { workspace: 'default', accountName: null, configDir: '.', files: [], variables: {}, state: { path: 'state.json' } },
    };
    expect(PLAN_FORMAT_VERSION).toBe(4);
    expect(await planSchemaProblems(plan)).toEqual([]);
    expect(plan.steps.every((step) => !('id' in step))).toBe(true);
    expect((await readPlanFile(saved('now.plan.json', plan))).steps.map((s) => s.address)).toEqual(plan.steps.map((s) => s.address));
  });

  it('refuses a plan file of format 2 as made by an older cplane, saying to plan again', async () => {
    const old = { ...samplePlan(), formatVersion: 2, steps: samplePlan().steps.map((step) => ({ id: step.address, ...step })) };
    const path = saved('old.plan.json', old);
    const refusal = await readPlanFile(path).catch((error: unknown) => error as { message: string; hint?: string });
    expect(refusal).toMatchObject({
      message: `${path} was made by an older cplane (plan format 2): this cplane reads plan formats 3 and 4 only.`,
      hint: 'Run `cplane plan --out FILE` again with this cplane, review the plan, and apply that.',
    });
  });

  it('finds a step that carries an id not a step of this format', async () => {
    const plan = samplePlan();
    const edited = { ...plan, steps: [{ id: 'project.payments', ...plan.steps[0]! }, ...plan.steps.slice(1)] };
    expect(await planSchemaProblems(edited)).toEqual(['/steps/0: must NOT have additional properties']);
  });

  it('reads a saved plan of format 3 into notices, in the table order, and checks its MAC over the file as written', async () => {
    const { notices: _notices, ...today } = samplePlan();
    const old = {
      ...today,
      formatVersion: 3,
      origin: { workspace: 'default', accountName: null, configDir: '.', files: [], variables: {}, state: { path: 'state.json' } },
      withoutValue: ['record.payments/stripe-key'],
      notVerifiable: [{ address: 'project_group_role.payments/platform', kind: 'project_group_role' }],
      clockSkew: { api: '2026-12-01T10:00:00.000Z', machine: '2026-12-01T10:30:00.000Z' },
      endingSoon: [{ address: 'user_share.p/r/dana', kind: 'user_share', until: '2026-12-01T18:00:00.000Z', left: 'in 3 days' }],
    };
    const key = Buffer.alloc(32, 7);
    const env = { CPLANE_STATE_KEY: key.toString('base64') };
    const path = saved('format-3.plan.json', { ...old, auth: { mac: planMac(planMacKey(key), old) } });
    const { plan, unverified } = await readPlanToShow(env, path);
    expect(unverified).toBeUndefined();
    expect(plan).not.toHaveProperty('withoutValue');
    expect(plan.notices.map((n) => [n.code, n.severity, n.address])).toEqual([
      ['clock_skew', 'warning', undefined],
      ['ending_soon', 'info', 'user_share.p/r/dana'],
      ['not_verifiable', 'info', 'project_group_role.payments/platform'],
      ['without_value', 'warning', 'record.payments/stripe-key'],
    ]);
    expect(plan.notices[1]!.message).toBe('user_share.p/r/dana: ends in 3 days, at 2026-12-01 18:00 UTC');
    // Altered after it was saved: refused as any edited plan is.
    const edited = saved('format-3-edited.plan.json', { ...old, withoutValue: [], auth: { mac: planMac(planMacKey(key), old) } });
    await expect(readPlanToShow(env, edited)).rejects.toThrow(/its MAC does not match/);
  });

  it('refuses a plan of format 4 without notices', async () => {
    const { notices: _notices, ...withoutNotices } = samplePlan();
    expect(await planSchemaProblems(withoutNotices)).toEqual(["/: must have required property 'notices'", '/: must match "then" schema']);
  });
});
