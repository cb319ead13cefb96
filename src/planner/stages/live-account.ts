/**
 * The live account as the stages see it: refresh's snapshot with every
 * object indexed by remote id and by natural key, and the questions asked of
 * it: is a state entry's object still there, could its kind (or its parent's
 * children) be read, which objects live under it.
 */
import type { ResourceKind } from '../../config/types.js';
import type { Unreadable } from '../../plan-model/index.js';
import { childKindsOf, parentOf, definitionOf } from '../../providers/index.js';
import type { LiveIdentity } from '../../providers/types.js';
import type { ResourceState } from '../../state/types.js';
import type { LiveSnapshot } from './refresh.js';

/** One live object and what its kind's definition says about it. */
export interface LiveObject {
  live: unknown;
  identity: LiveIdentity;
}

/** Live objects of one kind by remote id and by natural key. */
interface KindIndex {
  byId: Map<string, LiveObject>;
  byKey: Map<string, LiveObject>;
}

export interface LiveAccount {
  snapshot: LiveSnapshot;
  kinds: Map<ResourceKind, KindIndex>;
}

/** The live account with no kind indexed yet: each is indexed (`indexKind`) once it is read in full. */
export function liveAccount(snapshot: LiveSnapshot): LiveAccount {
  return { snapshot, kinds: new Map() };
}

/** Indexes the live objects of `kind`, read in full, by remote id and by natural key. */
export function indexKind(account: LiveAccount, kind: ResourceKind): void {
  const definition = definitionOf(kind);
  const index: KindIndex = { byId: new Map(), byKey: new Map() };
  for (const live of account.snapshot.items[kind] ?? []) {
    const object: LiveObject = { live, identity: definition.identify({ live }) };
    const { identity } = object;
    index.byId.set(identity.id, object);
    if (identity.status === 'gone') continue;
    // A live object wins over an archived one with the same key.
    const current = index.byKey.get(identity.key);
    if (!current || (current.identity.status === 'archived' && identity.status === 'live')) index.byKey.set(identity.key, object);
  }
  account.kinds.set(kind, index);
}

/** The live object a state entry names, if it was read and is still listed. */
export function liveObjectOf(account: LiveAccount, entry: ResourceState): LiveObject | undefined {
  return account.kinds.get(entry.kind)?.byId.get(entry.id);
}

/** The live object with a natural key, if any. */
export function liveByKey(account: LiveAccount, kind: ResourceKind, key: string | undefined): LiveObject | undefined {
  return key === undefined ? undefined : account.kinds.get(kind)?.byKey.get(key);
}

/** An object that lives under a parent (a token) went with it when the parent is gone, whatever its own read says. */
function parentGone(account: LiveAccount, entry: ResourceState): boolean {
  const parent = parentOf(entry.kind);
  const parentId = parent && entry.parents?.[parent.idField];
  if (!parent || !parentId || account.snapshot.items[parent.kind] === undefined) return false;
  const found = account.kinds.get(parent.kind)?.byId.get(parentId);
  return !found || found.identity.status === 'gone';
}

/** The state entry's object (`found`, when the caller looked it up already) was deleted outside cplane (or went with its parent). */
export function isDeletedLive(account: LiveAccount, entry: ResourceState, found = liveObjectOf(account, entry)): boolean {
  return !found || found.identity.status === 'gone' || parentGone(account, entry);
}

/**
 * How a state entry's object that is gone reads: `revoked outside cplane` for a revoked token or a grant no longer
 * listed, else `deleted outside cplane`.
 */
export function goneReason(account: LiveAccount, entry: ResourceState): string {
  const { relations } = definitionOf(entry.kind);
  // An object that went with its parent was deleted (with the parent), whatever its own status says.
  if (parentGone(account, entry)) return 'deleted outside cplane';
  const found = liveObjectOf(account, entry);
  const word = found ? (found.identity.status === 'gone' ? relations.goneAs : undefined) : relations.missingAs;
  return `${word ?? 'deleted'} outside cplane`;
}

/** Why objects of `kind` (under the parent `parentId`, for a kind that lives under one) could not be read; undefined when they could. */
export function unreadableFor(account: LiveAccount, kind: ResourceKind, parentId: string | undefined): Unreadable | undefined {
  const { snapshot } = account;
  const definition = definitionOf(kind);
  if (snapshot.items[kind] === undefined && definition.observation !== 'state') {
    return (
      snapshot.unreadable.find((u) => u.kind === kind) ?? {
        kind,
        operation: definition.refreshOperations[0] ?? definition.readOperation,
        reason: 'not read',
      }
    );
  }
  return parentId === undefined ? undefined : snapshot.failedParents[kind]?.get(parentId);
}

/** Live objects that live under the object `id` of `kind`, by their kind. */
export function liveChildrenOf(account: LiveAccount, kind: ResourceKind, id: string): Partial<Record<ResourceKind, unknown[]>> {
  const children: Partial<Record<ResourceKind, unknown[]>> = {};
  for (const child of childKindsOf(kind)) {
    const idField = parentOf(child)?.idField as string;
    children[child] = [...(account.kinds.get(child)?.byId.values() ?? [])]
      .filter((o) => o.identity.parents?.[idField] === id)
      .map((o) => o.live);
  }
  return children;
}
