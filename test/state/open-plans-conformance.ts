// One story every open-plan registry passes (the file beside a state, PostgreSQL's open_plans): a pull request's
// plan is registered, replaced by its next commit's plan, found by the addresses it shares, forgotten when applied
// (only that plan), and an entry cplane never writes is left out rather than trusted.
import { describe, expect, it } from 'vitest';
import { overlappingPlans, type OpenPlan, type OpenPlanRegistry } from '../../src/state/index.js';

export interface RegistryUnderTest {
  registry: OpenPlanRegistry;
  /** Writes a raw entry as someone with write access to the storage could (not through cplane). */
  plant(pr: number, data: unknown): Promise<void>;
  close(): Promise<void>;
}

const plan = (pr: number, commit: string, addresses: string[], n = pr): OpenPlan => ({
  pr,
  commit,
  addresses,
  digest: `sha256:${String(n).padStart(64, '0')}`,
  plannedAt: '2026-12-07T12:00:00.000Z',
});

export function openPlansConformance(name: string, make: () => Promise<RegistryUnderTest>): void {
  describe(`open plans: ${name}`, () => {
    it('registers, replaces on a new commit, lists what others share, and forgets only the applied plan', async () => {
      const t = await make();
      try {
        const { registry } = t;
        expect(await registry.list()).toEqual([]);
        await registry.register(plan(1, 'aaaaaaa', ['project.alpha', 'project.beta']));
        await registry.register(plan(2, 'bbbbbbb', ['project.beta']));
        await registry.register(plan(1, 'ccccccc', ['project.alpha'], 11));
        const listed = await registry.list();
        expect(listed.map((p) => [p.pr, p.commit])).toEqual([
          [1, 'ccccccc'],
          [2, 'bbbbbbb'],
        ]);
        expect(overlappingPlans(listed, 3, ['project.alpha'])).toEqual([plan(1, 'ccccccc', ['project.alpha'], 11)]);
        expect(overlappingPlans(listed, 1, ['project.alpha'])).toEqual([]);
        // The applied plan of an older commit does not remove the newer one.
        expect(await registry.forget(1, plan(1, 'aaaaaaa', []).digest)).toBe(false);
        expect(await registry.forget(1, plan(1, 'ccccccc', [], 11).digest)).toBe(true);
        expect(await registry.forget(2)).toBe(true);
        expect(await registry.list()).toEqual([]);
      } finally {
        await t.close();
      }
    });

    it('leaves out an entry cplane never writes', async () => {
      const t = await make();
      try {
        await t.registry.register(plan(5, 'ddddddd', ['project.alpha']));
        await t.plant(6, { pr: 6, commit: 'not a commit', addresses: ['x'], digest: 'sha256:00', plannedAt: 'now' });
        expect((await t.registry.list()).map((p) => p.pr)).toEqual([5]);
      } finally {
        await t.close();
      }
    });
  });
}
