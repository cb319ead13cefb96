/**
 * The spend check: for every gateway a plan's spend touches (spend-budgets.ts), the limits before and after
 * normalised to 30 days, the sum of its tokens' limits beside its own, the maximum that authorises, the usage of the
 * last 7 and 30 days (one read per gateway, and none at all when nothing spend-related changes), and the warnings a
 * reviewer needs. Plain data: render/ shows it, policies read it.
 */
import type { ApiClient } from '../../api/client.js';
import type { GatewaySpend, PlanSpend, PlanStep, SpendEntry, SpendLimit, SpendSide, SpendWarning } from '../../plan-model/index.js';
import type { PlannedInputs } from '../stage-inputs.js';
import { per30Days, roundSevenths, shown, sumLimits, usdOf, usdOfMicros, centsOf, type Sevenths } from '../../spend/money.js';
import { readUsage, type GatewayUsage } from '../../spend/usage.js';
import {
  authorised,
  budgetSides,
  childrenByParent,
  desiredByBudget,
  limitOf,
  spendOf,
  spendTouched,
  touchesSpend,
  type Budget,
  type Sides,
} from './spend-budgets.js';

export { spendTouched } from './spend-budgets.js';

const side = (limit: SpendLimit | null): SpendSide => ({ limit, per30d: shown(limit && per30Days(limit.usd, limit.window)) });

const money = (usd: string) => `$${usd}`;
const limitText = (limit: SpendLimit) => `${money(limit.usd)}/${limit.window}`;

/** Where a warning points: the field of the entry when given, else the entry. */
function placeOf(given: PlannedInputs, address: string | undefined, field?: string) {
  const desired = address === undefined ? undefined : given.desiredByAddress.get(address);
  if (!desired) return {};
  return { at: (field !== undefined ? desired.fieldRanges?.[field] : undefined) ?? desired.source };
}

const labelOf = (s: Sides) => s.address ?? `token "${String((s.before ?? s.after)?.name ?? s.id)}" (${s.id}, not managed by cplane)`;

function warningsOf(given: PlannedInputs, budget: Budget, usage: GatewayUsage | undefined): SpendWarning[] {
  const out: SpendWarning[] = [];
  const after = authorised(budget, 'after');
  if (!after.exists) return out;
  const ownLimit = limitOf(budget.own, 'after');
  // A limit changed in place below what its window has already spent refuses requests at once. (A token's new
  // limit comes with a new token, whose window starts empty.)
  if (usage && ownLimit && budget.own.step && touchesSpend(budget.own.step, spendOf(budget.kind)!)) {
    const spent = usage.gateway.spentInWindow(ownLimit.window);
    if (spent !== undefined && centsOf(ownLimit.usd) * 10_000n < spent) {
      out.push({
        code: 'limit_below_spend',
        address: budget.address,
        ...placeOf(given, budget.address, 'settings'),
        message: `new limit ${limitText(ownLimit)} is below the ${money(usdOfMicros(spent))} already spent in the current ${ownLimit.window}: requests would be refused at once`,
      });
    }
  }
  if (after.own !== null && after.tokens !== null && after.tokens > after.own) {
    out.push({
      code: 'tokens_oversubscribe_gateway',
      address: budget.address,
      ...placeOf(given, budget.address, 'settings'),
      message: `its tokens' limits add up to ${money(shown(after.tokens)!)}/30d, above its own ${money(shown(after.own)!)}/30d: the gateway's limit is reached first`,
    });
  }
  for (const spender of budget.spenders) {
    if (spender.after === null) continue;
    const facts = spendOf(spender.kind)!;
    if (after.own !== null && limitOf(spender, 'after') === null && facts.spends?.(spender.after) !== false) {
      out.push({
        code: 'token_without_limit',
        address: labelOf(spender),
        ...placeOf(given, spender.address),
        message: `no spend limit, on a gateway limited to ${limitText(ownLimit!)}: it can spend the gateway's whole budget`,
      });
    }
    if (!usage || !spender.id || !spender.before || !spender.step || !facts.allowedModels) continue;
    const [allowedBefore, allowedAfter] = [facts.allowedModels(spender.before), facts.allowedModels(spender.after)];
    if (allowedAfter.length === 0) continue;
    // Empty allows every model: a model leaves the list when it was allowed before and is not now.
    const leaves = (model: string) => (allowedBefore.length === 0 || allowedBefore.includes(model)) && !allowedAfter.includes(model);
    for (const [model, requests] of [...(usage.models7d.get(spender.id) ?? [])].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (requests === 0 || !leaves(model)) continue;
      out.push({
        code: 'model_with_traffic_removed',
        address: labelOf(spender),
        ...placeOf(given, spender.address, 'allowedModels'),
        message: `model "${model}" leaves allowedModels but carried ${requests} request${requests === 1 ? '' : 's'} in the last 7 days`,
      });
    }
  }
  return out;
}

