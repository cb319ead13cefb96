/**
 * Why an object is issued again although its configuration did not change:
 * it has expired (a token past its `expires_at`, compared with the API's
 * clock), or `--replace ADDRESS` asks for it. What "again" means is decided
 * from what the kind declares, never from its name: a kind with write-only
 * values rotates them in place (a record's generated value is generated
 * again, a credential's secret is sent again from its source); a kind with a
 * one-time secret (a token) is replaced, the new one created before the old
 * one is revoked.
 *
 * Renewal is the gentle form of the same: within the window a kind declares
 * (`renewal`), the new object is created and the old one is kept, superseded,
 * for an overlap during which both work; a later apply revokes it. What is
 * superseded lives in the address's state entry (covered by its MAC), and is
 * revoked only if the live account still shows it under the same parents.
 */
import { closest } from '../../text/suggest.js';
import type { DesiredResource } from '../../config/types.js';
import { localPart, type FieldChange, type PlanStep, type SupersededWait } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { MakePlanInput } from '../stage-inputs.js';
import type { LiveIdentity, Renewal, KindDefinition, WriteSpec } from '../../providers/types.js';
import type { ResourceState, StateData } from '../../state/types.js';
import { liveChildrenOf, type LiveAccount } from './live-account.js';
import { resourceProblem, type PlanProblem } from '../problems.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** `2026-11-25 14:02 UTC`: a time people read in a plan. */
export function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

// Made on first use: making it loads ICU's English data, about 7 ms that most runs never need.
let relative: Intl.RelativeTimeFormat | undefined;

/** `3 days ago`, `in 5 hours`: the largest whole unit of `ms` (negative: past). */
export function relativeTime(ms: number): string {
  // Each unit counts the rounded count of the unit below it, so 59 min 59.6 s reads "1 hour", never "60 minutes"
  // (the API's clock has whole seconds, so such times are common).
  let count = Math.round(ms / 1000);
  let unit: Intl.RelativeTimeFormatUnit = 'second';
  for (const [next, per] of [
    ['minute', 60],
    ['hour', 60],
    ['day', 24],
  ] as const) {
    if (Math.abs(count) < per) break;
    count = Math.round(count / per);
    unit = next;
  }
  relative ??= new Intl.RelativeTimeFormat('en', { numeric: 'always' });
  return relative.format(count, unit);
}

/** The change that makes an expired object drift and forces its replacement; undefined while it still works. */
export function expiredChange(identity: LiveIdentity, now: Date): FieldChange | undefined {
  if (identity.expiresAt === undefined) return undefined;
  const at = Date.parse(identity.expiresAt);
  if (!(at <= now.getTime())) return undefined;
  return {
    path: 'expiresAt',
    before: identity.expiresAt,
    note: `expired ${relativeTime(at - now.getTime())}`,
    forcesReplace: true,
    cause: 'expired',
  };
}

/** What `--replace` does to an address of this kind: rotate these write-only fields, replace the object, or nothing it can do. */
export function replacementOf(
  definition: Pick<KindDefinition, 'writeOnly' | 'relations'>,
  r: DesiredResource,
): { rotate: string[] } | 'replace' | undefined {
  // `headers.*` names every header value.
  const matches = (pattern: string, field: string) => (pattern.endsWith('.*') ? field.startsWith(pattern.slice(0, -1)) : field === pattern);
  const fields = Object.keys(r.secrets).filter((field) => (definition.writeOnly ?? []).some((pattern) => matches(pattern, field)));
  if (fields.length > 0) return { rotate: fields };
  if (definition.relations.revealable) return 'replace';
  return undefined;
}

/** `--replace` addresses that name nothing in the configuration, or something that has nothing to issue again. */
export function replaceProblems(
  replace: readonly string[],
  desiredByAddress: ReadonlyMap<string, DesiredResource>,
  state: StateData['resources'],
  definitionOfResource: (r: DesiredResource) => Pick<KindDefinition, 'writeOnly' | 'relations'>,
): PlanProblem[] {
  if (replace.length === 0) return [];
  const problems: PlanProblem[] = [];
  const known = [...new Set([...desiredByAddress.keys(), ...Object.keys(state)])];
  for (const address of replace) {
    const r = desiredByAddress.get(address);
    if (!r) {
      // Typos, and a local name given without its parent (a token's name without its gateway's).
      const local = localPart(address);
      const close = [
        ...new Set([...closest(address, known), ...known.filter((a) => localPart(a) === local || localPart(a).endsWith(`/${local}`))]),
      ].slice(0, 3);
      problems.push({
        severity: 'error',
        code: 'unknown_replace',
        summary: `--replace ${address}: no such address in the configuration`,
        detail:
          close.length > 0
            ? `Did you mean ${close.join(', ')}?`
            : 'Addresses look like gateway_token.GATEWAY/TOKEN, record.PROJECT/NAME or credential.NAME: `cplane state list` shows them.',
      });
    } else if (!replacementOf(definitionOfResource(r), r)) {
      problems.push(
        resourceProblem(r, {
          code: 'replace_unsupported',
          summary: `--replace: a ${r.kind} without a secret value has nothing to issue again`,
          detail:
            '--replace re-issues a gateway token, generates a record value again, or sends a secret (credential, record value, OTel header) again from its source.',
        }),
      );
    }
  }
  return problems;
}

