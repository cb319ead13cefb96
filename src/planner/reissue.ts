/**
 * Why an object is issued again although its configuration did not change:
 * it has expired (a token past its `expires_at`, compared with the API's
 * clock), or `--replace ADDRESS` asks for it. What "again" means is decided
 * from what the kind declares, never from its name: a kind with write-only
 * values rotates them in place (a record's generated value is generated
 * again, a credential's secret is sent again from its source); a kind with a
 * one-time secret (a token) is replaced, the new one created before the old
 * one is revoked.
 */
import { closest } from '../config/suggest.js';
import type { DesiredResource } from '../config/types.js';
import { localPart, type FieldChange } from '../plan-model/index.js';
import type { LiveIdentity, ResourceProvider } from '../providers/types.js';
import type { StateData } from '../state/types.js';
import { resourceProblem, type PlanProblem } from './problems.js';

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/** `3 days ago`, `in 5 hours`: the largest whole unit of `ms` (negative: past). */
export function relativeTime(ms: number): string {
  const units: [Intl.RelativeTimeFormatUnit, number][] = [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000]];
  for (const [unit, size] of units) if (Math.abs(ms) >= size) return relative.format(Math.round(ms / size), unit);
  return relative.format(Math.round(ms / 1000), 'second');
}

/** The change that makes an expired object drift and forces its replacement; undefined while it still works. */
export function expiredChange(identity: LiveIdentity, now: Date): FieldChange | undefined {
  if (identity.expiresAt === undefined) return undefined;
  const at = Date.parse(identity.expiresAt);
  if (!(at <= now.getTime())) return undefined;
  return { path: 'expiresAt', before: identity.expiresAt, note: `expired ${relativeTime(at - now.getTime())}`, forcesReplace: true };
}

/** What `--replace` does to an address of this kind: rotate these write-only fields, replace the object, or nothing it can do. */
export function replacementOf(provider: Pick<ResourceProvider, 'writeOnly' | 'relations'>, r: DesiredResource): { rotate: string[] } | 'replace' | undefined {
  // `headers.*` names every header value.
  const matches = (pattern: string, field: string) => (pattern.endsWith('.*') ? field.startsWith(pattern.slice(0, -1)) : field === pattern);
  const fields = Object.keys(r.secrets).filter((field) => (provider.writeOnly ?? []).some((pattern) => matches(pattern, field)));
  if (fields.length > 0) return { rotate: fields };
  if (provider.relations.revealable) return 'replace';
  return undefined;
}

/** `--replace` addresses that name nothing in the configuration, or something that has nothing to issue again. */
export function replaceProblems(
  replace: readonly string[],
  desiredByAddress: ReadonlyMap<string, DesiredResource>,
  state: StateData['resources'],
  providerOf: (r: DesiredResource) => Pick<ResourceProvider, 'writeOnly' | 'relations'>,
): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const known = [...new Set([...desiredByAddress.keys(), ...Object.keys(state)])];
  for (const address of replace) {
    const r = desiredByAddress.get(address);
    if (!r) {
      // Typos, and a local name given without its parent (a token's name without its gateway's).
      const local = localPart(address);
      const close = [...new Set([...closest(address, known), ...known.filter((a) => localPart(a) === local || localPart(a).endsWith(`/${local}`))])].slice(0, 3);
      problems.push({
        severity: 'error',
        code: 'unknown_replace',
        summary: `--replace ${address}: no such address in the configuration`,
        detail: close.length > 0 ? `Did you mean ${close.join(', ')}?` : 'Addresses look like gateway_token.GATEWAY/TOKEN, record.PROJECT/NAME or credential.NAME: `cplane state list` shows them.',
      });
    } else if (!replacementOf(providerOf(r), r)) {
      problems.push(resourceProblem(r, {
        code: 'replace_unsupported',
        summary: `--replace: a ${r.kind} without a secret value has nothing to issue again`,
        detail: '--replace re-issues a gateway token, generates a record value again, or sends a secret (credential, record value, OTel header) again from its source.',
      }));
    }
  }
  return problems;
}
