/**
 * The decision for an address whose live object exists and is, or is about
 * to be, managed (an update of an address in state, or an import): the
 * kind's definition reports facts (what differs, what forces a replacement, what
 * rotates), reissue.ts adds expiry and `--replace`, and the action is decided here.
 */
import type { DesiredResource } from '../../config/types.js';
import type { Action, PlanStep, StepCause } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { View, WriteSpec } from '../../providers/types.js';
import { hasKeys } from '../../providers/view-diff.js';
import type { ResourceState } from '../../state/types.js';
import type { DesiredWork } from '../stage-inputs.js';
import { liveChildrenOf, type LiveObject } from './live-account.js';
import { resourceProblem, type PlanProblem } from '../problems.js';
import { expiredChange, renewalChange, replacementOf, supersededRevocations, type Revocations } from './reissue.js';
import { inputsOf, makeStep } from '../steps.js';

export interface ChangeBase {
  action: 'update' | 'import';
  reason: string | undefined;
  adopt?: PlanStep['adopt'];
  /** Paths changed outside cplane that the configuration did not change: setting them back is drift. */
  changedOutside?: ReadonlySet<string>;
  /** The live object's view, made to find drift: the diff compares with it rather than making it again. */
  observed?: View;
}

/** What the decision for one address reads: the resource, its live object and state entry, and its definition's facts. */
interface Deciding {
  given: DesiredWork;
  r: DesiredResource;
  found: LiveObject;
  entry: ResourceState | undefined;
  base: ChangeBase;
  definition: Definition;
  facts: Facts;
  /** What `--replace` asks of it: its write-only values rotated, or the object replaced. */
  requested: ReturnType<typeof replacementOf> | undefined;
  /** Why it must be issued anew, in the words of the plan's reason. */
  renewals: string[];
  problems: PlanProblem[];
  notes: string[];
}

type Definition = ReturnType<typeof definitionOf>;
type Facts = ReturnType<Definition['diff']>;

/** The step for `r` given its live object (none when nothing differs and nothing is adopted), and its problems. */
export function planChange(
  given: DesiredWork,
  r: DesiredResource,
  found: LiveObject,
  entry: ResourceState | undefined,
  base: ChangeBase,
): { step?: PlanStep; problems: PlanProblem[] } {
  const definition = definitionOf(r.kind);
  const { known } = given;
  const writeOnly = given.writeOnly.get(r.address);
  // `--replace` of an object cplane manages: its write-only values count as changed, or the object is replaced.
  const requested = entry && given.replace.has(r.address) ? replacementOf(definition, r) : undefined;
  // Adopting an object whose value was delivered from a token cplane adopts too: the token's plaintext cannot be
  // read back, so the value delivered by hand is kept as it is live; the next token cplane issues is delivered here.
  const handDelivered = base.adopt ? undeliverable(given, r) : [];
  const changedSecrets = changedSecretsOf(given, r, requested, handDelivered);
  const facts = definition.diff({
    desired: r,
    live: found.live,
    state: entry,
    known,
    changedSecrets,
    ...(base.observed ? { observed: base.observed } : {}),
  });
  const problems = facts.problems ? facts.problems.map((p) => resourceProblem(r, p)) : [];
  const expired = entry ? expiredChange(found.identity, known.nowForEnds) : undefined;
  if (expired) facts.changes.push(expired);
  // Pushed one by one: at 10,000 unchanged addresses, arrays made only to be spread were a part of the plan's garbage.
  const renewals: string[] = [];
  if (facts.replaceKeys.length > 0) renewals.push(`${facts.replaceKeys.join(', ')} cannot change in place`);
  if (expired) renewals.push(`it ${expired.note}`);
  if (requested === 'replace') renewals.push('--replace asks for a new one');
  // Renewal ahead of expiry: only when nothing forces an immediate replacement (a leaked or expired one must go now).
  const renewal = entry && renewals.length === 0 ? definition.renewal?.({ attributes: r.attributes }) : undefined;
  const renewing = renewalChange(found.identity, renewal, definition.config.noun, known.now);
  // What earlier renewals superseded: revoked once their overlap ended, or at once with --replace.
  const revocations = entry?.superseded
    ? supersededRevocations(given.live, r.address, entry, known.nowForEnds, requested === 'replace')
    : noRevocations;
  // A `generate` value cplane never wrote stays as it is live (write-only-values.ts): say so when adopting.
  const notes = entry
    ? []
    : [
        ...(writeOnly?.keptLive ?? []).map(
          (field) => `${field} keeps its live value (generate makes a value only when cplane creates the object)`,
        ),
        ...handDelivered.map((field) => {
          const maker = (r.secrets[field] as { output: { address: string } }).output.address;
          return `${field} keeps its live value: ${maker} is adopted and its plaintext cannot be read back; the next token cplane issues for it (renewal, or --replace ${maker}) is delivered here`;
        }),
      ];
  if (facts.changes.length === 0 && renewals.length === 0 && !renewing && revocations.writes.length === 0 && !base.adopt)
    return { problems };
  const d: Deciding = { given, r, found, entry, base, definition, facts, requested, renewals, problems, notes };
  let { action, reason, writes } = renewing && renewal ? renewed(d, renewing, renewal) : renewals.length > 0 ? replaced(d) : updated(d);
  if (revocations.writes.length > 0) {
    // Alone, finishing a renewal is the step; beside another change, it rides along after that change's writes.
    if (facts.changes.length === 0 && renewals.length === 0 && !renewing && !base.adopt) {
      action = 'renew';
      reason = `finishing a renewal: ${revocations.why.join('; ')}`;
    }
    writes = [...writes, ...revocations.writes];
    facts.changes.push(...revocations.changes);
  }
  const step = makeStep(
    {
      address: r.address,
      kind: r.kind,
      action,
      reason,
      changes: facts.changes,
      writes,
      inputs: { ...inputsOf(r), ...facts.inputs },
      notes,
      causes: causesOf(d, changedSecrets),
      ...(base.adopt ? { adopt: base.adopt } : {}),
    },
    r.secrets,
  );
  return { step, problems };
}

