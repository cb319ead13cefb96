// A rule from a pull request is untrusted code run once per planned change: it is bounded before it runs (an
// estimated cost, refused at compile time, so by `validate` and by every plan) and while it runs (a deadline per
// policy, after which the rule is stopped and fails closed at its level). `timeoutMs` may only lower the deadline.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config/index.js';
import { compilePolicies, DEFAULT_TIMEOUT_MS, evaluatePolicies, MAX_RULE_COST, type PolicyChange } from '../../src/policy/index.js';
import { load } from '../config/helpers.js';
import { BACKTRACKS, FORTY, SIX_NESTED, THREE_NESTED } from './costly-rules.js';

const policy = (name: string, rule: string, extra: Partial<Policy> = {}): Policy => ({
  name,
  level: 'mandatory',
  kinds: [],
  actions: [],
  rule,
  message: `${name} says no`,
  source: { file: 'policies.yaml', line: 4, col: 11 },
  ...extra,
});
const change = (i: number): PolicyChange => ({
  action: 'create',
  address: `project.p${i}`,
  kind: 'project',
  before: null,
  after: { name: `p${i}` },
});

describe('the cost bound, at compile time', () => {
  it("refuses the 724-character rule of six nested .all() over [0..39], at the rule's place, naming the policy", async () => {
    expect(SIX_NESTED).toHaveLength(724);
    const compiled = await compilePolicies([policy('deep', SIX_NESTED)]);
    expect(compiled.policies).toEqual([]);
    expect(compiled.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'policy_too_costly',
        summary:
          'Policy "deep": the rule may take about 2.1e10 steps for one change (6 nested macros over up to 40 elements each); at most 1,000,000 are allowed',
        detail: expect.stringContaining('nested macros multiply'),
        range: { file: 'policies.yaml', line: 4, col: 11 },
      },
    ]);
  });

  it('keeps a rule just under the bound, and the everyday rules, which cost next to nothing', async () => {
    const compiled = await compilePolicies([
      policy('slow', THREE_NESTED),
      policy('scopes', 'after.scopes.all(s, s in ["run", "read_logs"])'),
      policy('pairs', 'after.scopes.all(s, after.scopes.exists_one(t, t == s))'),
    ]);
    expect(compiled.diagnostics).toEqual([]);
    const [slow, scopes, pairs] = compiled.policies.map((p) => p.cost.steps);
    expect(slow).toBeGreaterThan(MAX_RULE_COST / 2);
    expect(slow).toBeLessThanOrEqual(MAX_RULE_COST);
    expect(scopes).toBeLessThan(2_000);
    expect(pairs).toBeLessThan(100_000);
  });

  it('counts a list the rule does not write out as 100 elements, and follows lists made by map, filter, + and split', async () => {
    for (const rule of [
      'after.a.all(x, after.b.all(y, after.c.all(z, x == y && y == z)))',
      `${FORTY}.map(x, ${FORTY}).all(l, l.all(y, ${FORTY}.all(z, ${FORTY}.exists(w, w == y + z))))`,
      `(${FORTY} + ${FORTY} + ${FORTY}).all(x, (${FORTY} + ${FORTY}).all(y, ${FORTY}.filter(z, z > 1).all(z, ${FORTY}.all(w, w != x + y + z))))`,
      `'${'x'.repeat(1000)}'.split('').all(a, '${'x'.repeat(1000)}'.split('').all(b, a == b))`,
      `cel.bind(l, ${FORTY}, l.all(a, l.all(b, l.all(c, l.all(d, a + b + c + d >= 0)))))`,
      // No macro at all: a list doubled 16 times (2.6 million elements) by nested cel.bind().
      Array.from({ length: 16 }, (_, i) => `cel.bind(l${i + 1}, l${i} + l${i}, `)
        .join('')
        .replace(/^/, `cel.bind(l0, ${FORTY}, `) +
        'size(l16) > 0' +
        ')'.repeat(17),
    ]) {
      const { diagnostics } = await compilePolicies([policy('p', rule)]);
      expect(
        diagnostics.map((d) => d.code),
        rule,
      ).toEqual(['policy_too_costly']);
    }
  });
});

