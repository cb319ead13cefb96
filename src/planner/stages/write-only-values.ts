/**
 * Write-only values (secrets, record values, header values) are never read
 * back: whether one changed is decided by its fingerprint in state. A value
 * whose source cannot be read is a problem only of its own address (so
 * `--target` can leave it aside). A refresh-only plan (a drift check) reads no
 * source at all: it only says which values it could not have checked.
 */
import { existsSync } from 'node:fs';
import { resolveSecret } from '../../config/index.js';
import { registerSecret } from '../../text/safe-text.js';
import type { DesiredState } from '../../config/types.js';
import type { NotChecked } from '../../plan-model/index.js';
import type { SealedValue, StateData } from '../../state/types.js';
import { resourceProblem, type PlanProblem } from '../problems.js';
import { hasKeys } from '../../providers/view-diff.js';

export interface WriteOnlyStatus {
  /** Fields whose value differs from what cplane last applied. */
  changed: string[];
  /**
   * `generate` fields cplane holds no fingerprint of: a generated value is made once, when cplane creates the
   * object; an object that already exists live keeps its value (cplane never overwrites a live salt).
   */
  keptLive: string[];
}

/** What the planner needs of the state store: its data, and fingerprints of write-only values. */
export interface Fingerprinter {
  fingerprint(address: string, field: string, value: string): string;
  unfinished(address: string, field: string): string;
  /** A one-time secret sealed in state for `address` (a delivered token's plaintext), to compare it by fingerprint. */
  open(address: string, sealed: SealedValue): string;
}

export async function writeOnlyChanges(
  desired: DesiredState,
  resources: StateData['resources'],
  state: Fingerprinter,
  env: NodeJS.ProcessEnv,
): Promise<{ statuses: Map<string, WriteOnlyStatus>; problems: PlanProblem[] }> {
  const statuses = new Map<string, WriteOnlyStatus>();
  const problems: PlanProblem[] = [];
  for (const r of desired.resources) {
    if (!hasKeys(r.secrets)) continue; // most addresses have no write-only value: no status
    const entry = resources[r.address];
    const status: WriteOnlyStatus = { changed: [], keptLive: [] };
    for (const [field, source] of Object.entries(r.secrets)) {
      const applied = entry?.fingerprints[field];
      // `cplane export --adopt` cannot read write-only values: the live ones are taken as they are
      // (docs/export.md says how to have cplane write them: `cplane state rm`, then apply).
      if (applied === undefined && entry?.adoptedBy === 'export') continue;
      if ('generate' in source) {
        if (!applied) status.keptLive.push(field);
        // A value made by a step an apply did not finish (killed before it wrapped the value for its readers): made again.
        else if (applied === state.unfinished(entry?.fingerprintAddress ?? r.address, field)) status.changed.push(field);
        continue;
      }
      if ('output' in source) {
        // Another address's sealed secret (deliverTo): changed when it differs from what was written here, or
        // when its maker is not in state yet (created in this plan). A maker in state without it (adopted, its
        // secret never seen) has nothing to deliver until it is issued anew (desired.ts marks what a plan issues).
        const maker = resources[source.output.address];
        const sealed = maker?.sealed?.[source.output.name];
        const value = sealed && state.open(source.output.address, sealed);
        if (value !== undefined) registerSecret(value);
        if (value === undefined ? !maker : applied !== state.fingerprint(entry?.fingerprintAddress ?? r.address, field, value))
          status.changed.push(field);
        continue;
      }
      try {
        const value = await resolveSecret(source, env);
        if (applied !== state.fingerprint(entry?.fingerprintAddress ?? r.address, field, value)) status.changed.push(field);
      } catch (error) {
        problems.push(
          resourceProblem(r, {
            code: 'secret_unavailable',
            summary: (error as Error).message,
            detail: 'Set it and run the command again.',
          }),
        );
      }
    }
    statuses.set(r.address, status);
  }
  return { statuses, problems };
}

/**
 * For a refresh-only plan: the write-only values of managed resources whose source is absent, e.g.
 * `OTEL_TEAM not set`. Only whether a source exists is looked at, never its value, so a drift job needs no
 * write secret and a missing one is reported rather than failing the check.
 */
export function uncheckedWriteOnly(desired: DesiredState, resources: StateData['resources'], env: NodeJS.ProcessEnv): NotChecked[] {
  const out: NotChecked[] = [];
  for (const r of desired.resources) {
    if (!resources[r.address]) continue;
    for (const [field, source] of Object.entries(r.secrets).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if ('env' in source && !env[source.env]) out.push({ address: r.address, field, reason: `${source.env} not set` });
      else if ('file' in source && !existsSync(source.file))
        out.push({ address: r.address, field, reason: `file ${source.file} not found` });
    }
  }
  return out;
}
