/**
 * The registry of resource kinds: one definition module per kind (its configuration block, how it is
 * observed, its provider methods and its export mapping), listed once here. Everything else that needs a
 * list of kinds derives it from this table: the kind order (from the relations), the configuration blocks
 * handed to config/, the parents and children of each kind.
 */
import { loadConfig, type LoadOptions, type LoadResult } from '../config/index.js';
import type { KindBlock, Touch } from '../config/blocks/kind-block.js';
import { topologicalOrder } from '../graph/index.js';
import type { ResourceKind } from '../config/types.js';
import { credentialKind } from './credential.js';
import { gatewayTokenKind } from './gateway-token.js';
import { gatewayKind } from './gateway.js';
import { otelExportKind } from './otel-export.js';
import { projectGroupRoleKind } from './project-group-role.js';
import { projectKind } from './project.js';
import { recordKind } from './record.js';
import { recordOwnerKind } from './record-owner.js';
import { groupShareKind, serviceAccountGrantKind, userShareKind } from './record-grant.js';
import type { Relations, KindDefinition } from './types.js';

/** Every kind's definition. The order breaks ties in the derived kind order (and so in refresh and plans). */
const definitions: readonly KindDefinition<never, never>[] = [
  projectKind,
  credentialKind,
  recordKind,
  gatewayKind,
  gatewayTokenKind,
  otelExportKind,
  projectGroupRoleKind,
  serviceAccountGrantKind,
  userShareKind,
  groupShareKind,
  recordOwnerKind,
] as unknown as KindDefinition<never, never>[];

const byKind = new Map<ResourceKind, KindDefinition>(definitions.map((d) => [d.kind, d as unknown as KindDefinition]));

/** Whether `kind` is a kind cplane knows. */
export function isKind(kind: string): boolean {
  return byKind.has(kind);
}

/**
 * The definition of a kind. Each is typed with its own attributes and live shape; callers that work on any
 * kind see them as plain records and `unknown`, and this lookup holds the one cast between the two views.
 */
export function definitionOf(kind: ResourceKind): KindDefinition {
  const found = byKind.get(kind);
  if (!found) throw new Error(`unknown resource kind "${kind}"`);
  return found;
}

/** The kinds a kind needs to exist first: the kinds of its parents (`parentIds`) and of the resources its configuration refers to. */
export function kindsNeededBy(kind: ResourceKind): ResourceKind[] {
  const { relations, config } = definitionOf(kind);
  const needed = [
    ...Object.values(relations.parentIds ?? {}),
    ...(config.parent ? [config.parent.kind] : []),
    ...(config.references ?? []).flatMap((r) => ('kind' in r ? [r.kind] : [])),
  ];
  return [...new Set(needed)].filter((k) => k !== kind);
}

/**
 * Kinds in dependency order, derived from the relations: a stable topological sort (among kinds ready at
 * once, the earlier definition first). A relation naming an unknown kind or a cycle between kinds is a bug
 * in the definitions, found the first time this module is loaded.
 */
function deriveKindOrder(): ResourceKind[] {
  const kinds = definitions.map((d) => d.kind);
  for (const kind of kinds) {
    const unknown = kindsNeededBy(kind).find((needed) => !byKind.has(needed));
    if (unknown !== undefined) throw new Error(`kind ${kind} names the unknown kind ${unknown}`);
  }
  const { order, stuck } = topologicalOrder(new Map(kinds.map((kind) => [kind, kindsNeededBy(kind)])));
  if (stuck.length > 0) throw new Error(`the kinds ${stuck.join(', ')} need each other in a cycle`);
  return order;
}

/** Kinds in dependency order: parents (and referenced kinds) before the kinds that need them. */
export const kindOrder: readonly ResourceKind[] = deriveKindOrder();

/** The configuration block of every kind, in kind order: what loadConfig takes as `kinds`. */
export const kindBlocks: readonly KindBlock[] = kindOrder.map((kind) => definitionOf(kind).config);

/** loadConfig with the configuration blocks of every kind: how the layers above read a configuration folder. */
export function loadConfiguration(dir: string, options: Omit<LoadOptions, 'kinds'> = {}): Promise<LoadResult> {
  return loadConfig(dir, { ...options, kinds: kindBlocks });
}

/** The parent a kind lives under (`relations.within`) with the parent's kind; undefined for a kind read per account. */
export function parentOf(kind: ResourceKind): KindParent | undefined {
  if (!parents.has(kind)) definitionOf(kind); // an unknown kind is refused as everywhere
  return parents.get(kind);
}

/** The kinds that live under `kind` (their `relations.within` names it). */
export function childKindsOf(kind: ResourceKind): readonly ResourceKind[] {
  return childKinds.get(kind) ?? [];
}

type KindParent = Readonly<NonNullable<Relations['within']> & { kind: ResourceKind }>;

