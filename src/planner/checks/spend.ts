/**
 * The spend stage: for every gateway a plan's spend touches (one of its spend paths changes, or it or one of
 * its tokens is created or removed), the limits before and after normalised to 30 days, the sum of its tokens'
 * limits beside its own, the maximum that authorises, the usage of the last 7 and 30 days (one read per gateway,
 * and none at all when nothing spend-related changes), and the warnings a reviewer needs. Plain data: render/
 * shows it, policies read it. Kinds are known only by their `spend` facts (providers/types.ts).
 */
import type { ApiClient } from '../../api/client.js';
import type { DesiredResource, ResourceKind } from '../../config/types.js';
import { isRemoval, parentAddress, type GatewaySpend, type PlanSpend, type PlanStep, type SpendEntry, type SpendLimit, type SpendSide, type SpendWarning } from '../../plan-model/index.js';
import { childKindsOf, kindOrder, parentOf, definitionOf } from '../../providers/index.js';
import type { SpendFacts, View } from '../../providers/types.js';
import type { StageInputs } from '../stage-inputs.js';
import type { LiveObject } from '../stages/live-account.js';
import { centsOf, minLimit, per30Days, roundSevenths, shown, sumLimits, usdOf, usdOfMicros, type Sevenths } from '../../spend/money.js';
import { readUsage, type GatewayUsage } from '../../spend/usage.js';

const spendOf = (kind: ResourceKind): SpendFacts | undefined => definitionOf(kind).spend;
/** Kinds that carry a budget of their own (a gateway), and the kinds that spend under one (its tokens). */
const budgetKinds = kindOrder.filter((kind) => spendOf(kind) && !(parentOf(kind) && spendOf(parentOf(kind)!.kind)));
const spenderKinds = new Map(budgetKinds.map((kind) => [kind, childKindsOf(kind).filter((child) => spendOf(child))]));

/** Whether a step touches spend: it creates or removes the object, or changes one of its spend paths. */
function touchesSpend(step: PlanStep, facts: SpendFacts): boolean {
  if (step.action === 'no-op' || step.action === 'forget' || step.action === 'move') return step.changes.some((c) => facts.paths.includes(c.path));
  if (step.action === 'create' || isRemoval(step.action)) return true;
  return step.changes.some((c) => facts.paths.some((p) => c.path === p || c.path.startsWith(`${p}.`)));
}

/** The budget (gateway) address a touching step counts under, or undefined for a kind without spend. */
function budgetOf(step: PlanStep): string | undefined {
  if (spenderKinds.has(step.kind)) return step.address;
  const parent = parentOf(step.kind);
  return parent && spenderKinds.has(parent.kind) ? parentAddress(step.address, parent.kind) : undefined;
}

/** The gateways a plan's spend touches, with the steps that touch it, by address. Cheap: one pass over the steps. */
export function spendTouched(steps: readonly PlanStep[]): Map<string, PlanStep[]> {
  const touched = new Map<string, PlanStep[]>();
  for (const step of steps) {
    const facts = spendOf(step.kind);
    if (!facts || !touchesSpend(step, facts)) continue;
    const budget = budgetOf(step);
    if (budget === undefined) continue;
    const list = touched.get(budget) ?? [];
    list.push(step);
    touched.set(budget, list);
  }
  return touched;
}

const side = (limit: SpendLimit | null): SpendSide => ({ limit, per30d: shown(limit && per30Days(limit.usd, limit.window)) });
const exact = (limit: SpendLimit | null): Sevenths | null => (limit ? per30Days(limit.usd, limit.window) : null);

/** One object before and after the plan, in configuration terms; null where it does not exist. */
interface Sides {
  address?: string;
  kind: ResourceKind;
  id?: string;
  before: View | null;
  after: View | null;
  step?: PlanStep;
}

/** The desired view over the live one: keys the configuration does not give keep their live values. */
function afterView(given: StageInputs, desired: DesiredResource | undefined, before: View | null, step: PlanStep | undefined): View | null {
  if (step && isRemoval(step.action)) return null;
  if (!desired) return before;
  const wanted = definitionOf(desired.kind).desiredView({ attributes: desired.attributes, known: given.known });
  const out: View = { ...(before ?? {}) };
  for (const [key, value] of Object.entries(wanted)) if (value !== undefined) out[key] = value;
  return out;
}