describe('the deadline, at evaluation', () => {
  it('stops a rule under the bound that outlives its timeoutMs: a mandatory one fails closed, an advisory one warns; the next policy still runs', async () => {
    const compiled = await compilePolicies([
      policy('a-slow', THREE_NESTED, { timeoutMs: 1 }),
      policy('b-slow', THREE_NESTED, { timeoutMs: 1, level: 'advisory' }),
      policy('c-next', 'after.name != "p3"'),
    ]);
    expect(compiled.diagnostics).toEqual([]);
    const changes = Array.from({ length: 30 }, (_, i) => change(i));
    const report = await evaluatePolicies(compiled, changes);
    expect(report.checked).toBe(90);
    const stopped = report.findings.filter((f) => f.policy !== 'c-next');
    expect(stopped.map((f) => [f.policy, f.level, f.outcome])).toEqual(
      expect.arrayContaining([
        ['a-slow', 'mandatory', 'error'],
        ['b-slow', 'advisory', 'error'],
      ]),
    );
    expect(stopped).toHaveLength(2);
    for (const f of stopped)
      expect(f.message).toMatch(/^it did not finish within 1 ms \(its timeoutMs\)(; \d+ more changes? (was|were) not checked)?$/);
    expect(report.findings.filter((f) => f.policy === 'c-next').map((f) => [f.address, f.outcome, f.message])).toEqual([
      ['project.p3', 'violated', 'c-next says no'],
    ]);
  });

  it('stops a rule that would never end (a backtracking regular expression), at the change it was on', async () => {
    const compiled = await compilePolicies([policy('redos', BACKTRACKS, { timeoutMs: 50 })]);
    expect(compiled.diagnostics).toEqual([]);
    const report = await evaluatePolicies(compiled, [change(0), change(1), change(2)]);
    expect(report.findings).toEqual([
      {
        policy: 'redos',
        level: 'mandatory',
        address: 'project.p0',
        kind: 'project',
        outcome: 'error',
        message: 'it did not finish within 50 ms (its timeoutMs); 2 more changes were not checked',
      },
    ]);
  });

  it('gives all policies of a plan one budget together: a policy that starts when it is spent is stopped at once', async () => {
    const compiled = await compilePolicies([policy('a-endless', BACKTRACKS), policy('b-endless', BACKTRACKS, { level: 'advisory' })]);
    const report = await evaluatePolicies(compiled, [change(0)], { budgetMs: 200 });
    expect(report.findings.map((f) => [f.policy, f.outcome, f.message])).toEqual([
      ['a-endless', 'error', 'it did not finish within the 200 ms all policies of a plan have together'],
      ['b-endless', 'error', 'it did not finish within the 200 ms all policies of a plan have together'],
    ]);
  });
});

describe('timeoutMs in the configuration', () => {
  const config = (timeoutMs: string) => `version: 1
projects:
  shop: { description: Shop }
policies:
  names:
    level: mandatory
    rule: "after.name != ''"
    timeoutMs: ${timeoutMs}
`;

  it('is kept on the policy, and is part of the digest only when set', async () => {
    const { desired, diagnostics } = await load({ 'main.yaml': config('250') });
    expect(diagnostics).toEqual([]);
    expect(desired?.policies?.[0]).toMatchObject({ name: 'names', timeoutMs: 250 });
    const without = await load({ 'main.yaml': config('250').replace('    timeoutMs: 250\n', '') });
    expect(without.desired?.policies?.[0]).not.toHaveProperty('timeoutMs');
    const [set, unset] = await Promise.all([compilePolicies(desired!.policies!), compilePolicies(without.desired!.policies!)]);
    expect(set.digest).not.toBe(unset.digest);
  });

  it.each([
    ['9000', 'out_of_range', '"policies.names.timeoutMs" must be between 1 and 5000; got 9000'],
    ['0', 'out_of_range', '"policies.names.timeoutMs" must be between 1 and 5000; got 0'],
    ['2.5', 'wrong_type', 'Wrong type for "policies.names.timeoutMs": expected an integer, got a number'],
    ['fast', 'wrong_type', 'Wrong type for "policies.names.timeoutMs": expected an integer, got a string'],
  ])('refuses timeoutMs: %s with its exact error at its line', async (value, code, summary) => {
    const { diagnostics } = await load({ 'main.yaml': config(value) });
    expect(diagnostics.map((d) => [d.code, d.summary, d.range?.line, d.range?.col])).toEqual([[code, summary, 8, 16]]);
  });

  it("may only lower the default: the schema's maximum is the default deadline", () => {
    const schema = JSON.parse(readFileSync('schema/config.schema.json', 'utf8')) as {
      $defs: { policy: { properties: { timeoutMs: { anyOf: [{ maximum: number }, { $ref: string }] } } } };
    };
    // The literal's schema, beside the interpolation an editor accepts there (`${var.x}`).
    expect(schema.$defs.policy.properties.timeoutMs.anyOf[0].maximum).toBe(DEFAULT_TIMEOUT_MS);
  });
});