// Asked for every address of every plan, several times each: worked out once per kind.
const parents = new Map(
  kindOrder.map((kind) => {
    const { within, parentIds } = definitionOf(kind).relations;
    const parentKind = within && parentIds?.[within.idField];
    return [kind, within && parentKind ? { ...within, kind: parentKind } : undefined] as const;
  }),
);
const childKinds = new Map(kindOrder.map((kind) => [kind, kindOrder.filter((child) => parents.get(child)?.kind === kind)]));

/** The one kind whose objects hold a value readers read through wrappers of its data key (`relations.wrappedValue`): the record. */
export const valueKind: ResourceKind = (() => {
  const found = kindOrder.filter((kind) => definitionOf(kind).relations.wrappedValue !== undefined);
  if (found.length !== 1) throw new Error(`one kind must declare relations.wrappedValue, not ${found.length}`);
  return found[0]!;
})();

/**
 * A kind whose objects give a principal access to the object they live under ("gives P access to O"): its `touches`
 * say which principal (a `grants`), its `relations.access` how the access report shows the path.
 */
export type AccessKind = NonNullable<Relations['access']> & {
  kind: ResourceKind;
  principal: Touch['principal'];
  /** The attribute naming the principal. */
  attribute: string;
  /** The kind of the object access is given to: the kind's parent (a record, a project). */
  on: ResourceKind;
  /** The key its entries are written under in the parent's entry (`grants.users`, `groupRoles`). */
  key: string;
};

/** Every kind that gives access, in kind order: what the access report and offboarding read, never a list of their own. */
export const accessKinds: readonly AccessKind[] = kindOrder.flatMap((kind) => {
  const { config, relations } = definitionOf(kind);
  const on = config.parent?.kind ?? Object.values(relations.parentIds ?? {})[0];
  return (config.touches ?? [])
    .filter((t) => t.as === 'grants')
    .map((t) => {
      if (on === undefined || !relations.access)
        throw new Error(`kind ${kind} grants access: it must live under an object and declare relations.access`);
      return { ...relations.access, kind, principal: t.principal, attribute: t.attribute, on, key: config.key };
    });
});

/** A kind read back through the API (not known only from state) with an export mapping: what export reads and writes. */
export type ReadBackDefinition = Extract<KindDefinition, { readonly observation?: 'api' }> & {
  readonly export: NonNullable<Extract<KindDefinition, { readonly observation?: 'api' }>['export']>;
};

export function isReadBack(provider: KindDefinition): provider is ReadBackDefinition {
  return provider.observation !== 'state' && provider.export !== undefined;
}

/** The definition of a kind export reads: one known only from state has nothing to read, and one without a mapping is never exported. */
export function exportedDefinitionOf(kind: ResourceKind): ReadBackDefinition {
  const definition = definitionOf(kind);
  if (!isReadBack(definition)) throw new Error(`kind ${kind} is not exported: it is known only from state, or has no export mapping`);
  return definition;
}

/** The kinds export reads, in kind order. */
export const exportKinds: readonly ResourceKind[] = kindOrder.filter((kind) => isReadBack(definitionOf(kind)));

/** The kinds declared inside `kind`'s entries (its configuration block's children), one-per-parent blocks first. */
export function kindsDeclaredIn(kind: ResourceKind): ResourceKind[] {
  const inside = kindBlocks.filter((b) => b.parent?.kind === kind);
  return [...inside.filter((b) => b.single), ...inside.filter((b) => !b.single)].map((b) => b.kind);
}

/** Kinds in the order a configuration nests them: each top-level kind, then what is declared inside it (depth first). */
export const nestingOrder: readonly ResourceKind[] = (() => {
  const walk = (kind: ResourceKind): ResourceKind[] => [kind, ...kindsDeclaredIn(kind).flatMap(walk)];
  return kindBlocks.filter((b) => !b.parent).flatMap((b) => walk(b.kind));
})();

export {
  projectKind,
  recordKind,
  credentialKind,
  gatewayKind,
  gatewayTokenKind,
  otelExportKind,
  projectGroupRoleKind,
  serviceAccountGrantKind,
  userShareKind,
  groupShareKind,
  recordOwnerKind,
};
export {
  listAccounts,
  listVendors,
  findVendor,
  vendors,
  serviceAccounts,
  findServiceAccount,
  type DataSource,
  type LookupResults,
} from './lookups.js';
export { knownOf, type KnownFacts } from './known.js';
export { resolveServiceAccount, type ServiceAccountFound } from './service-accounts.js';
export { unvouchedKey, type UnvouchedKey } from './record-grant.js';
export type { LiveOtelExport, OtelExportAttributes, OtelExportConfig } from './otel-export.js';
export type { ProjectAttributes, ProjectConfig } from './project.js';
export type { RecordAttributes, RecordConfig, RecordGrantsConfig } from './record.js';
export type { CredentialAttributes, CredentialConfig } from './credential.js';
export type { GatewayAttributes, GatewayConfig, GatewaySettingsConfig, GatewaySettingsPath } from './gateway.js';
export type { GatewayTokenAttributes, TokenConfig } from './gateway-token.js';
export type * from './types.js';
