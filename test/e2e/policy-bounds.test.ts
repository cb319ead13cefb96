// A policy from a pull request cannot keep a runner busy: `cplane validate` and `cplane plan` refuse the rule of
// six nested .all() at its line before anything runs, and a rule that passes the bound but never ends (a
// backtracking regular expression) is stopped at its deadline: the plan ends, and the rule fails closed at its
// level. The long-lived `cplane mcp` answers its plan and goes on answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/index.js';
import { call, json, session, SESSION_BUDGET_MS, type Session } from '../faces/mcp-session.js';
import { BACKTRACKS, SIX_NESTED } from '../policy/costly-rules.js';
import { world, type World } from './helpers.js';

const costly = `version: 1
projects:
  shop: { description: Shop }
policies:
  deep:
    level: mandatory
    rule: "${SIX_NESTED}"
`;

const endless = `version: 1
projects:
  shop: { description: Shop }
policies:
  redos:
    level: mandatory
    rule: "${BACKTRACKS}"
    timeoutMs: 300
  redos-advisory:
    level: advisory
    rule: "${BACKTRACKS}"
    timeoutMs: 300
`;

const refusal =
  'infra/main.yaml:7:11: error: Policy "deep": the rule may take about 2.1e10 steps for one change (6 nested macros over up to 40 elements each); at most 1,000,000 are allowed';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.close());

describe('the CLI', () => {
  it("validate refuses the six nested .all() at the rule's line, naming the policy", async () => {
    w.config(costly);
    const run = await w.cli(['validate', w.dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(refusal);
  });

  it('plan refuses it the same way, before it evaluates anything', async () => {
    w.config(costly);
    const run = await w.cli(['plan', w.dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(refusal);
  });

  it('plan stops a rule that never ends at its deadline: mandatory fails the plan, advisory warns', async () => {
    w.config(endless);
    const run = await w.cli(['plan', w.dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '  x mandatory project.shop: redos: the rule could not be evaluated: it did not finish within 300 ms (its timeoutMs)  (infra/main.yaml:3:3)',
    );
    expect(run.stdout).toContain(
      '  ! advisory project.shop: redos-advisory: the rule could not be evaluated: it did not finish within 300 ms (its timeoutMs)  (infra/main.yaml:3:3)',
    );
    expect(run.stdout).toContain('Refused by policy: 1 mandatory finding; cplane apply will not perform this plan.');
  });
});

describe('cplane mcp', () => {
  let s: Session;
  beforeAll(async () => {
    s = await session(w, fixtures.tokens.admin);
  }, SESSION_BUDGET_MS);
  afterAll(async () => s?.close());

  it(
    'cplane_validate refuses the costly rule; cplane_plan of a rule that never ends answers, and the server goes on',
    async () => {
      w.config(costly);
      const validated = await call(s, 'cplane_validate');
      expect(validated.isError).toBe(true);
      expect(JSON.stringify(json(validated))).toContain('"code":"policy_too_costly"');

      w.config(endless);
      const planned = await call(s, 'cplane_plan');
      expect(planned.content[0]!.text).toContain('it did not finish within 300 ms (its timeoutMs)');

      w.config(endless.replaceAll(BACKTRACKS, "after.name != ''"));
      const again = await call(s, 'cplane_plan');
      expect(again.isError).toBeUndefined();
      expect(again.content[0]!.text).not.toContain('did not finish');
    },
    SESSION_BUDGET_MS,
  );
});
