/**
 * The step generator: compares the configuration with the refreshed live
 * account and with state, and decides, address by address, what apply will
 * do and why. Providers report facts (what differs, what forces a
 * replacement) and the writes for a decision; the decision is made here.
 *
 * Rules kept here, because they hold for every kind: only addresses in state
 * are ever archived, deleted or revoked; an address without state whose
 * natural key exists live is adopted (import), never created twice; objects
 * deleted outside cplane are created again; differences between live objects
 * and what cplane last applied are reported as drift.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ApiClient } from '../api/client.js';
import { operations } from '../api/operations.js';
import { resolveSecret } from '../config/index.js';
import type { AttributesByKind, DesiredResource, DesiredState, ResourceKind, SecretSource } from '../config/types.js';
import { findProvider, kindOrder, providers } from '../providers/index.js';
import type { LiveIdentity, Lookups, ResourceProvider, View, WriteSpec } from '../providers/types.js';
import { isIgnored, localPart, sameValue } from '../providers/view-diff.js';
import type { ResourceState, StateData } from '../state/types.js';
import { liveDigest, planConfigDigest } from './digest.js';
import { PlanError } from './errors.js';
import { sortSteps, targetClosure } from './order.js';
import { refreshLive, type LiveSnapshot } from './refresh.js';
import type { Action, Drift, FieldChange, Plan, PlanStep, Template, Unreadable } from './types.js';

const cplaneVersion = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** What the planner needs of the state store: its data, and fingerprints of write-only values. */
export interface PlanState {
  readonly data: Readonly<StateData>;
  readonly crypto: { fingerprint(address: string, field: string, value: string): string };
}

export interface MakePlanInput {
  desired: DesiredState;
  state: PlanState;
  client: ApiClient;
  account: string;
  mode?: Plan['mode'];
  targets?: string[];
  /** Requests in flight at once while refreshing (default 10). */
  parallelism?: number;
  env: NodeJS.ProcessEnv;
}

type AnyProvider = ResourceProvider<ResourceKind, unknown>;
const providerOf = (kind: ResourceKind) => providers[kind] as unknown as AnyProvider;

interface LiveEntry {
  live: unknown;
  identity: LiveIdentity;
}

/** Live objects of one kind by remote id and by natural key. */
interface LiveIndex {
  byId: Map<string, LiveEntry>;
  byKey: Map<string, LiveEntry>;
}

function indexLive(snapshot: LiveSnapshot): Map<ResourceKind, LiveIndex> {
  const index = new Map<ResourceKind, LiveIndex>();
  for (const kind of kindOrder) {
    const provider = providerOf(kind);
    const entry: LiveIndex = { byId: new Map(), byKey: new Map() };
    for (const live of snapshot.items[kind] ?? []) {
      const identity = provider.identify(live);
      entry.byId.set(identity.id, { live, identity });
      if (identity.status === 'gone') continue;
      // A live object wins over an archived one with the same key.
      const current = entry.byKey.get(identity.key);
      if (!current || (current.identity.status === 'archived' && identity.status === 'live')) entry.byKey.set(identity.key, { live, identity });
    }
    index.set(kind, entry);
  }
  return index;
}

/** Sets `a.b.c` in a nested object (copying along the way). */
function setPath(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  const key = head as string;
  if (rest.length === 0) return { ...target, [key]: value };
  const child = target[key];
  return { ...target, [key]: setPath(child && typeof child === 'object' ? (child as Record<string, unknown>) : {}, rest.join('.'), value) };
}

/** Placeholders (`$secret`, `$encrypt`) a template uses. */
function secretFields(template: Template | undefined, into: Set<string>): Set<string> {
  if (Array.isArray(template)) for (const item of template) secretFields(item, into);
  else if (template !== null && typeof template === 'object') {
    const field = template.$secret ?? template.$encrypt;
    if (typeof field === 'string') into.add(field);
    else for (const value of Object.values(template)) secretFields(value, into);
  }
  return into;
}

const where = (r: DesiredResource) => `${r.source.file}:${r.source.line}`;

