/**
 * `defineKind`: a kind's definition from what is its own, with the members that follow from it filled in
 * (after Terraform's configschema, where one attribute schema gives decoding, types and write-only paths).
 * A kind declares its parent once (`parent`) and its fields once (`fields`: schema, default, reference,
 * write-only, replacement, observed and where the live object holds it). From them come the block's `kind`,
 * `parent`, reference rules, entry schema (with `lifecycle` and `dependsOn`), attributes and write-only inputs;
 * the relations' `parentIds` and `within` (or `parentAttributes`); `references()`, `writeOnly`, the views and
 * the default `diff`, whose `changedKeys` are always the changed paths and whose changes of `replace` fields force
 * replacement; the views follow `viewOrder` where the plan's order is not the schema's. A kind overrides only what differs: the
 * planner, refresh, export and the applier keep reading the full `KindDefinition`.
 */
import type { Entry, JsonSchema, KindBlock, ReferenceRule } from '../config/blocks/kind-block.js';
import type { DirectorySection, ResourceKind, SecretSource } from '../config/types.js';
import { resourceAddress } from '../plan-model/index.js';
import { dependsOnSchema, lifecycleSchema } from './schema-parts.js';
import type { DiffRequest, DiffResponse, Known, RecordedObject, Relations, KindDefinition, View } from './types.js';
import { diffViews, flatten, sensitiveChanges } from './view-diff.js';

/** A field's default that is the entry's local name (a project's `name`). */
export const LOCAL_NAME = Symbol('the local name');

/** What a field's `fromLive` gives when the live object does not say (a lookup could not be read): the view leaves the field out. */
export const NOT_READ = Symbol('not read');

/** One field of a kind's entry, declared once. */
export interface FieldSpec<E = unknown> {
  /** The field's JSON Schema (its `type`, bounds and description): the entry schema is made of these. */
  schema: JsonSchema;
  /** The attribute's value when the entry leaves the field out; absent: the attribute is absent (not managed). */
  default?: unknown;
  /** The attribute, when it is not the entry's value or the default (one that depends on another field); undefined: absent. */
  attribute?(entry: E, local: string): unknown;
  /** Attributes that are no field's own and come from this one, placed after it (a record's `grantsUntil`, from its `grants`). */
  carries?(entry: E): Record<string, unknown>;
  /** The entry must say it. */
  required?: boolean;
  /** The field names a declared resource of this kind by local name (an implied dependency, checked to exist). */
  references?: ResourceKind;
  /** The field names an entry of this section of the configuration's `directory:` (checked at file:line:col). */
  directory?: DirectorySection;
  /** A change of it cannot be made in place: the object is replaced. */
  replace?: boolean;
  /** A write-only input (a secret source): never in a view, changed when its fingerprint changes. */
  writeOnly?: boolean;
  /** Whether a live object shows it (default true): one cplane alone knows is shown in a create, never diffed. */
  observed?: boolean;
  /** False for a setting of cplane's own (a token's renewal, its delivery): an attribute, never in a view nor in `ignoreChanges`. */
  inView?: false;
  /** The live object's field holding it, when not the same name (`is_active` for `active`). */
  live?: string;
  /** The live value in configuration terms, before `normalize` (ids as the local names the configuration uses). */
  fromLive?(value: unknown, known: Known): unknown;
  /** An object shown as its leaves (`settings.cache.enabled`): the paths inside it that `ignoreChanges` may name. */
  paths?: readonly string[];
  /** Makes a configured and a live value comparable (a vendor's id or name as its name), on both sides. */
  normalize?(value: unknown, known: Known): unknown;
}

/** Where a kind nests, declared once: the parent's kind, the attribute naming it, and the key of `parents` holding its id. */
export interface ParentSpec {
  kind: ResourceKind;
  attribute: string;
  idField: string;
  /** The kind lives under its parent (`Relations.within`): read per parent, leaving state with it, said `removedWith`. */
  removedWith?: string;
  /**
   * A top-level entry names its parent in its field `attribute` (a gateway's `project`), declared in `fields`,
   * rather than by being declared inside it; that field moves only with the object, so `ignoreChanges` never names it.
   */
  inEntry?: boolean;
}