const noRevocations: Revocations = Object.freeze({ writes: [], changes: [], why: [] });

/** The write-only values to write again: changed, rotated by `--replace`, or delivered from an object this plan issues anew (written after it). */
function changedSecretsOf(given: DesiredWork, r: DesiredResource, requested: Deciding['requested'], handDelivered: string[]): string[] {
  // Most addresses have no write-only value, or none that changed.
  const changed = given.writeOnly.get(r.address)?.changed;
  if (!changed?.length && typeof requested !== 'object' && !hasKeys(r.secrets)) return [];
  const delivered = Object.entries(r.secrets)
    .filter(([, source]) => 'output' in source && given.sealing.has(source.output.address))
    .map(([field]) => field);
  return [
    ...new Set([
      ...(changed ?? []).filter((field) => !handDelivered.includes(field)),
      ...(typeof requested === 'object' ? requested.rotate : []),
      ...delivered,
    ]),
  ];
}

interface Decided {
  action: Action;
  reason: string | undefined;
  writes: WriteSpec[];
}

/** Renewed ahead of expiry: a new object, the old one kept, superseded, for the overlap. */
function renewed(
  { given, r, base, definition, facts, problems }: Deciding,
  renewing: NonNullable<ReturnType<typeof renewalChange>>,
  renewal: NonNullable<ReturnType<NonNullable<Definition['renewal']>>>,
): Decided {
  facts.changes.push(renewing);
  given.book.markPending(r.address, r.kind);
  const created = definition.planCreate({ desired: r, known: given.known });
  // The write that gives the address its new id keeps the old object, superseded, for the overlap.
  const supersede = { overlapHours: renewal.overlapHours, createdAt: renewal.createdAt };
  problems.push(...(created.problems ?? []).map((p) => resourceProblem(r, p)));
  return {
    action: 'renew',
    reason: [base.reason, renewing.note].filter(Boolean).join('; '),
    writes: created.writes.map((w) => (w.effects.id ? { ...w, effects: { ...w.effects, supersede } } : w)),
  };
}