export async function makePlan(input: MakePlanInput): Promise<Plan> {
  const mode = input.mode ?? 'normal';
  const targets = input.targets ?? [];
  const { client, desired, account } = input;
  const stateData = input.state.data;
  const stateResources = stateData.resources;
  const problems: string[] = [];
  const drift: Drift[] = [];
  const steps: PlanStep[] = [];
  const stepOf = new Map<string, PlanStep>();

  const refreshing = refreshLive({ client, account, desired: mode === 'destroy' ? undefined : desired, state: stateData, parallelism: input.parallelism ?? 10 });
  // Its failure is awaited below; until then it must not count as an unhandled rejection.
  refreshing.catch(() => undefined);
  // Work that needs no live data is done while the refresh requests are in flight; yielding once first lets
  // the requests leave before this CPU work, instead of after it.
  await new Promise((resolve) => setImmediate(resolve));
  const configDigest = planConfigDigest(desired, targets, mode);
  const changedSecrets = mode === 'normal' ? await secretChanges(desired, stateResources, input.state, input.env, problems) : new Map<string, string[]>();
  const snapshot = await refreshing;
  // A kind that could not be read matters only when the configuration or the state has some of it.
  const usedKinds = new Set([...desired.resources.map((r) => r.kind), ...Object.values(stateResources).map((r) => r.kind)]);
  const unreadable: Unreadable[] = snapshot.unreadable.filter((u) => usedKinds.has(u.kind));
  const liveIndex = indexLive(snapshot);
  const desiredByAddress = new Map(desired.resources.map((r) => [r.address, r]));

  // ------------------------------------------------------------ lookups
  const known = new Map<string, string>();
  const owner = new Map<string, string>();
  const stateAddressOf = new Map<string, string>();
  for (const [address, entry] of Object.entries(stateResources)) {
    known.set(address, entry.id);
    owner.set(`${entry.kind}:${entry.id}`, localPart(address));
    stateAddressOf.set(`${entry.kind}:${entry.id}`, address);
  }
  const pending = new Set<string>();
  const lookups: Lookups = {
    account,
    provider: (nameOrId) => findProvider(snapshot.providers, nameOrId),
    idOf: (address) => (pending.has(address) ? undefined : known.get(address)),
    nameOf: (kind, id) => owner.get(`${kind}:${id}`) ?? id,
  };
  /** The address gets a new remote id in this plan: references to it become `$ref`s, its old id no longer names it. */
  const markPending = (address: string, kind: ResourceKind) => {
    const old = known.get(address);
    if (old !== undefined) owner.delete(`${kind}:${old}`);
    pending.add(address);
  };
  const adoptId = (address: string, kind: ResourceKind, id: string) => {
    known.set(address, id);
    owner.set(`${kind}:${id}`, localPart(address));
  };

  const liveUnreadable = (kind: ResourceKind, parentGatewayId: string | undefined): Unreadable | undefined => {
    if (snapshot.items[kind] === undefined) return snapshot.unreadable.find((u) => u.kind === kind) ?? { kind, operation: providerOf(kind).refreshOperations[0] ?? providerOf(kind).readOperation, reason: 'not read' };
    if (parentGatewayId !== undefined) return snapshot.failedGateways[kind]?.get(parentGatewayId);
    return undefined;
  };

  /** A token or export whose gateway is gone (deleted outside cplane) went with it, whatever its own read says. */
  const parentGone = (entry: ResourceState): boolean => {
    const gatewayId = entry.parents?.gatewayId;
    if (!gatewayId || snapshot.items.gateway === undefined) return false;
    const gateway = liveIndex.get('gateway')?.byId.get(gatewayId);
    return !gateway || gateway.identity.status === 'gone';
  };

  // ------------------------------------------------------------ steps
  const finishWrites = (stepId: string, writes: WriteSpec[]) => writes.map((w, i) => ({ ...w, id: `${stepId}#${i}`, idempotencyKey: randomUUID() }));

  const addStep = (step: Omit<PlanStep, 'id' | 'dependsOn' | 'writes'> & { writes: WriteSpec[] }, secrets?: Record<string, SecretSource>): PlanStep => {
    const id = step.address;
    const writes = finishWrites(id, step.writes);
    const used = new Set<string>();
    for (const write of writes) secretFields(write.body, used);
    const full: PlanStep = { ...step, id, dependsOn: [], writes };
    if (secrets && used.size > 0) full.secrets = Object.fromEntries([...used].filter((f) => secrets[f]).map((f) => [f, secrets[f] as SecretSource]));
    if (step.forget || writes.some((w) => w.effects.forget)) full.forget = true;
    if (!full.notes?.length) delete full.notes;
    if (!full.reason) delete full.reason;
    steps.push(full);
    stepOf.set(step.address, full);
    return full;
  };

  const inputsOf = (r: DesiredResource): Record<string, unknown> => {
    const inputs: Record<string, unknown> = structuredClone(r.attributes) as unknown as Record<string, unknown>;
    // Kept so that removing the resource from the configuration later is still refused.
    if (r.lifecycle.preventDestroy) inputs.lifecycle = { preventDestroy: true, source: where(r) };
    return inputs;
  };

  /** Live values that differ from what cplane last applied, field by field. */
  const driftOf = (provider: AnyProvider, entry: ResourceState, live: unknown, ignore: string[]): FieldChange[] => {
    // An object adopted by a run that stopped before its first write has no inputs yet: nothing to compare.
    if (Object.keys(entry.inputs).length === 0) return [];
    const applied: View = provider.desiredView(entry.inputs as unknown as AttributesByKind[ResourceKind], lookups);
    const observed = provider.view(live, lookups);
    const changes: FieldChange[] = [];
    for (const path of Object.keys(applied).sort()) {
      if (!(path in observed) || applied[path] === undefined || isIgnored(path, ignore)) continue;
      if (!sameValue(applied[path], observed[path])) changes.push({ path, before: applied[path] ?? null, after: observed[path] ?? null });
    }
    return changes;
  };

  // ------------------------------------------------------------ desired resources
  if (mode !== 'destroy') {
    for (const r of orderDesired(desired.resources)) {
      const provider = providerOf(r.kind);
      const entry = stateResources[r.address];
      const ignore = r.lifecycle.ignoreChanges;
      const parentGateway = r.kind === 'gateway_token' || r.kind === 'otel_export' ? entry?.parents?.gatewayId ?? lookups.idOf(`gateway.${(r.attributes as { gateway: string }).gateway}`) : undefined;
      const blocked = liveUnreadable(r.kind, parentGateway);
      if (blocked) {
        unreadable.push({ ...blocked, address: r.address });
        continue;
      }
      const index = liveIndex.get(r.kind) as LiveIndex;
      const found = entry ? index.byId.get(entry.id) : undefined;

      if (entry && (!found || found.identity.status === 'gone' || parentGone(entry))) {
        drift.push({ address: r.address, kind: r.kind, type: 'deleted', changes: [] });
        if (mode === 'refresh-only') {
          addStep({ address: r.address, kind: r.kind, action: 'no-op', reason: 'deleted outside cplane', changes: [], writes: [], forget: true });
          continue;
        }
        markPending(r.address, r.kind);
        const created = provider.planCreate({ desired: r, lookups });
        problems.push(...(created.problems ?? []));
        addStep({ address: r.address, kind: r.kind, action: 'create', reason: 'deleted outside cplane', changes: createChanges(provider, r, lookups), writes: created.writes, inputs: inputsOf(r), notes: created.notes }, r.secrets);
        continue;
      }

      if (!entry) {
        if (mode === 'refresh-only') continue;
        if (snapshot.byIdOnly.has(r.kind)) {
          const op = providerOf(r.kind).refreshOperations[0] ?? providerOf(r.kind).readOperation;
          unreadable.push({ address: r.address, kind: r.kind, operation: op, reason: `not in state, and finding an existing one needs ${operations[op].method} ${operations[op].path}, a human-only operation` });
          continue;
        }
        const key = provider.naturalKey(r, lookups);
        const candidate = key === undefined ? undefined : index.byKey.get(key);
        // One live object is managed by one address: an object already in state, or adopted above, is not adopted twice.
        const match = candidate && !owner.has(`${r.kind}:${candidate.identity.id}`) ? candidate : undefined;
        if (!match) {
          markPending(r.address, r.kind);
          const created = provider.planCreate({ desired: r, lookups });
          problems.push(...(created.problems ?? []));
          addStep({ address: r.address, kind: r.kind, action: 'create', changes: createChanges(provider, r, lookups), writes: created.writes, inputs: inputsOf(r), notes: created.notes }, r.secrets);
          continue;
        }
        adoptId(r.address, r.kind, match.identity.id);
        const adopt = { id: match.identity.id, ...(match.identity.parents ? { parents: match.identity.parents } : {}) };
        planChange(r, provider, match, undefined, { action: 'import', reason: 'created outside cplane: adopting it', adopt });
        continue;
      }

      // In state and live (possibly archived).
      const changes = driftOf(provider, entry, (found as LiveEntry).live, ignore);
      if (found?.identity.status === 'archived') changes.unshift({ path: 'archived', before: false, after: true });
      if (changes.length > 0) drift.push({ address: r.address, kind: r.kind, type: 'changed', changes });
      if (mode === 'refresh-only') {
        if (changes.length > 0) {
          const inputs = changes.filter((c) => c.path !== 'archived').reduce((acc, c) => setPath(acc, c.path, c.after), entry.inputs);
          addStep({ address: r.address, kind: r.kind, action: 'no-op', reason: 'changed outside cplane: recording the live values', changes, writes: [], inputs });
        }
        continue;
      }
      planChange(r, provider, found as LiveEntry, entry, {
        action: 'update',
        reason: found?.identity.status === 'archived' ? 'archived outside cplane: unarchiving it' : undefined,
      });
    }
  }

  function planChange(
    r: DesiredResource,
    provider: AnyProvider,
    found: LiveEntry,
    entry: ResourceState | undefined,
    base: { action: 'update' | 'import'; reason: string | undefined; adopt?: PlanStep['adopt'] },
  ): void {
    const id = found.identity.id;
    const facts = provider.diff({ desired: r, live: found.live, state: entry, lookups, changedSecrets: changedSecrets.get(r.address) ?? [] });
    problems.push(...(facts.problems ?? []));
    if (facts.changes.length === 0 && !base.adopt) return;
    let action: Action = base.action;
    let reason = base.reason;
    let writes: WriteSpec[];
    const notes: string[] = [];
    if (facts.replaceKeys.length > 0) {
      action = 'replace';
      reason = [base.adopt ? base.reason : undefined, `${facts.replaceKeys.join(', ')} cannot change in place: a new one is created, then the old one is ${provider.removeAction}d`]
        .filter(Boolean)
        .join('; ');
      if (r.lifecycle.preventDestroy) {
        problems.push(`${r.address} (${where(r)}): lifecycle.preventDestroy is set, and the change to ${facts.replaceKeys.join(', ')} would replace it (the old one is ${provider.removeAction}d); remove preventDestroy or undo the change`);
      }
      markPending(r.address, r.kind);
      const created = provider.planCreate({ desired: r, lookups });
      const removed = provider.planDelete({ address: r.address, id, parents: found.identity.parents, live: found.live, related: { activeTokens: 0 } });
      // The old object goes, but the address now names the new one: it stays in state.
      writes = [...created.writes, ...removed.writes.map((w) => ({ ...w, effects: { ...w.effects, forget: undefined } }))].map(dropUndefinedEffects);
      problems.push(...(created.problems ?? []));
    } else {
      const rotate = facts.rotateKeys?.some((k) => facts.changedKeys.includes(k)) ?? false;
      if (base.action === 'update' && rotate) action = 'rotate';
      const updated = facts.changes.length > 0 ? provider.planUpdate({ desired: r, live: found.live, id, state: entry, changedKeys: facts.changedKeys, lookups }) : { writes: [] };
      writes = updated.writes;
      problems.push(...(updated.problems ?? []));
      notes.push(...(updated.notes ?? []));
    }
    addStep(
      { address: r.address, kind: r.kind, action, reason, changes: facts.changes, writes, inputs: inputsOf(r), notes, ...(base.adopt ? { adopt: base.adopt } : {}) },
      r.secrets,
    );
  }

  // ------------------------------------------------------------ removals
  const removing = Object.entries(stateResources).filter(([address]) => mode === 'destroy' || !desiredByAddress.has(address));
  const removedAddresses = new Set(removing.map(([address]) => address));
  /** Tokens and exports of a deleted gateway: they go with it, so they are forgotten once it is deleted. */
  const goesWith = new Map<string, string>();
  for (const [address, entry] of removing) {
    const provider = providerOf(entry.kind);
    const blocked = liveUnreadable(entry.kind, entry.parents?.gatewayId);
    if (blocked) {
      unreadable.push({ ...blocked, address });
      continue;
    }
    const found = liveIndex.get(entry.kind)?.byId.get(entry.id);
    const gone = !found || found.identity.status !== 'live' || parentGone(entry);
    if (mode === 'refresh-only') {
      if (!found || found.identity.status === 'gone' || parentGone(entry)) {
        drift.push({ address, kind: entry.kind, type: 'deleted', changes: [] });
        addStep({ address, kind: entry.kind, action: 'no-op', reason: 'deleted outside cplane', changes: [], writes: [], forget: true });
      }
      continue;
    }
    const lifecycle = desiredByAddress.get(address)?.lifecycle;
    const recorded = entry.inputs.lifecycle as { preventDestroy?: boolean; source?: string } | undefined;
    if (lifecycle?.preventDestroy || (!lifecycle && recorded?.preventDestroy)) {
      const r = desiredByAddress.get(address);
      const at = r ? where(r) : `recorded in state from ${recorded?.source ?? 'the configuration'}`;
      problems.push(`${address} (${at}): lifecycle.preventDestroy is set, and this plan would ${provider.removeAction} it; remove preventDestroy first if it really must go`);
    }
    if (gone) {
      if (!found || found.identity.status === 'gone' || parentGone(entry)) drift.push({ address, kind: entry.kind, type: 'deleted', changes: [] });
      const already = found?.identity.status === 'archived' ? 'already archived outside cplane' : 'already deleted outside cplane';
      addStep({ address, kind: entry.kind, action: provider.removeAction, reason: `${already}: forgetting it`, changes: [], writes: [], forget: true });
      continue;
    }
    const gatewayAddress = entry.parents?.gatewayId ? stateAddressOf.get(`gateway:${entry.parents.gatewayId}`) : undefined;
    if ((entry.kind === 'gateway_token' || entry.kind === 'otel_export') && gatewayAddress && removedAddresses.has(gatewayAddress)) {
      const reason = entry.kind === 'gateway_token' ? `revoked by deleting ${gatewayAddress}` : `removed with ${gatewayAddress}`;
      addStep({ address, kind: entry.kind, action: provider.removeAction, reason, changes: [], writes: [], forget: true });
      goesWith.set(address, gatewayAddress);
      continue;
    }
    const activeTokens = entry.kind === 'gateway'
      ? ((snapshot.items.gateway_token ?? []) as { gateway_id: string; revoked_at: string | null }[]).filter((t) => t.gateway_id === entry.id && !t.revoked_at).length
      : 0;
    const removed = provider.planDelete({ address, id: entry.id, parents: entry.parents, live: found.live, related: { activeTokens } });
    addStep({ address, kind: entry.kind, action: provider.removeAction, changes: [], writes: removed.writes, notes: removed.notes });
  }

  // ------------------------------------------------------------ dependencies
  const oldDependencies = (address: string, entry: ResourceState): string[] => {
    const deps = new Set(providerOf(entry.kind).references(entry.inputs as unknown as AttributesByKind[ResourceKind]).filter((a) => a in stateResources));
    for (const [name, id] of Object.entries(entry.parents ?? {})) {
      const parentKind = name === 'gatewayId' ? 'gateway' : name === 'projectId' ? 'project' : undefined;
      const parent = parentKind && stateAddressOf.get(`${parentKind}:${id}`);
      if (parent) deps.add(parent);
    }
    deps.delete(address);
    return [...deps];
  };
  for (const step of steps) {
    const r = desiredByAddress.get(step.address);
    const deps = new Set<string>();
    if (r && mode !== 'destroy') {
      for (const address of [...r.dependsOn, ...providerOf(r.kind).references(r.attributes)]) {
        const dep = stepOf.get(address);
        if (dep && dep !== step && !isRemoval(dep.action)) deps.add(dep.id);
      }
    }
    const gateway = stepOf.get(goesWith.get(step.address) ?? '');
    if (gateway) deps.add(gateway.id);
    step.dependsOn = [...deps];
  }
  // A removed object goes after every step of an object that used it (dependents first).
  for (const [address, entry] of Object.entries(stateResources)) {
    const dependentStep = stepOf.get(address);
    if (!dependentStep) continue;
    for (const dep of oldDependencies(address, entry)) {
      const removal = stepOf.get(dep);
      if (!removal || !isRemoval(removal.action) || dependentStep.dependsOn.includes(removal.id)) continue;
      if (!removal.dependsOn.includes(dependentStep.id)) removal.dependsOn.push(dependentStep.id);
    }
  }

  // ------------------------------------------------------------ targets
  let kept = sortSteps(steps);
  if (targets.length > 0) {
    const all = new Set([...desired.resources.map((r) => r.address), ...Object.keys(stateResources)]);
    for (const target of targets) if (!all.has(target)) problems.push(unknownTarget(target, [...all]));
    kept = targetClosure(kept, new Set(targets));
  }
  if (problems.length > 0) throw new PlanError(problems);
  const keptAddresses = new Set([...kept.map((s) => s.address), ...targets]);
  const inScope = <T extends { address?: string }>(item: T) => targets.length === 0 || (item.address !== undefined && keptAddresses.has(item.address));

  const summary = { add: 0, change: 0, replace: 0, remove: 0, import: 0 };
  for (const step of kept) {
    if (step.action === 'create') summary.add++;
    else if (step.action === 'update' || step.action === 'rotate') summary.change++;
    else if (step.action === 'replace') summary.replace++;
    else if (step.action === 'import') summary.import++;
    else if (isRemoval(step.action)) summary.remove++;
  }

  return {
    formatVersion: 1,
    cplaneVersion,
    createdAt: new Date().toISOString(),
    account,
    configDir: desired.dir,
    mode,
    targets,
    steps: kept,
    drift: drift.filter(inScope),
    unreadable: unreadable
      // A kind-wide entry says nothing more once the addresses of that kind are listed one by one.
      .filter((u) => u.address !== undefined || !unreadable.some((v) => v.address !== undefined && v.kind === u.kind))
      .filter((u) => targets.length === 0 || u.address === undefined || keptAddresses.has(u.address)),
    summary,
    digest: { config: configDigest, live: liveDigest(snapshot.digests) },
  };
}

