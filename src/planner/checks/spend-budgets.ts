/**
 * The budgets a plan's spend touches, before and after it: which gateways a step touches (a spend path changes, or the
 * object or one of its tokens is created or removed), and each one's own object and spenders (its tokens, live,
 * declared or planned) in configuration terms, with what each side authorises. Kinds are known only by their `spend`
 * facts (providers/types.ts); spend.ts turns these into the plan's figures and warnings.
 */
import type { DesiredResource, ResourceKind } from '../../config/types.js';
import { isRemoval, parentAddress, type PlanStep, type SpendLimit } from '../../plan-model/index.js';
import { childKindsOf, kindOrder, parentOf, definitionOf } from '../../providers/index.js';
import type { SpendFacts, View } from '../../providers/types.js';
import type { PlannedInputs } from '../stage-inputs.js';
import type { LiveObject } from '../stages/live-account.js';
import { minLimit, per30Days, sumLimits, type Sevenths } from '../../spend/money.js';

export const spendOf = (kind: ResourceKind): SpendFacts | undefined => definitionOf(kind).spend;
/** Kinds that carry a budget of their own (a gateway), and the kinds that spend under one (its tokens). */
const budgetKinds = kindOrder.filter((kind) => spendOf(kind) && !(parentOf(kind) && spendOf(parentOf(kind)!.kind)));
const spenderKinds = new Map(budgetKinds.map((kind) => [kind, childKindsOf(kind).filter((child) => spendOf(child))]));

/** Whether a step touches spend: it creates or removes the object, or changes one of its spend paths. */
export function touchesSpend(step: PlanStep, facts: SpendFacts): boolean {
  if (step.action === 'no-op' || step.action === 'forget' || step.action === 'move')
    return step.changes.some((c) => facts.paths.includes(c.path));
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

export const exact = (limit: SpendLimit | null): Sevenths | null => (limit ? per30Days(limit.usd, limit.window) : null);

/** One object before and after the plan, in configuration terms; null where it does not exist. */
export interface Sides {
  address?: string;
  kind: ResourceKind;
  id?: string;
  before: View | null;
  after: View | null;
  step?: PlanStep;
}

/** The desired view over the live one: keys the configuration does not give keep their live values. */
function afterView(
  given: PlannedInputs,
  desired: DesiredResource | undefined,
  before: View | null,
  step: PlanStep | undefined,
): View | null {
  if (step && isRemoval(step.action)) return null;
  if (!desired) return before;
  const wanted = definitionOf(desired.kind).desiredView({ attributes: desired.attributes, known: given.known });
  const out: View = { ...(before ?? {}) };
  for (const [key, value] of Object.entries(wanted)) if (value !== undefined) out[key] = value;
  return out;
}

const liveView = (given: PlannedInputs, kind: ResourceKind, found: LiveObject | undefined): View | null =>
  found && found.identity.status !== 'gone' ? definitionOf(kind).view({ live: found.live, known: given.known }) : null;

/** Live objects of the spender kinds by their parent's id: indexed once per plan that shows spend. */
export function childrenByParent(given: PlannedInputs): Map<string, { kind: ResourceKind; found: LiveObject }[]> {
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
export function desiredByBudget(given: PlannedInputs): Map<string, DesiredResource[]> {
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

export interface Budget {
  address: string;
  kind: ResourceKind;
  /** The live gateway's id when it exists before the plan and stays. */
  id?: string;
  own: Sides;
  spenders: Sides[];
}

export function budgetSides(
  given: PlannedInputs,
  address: string,
  stepsByAddress: ReadonlyMap<string, PlanStep>,
  children: ReturnType<typeof childrenByParent>,
  declared: ReturnType<typeof desiredByBudget>,
): Budget | undefined {
  const step = stepsByAddress.get(address);
  const desired = given.desiredByAddress.get(address);
  const kind = step?.kind ?? desired?.kind;
  if (!kind) return undefined;
  const id = given.state[address]?.id ?? given.known.idOf(address);
  const found = id === undefined ? undefined : given.live.kinds.get(kind)?.byId.get(id);
  const before = liveView(given, kind, found);
  const own: Sides = {
    address,
    kind,
    before,
    after: afterView(given, desired, before, step),
    ...(step ? { step } : {}),
    ...(before && id ? { id } : {}),
  };

  const spenders: Sides[] = [];
  const matched = new Set<string>();
  for (const child of before && id ? (children.get(id) ?? []) : []) {
    // State keeps the address of an object the plan replaces (the book no longer does); an adopted one is the book's.
    const childAddress =
      given.book.stateAddressOf(child.kind, child.found.identity.id) ?? given.book.ownerOf(child.kind, child.found.identity.id);
    const childStep = childAddress === undefined ? undefined : stepsByAddress.get(childAddress);
    const childBefore = liveView(given, child.kind, child.found);
    if (childAddress !== undefined) matched.add(childAddress);
    const childDesired = childAddress === undefined ? undefined : given.desiredByAddress.get(childAddress);
    spenders.push({
      ...(childAddress !== undefined ? { address: childAddress } : {}),
      kind: child.kind,
      id: child.found.identity.id,
      before: childBefore,
      after: own.after === null ? null : afterView(given, childDesired, childBefore, childStep),
      ...(childStep ? { step: childStep } : {}),
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

export const limitOf = (sides: Sides, which: 'before' | 'after'): SpendLimit | null => {
  const view = sides[which];
  return view ? spendOf(sides.kind)!.limit(view) : null;
};

/** The sum of the spenders' limits on one side (only those that exist on it); null when one has none. */
function spendersSum(spenders: readonly Sides[], which: 'before' | 'after'): Sevenths | null {
  return sumLimits(spenders.filter((s) => s[which] !== null).map((s) => exact(limitOf(s, which))));
}

/** What a gateway authorises on one side: its own limit, bounded by its tokens' sum when it has tokens. */
export function authorised(
  budget: Budget,
  which: 'before' | 'after',
): { own: Sevenths | null; tokens: Sevenths | null; max: Sevenths | null; exists: boolean } {
  const exists = budget.own[which] !== null;
  const own = exact(limitOf(budget.own, which));
  const present = budget.spenders.filter((s) => s[which] !== null);
  const tokens = spendersSum(budget.spenders, which);
  return { own, tokens, max: exists ? (present.length > 0 ? minLimit(own, tokens) : own) : 0n, exists };
}
