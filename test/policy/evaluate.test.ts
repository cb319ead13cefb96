// The policy layer as the planner uses it: compile the configuration's rules, evaluate them over planned changes.
// Each result (pass, violated, error) at each level; the kinds a policy applies to; what a rule sees.
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config/index.js';
import { compilePolicies, evaluatePolicies, policyDigest, type PolicyChange } from '../../src/policy/index.js';
import { policyChanges } from '../../src/planner/checks/policies.js';
import type { DesiredResource } from '../../src/config/types.js';
import type { PlanStep } from '../../src/plan-model/index.js';

const policy = (name: string, rule: string, extra: Partial<Policy> = {}): Policy => ({
  name,
  level: 'mandatory',
  kinds: [],
  actions: [],
  rule,
  message: `${name} says no`,
  source: { file: 'main.yaml', line: 3, col: 11 },
  ...extra,
});
const token = (after: Record<string, unknown> | null, extra: Partial<PolicyChange> = {}): PolicyChange => ({
  action: 'create',
  address: 'gateway_token.prod/ci',
  kind: 'gateway_token',
  before: null,
  after,
  ...extra,
});

describe('results', () => {
  it('a pass leaves no finding; a false rule is violated; a rule that throws or gives no bool is an error', async () => {
    const compiled = await compilePolicies([
      policy('passes', 'after.expiresInDays <= 90'),
      policy('fails', 'after.expiresInDays <= 10', { level: 'advisory' }),
      policy('throws', 'after.missing == 1'),
      policy('not-bool', 'after.name', { level: 'advisory' }),
    ]);
    expect(compiled.diagnostics).toEqual([]);
    const report = await evaluatePolicies(compiled, [
      token({ expiresInDays: 30, name: 'ci' }, { at: { file: 'main.yaml', line: 9, col: 7 } }),
    ]);
    expect(report).toEqual({
      digest: compiled.digest,
      policies: 4,
      checked: 4,
      findings: [
        {
          policy: 'fails',
          level: 'advisory',
          address: 'gateway_token.prod/ci',
          kind: 'gateway_token',
          outcome: 'violated',
          message: 'fails says no',
          at: { file: 'main.yaml', line: 9, col: 7 },
        },
        {
          policy: 'throws',
          level: 'mandatory',
          address: 'gateway_token.prod/ci',
          kind: 'gateway_token',
          outcome: 'error',
          message: 'No such key: missing',
          at: { file: 'main.yaml', line: 9, col: 7 },
        },
        {
          policy: 'not-bool',
          level: 'advisory',
          address: 'gateway_token.prod/ci',
          kind: 'gateway_token',
          outcome: 'error',
          message: 'it gave string, not a bool',
          at: { file: 'main.yaml', line: 9, col: 7 },
        },
      ],
    });
  });

  it('applies a policy only to its kinds', async () => {
    const compiled = await compilePolicies([policy('gateways-only', 'false', { kinds: ['gateway'] })]);
    expect(await evaluatePolicies(compiled, [token({})])).toMatchObject({ checked: 0, findings: [] });
    expect((await evaluatePolicies(compiled, [{ ...token({}), kind: 'gateway', address: 'gateway.prod' }])).findings).toHaveLength(1);
  });

  it('by default a policy judges no removal (after is null then); it does when its actions list one', async () => {
    const compiled = await compilePolicies([
      policy('expires', 'after.expiresInDays <= 90'),
      policy('no-revoke', 'false', { actions: ['revoke'] }),
    ]);
    expect(await evaluatePolicies(compiled, [token({ expiresInDays: 30 })])).toMatchObject({ checked: 1, findings: [] });
    const revoked = await evaluatePolicies(compiled, [token(null, { action: 'revoke', before: { expiresInDays: 30 } })]);
    expect(revoked.checked).toBe(1);
    expect(revoked.findings.map((f) => [f.policy, f.outcome])).toEqual([['no-revoke', 'violated']]);
  });

  it('whole numbers are CEL ints, so arithmetic with int literals works; a removal has after == null', async () => {
    const compiled = await compilePolicies([
      policy('arith', 'action == "delete" ? after == null && before.expiresInDays == 30 : after.expiresInDays + 1 == 31', {
        actions: ['create', 'delete'],
      }),
    ]);
    expect((await evaluatePolicies(compiled, [token({ expiresInDays: 30 })])).findings).toEqual([]);
    expect((await evaluatePolicies(compiled, [token(null, { action: 'delete', before: { expiresInDays: 30 } })])).findings).toEqual([]);
  });

  it('the digest changes with anything a policy says, and not with where it is written', () => {
    const base = policy('p', 'true');
    expect(policyDigest([base])).toBe(policyDigest([{ ...base, source: { file: 'other.yaml', line: 40, col: 1 } }]));
    for (const changed of [
      { rule: 'false' },
      { level: 'advisory' as const },
      { kinds: ['project' as const] },
      { actions: ['delete'] },
      { message: 'other' },
    ]) {
      expect(policyDigest([{ ...base, ...changed }])).not.toBe(policyDigest([base]));
    }
  });
});

describe('what a rule sees (planner/checks/policies.ts)', () => {
  const credential: DesiredResource = {
    kind: 'credential',
    address: 'credential.openai',
    localName: 'openai',
    attributes: { provider: 'openai', label: 'OpenAI', baseUrl: null },
    secrets: { secret: { env: 'OPENAI_API_KEY' } },
    lifecycle: { preventDestroy: true, ignoreChanges: [] },
    dependsOn: [],
    source: { file: 'main.yaml', line: 4, col: 3 },
  };
  const step = (action: PlanStep['action'], address = 'credential.openai'): PlanStep => ({
    address,
    kind: 'credential',
    action,
    changes: [],
    dependsOn: [],
    writes: [],
  });
  const state = {
    'credential.openai': {
      inputs: { provider: 'openai', label: 'Old', baseUrl: null, lifecycle: { preventDestroy: true, source: 'main.yaml:4' } },
    },
  } as never;

  it('after is the configuration (no write-only value), before what was last applied (no bookkeeping); no-op steps are not judged', () => {
    const changes = policyChanges([step('update'), step('no-op')], new Map([[credential.address, credential]]), state);
    expect(changes).toEqual([
      {
        action: 'update',
        address: 'credential.openai',
        kind: 'credential',
        before: { provider: 'openai', label: 'Old', baseUrl: null },
        after: { provider: 'openai', label: 'OpenAI', baseUrl: null },
        at: credential.source,
      },
    ]);
    expect(JSON.stringify(changes)).not.toContain('OPENAI_API_KEY');
  });

  it('a create has no before; the removal of an address no longer configured has no after and no place', () => {
    expect(policyChanges([step('create')], new Map([[credential.address, credential]]), {} as never)[0]).toMatchObject({
      before: null,
      after: { label: 'OpenAI' },
    });
    expect(policyChanges([step('delete')], new Map(), state)[0]).toEqual({
      action: 'delete',
      address: 'credential.openai',
      kind: 'credential',
      before: { provider: 'openai', label: 'Old', baseUrl: null },
      after: null,
    });
  });
});