const liveView = (given: StageInputs, kind: ResourceKind, found: LiveObject | undefined): View | null =>
  found && found.identity.status !== 'gone' ? definitionOf(kind).view({ live: found.live, known: given.known }) : null;

/** Live objects of the spender kinds by their parent's id: indexed once per plan that shows spend. */
function childrenByParent(given: StageInputs): Map<string, { kind: ResourceKind; found: LiveObject }[]> {
  const out = new Map<string, { kind: ResourceKind; found: LiveObject }[]>();
  for (const kinds of spenderKinds.values()) {
    for (const kind of kinds) {
      const idField = parentOf(kind)!.idField;
      for (const found of given.live.kinds.get(kind)?.byId.values() ?? []) {
        const parentId = found.identity.parents?.[idField];
        if (parentId === undefined || found.identity.status === 'gone') continue;
        const list = out.get(parentId) ?? [];
        list.push({ kind, found });
        out.set(parentId, list);
      }
    }
  }
  return out;
}

/** The desired spenders (tokens) by the budget (gateway) address they are declared in. */
function desiredByBudget(given: StageInputs): Map<string, DesiredResource[]> {
  const out = new Map<string, DesiredResource[]>();
  for (const r of given.desired.resources) {
    const parent = parentOf(r.kind);
    if (!parent || !spenderKinds.get(parent.kind)?.includes(r.kind)) continue;
    const budget = parentAddress(r.address, parent.kind);
    if (budget === undefined) continue;
    const list = out.get(budget) ?? [];
    list.push(r);
    out.set(budget, list);
  }
  return out;
}

interface Budget {
  address: string;
  kind: ResourceKind;
  /** The live gateway's id when it exists before the plan and stays. */
  id?: string;
  own: Sides;
  spenders: Sides[];
}

function budgetSides(given: StageInputs, address: string, stepsByAddress: ReadonlyMap<string, PlanStep>, children: ReturnType<typeof childrenByParent>, declared: ReturnType<typeof desiredByBudget>): Budget | undefined {
  const step = stepsByAddress.get(address);
  const desired = given.desiredByAddress.get(address);
  const kind = step?.kind ?? desired?.kind;
  if (!kind) return undefined;
  const id = given.state[address]?.id ?? given.known.idOf(address);
  const found = id === undefined ? undefined : given.live.kinds.get(kind)?.byId.get(id);
  const before = liveView(given, kind, found);
  const own: Sides = { address, kind, before, after: afterView(given, desired, before, step), ...(step ? { step } : {}), ...(before && id ? { id } : {}) };

  const spenders: Sides[] = [];
  const matched = new Set<string>();
  for (const child of before && id ? (children.get(id) ?? []) : []) {
    // State keeps the address of an object the plan replaces (the book no longer does); an adopted one is the book's.
    const childAddress = given.book.stateAddressOf(child.kind, child.found.identity.id) ?? given.book.ownerOf(child.kind, child.found.identity.id);
    const childStep = childAddress === undefined ? undefined : stepsByAddress.get(childAddress);
    const childBefore = liveView(given, child.kind, child.found);
    if (childAddress !== undefined) matched.add(childAddress);
    const childDesired = childAddress === undefined ? undefined : given.desiredByAddress.get(childAddress);
    spenders.push({
      ...(childAddress !== undefined ? { address: childAddress } : {}), kind: child.kind, id: child.found.identity.id,
      before: childBefore, after: own.after === null ? null : afterView(given, childDesired, childBefore, childStep), ...(childStep ? { step: childStep } : {}),
    });
  }
  // Tokens the plan creates (new, or again after being deleted outside cplane).
  if (own.after !== null) {
    for (const r of declared.get(address) ?? []) {
      const childStep = stepsByAddress.get(r.address);
      if (matched.has(r.address) || childStep?.action !== 'create') continue;
      spenders.push({ address: r.address, kind: r.kind, before: null, after: afterView(given, r, null, childStep), step: childStep });
    }
  }
  return { address, kind, ...(own.id ? { id: own.id } : {}), own, spenders };
}

const limitOf = (sides: Sides, which: 'before' | 'after'): SpendLimit | null => {
  const view = sides[which];
  return view ? spendOf(sides.kind)!.limit(view) : null;
};

