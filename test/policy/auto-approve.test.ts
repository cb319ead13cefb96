// A deployment's autoApprove rule: CEL over the plan (its counts, its reader changes, its warnings, its kinds); a
// rule that does not compile is a diagnostic at its place, one that fails or gives no bool approves nothing, and a
// plan that changes who can read a record is never approved by a rule, whatever it says.
import { expect, test } from 'vitest';
import { PLAN_FORMAT_VERSION, type Plan, type PlanStep } from '../../src/plan-model/index.js';
import { noticeChecks, noticeOf, type NoticeCheck } from '../../src/planner/index.js';
import { autoApproveVariables, compileAutoApprove } from '../../src/policy/auto-approve.js';

const at = { file: 'main.yaml', line: 4, col: 20 };
const step = (address: string, kind: string, action: PlanStep['action'], extra: Partial<PlanStep> = {}): PlanStep => ({
  address,
  kind,
  action,
  changes: [],
  dependsOn: [],
  writes: [],
  causes: ['configuration'],
  class: 'change',
  ...extra,
});
const wrap = (recordId: string) => ({
  id: 'w#0',
  operation: 'grantServiceAccount' as const,
  path: { id: 'sa' },
  body: { recordId, wrappedDek: { $wrap: { record: recordId, recipient: 'sa', publicKey: 'AAAA' } } },
  idempotencyKey: 'k',
  effects: {},
  summary: 'grant',
});
function planOf(steps: PlanStep[], summary: Partial<Plan['summary']> = {}): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    cplaneVersion: 'test',
    createdAt: '2026-01-01T00:00:00Z',
    account: 'a',
    mode: 'normal',
    targets: [],
    steps,
    drift: [],
    unreadable: [],
    notices: [],
    summary: { add: 0, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0, ...summary },
  };
}
const twoProjects = planOf(
  [step('project.a', 'project', 'create'), step('project.b', 'project', 'create'), step('gateway.g', 'gateway', 'update')],
  { add: 2, change: 1 },
);

async function compiled(rule: string) {
  const made = await compileAutoApprove('staging', rule, at);
  if (typeof made !== 'function') throw new Error(made.summary);
  return made;
}

test('true approves, false says why', async () => {
  const rule = await compiled('plan.remove == 0 && plan.replace == 0 && plan.add < 10');
  expect(rule(twoProjects)).toEqual({ approved: true });
  expect(rule(planOf([step('project.a', 'project', 'delete')], { remove: 1 }))).toEqual({
    approved: false,
    why: 'its autoApprove rule is false for this plan',
  });
});

test('the rule sees reader changes, warnings and the changed count of each kind', async () => {
  const noted = planOf(
    [
      step('gateway.g', 'gateway', 'delete', { notes: ['deleting the gateway revokes its 2 tokens'] }),
      step('project.a', 'project', 'no-op'),
    ],
    { remove: 1 },
  );
  expect(autoApproveVariables(noted)).toEqual({
    add: 0n,
    change: 0n,
    replace: 0n,
    remove: 1n,
    policyViolations: 0n,
    incomplete: 0n,
    readerKeyChanges: 0n,
    newReaders: 0n,
    warnings: 1n,
    kinds: { gateway: 1n },
  });
  expect((await compiled('plan.warnings == 0'))(noted).approved).toBe(false);
  expect((await compiled('plan.warnings == 0'))(twoProjects).approved).toBe(true);
  expect((await compiled("!('gateway' in plan.kinds)"))(twoProjects).approved).toBe(false);
  expect((await compiled("plan.kinds.all(k, k in ['project', 'gateway']) && plan.kinds.project <= 2"))(twoProjects).approved).toBe(true);
  expect((await compiled('plan.readerKeyChanges == 0 && plan.newReaders == 0'))(twoProjects).approved).toBe(true);
});

