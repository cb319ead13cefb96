/**
 * The step generator (after Pulumi's): refreshes the live account, then runs
 * the stages, each a plain function of data named for what it decides:
 * the refactoring blocks (moved, removed, import), write-only values, the desired addresses (with the address book), the
 * removals, the revocations that wait for a delivery, the ends coming (a grant's `until`), the dependencies, the order, the targets, the keys wrapped for that nobody vouches for, the objects left without a value, the summary, the spend, the policies and what cannot be verified.
 * Providers report facts and writes; the stages decide.
 */
import { PLAN_FORMAT_VERSION, type Plan } from '../plan-model/index.js';
import { AddressBook } from './stages/address-book.js';
import type { MakePlanInput, StageInputs } from './stage-inputs.js';
import { linkDependencies } from './stages/dependencies.js';
import { planDesired } from './stages/desired.js';
import { revokeAfterDelivery } from './stages/deliveries.js';
import { endingSoon } from './checks/ends.js';
import { PlanError } from './errors.js';
import { checkPolicies, compileConfigured } from './checks/policies.js';
import { openSandbox, type Compiled, type Sandbox } from '../policy/index.js';
import { indexLive } from './stages/live-account.js';
import { sortSteps } from './stages/order.js';
import { refreshLive } from './stages/refresh.js';
import { replaceProblems, supersededWaiting } from './stages/reissue.js';
import { definitionOf } from '../providers/index.js';
import { forgetSteps, resolveRefactoring, withMoves } from './stages/refactoring.js';
import { planRemovals } from './stages/removals.js';
import { summarize } from './stages/summary.js';
import { scopeToTargets } from './stages/targets.js';
import { version as cplaneVersion } from '../version.js';
import { uncheckedWriteOnly, writeOnlyChanges, type WriteOnlyStatus } from './stages/write-only-values.js';
import { withoutValue } from './checks/without-value.js';
import { grantsWithoutValue } from './checks/grants-without-value.js';
import { notVerifiable } from './checks/not-verifiable.js';
import { pendingWritesOf } from './stages/pending-writes.js';
import { planSpend } from './checks/spend.js';
import { checkModels, modelChecks } from './checks/models.js';
import { dueItems } from './checks/due.js';
import type { PlanProblem } from './problems.js';
import { readClocks } from './stages/clocks.js';
import { withholdByClass } from './stages/withheld.js';
import { markOfferedKeys } from './stages/offered-keys.js';

/** The addresses `--rewrap` writes again: in state, with a value of the field their kind wraps for readers. */
function rewrapAddresses(desired: MakePlanInput['desired'], state: MakePlanInput['state']['data']['resources']): string[] {
  return desired.resources
    .filter((r) => {
      const field = definitionOf(r.kind).relations.wrappedValue;
      return field !== undefined && r.secrets[field] !== undefined && state[r.address] !== undefined;
    })
    .map((r) => r.address);
}

export async function makePlan(input: MakePlanInput): Promise<Plan> {
  // Policies judge the changes a plan makes (a refresh-only plan makes none); a rule that does not compile stops the plan before any request.
  const compiled = input.mode === 'refresh-only' ? undefined : await compileConfigured(input.desired);
  // The worker the rules run in starts now, so its start-up overlaps the refresh; it is ended however the plan ends.
  const sandbox = compiled && openSandbox(compiled);
  try {
    return await planStages(input, compiled, sandbox);
  } finally {
    await sandbox?.close();
  }
}