function entryOf(sides: Sides, usage: GatewayUsage | undefined, ofToken: boolean): SpendEntry {
  const before = sides.before === null ? null : side(limitOf(sides, 'before'));
  const after = sides.after === null ? null : side(limitOf(sides, 'after'));
  const window = (after ?? before)?.limit?.window;
  const figures = usage && sides.id ? (ofToken ? usage.tokens.get(sides.id) : usage.gateway) : undefined;
  // A token with no usage row spent nothing: zeros, not "unknown".
  const known =
    usage && sides.id ? (figures?.figures(window) ?? { spend7d: '0.00', requests7d: 0, spend30d: '0.00', requests30d: 0 }) : undefined;
  return { address: labelOf(sides), kind: sides.kind, before, after, ...(known ? { usage: known } : {}) };
}

export interface SpendInput {
  given: PlannedInputs;
  steps: readonly PlanStep[];
  client: ApiClient;
  parallelism: number;
}

/** Spend of the plan, or undefined when no step touches it (then nothing is read). */
/** The plan's spend, and the warnings that become its notices of code `spend` (notices.ts). */
export interface SpendFindings {
  spend: PlanSpend;
  warnings: SpendWarning[];
}

export async function planSpend({ given, steps, client, parallelism }: SpendInput): Promise<SpendFindings | undefined> {
  const touched = spendTouched(steps);
  if (touched.size === 0) return undefined;
  const stepsByAddress = new Map(steps.map((s) => [s.address, s]));
  const children = childrenByParent(given);
  const declared = desiredByBudget(given);
  const budgets = [...touched.keys()]
    .sort()
    .map((address) => budgetSides(given, address, stepsByAddress, children, declared))
    .filter((b): b is Budget => b !== undefined);

  // One read per gateway that exists before the plan and stays: a new one has spent nothing, a removed one will spend nothing.
  const reading = budgets.filter((b) => b.id !== undefined && b.own.after !== null).map((b) => b.id!);
  const usage = await readUsage(client, reading, given.known.now, parallelism);

  const gateways: GatewaySpend[] = [];
  const warnings: SpendWarning[] = [];
  const totals: { before: (Sevenths | null)[]; after: (Sevenths | null)[] } = { before: [], after: [] };
  for (const budget of budgets) {
    const gatewayUsage = budget.id ? usage.byGateway.get(budget.id) : undefined;
    const [before, after] = [authorised(budget, 'before'), authorised(budget, 'after')];
    totals.before.push(before.max);
    totals.after.push(after.max);
    const touchedSpenders = budget.spenders.filter((s) => s.step && touchesSpend(s.step, spendOf(s.kind)!));
    gateways.push({
      ...entryOf(budget.own, gatewayUsage, false),
      tokensBefore: before.exists ? shown(before.tokens) : '0.00',
      tokensAfter: after.exists ? shown(after.tokens) : '0.00',
      maxBefore: shown(before.max),
      maxAfter: shown(after.max),
      tokens: touchedSpenders.map((s) => entryOf(s, gatewayUsage, true)),
    });
    warnings.push(...warningsOf(given, budget, gatewayUsage));
  }
  const [before, after] = [sumLimits(totals.before), sumLimits(totals.after)];
  const spend: PlanSpend = {
    before: shown(before),
    after: shown(after),
    delta: before === null || after === null ? null : usdOf(roundSevenths(after - before)),
    gateways,
    ...(usage.notRead ? { usageNotRead: usage.notRead } : {}),
    usageReads: usage.reads,
  };
  return { spend, warnings };
}
