/**
 * `defineKind`: a kind's definition from what is its own, with the members that follow from it filled in
 * (after Terraform's configschema, where one attribute schema gives decoding, types and write-only paths).
 * A kind declares its parent once (`parent`), and its fields once (`fields`: type, reference, write-only,
 * replacement, observed); from them come the block's `kind`, `parent`, `references` and entry schema, the
 * relations' `parentIds` and `within` (or `parentAttributes`), `references()`, the desired view, the view of
 * a kind known only from state, and the default `diff`. A kind overrides only what differs: the planner,
 * refresh, export and the applier keep reading the full `KindDefinition`.
 */
import type { Entry, JsonSchema, KindBlock, ReferenceRule } from '../config/kind-block.js';
import type { DirectorySection, ResourceKind } from '../config/types.js';
import { resourceAddress } from '../plan-model/index.js';
import type { DiffRequest, DiffResponse, Lookups, RecordedObject, Relations, ResourceProvider, View } from './types.js';
import { diffViews, sensitiveChanges } from './view-diff.js';

/** One field of a kind's entry, declared once. */
export interface FieldSpec {
  /** The field's JSON Schema (its `type`, bounds and description): the entry schema is made of these. */
  schema: JsonSchema;
  /** The field names a declared resource of this kind by local name (an implied dependency, checked to exist). */
  references?: ResourceKind;
  /** The field names an entry of this section of the configuration's `directory:` (checked at file:line:col). */
  directory?: DirectorySection;
  /** A change of it cannot be made in place: the object is replaced. */
  replace?: boolean;
  /** A write-only input (a secret): never in a view, changed when its fingerprint changes. */
  writeOnly?: boolean;
  /** Whether a live object shows it (default true): a field cplane alone knows is shown in a create, never diffed. */
  observed?: boolean;
  /** The entry must say it. */
  required?: boolean;
}

/** Where a kind nests, declared once: the parent's kind, the attribute naming it, and the key of `parents` holding its id. */
export interface ParentSpec {
  kind: ResourceKind;
  attribute: string;
  idField: string;
  /** The kind lives under its parent (`Relations.within`): read per parent, leaving state with it, said `removedWith`. */
  removedWith?: string;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Derived = 'config' | 'relations' | 'references' | 'view' | 'desiredView' | 'diff';

/** What a kind writes: its own members, the derived ones optional. */
export type KindSpec<A extends object, L, E> = DistributiveOmit<ResourceProvider<A, L, E>, Derived> & {
  readonly config: Omit<KindBlock<A, E>, 'kind' | 'parent' | 'schema' | 'references'> & Partial<Pick<KindBlock<A, E>, 'schema' | 'references'>>;
  readonly parent?: ParentSpec;
  readonly fields?: Readonly<Record<string, FieldSpec>>;
  /** What the entry is, for the schema made from `fields`. */
  readonly description?: string;
  readonly relations?: Omit<Relations, 'parentIds' | 'within' | 'parentAttributes'>;
} & Partial<Pick<ResourceProvider<A, L, E>, 'references' | 'view' | 'desiredView' | 'diff'>>;

/** The full definition of a kind from its spec (see the module comment for what is derived). */
export function defineKind<A extends object, L, E = Entry>(spec: KindSpec<A, L, E>): ResourceProvider<A, L, E> {
  const { parent, fields = {}, description, ...own } = spec;
  const fieldRules = Object.entries(fields).flatMap(([attribute, f]): ReferenceRule[] =>
    f.references ? [{ attribute, kind: f.references }] : f.directory ? [{ attribute, directory: f.directory }] : []);
  const rules = [...(spec.config.references ?? []), ...fieldRules];
  const config: KindBlock<A, E> = {
    ...spec.config,
    kind: spec.kind,
    ...(parent ? { parent: { kind: parent.kind, attribute: parent.attribute } } : {}),
    schema: spec.config.schema ?? entrySchema(fields, description),
    ...(rules.length > 0 ? { references: rules } : {}),
  };
  const nesting: Relations = !parent ? {}
    : parent.removedWith !== undefined
      ? { parentIds: { [parent.idField]: parent.kind }, within: { idField: parent.idField, attribute: parent.attribute, removedWith: parent.removedWith } }
      : { parentIds: { [parent.idField]: parent.kind }, parentAttributes: { [parent.idField]: parent.attribute } };
  const at = (attributes: A, name: string) => (attributes as Record<string, unknown>)[name];
  const references = spec.references ?? (({ attributes }: { attributes: A }) => [
    ...(parent ? [resourceAddress(parent.kind, String(at(attributes, parent.attribute)))] : []),
    ...rules.flatMap((r) => ('kind' in r ? [at(attributes, r.attribute)].flat().filter((n) => n !== undefined).map((n) => resourceAddress(r.kind, String(n))) : [])),
  ]);
  const observed = Object.entries(fields).filter(([, f]) => !f.writeOnly && f.observed !== false).map(([name]) => name);
  const desiredView = spec.desiredView ?? (({ attributes }: { attributes: A; lookups: Lookups }): View =>
    Object.fromEntries(Object.keys(fields).filter((name) => !fields[name]!.writeOnly && at(attributes, name) !== undefined).map((name) => [name, at(attributes, name)])));
  // A kind known only from state is seen as the attributes cplane last applied.
  const view = spec.view ?? (({ live, lookups }: { live: L; lookups: Lookups }) => desiredView({ attributes: (live as RecordedObject).inputs as A, lookups }));
  const replaceFields = Object.entries(fields).filter(([, f]) => f.replace).map(([name]) => name);
  const diff = spec.diff ?? (({ desired, live, lookups, changedSecrets }: DiffRequest<A, L>): DiffResponse => {
    const wanted = desiredView({ attributes: desired.attributes, lookups });
    const compared = Object.keys(fields).length > 0 ? Object.fromEntries(Object.entries(wanted).filter(([k]) => observed.includes(k))) : wanted;
    const { ignoreChanges } = desired.lifecycle;
    const changes = [...diffViews(compared, view({ live, lookups }), ignoreChanges), ...sensitiveChanges(changedSecrets, ignoreChanges)];
    return { changes, changedKeys: changes.map((c) => c.path), replaceKeys: changes.map((c) => c.path).filter((p) => replaceFields.includes(p)) };
  });
  return { ...own, config, relations: { ...nesting, ...spec.relations }, references, view, desiredView, diff } as unknown as ResourceProvider<A, L, E>;
}

/** An entry that is an object of the declared fields, and nothing else. */
function entrySchema(fields: Readonly<Record<string, FieldSpec>>, description: string | undefined): JsonSchema {
  const required = Object.entries(fields).filter(([, f]) => f.required).map(([name]) => name);
  return {
    ...(description !== undefined ? { description } : {}),
    type: 'object',
    additionalProperties: false,
    ...(required.length > 0 ? { required } : {}),
    properties: Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.schema])),
  };
}