/** Replaced: a new one is created, then the old one is removed (unless preventDestroy stops it). */
function replaced({ given, r, found, entry, base, definition, facts, requested, renewals, problems }: Deciding): Decided {
  const id = found.identity.id;
  // An expired object no longer works: revoking it destroys nothing, so preventDestroy does not stop its renewal.
  if (r.lifecycle.preventDestroy && (facts.replaceKeys.length > 0 || requested === 'replace')) {
    const why = facts.replaceKeys.length > 0 ? `the change to ${facts.replaceKeys.join(', ')}` : '--replace';
    problems.push(
      resourceProblem(r, {
        code: 'prevent_destroy',
        summary: `lifecycle.preventDestroy is set, and ${why} would replace it (the old one is ${definition.removeAction}d)`,
        detail: facts.replaceKeys.length > 0 ? 'Remove preventDestroy or undo the change.' : 'Remove preventDestroy to replace it.',
      }),
    );
  }
  given.book.markPending(r.address, r.kind);
  const created = definition.planCreate({ desired: r, known: given.known });
  const removed = definition.planDelete({
    address: r.address,
    id,
    parents: found.identity.parents,
    live: found.live,
    children: liveChildrenOf(given.live, r.kind, id),
  });
  // The old object goes, but the address now names the new one: it stays in state.
  let writes = [...created.writes, ...removed.writes.map((w) => ({ ...w, effects: { ...w.effects, forget: undefined } }))].map(
    dropUndefinedEffects,
  );
  // Its secret delivered elsewhere: the old object stays in state, superseded, until its revocation (which
  // deliveries.ts moves after the delivery), so an apply killed in between still revokes it later.
  const createdAt = definition.relations.createdAt;
  if (entry && createdAt && definition.config.delivery?.(r.attributes as never)) {
    writes = writes.map((w, i) =>
      i >= created.writes.length
        ? { ...w, effects: { ...w.effects, settleSuperseded: id } }
        : w.effects.id
          ? { ...w, effects: { ...w.effects, supersede: { overlapHours: 0, createdAt } } }
          : w,
    );
  }
  problems.push(...(created.problems ?? []).map((p) => resourceProblem(r, p)));
  const reason = [
    base.adopt ? base.reason : undefined,
    `${renewals.join('; ')}: a new one is created, then the old one is ${definition.removeAction}d`,
  ]
    .filter(Boolean)
    .join('; ');
  return { action: 'replace', reason, writes };
}

/** Updated in place (a rotation when a rotating key changed), or adopted as it is. */
function updated({ given, r, found, entry, base, definition, facts, problems, notes }: Deciding): Decided {
  const rotate = facts.rotateKeys?.some((k) => facts.changedKeys.includes(k)) ?? false;
  const result =
    facts.changes.length > 0
      ? definition.planUpdate({
          desired: r,
          live: found.live,
          id: found.identity.id,
          state: entry,
          changedKeys: facts.changedKeys,
          known: given.known,
        })
      : { writes: [] };
  problems.push(...(result.problems ?? []).map((p) => resourceProblem(r, p)));
  notes.push(...(result.notes ?? []));
  return { action: base.action === 'update' && rotate ? 'rotate' : base.action, reason: base.reason, writes: result.writes };
}

/**
 * Why the step exists: each change's own cause where it has one, drift where live moved away from what was
 * applied, and otherwise the configuration (step-class.ts turns these into the step's class); a value written
 * from another address's new secret is a delivery.
 */
function causesOf({ r, base, facts, requested }: Deciding, changedSecrets: string[]): StepCause[] {
  const delivering = Object.entries(r.secrets).some(
    ([field, source]) => 'output' in source && changedSecrets.includes(field) && facts.changedKeys.includes(field),
  );
  return [
    ...(delivering ? ['delivery' as const] : []),
    ...(facts.causes ?? []),
    ...(base.adopt || facts.replaceKeys.length > 0 ? ['configuration' as const] : []),
    ...(requested ? ['replace-requested' as const] : []),
    ...facts.changes
      .filter((c) => !(delivering && c.sensitive && !c.cause))
      .map((c) => c.cause ?? (base.changedOutside?.has(c.path) ? 'changed-outside' : 'configuration')),
  ];
}

function dropUndefinedEffects(write: WriteSpec): WriteSpec {
  const effects = Object.fromEntries(Object.entries(write.effects).filter(([, v]) => v !== undefined));
  return { ...write, effects };
}

/** The fields of `r` delivered from an object this plan does not issue and whose secret state does not hold (adopted). */
function undeliverable(given: DesiredWork, r: DesiredResource): string[] {
  return Object.entries(r.secrets)
    .filter(([, source]) => 'output' in source && !given.sealing.has(source.output.address))
    .filter(([, source]) => {
      const { address, name } = (source as { output: { address: string; name: string } }).output;
      return given.state[address]?.sealed?.[name] === undefined;
    })
    .map(([field]) => field);
}