/** Write-only fields of each desired resource whose value differs from what cplane last applied (by fingerprint). */
async function secretChanges(desired: DesiredState, stateResources: StateData['resources'], state: PlanState, env: NodeJS.ProcessEnv, problems: string[]): Promise<Map<string, string[]>> {
  const changedSecrets = new Map<string, string[]>();
  for (const r of desired.resources) {
    const entry = stateResources[r.address];
    const changed: string[] = [];
    for (const [field, source] of Object.entries(r.secrets)) {
      const applied = entry?.fingerprints[field];
      // `cplane export --adopt` cannot read write-only values: the live ones are taken as they are
      // (docs/export.md says how to have cplane write them: `cplane state rm`, then apply).
      if (applied === undefined && entry?.adoptedBy === 'export') continue;
      if ('generate' in source) {
        // A generated value is made once; it changes only when cplane holds none.
        if (!applied) changed.push(field);
        continue;
      }
      try {
        const value = await resolveSecret(source, env);
        if (applied !== state.crypto.fingerprint(r.address, field, value)) changed.push(field);
      } catch (error) {
        problems.push(`${r.address} (${where(r)}): ${(error as Error).message}; set it and run the command again`);
      }
    }
    changedSecrets.set(r.address, changed);
  }
  return changedSecrets;
}