/** Within the renewal window (expiresAt − beforeDays ≤ the API's now) and not expired: the change that says so. */
export function renewalChange(identity: LiveIdentity, renewal: Renewal | undefined, noun: string, now: Date): FieldChange | undefined {
  if (!renewal || identity.expiresAt === undefined) return undefined;
  const at = Date.parse(identity.expiresAt);
  if (!(at - renewal.beforeDays * DAY_MS <= now.getTime()) || at <= now.getTime()) return undefined;
  // The new object's creation time is the API's now, give or take the apply's delay: the plan says the earliest.
  const revocable = utcMinute(new Date(now.getTime() + renewal.overlapHours * HOUR_MS));
  return {
    path: 'expiresAt',
    before: identity.expiresAt,
    note: `renew: expires ${relativeTime(at - now.getTime())} (old ${noun} revoked by the first apply after ${revocable})`,
    cause: 'renewal',
  };
}

/**
 * Whether an overlap ending at `revocableAt` (ms) has ended by the API's `now`. The API's clock is read from its
 * `Date` headers, in whole seconds, so it lags the `created_at` an overlap is timed from by up to a second: an
 * overlap of 0 hours (a delivered token replaced, killed before its revocation) has ended within that second.
 */
function overlapEnded(revocableAt: number, now: Date): boolean {
  return revocableAt <= now.getTime() + 1000;
}

/** What revoking an address's superseded objects takes: the writes, and a change line for each. */
export interface Revocations {
  writes: WriteSpec[];
  /** `- revoke superseded token = ID`, one each. */
  changes: FieldChange[];
  /** For the plan's reason: `the overlap of the old token ended 1 hour ago`. */
  why: string[];
}

/**
 * The revocation of the objects `entry` superseded: those whose overlap has ended (every one with `all`, for
 * `--replace` and removal, which must not leave an old one working). An object is revoked only while the live
 * account shows it, of this kind, under the parents state recorded: a superseded id is never taken on trust.
 */
export function supersededRevocations(live: LiveAccount, address: string, entry: ResourceState, now: Date, all: boolean): Revocations {
  const out: Revocations = { writes: [], changes: [], why: [] };
  const definition = definitionOf(entry.kind);
  for (const old of entry.superseded ?? []) {
    const revocableAt = Date.parse(old.revocableAt);
    if (!all && !overlapEnded(revocableAt, now)) continue;
    const found = live.kinds.get(entry.kind)?.byId.get(old.id);
    const sameParents = Object.entries(old.parents ?? {}).every(([key, id]) => found?.identity.parents?.[key] === id);
    if (!found || found.identity.status === 'gone' || !sameParents) continue;
    const removed = definition.planDelete({
      address,
      id: old.id,
      parents: old.parents,
      live: found.live,
      children: liveChildrenOf(live, entry.kind, old.id),
    });
    out.writes.push(...removed.writes.map((w) => ({ ...w, effects: { settleSuperseded: old.id } })));
    out.changes.push({
      path: `revoke superseded ${definition.config.noun}`,
      before: old.id,
      ...(all ? {} : { cause: 'overlap-ended' as const }),
    });
    out.why.push(
      overlapEnded(revocableAt, now)
        ? `the overlap of the old ${definition.config.noun} ended ${relativeTime(revocableAt - now.getTime())}`
        : `the old ${definition.config.noun} goes at once, before its overlap ends`,
    );
  }
  return out;
}

/** Superseded objects still in their overlap that this plan does not revoke: said, though not a change. */
export function supersededWaiting(state: StateData['resources'], steps: readonly PlanStep[], now: Date): SupersededWait[] {
  const revoked = new Set(steps.flatMap((s) => s.writes.map((w) => w.effects.settleSuperseded).filter((id) => id !== undefined)));
  const waiting: SupersededWait[] = [];
  for (const address in state) {
    const entry = state[address]!;
    for (const old of entry.superseded ?? []) {
      if (revoked.has(old.id) || overlapEnded(Date.parse(old.revocableAt), now)) continue;
      waiting.push({
        address,
        kind: entry.kind,
        id: old.id,
        ...(old.outputs ? { outputs: old.outputs } : {}),
        revocableAt: old.revocableAt,
      });
    }
  }
  return waiting;
}

/**
 * The addresses issued again: `--replace`'s, and with `--rewrap` every address in state with a value of the field its
 * kind wraps for readers (written again, bound to its place and wrapped for every reader under the writer key).
 */
export function replaceAddresses(input: Pick<MakePlanInput, 'desired' | 'replace' | 'rewrap'>, state: StateData['resources']): string[] {
  const requested = input.replace ?? [];
  if (!input.rewrap) return requested;
  const rewrapped = input.desired.resources.filter((r) => {
    const field = definitionOf(r.kind).relations.wrappedValue;
    return field !== undefined && r.secrets[field] !== undefined && state[r.address] !== undefined;
  });
  return [...new Set([...requested, ...rewrapped.map((r) => r.address)])];
}
