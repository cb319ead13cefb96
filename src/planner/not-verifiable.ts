/**
 * Addresses a plan cannot verify: configured resources of a kind known only from state (`observation:
 * 'state'`, a project's group role), which were compared with what cplane last applied because no operation
 * reads them back. The plan lists them so that "No changes" is never read as "checked on the account".
 */
import type { NotVerifiable, PlanStep } from '../plan-model/index.js';
import { definitionOf } from '../providers/index.js';
import type { StageContext } from './context.js';

export function notVerifiable(ctx: StageContext, steps: readonly PlanStep[], targets: readonly string[]): NotVerifiable[] {
  if (ctx.mode === 'destroy') return [];
  const planned = new Set(steps.map((s) => s.address));
  return ctx.desired.resources
    .filter((r) => definitionOf(r.kind).observation === 'state' && ctx.state[r.address] !== undefined)
    .filter((r) => targets.length === 0 || targets.includes(r.address) || planned.has(r.address))
    .map((r) => ({ address: r.address, kind: r.kind }));
}