/** What a kind's diff says; `changedKeys` are always the changed paths, and `replaceKeys` default to the changed `replace` fields. */
export type KindDiff = Omit<DiffResponse, 'changedKeys' | 'replaceKeys'> & { replaceKeys?: string[] };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Derived = 'config' | 'relations' | 'references' | 'view' | 'desiredView' | 'diff';

/** What a kind writes: its own members; the derived ones optional. */
export type KindSpec<A extends object, L, E> = DistributiveOmit<KindDefinition<A, L, E>, Derived> & {
  readonly config: Omit<KindBlock<A, E>, 'kind' | 'parent' | 'schema' | 'references' | 'attributes'> &
    Partial<Pick<KindBlock<A, E>, 'schema' | 'references' | 'attributes'>>;
  readonly parent?: ParentSpec;
  readonly fields?: Readonly<Record<string, FieldSpec<E>>>;
  /** The order the views (and so the plan) show the fields in, when it is not the order of `fields` (the schema's, and `cplane fmt`'s). */
  readonly viewOrder?: readonly string[];
  /** What the entry is, for the schema made from `fields`. */
  readonly description?: string;
  /** The noun of the entry's `lifecycle` block (`ignoreChanges` may name every field and its `paths`, but a parent's and one not `inView`); absent: the entry has neither `lifecycle` nor `dependsOn`. */
  readonly lifecycle?: string;
  readonly relations?: Omit<Relations, 'parentIds' | 'within' | 'parentAttributes'>;
  /** The diff, when not the desired view against the live one; `derived` is that default. */
  diff?(req: DiffRequest<A, L>, derived: () => KindDiff): KindDiff;
} & Partial<Pick<KindDefinition<A, L, E>, 'references' | 'view' | 'desiredView'>>;

/** The full definition of a kind from its spec (see the module comment for what is derived). */
export function defineKind<A extends object, L, E = Entry>(spec: KindSpec<A, L, E>): KindDefinition<A, L, E> {
  const { parent, fields = {}, description, lifecycle, viewOrder, ...own } = spec;
  const named: Named<E> = Object.entries(fields);
  const kept = named.filter(([, f]) => !f.writeOnly);
  const rank = (name: string) => (viewOrder?.includes(name) ? viewOrder.indexOf(name) : Infinity);
  const viewed = kept.filter(([, f]) => f.inView !== false).sort(([a], [b]) => rank(a) - rank(b));
  const observed = viewed.filter(([, f]) => f.observed !== false);
  const written = named.filter(([, f]) => f.writeOnly).map(([name]) => name);
  const fieldRules = named.flatMap(([attribute, f]): ReferenceRule[] =>
    f.references ? [{ attribute, kind: f.references }] : f.directory ? [{ attribute, directory: f.directory }] : [],
  );
  const rules = [...(spec.config.references ?? []), ...fieldRules];
  const views = viewsOf(spec, viewed, observed);
  const writeOnly = own.writeOnly ?? (written.length > 0 ? written : undefined);
  return {
    ...own,
    ...(writeOnly ? { writeOnly } : {}),
    config: configBlock(spec, { description, lifecycle }, kept, written, rules),
    relations: { ...nestingOf(parent), ...spec.relations },
    references: spec.references ?? referencesOf<A>(parent, rules),
    view: views.view,
    desiredView: views.desiredView,
    diff: diffOf(spec, named, observed, views),
  } as unknown as KindDefinition<A, L, E>;
}

type Named<E> = [string, FieldSpec<E>][];
const value = (from: object, name: string) => (from as Record<string, unknown>)[name];