async function planStages(input: MakePlanInput, compiled: Compiled | undefined, sandbox: Sandbox | undefined): Promise<Plan> {
  const { client, desired, account, mode = 'normal', targets = [], exclude = [] } = input;
  const replace = input.rewrap ? [...new Set([...(input.replace ?? []), ...rewrapAddresses(desired, input.state.data.resources)])] : (input.replace ?? []);
  // moved, removed and import blocks first: every later stage sees the state under its new addresses.
  const refactored = resolveRefactoring({ blocks: desired.refactoring, state: input.state.data.resources });
  const state = refactored.state;
  const refreshing = refreshLive({ client, account, desired: mode === 'destroy' ? undefined : desired, state: { ...input.state.data, resources: state }, parallelism: input.parallelism ?? 10 });
  // Its failure is awaited below; until then it must not count as an unhandled rejection.
  refreshing.catch(() => undefined);
  // Work that needs no live data is done while the refresh requests are in flight; yielding once first lets
  // the requests leave before this CPU work, instead of after it.
  await new Promise((resolve) => setImmediate(resolve));
  const writeOnly = mode === 'normal' ? await writeOnlyChanges(desired, state, input.state.crypto, input.env) : { statuses: new Map<string, WriteOnlyStatus>(), problems: [] };
  const book = new AddressBook(state);
  const desiredByAddress = new Map(desired.resources.map((r) => [r.address, r]));
  const snapshot = await refreshing;

  // The API's clock, read from the answers of the refresh, and this machine's: what ends access takes the earlier deadline.
  const clocks = readClocks(client.serverNow(), new Date());
  const known = book.known(account, snapshot.lookups, clocks, desired.directory);
  // Model names are checked against what the credentials serve: the reads leave before the stages below run.
  const modelsChecked = mode === 'normal' ? checkModels(modelChecks(desired.resources, desiredByAddress, state), client, known, desiredByAddress, input.parallelism ?? 10) : Promise.resolve([]);
  modelsChecked.catch(() => undefined);
  const given: StageInputs = { mode, desired, desiredByAddress, state, live: indexLive(snapshot), book, known, writeOnly: writeOnly.statuses, imports: refactored.imports, replace: new Set(replace), sealing: new Set() };
  const planned = planDesired(given);
  const removals = planRemovals(given);
  // An address with a pending write gets no step: the resend that comes first finishes it (pending-writes.ts).
  const pendingWrites = pendingWritesOf(input.state.data);
  const inFlight = new Set(pendingWrites.map((w) => w.address));
  const steps = revokeAfterDelivery(withMoves([...planned.steps, ...removals.steps, ...forgetSteps(refactored)], refactored, state).filter((s) => !inFlight.has(s.address)));
  const linked = linkDependencies({ mode, steps, desiredByAddress, state, book, removedWith: removals.removedWith });
  // Refresh reads only the kinds the configuration or the state has, so all it could not read matters.
  const unreadable = [...snapshot.unreadable, ...planned.unreadable, ...removals.unreadable];
  const scoped = scopeToTargets({
    mode, targets, exclude, desiredByAddress, state, removedWith: removals.removedWith,
    steps: sortSteps(linked),
    drift: [...planned.drift, ...removals.drift],
    // A kind-wide entry says nothing more once the addresses of that kind are listed one by one.
    unreadable: unreadable.filter((u) => u.address !== undefined || !unreadable.some((v) => v.address !== undefined && v.kind === u.kind)),
    problems: [...refactored.problems, ...writeOnly.problems, ...(await modelsChecked), ...replaceProblems(replace, desiredByAddress, state, (r) => definitionOf(r.kind)), ...planned.problems, ...removals.problems],
  });
  // A step that wraps for a key the API chose says so, whoever applies it.
  const marked = markOfferedKeys(scoped.steps, given);
  // `cplane reconcile`: only the classes it may apply; a problem of a withheld address does not stop the rest.
  const { steps: planSteps, withheld } = input.classes && mode === 'normal' ? withholdByClass(marked, input.classes) : { steps: marked, withheld: [] };
  const withheldAddresses = new Set(withheld.map((w) => w.address));
  const emptyRecords = withoutValue(given, planSteps, targets).filter(scoped.covers);
  // A source reconcile cannot read matters only to a step it applies that sends it: unread, the value could only
  // differ by a change of the configuration, which a reconcile that may not apply changes withholds anyway.
  const sentSources = new Set(planSteps.filter((s) => s.secrets).map((s) => s.address));
  const unreadSourceMatters = (p: PlanProblem) => p.code !== 'secret_unavailable' || !input.classes || input.classes.includes('change') || sentSources.has(p.address!);
  const problems = [...scoped.problems, ...grantsWithoutValue(planSteps, emptyRecords, desiredByAddress, (address) => state[address]?.id)].filter((p) => (p.address === undefined || !withheldAddresses.has(p.address)) && unreadSourceMatters(p));
  if (problems.length > 0) throw new PlanError(problems);
  // Spend is read and computed only when a step touches it (a limit, a window, allowed models, a rate).
  const spend = mode === 'refresh-only' ? undefined : await planSpend({ given, steps: planSteps, client, parallelism: input.parallelism ?? 10 });
  const policies = await checkPolicies(compiled, sandbox, planSteps, desiredByAddress, state, spend, known.now);
  const unverifiable = notVerifiable(given, planSteps, targets);
  const superseded = mode === 'normal' ? supersededWaiting(state, planSteps, known.nowForEnds) : [];
  const ending = mode === 'normal' ? endingSoon(desired.resources, known.nowForEnds).filter((e) => scoped.covers(e.address)) : [];
  const due = mode === 'refresh-only' ? dueItems(given) : [];

  return {
    formatVersion: PLAN_FORMAT_VERSION,
    cplaneVersion,
    createdAt: new Date().toISOString(),
    account,
    mode,
    targets,
    ...(exclude.length > 0 ? { exclude } : {}),
    ...(replace.length > 0 ? { replace } : {}),
    steps: planSteps,
    drift: scoped.drift,
    unreadable: scoped.unreadable,
    withoutValue: emptyRecords,
    ...(superseded.length > 0 ? { superseded } : {}),
    ...(ending.length > 0 ? { endingSoon: ending } : {}),
    ...(clocks.skew ? { clockSkew: clocks.skew } : {}),
    ...(due.length > 0 ? { due } : {}),
    ...(withheld.length > 0 ? { withheld } : {}),
    summary: summarize(planSteps),
    ...(policies ? { policies } : {}),
    ...(mode === 'refresh-only' ? { notChecked: uncheckedWriteOnly(desired, state, input.env) } : {}),
    ...(unverifiable.length > 0 ? { notVerifiable: unverifiable } : {}),
    ...(pendingWrites.length > 0 ? { pendingWrites } : {}),
    ...(spend ? { spend } : {}),
  };
}