test('a plan that changes a reader key, adds a reader or wraps for a key the API chose is never approved by a rule, naming the step', async () => {
  const always = await compiled('true');
  const keyChange = step('service_account_grant.p/r/ci', 'service_account_grant', 'update', {
    writes: [wrap('r1')],
    causes: ['reader-key-changed', 'reader-key-offered'],
    reason:
      "wraps for Service Account ci's key x25519:bb, which the API offers and no pin fixes; state recorded x25519:aa: only a person applies this",
  });
  expect(autoApproveVariables(planOf([keyChange], { change: 1 }))).toMatchObject({ readerKeyChanges: 1n, newReaders: 0n });
  expect(always(planOf([keyChange], { change: 1 }))).toEqual({
    approved: false,
    why: "no autoApprove rule approves a plan that changes who can read a record: service_account_grant.p/r/ci changes the key a reader is wrapped for: wraps for Service Account ci's key x25519:bb, which the API offers and no pin fixes; state recorded x25519:aa: only a person applies this",
  });
  const newReader = step('user_share.p/r/dana', 'user_share', 'create', { writes: [wrap('r1')] });
  expect(autoApproveVariables(planOf([newReader], { add: 1 }))).toMatchObject({ readerKeyChanges: 0n, newReaders: 1n });
  expect(always(planOf([newReader], { add: 1 })).why).toBe(
    'no autoApprove rule approves a plan that changes who can read a record: user_share.p/r/dana adds a reader to a record',
  );
  const rotation = step('record.p/r', 'record', 'rotate', { writes: [wrap('r1')], causes: ['rotation-due', 'reader-key-offered'] });
  expect(always(planOf([rotation], { change: 1 })).why).toContain(
    'record.p/r wraps for a reader key the API offers, which neither state nor a pin vouches for (only a pin makes this safe)',
  );
  // A rotation that re-wraps for the keys state recorded is the rule's to decide.
  expect(
    always(planOf([step('record.p/r', 'record', 'rotate', { writes: [wrap('r1')], causes: ['rotation-due'] })], { change: 1 })),
  ).toEqual({ approved: true });
});

test('a rule that does not compile, type-check or give a bool is an error at its place', async () => {
  expect(await compileAutoApprove('staging', 'plan.remove ==', at)).toMatchObject({
    code: 'auto_approve_syntax',
    range: at,
    summary: expect.stringMatching(/^The autoApprove rule of deployment "staging" is not valid CEL/),
  });
  expect(await compileAutoApprove('staging', 'remove == 0', at)).toMatchObject({ code: 'auto_approve_type' });
  expect(await compileAutoApprove('staging', '1 + 2', at)).toMatchObject({ code: 'auto_approve_not_bool' });
});

test('a rule that fails or gives no bool approves nothing', async () => {
  expect((await compiled('plan.nothing == 0'))(twoProjects).approved).toBe(false);
  expect((await compiled('plan.kinds.record == 0'))(twoProjects).approved).toBe(false);
  expect((await compiled('plan.add'))(twoProjects)).toEqual({ approved: false, why: 'its autoApprove rule did not give a bool' });
});

test('the examples of docs/deployments.md compile and decide', async () => {
  const { readFileSync } = await import('node:fs');
  const rules = [...readFileSync(new URL('../../docs/deployments.md', import.meta.url), 'utf8').matchAll(/autoApprove: "([^"]+)" \}/g)].map(
    (m) => m[1]!,
  );
  expect(rules.length).toBeGreaterThanOrEqual(5);
  for (const rule of rules) expect(typeof (await compiled(rule))(twoProjects).approved).toBe('boolean');
  expect((await compiled(rules.find((r) => r.includes('gateway_token <= 5'))!))(twoProjects).approved).toBe(false);
});

test('plan.warnings counts every notice of severity warning, whatever its code, and no notice of severity info', async () => {
  // A notice no other code knows, as a new check of planner/checks/notices.ts would add it.
  const neverExpires: NoticeCheck = {
    code: 'token_never_expires',
    heading: 'Gateway tokens that never expire:',
    severity: 'warning',
    shownBy: { plan: true, drift: false },
    dataKeys: {},
    find: () => [],
    message: ({ address }) => `${address}: never expires`,
  };
  const info = noticeOf(
    noticeChecks.find((c) => c.code === 'not_verifiable')!,
    { address: 'project_group_role.a/b', data: {} },
  );
  const plain = { ...twoProjects, notices: [info] };
  const warned = { ...plain, notices: [info, noticeOf(neverExpires, { address: 'gateway_token.g/ci', kind: 'gateway_token', data: {} })] };
  expect(autoApproveVariables(plain).warnings).toBe(0n);
  expect(autoApproveVariables(warned).warnings).toBe(1n);
  expect((await compiled('plan.warnings == 0'))(plain).approved).toBe(true);
  expect((await compiled('plan.warnings == 0'))(warned).approved).toBe(false);
});
