/**
 * The step generator (after Pulumi's): refreshes the live account, runs the stages (stages/: refactoring, write-only
 * values, desired with its address book, removals, deliveries, dependencies, order, targets, offered keys, reconcile's
 * classes), each a plain function of data, then the checks of their steps (checks/run-checks.ts). Providers report
 * facts and writes; the stages decide.
 */
import { PLAN_FORMAT_VERSION, type Plan } from '../plan-model/index.js';
import { openSandbox, type Compiled, type Sandbox } from '../policy/index.js';
import { childKindsOf, definitionOf, kindOrder, parentOf } from '../providers/index.js';
import type { AccountReading } from '../account/index.js';
import type { ResourceKind } from '../config/types.js';
import { version as cplaneVersion } from '../version.js';
import { checkModels, modelChecks } from './checks/models.js';
import { compileConfigured } from './checks/policies.js';
import { checkSteps } from './checks/run-checks.js';
import type { MakePlanInput, PlannedInputs, StageInputs } from './stage-inputs.js';
import { AddressBook, objectsInState, type AccountFacts } from './stages/address-book.js';
import { readClocks } from './stages/clocks.js';
import { revokeAfterDelivery } from './stages/deliveries.js';
import { linkDependencies } from './stages/dependencies.js';
import { orderDesired, planDesired } from './stages/desired.js';
import { indexKind, liveAccount, type LiveAccount } from './stages/live-account.js';
import { markOfferedKeys } from './stages/offered-keys.js';
import { sortSteps } from './stages/order.js';
import { pendingWritesOf } from './stages/pending-writes.js';
import { forgetSteps, resolveRefactoring, withMoves } from './stages/refactoring.js';
import { startRefreshing } from './stages/refresh.js';
import { replaceAddresses, replaceProblems } from './stages/reissue.js';
import { planRemovals } from './stages/removals.js';
import { summarize } from './stages/summary.js';
import { scopeToTargets } from './stages/targets.js';
import { withholdByClass } from './stages/withheld.js';
import { writeOnlyChanges, type WriteOnlyStatus } from './stages/write-only-values.js';

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
  const { client, account, mode = 'normal', targets = [], exclude = [], parallelism = 10 } = input;
  const started = await startRefresh(input);
  const { given, modelsChecked } = await whenSourcesRead(input, started);
  // Each address is planned once the live objects it is compared with are read, while the other reads are in flight.
  const planned = await planDesired(given, pacedByReads(started.reading, given.live));
  const snapshot = await started.reading.done;
  for (const kind of kindOrder) if (!given.live.kinds.has(kind)) indexKind(given.live, kind);
  const after: PlannedInputs = { ...given, book: planned.book, known: planned.known, sealing: planned.sealing };
  const { scoped, pendingWrites } = await scopedSteps(input, started, after, planned, snapshot, modelsChecked);
  // A step that wraps for a key the API chose says so, whoever applies it; reconcile plans only the classes it may apply.
  const marked = markOfferedKeys(scoped.steps, after);
  const { steps: planSteps, withheld } =
    input.classes && mode === 'normal' ? withholdByClass(marked, input.classes) : { steps: marked, withheld: [] };
  const checks = await checkSteps({
    after,
    steps: planSteps,
    targets,
    covers: scoped.covers,
    problems: scoped.problems,
    withheld,
    classes: input.classes,
    client,
    parallelism,
    compiled,
    sandbox,
    env: input.env,
  });
  const { replace } = started;
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
    ...checks,
    ...(withheld.length > 0 ? { withheld } : {}),
    summary: summarize(planSteps),
    ...(pendingWrites.length > 0 ? { pendingWrites } : {}),
  };
}

type Started = Awaited<ReturnType<typeof startRefresh>>;

/** Lets the answers that arrived be taken in, and the requests waiting for them leave. */
const takeAnswers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sends the refresh, and does the work that needs no live data while its requests are in flight, a task at a
 * time, so the answers that arrive meanwhile are taken in and the next requests leave.
 */
async function startRefresh(input: MakePlanInput) {
  const { client, desired, account, mode = 'normal', parallelism = 10 } = input;
  const replace = replaceAddresses(input, input.state.data.resources);
  // moved, removed and import blocks first: every later stage sees the state under its new addresses.
  const refactored = resolveRefactoring({ blocks: desired.refactoring, state: input.state.data.resources });
  const state = refactored.state;
  const reading = startRefreshing({
    client,
    account,
    desired: mode === 'destroy' ? undefined : desired,
    state: { ...input.state.data, resources: state },
    parallelism,
  });
  reading.done.catch(() => undefined); // awaited later; until then its failure is no unhandled rejection
  await takeAnswers();
  const writeOnly =
    mode === 'normal'
      ? await writeOnlyChanges(desired, state, input.state.crypto, input.env)
      : { statuses: new Map<string, WriteOnlyStatus>(), problems: [] };
  await takeAnswers();
  const desiredByAddress = new Map(desired.resources.map((r) => [r.address, r]));
  const desiredInOrder = mode === 'destroy' ? [] : orderDesired(desired.resources, desiredByAddress);
  await takeAnswers();
  const inState = objectsInState(state);
  return { replace, refactored, state, reading, writeOnly, desiredByAddress, desiredInOrder, inState };
}