/** The configuration block: the spec's, with its kind, parent, entry schema, attributes, secrets and references. */
function configBlock<A extends object, L, E>(
  spec: KindSpec<A, L, E>,
  { description, lifecycle }: { description?: string; lifecycle?: string },
  kept: Named<E>,
  written: string[],
  rules: ReferenceRule[],
): KindBlock<A, E> {
  const { parent, fields = {} } = spec;
  return {
    ...spec.config,
    kind: spec.kind,
    ...(parent && !parent.inEntry ? { parent: { kind: parent.kind, attribute: parent.attribute } } : {}),
    schema: spec.config.schema ?? entrySchema(fields, description, lifecycle, parent?.inEntry ? parent.attribute : undefined),
    attributes: spec.config.attributes ?? attributesOf<A, E>(parent, kept),
    ...(written.length > 0 && !spec.config.secrets
      ? {
          secrets: (entry: E) =>
            Object.fromEntries(
              written
                .filter((name) => value(entry as object, name) !== undefined)
                .map((name) => [name, value(entry as object, name) as SecretSource]),
            ),
        }
      : {}),
    ...(rules.length > 0 ? { references: rules } : {}),
  };
}

/** An entry's attributes: the parent's name, then each kept field as given, computed or defaulted. */
function attributesOf<A, E>(parent: ParentSpec | undefined, kept: Named<E>) {
  return (entry: E, local: string, parentName?: string): A => {
    const out: Record<string, unknown> = parent && !parent.inEntry ? { [parent.attribute]: parentName } : {};
    for (const [name, f] of kept) {
      // An explicit null is kept (`secretDueAt: null` clears it); only a field left out takes the default.
      const inEntry = value(entry as object, name);
      const given = f.attribute
        ? f.attribute(entry, local)
        : inEntry !== undefined
          ? inEntry
          : f.default === LOCAL_NAME
            ? local
            : f.default;
      // A copy: the attributes never share a list or an object with the entry they come from.
      if (given !== undefined) out[name] = structuredClone(given);
      for (const [key, v] of Object.entries(f.carries?.(entry) ?? {})) if (v !== undefined) out[key] = v;
    }
    return out as A;
  };
}

/** The relations the parent declaration gives: `parentIds`, and `within` or `parentAttributes`. */
function nestingOf(parent: ParentSpec | undefined): Relations {
  if (!parent) return {};
  if (parent.removedWith === undefined)
    return { parentIds: { [parent.idField]: parent.kind }, parentAttributes: { [parent.idField]: parent.attribute } };
  return {
    parentIds: { [parent.idField]: parent.kind },
    within: { idField: parent.idField, attribute: parent.attribute, removedWith: parent.removedWith },
  };
}

/** The addresses a resource refers to: its parent's, and each reference rule's by kind. */
function referencesOf<A extends object>(parent: ParentSpec | undefined, rules: ReferenceRule[]) {
  return ({ attributes: a }: { attributes: A }) => [
    ...(parent && !parent.inEntry ? [resourceAddress(parent.kind, String(value(a, parent.attribute)))] : []),
    ...rules.flatMap((r) =>
      'kind' in r
        ? [value(a, r.attribute)]
            .flat()
            .filter((n) => n !== undefined)
            .map((n) => resourceAddress(r.kind, String(n)))
        : [],
    ),
  ];
}

interface Views<A, L> {
  view: (req: { live: L; known: Known }) => View;
  desiredView: (req: { attributes: A; known: Known }) => View;
  /** The view of the given fields of attributes (derived views only). */
  viewOf: (of: readonly [string, FieldSpec<never>][], a: A, known: Known) => View;
}

