/**
 * Write-only values (secrets, record values, header values) are never read
 * back: whether one changed is decided by its fingerprint in state. A value
 * whose source cannot be read is a problem only of its own address (so
 * `--target` can leave it aside).
 */
import { resolveSecret } from '../config/index.js';
import type { DesiredState } from '../config/types.js';
import type { StateData } from '../state/types.js';
import { resourceProblem, type PlanProblem } from './problems.js';

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
    const entry = resources[r.address];
    const status: WriteOnlyStatus = { changed: [], keptLive: [] };
    for (const [field, source] of Object.entries(r.secrets)) {
      const applied = entry?.fingerprints[field];
      // `cplane export --adopt` cannot read write-only values: the live ones are taken as they are
      // (docs/export.md says how to have cplane write them: `cplane state rm`, then apply).
      if (applied === undefined && entry?.adoptedBy === 'export') continue;
      if ('generate' in source) {
        if (!applied) status.keptLive.push(field);
        continue;
      }
      try {
        const value = await resolveSecret(source, env);
        if (applied !== state.fingerprint(entry?.fingerprintAddress ?? r.address, field, value)) status.changed.push(field);
      } catch (error) {
        problems.push(resourceProblem(r, { code: 'secret_unavailable', summary: (error as Error).message, detail: 'Set it and run the command again.' }));
      }
    }
    statuses.set(r.address, status);
  }
  return { statuses, problems };
}