/**
 * Once the data sources are read: the facts (with the two clocks, read now), the stages' inputs with the live
 * account indexed kind by kind as it is read, and the model checks' reads sent.
 */
async function whenSourcesRead(input: MakePlanInput, started: Started) {
  const { client, desired, account, mode = 'normal', parallelism = 10 } = input;
  const { state, desiredByAddress, inState, reading } = started;
  await Promise.all([reading.settled([]), reading.firstRead]);
  // The API's clock, read from the answers so far, and this machine's: what ends access takes the earlier deadline.
  const facts: AccountFacts = {
    account,
    lookups: reading.read.lookups,
    clocks: readClocks(client.serverNow(), new Date()),
    directory: desired.directory,
  };
  const known = new AddressBook(state, inState).known(facts);
  // Model names are checked against what the credentials serve: the reads leave before the stages below run.
  const modelsChecked =
    mode === 'normal'
      ? checkModels(modelChecks(desired.resources, desiredByAddress, state), client, known, desiredByAddress, parallelism)
      : Promise.resolve([]);
  modelsChecked.catch(() => undefined);
  const given: StageInputs = {
    mode,
    desired,
    desiredByAddress,
    desiredInOrder: started.desiredInOrder,
    state,
    objectsInState: inState,
    live: liveAccount(reading.read),
    facts,
    known,
    writeOnly: started.writeOnly.statuses,
    imports: started.refactored.imports,
    replace: new Set(started.replace),
  };
  return { given, modelsChecked };
}

/** While reads are in flight, the desired stage lets their answers in after this many addresses. */
const ADDRESSES_BETWEEN_ANSWERS = 200;

/**
 * The desired stage's `whenRead`: an address waits until its kind, its parent kind and its child kinds are read in
 * full (which indexes them); while other reads are in flight, the stage takes their answers in every
 * ADDRESSES_BETWEEN_ANSWERS addresses. A refresh that failed ends the plan with its error.
 */
function pacedByReads(reading: AccountReading, live: LiveAccount): (kind: ResourceKind) => Promise<void> | undefined {
  const ready = new Set<ResourceKind>();
  let allRead = false;
  let failure: { error: unknown } | undefined;
  reading.done.then(
    () => (allRead = true),
    (error: unknown) => (failure = { error }),
  );
  let planned = 0;
  return (kind) => {
    if (ready.has(kind)) return allRead || ++planned % ADDRESSES_BETWEEN_ANSWERS !== 0 ? undefined : takeAnswers();
    const parent = parentOf(kind);
    const kinds = [kind, ...(parent ? [parent.kind] : []), ...childKindsOf(kind)];
    return reading.settled(kinds).then(() => {
      if (failure) throw failure.error;
      for (const k of kinds) if (!live.kinds.has(k)) indexKind(live, k);
      ready.add(kind);
    });
  };
}

/** The steps of the desired state and of the removals, linked, sorted and scoped to the targets, with every problem found. */
async function scopedSteps(
  input: MakePlanInput,
  { refactored, state, desiredByAddress, writeOnly, replace }: Started,
  after: PlannedInputs,
  planned: Awaited<ReturnType<typeof planDesired>>,
  snapshot: Awaited<Started['reading']['done']>,
  modelsChecked: ReturnType<typeof checkModels>,
) {
  const { mode = 'normal', targets = [], exclude = [] } = input;
  const removals = planRemovals(after);
  // An address with a pending write gets no step: the resend that comes first finishes it (pending-writes.ts).
  const pendingWrites = pendingWritesOf(input.state.data);
  const inFlight = new Set(pendingWrites.map((w) => w.address));
  const steps = revokeAfterDelivery(
    withMoves([...planned.steps, ...removals.steps, ...forgetSteps(refactored)], refactored, state).filter((s) => !inFlight.has(s.address)),
  );
  const linked = linkDependencies({ mode, steps, desiredByAddress, state, book: after.book, removedWith: removals.removedWith });
  // Refresh reads only the kinds the configuration or the state has, so all it could not read matters.
  // A Service Account token cannot list Service Accounts: each grant that names one says so as a notice instead
  // ("checked at apply", checks/run-checks.ts), the apply's person token checks it.
  const deferred = (u: { operation?: string }) => input.client.identity === 'service_account' && u.operation === 'listServiceAccounts';
  const unreadable = [...snapshot.unreadable, ...planned.unreadable, ...removals.unreadable].filter((u) => !deferred(u));
  const scoped = scopeToTargets({
    mode,
    targets,
    exclude,
    desiredByAddress,
    state,
    removedWith: removals.removedWith,
    steps: sortSteps(linked),
    drift: [...planned.drift, ...removals.drift],
    // A kind-wide entry says nothing more once the addresses of that kind are listed one by one.
    unreadable: unreadable.filter((u) => u.address !== undefined || !unreadable.some((v) => v.address !== undefined && v.kind === u.kind)),
    problems: [
      ...refactored.problems,
      ...writeOnly.problems,
      ...(await modelsChecked),
      ...replaceProblems(replace, desiredByAddress, state, (r) => definitionOf(r.kind)),
      ...planned.problems,
      ...removals.problems,
    ],
  });
  return { scoped, pendingWrites };
}