function isRemoval(action: Action): boolean {
  return action === 'archive' || action === 'delete' || action === 'revoke';
}

function dropUndefinedEffects(write: WriteSpec): WriteSpec {
  const effects = Object.fromEntries(Object.entries(write.effects).filter(([, v]) => v !== undefined));
  return { ...write, effects };
}

/** The attributes a create sets, as changes without a `before`; write-only ones as `(sensitive)`. */
function createChanges(provider: AnyProvider, r: DesiredResource, lookups: Lookups): FieldChange[] {
  const changes: FieldChange[] = Object.entries(provider.desiredView(r.attributes, lookups))
    .filter(([, value]) => value !== undefined)
    .map(([path, after]) => ({ path, after }));
  for (const field of Object.keys(r.secrets).sort()) changes.push({ path: field, sensitive: true });
  return changes;
}

/** Desired resources with every resource after the ones it depends on (kinds in dependency order first). */
function orderDesired(resources: DesiredResource[]): DesiredResource[] {
  const byAddress = new Map(resources.map((r) => [r.address, r]));
  const sorted = [...resources].sort((a, b) => kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) || (a.address < b.address ? -1 : 1));
  const out: DesiredResource[] = [];
  const seen = new Set<string>();
  const visit = (r: DesiredResource) => {
    if (seen.has(r.address)) return;
    seen.add(r.address);
    for (const dep of r.dependsOn) {
      const target = byAddress.get(dep);
      if (target) visit(target);
    }
    out.push(r);
  };
  for (const r of sorted) visit(r);
  return out;
}

function unknownTarget(target: string, addresses: string[]): string {
  const close = addresses.filter((a) => a.includes(target) || target.includes(a) || localPart(a) === localPart(target)).slice(0, 3);
  return `--target ${target}: no such address in the configuration or state${close.length ? `; did you mean ${close.join(', ')}?` : ''}`;
}