/** The desired view (of the attributes) and the live view (of a live object), from the fields unless the spec gives them. */
function viewsOf<A extends object, L, E>(spec: KindSpec<A, L, E>, viewed: Named<E>, observed: Named<E>): Views<A, L> {
  const shown = (f: FieldSpec<E>, v: unknown, known: Known) => (f.normalize && v !== undefined && v !== null ? f.normalize(v, known) : v);
  // A field with `paths` is shown as its leaves; every other as itself. Views are made for every resource of every
  // plan (three times each), so they are built by plain loops into one object, without intermediate arrays.
  const show = (into: View, name: string, f: FieldSpec<E>, v: unknown): void => {
    if (v === NOT_READ) return;
    if (f.paths) flatten(name, v, into);
    else into[name] = v;
  };
  const viewOf = (of: readonly [string, FieldSpec<E>][], a: A, known: Known): View => {
    const into: View = {};
    for (const [name, f] of of) {
      const v = value(a, name);
      if (v !== undefined) show(into, name, f, shown(f, v, known));
    }
    return into;
  };
  const desiredView = spec.desiredView ?? (({ attributes: a, known }: { attributes: A; known: Known }): View => viewOf(viewed, a, known));
  // A kind known only from state is seen as the attributes it last applied; one read back, as its live fields.
  const view =
    spec.view ??
    (({ live, known }: { live: L; known: Known }): View => {
      if (spec.observation === 'state') return desiredView({ attributes: (live as RecordedObject).inputs as A, known });
      const into: View = {};
      for (const [name, f] of observed) {
        const v = value(live as object, f.live ?? name);
        const read = f.fromLive ? f.fromLive(v, known) : v;
        show(into, name, f, read === NOT_READ ? read : shown(f, read, known));
      }
      return into;
    });
  return { view, desiredView, viewOf: viewOf as Views<A, L>['viewOf'] };
}

/** The diff: the spec's, or the desired view of the observed fields against the live view; `replace` fields force a replacement. */
function diffOf<A extends object, L, E>(spec: KindSpec<A, L, E>, named: Named<E>, observed: Named<E>, views: Views<A, L>) {
  const { view, desiredView, viewOf } = views;
  // Field names hold no dot: a path's first segment is its field.
  const observedNames = new Set(observed.map(([name]) => name));
  const replaceFields = named.filter(([, f]) => f.replace).map(([name]) => name);
  const derivedDiff = ({ desired, live, known, changedSecrets, observed: seen }: DiffRequest<A, L>): KindDiff => {
    const isObserved = (k: string) => observedNames.has(k.includes('.') ? k.slice(0, k.indexOf('.')) : k);
    // What a live object shows of the desired view: with the derived view, the view of the observed fields alone.
    const compared =
      named.length === 0
        ? desiredView({ attributes: desired.attributes, known })
        : spec.desiredView
          ? Object.fromEntries(Object.entries(spec.desiredView({ attributes: desired.attributes, known })).filter(([k]) => isObserved(k)))
          : viewOf(observed as readonly [string, FieldSpec<never>][], desired.attributes, known);
    const { ignoreChanges } = desired.lifecycle;
    const changes = diffViews(compared, seen ?? view({ live, known }), ignoreChanges);
    if (changedSecrets.length > 0) changes.push(...sensitiveChanges(changedSecrets, ignoreChanges));
    return { changes };
  };
  return (req: DiffRequest<A, L>): DiffResponse => {
    const facts = spec.diff ? spec.diff(req, () => derivedDiff(req)) : derivedDiff(req);
    const paths = facts.changes.map((c) => c.path);
    for (const change of facts.changes) if (replaceFields.includes(change.path)) change.forcesReplace = true;
    return { ...facts, changedKeys: paths, replaceKeys: facts.replaceKeys ?? paths.filter((p) => replaceFields.includes(p)) };
  };
}

/** An entry that is an object of the declared fields (then `lifecycle` and `dependsOn`, when it has them), and nothing else. */
function entrySchema<E>(
  fields: Readonly<Record<string, FieldSpec<E>>>,
  description: string | undefined,
  lifecycle: string | undefined,
  parentField: string | undefined,
): JsonSchema {
  const required = Object.entries(fields)
    .filter(([, f]) => f.required)
    .map(([name]) => name);
  const properties: Record<string, JsonSchema> = Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.schema]));
  const ignorable = Object.entries(fields)
    .filter(([name, f]) => name !== parentField && f.inView !== false)
    .flatMap(([name, f]) => [name, ...(f.paths ?? [])]);
  if (lifecycle !== undefined)
    Object.assign(properties, { lifecycle: lifecycleSchema(lifecycle, { enum: ignorable }), dependsOn: dependsOnSchema });
  return {
    ...(description !== undefined ? { description } : {}),
    type: 'object',
    additionalProperties: false,
    ...(required.length > 0 ? { required } : {}),
    properties,
  };
}