/** The sum of the spenders' limits on one side (only those that exist on it); null when one has none. */
function spendersSum(spenders: readonly Sides[], which: 'before' | 'after'): Sevenths | null {
  return sumLimits(spenders.filter((s) => s[which] !== null).map((s) => exact(limitOf(s, which))));
}

/** What a gateway authorises on one side: its own limit, bounded by its tokens' sum when it has tokens. */
function authorised(budget: Budget, which: 'before' | 'after'): { own: Sevenths | null; tokens: Sevenths | null; max: Sevenths | null; exists: boolean } {
  const exists = budget.own[which] !== null;
  const own = exact(limitOf(budget.own, which));
  const present = budget.spenders.filter((s) => s[which] !== null);
  const tokens = spendersSum(budget.spenders, which);
  return { own, tokens, max: exists ? (present.length > 0 ? minLimit(own, tokens) : own) : 0n, exists };
}

const money = (usd: string) => `$${usd}`;
const limitText = (limit: SpendLimit) => `${money(limit.usd)}/${limit.window}`;

/** Where a warning points: the field of the entry when given, else the entry. */
function placeOf(given: StageInputs, address: string | undefined, field?: string) {
  const desired = address === undefined ? undefined : given.desiredByAddress.get(address);
  if (!desired) return {};
  return { at: (field !== undefined ? desired.fieldRanges?.[field] : undefined) ?? desired.source };
}

const labelOf = (s: Sides) => s.address ?? `token "${String((s.before ?? s.after)?.name ?? s.id)}" (${s.id}, not managed by cplane)`;

function warningsOf(given: StageInputs, budget: Budget, usage: GatewayUsage | undefined): SpendWarning[] {
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
        code: 'limit_below_spend', address: budget.address, ...placeOf(given, budget.address, 'settings'),
        message: `new limit ${limitText(ownLimit)} is below the ${money(usdOfMicros(spent))} already spent in the current ${ownLimit.window}: requests would be refused at once`,
      });
    }
  }
  if (after.own !== null && after.tokens !== null && after.tokens > after.own) {
    out.push({
      code: 'tokens_oversubscribe_gateway', address: budget.address, ...placeOf(given, budget.address, 'settings'),
      message: `its tokens' limits add up to ${money(shown(after.tokens)!)}/30d, above its own ${money(shown(after.own)!)}/30d: the gateway's limit is reached first`,
    });
  }
  for (const spender of budget.spenders) {
    if (spender.after === null) continue;
    const facts = spendOf(spender.kind)!;
    if (after.own !== null && limitOf(spender, 'after') === null && facts.spends?.(spender.after) !== false) {
      out.push({
        code: 'token_without_limit', address: labelOf(spender), ...placeOf(given, spender.address),
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
        code: 'model_with_traffic_removed', address: labelOf(spender), ...placeOf(given, spender.address, 'allowedModels'),
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
  const known = usage && sides.id ? (figures?.figures(window) ?? { spend7d: '0.00', requests7d: 0, spend30d: '0.00', requests30d: 0 }) : undefined;
  return { address: labelOf(sides), kind: sides.kind, before, after, ...(known ? { usage: known } : {}) };
}

export interface SpendInput {
  given: StageInputs;
  steps: readonly PlanStep[];
  client: ApiClient;
  parallelism: number;
}

/** Spend of the plan, or undefined when no step touches it (then nothing is read). */
export async function planSpend({ given, steps, client, parallelism }: SpendInput): Promise<PlanSpend | undefined> {
  const touched = spendTouched(steps);
  if (touched.size === 0) return undefined;
  const stepsByAddress = new Map(steps.map((s) => [s.address, s]));
  const children = childrenByParent(given);
  const declared = desiredByBudget(given);
  const budgets = [...touched.keys()].sort().map((address) => budgetSides(given, address, stepsByAddress, children, declared)).filter((b): b is Budget => b !== undefined);

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
  return {
    before: shown(before),
    after: shown(after),
    delta: before === null || after === null ? null : usdOf(roundSevenths(after - before)),
    gateways,
    warnings,
    ...(usage.notRead ? { usageNotRead: usage.notRead } : {}),
    usageReads: usage.reads,
  };
}
