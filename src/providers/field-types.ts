/**
 * A kind's TypeScript types computed from its field declarations, as api/operations.ts computes the wire's from
 * its schemas (and the paths inside an object field, at run time and as a type): the fields are declared `as const` (so each JSON Schema keeps its literal `type`, `enum`,
 * `properties` and `required`), and these mapped and conditional types read them. The entry type (what a
 * configuration file holds) and the attributes (what the planner compares) are never written by hand, so they
 * cannot drift from the schema the loader validates with: a field added, renamed or retyped changes both.
 */
import type { LifecycleConfig } from '../config/files/config-file.js';
import type { Entry } from '../config/blocks/kind-block.js';
import type { SecretSource } from '../config/types.js';
import type { FieldSpec } from './define-kind.js';

/** A kind's fields, for `as const satisfies Fields`: callbacks see the entry as it is in the file. */
export type Fields = Readonly<Record<string, FieldSpec<Entry>>>;

/**
 * The shared definitions of schema/config.schema.json a field may `$ref`, as types. An unknown `$ref` is `never`,
 * so a field that names one cannot be used until it is added here.
 */
interface SharedDefinitions {
  '#/$defs/secretSource': SecretSource;
  '#/$defs/localName': string;
  '#/$defs/renewBeforeDays': number | null;
  '#/$defs/overlapHours': number;
}

/** `{ a: 1 } & { b?: 2 }` shown as one object, as a person would write it. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The value a JSON Schema describes, for the keywords kinds use (`type`, `enum`, `items`, `properties`, `required`, `additionalProperties`, `$ref`, `if`/`then`/`else`). */
export type FromSchema<S> = S extends { $ref: infer R }
  ? R extends keyof SharedDefinitions
    ? SharedDefinitions[R]
    : never
  : S extends { if: unknown; then: infer Then; else: infer Else }
    ? FromSchema<Then> | FromSchema<Else>
    : S extends { enum: readonly (infer V)[] }
      ? V
      : S extends { type: readonly (infer T)[] }
        ? OfType<T, S>
        : S extends { type: infer T }
          ? OfType<T, S>
          : unknown;

type OfType<T, S> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? FromSchema<S extends { items: infer I } ? I : unknown>[]
          : T extends 'object'
            ? ObjectOf<S>
            : never;

type RequiredIn<S> = S extends { required: readonly (infer K)[] } ? K : never;

type ObjectOf<S> = S extends { properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredIn<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredIn<S> ? never : K]?: FromSchema<P[K]>;
      }
    >
  : S extends { additionalProperties: infer A extends object }
    ? Record<string, FromSchema<A>>
    : Record<string, unknown>;

type SchemaOf<F> = F extends { schema: infer S } ? FromSchema<S> : never;

/** An entry's fields as the file holds them: each its schema's type, optional unless `required`. */
export type FieldsEntry<F> = Simplify<
  { -readonly [K in keyof F as F[K] extends { required: true } ? K : never]: SchemaOf<F[K]> } & {
    -readonly [K in keyof F as F[K] extends { required: true } ? never : K]?: SchemaOf<F[K]>;
  }
>;

/** The paths a kind's `ignoreChanges` may name: every field shown in the plan (not the parent it names) and the paths inside it. */
export type IgnorablePath<F, Parent extends string = never> = {
  [K in keyof F]: K extends Parent
    ? never
    : F[K] extends { inView: false }
      ? never
      : K | (F[K] extends { paths: readonly (infer P)[] } ? P : never);
}[keyof F] &
  string;

/** An entry of a kind with a `lifecycle` block: its fields, `lifecycle` and `dependsOn` (define-kind.ts `entrySchema`). */
export type EntryOf<F, Parent extends string = never> = Simplify<
  FieldsEntry<F> & { lifecycle?: LifecycleConfig<IgnorablePath<F, Parent>>; dependsOn?: string[] }
>;

/** An attribute a field's `attribute` callback computes (present unless it can give undefined), or else its schema's type. */
type Computed<F> = F extends { attribute(...args: never[]): infer R } ? R : never;
type HasComputed<F> = F extends { attribute(...args: never[]): unknown } ? true : false;
/** Always present: given by default, required, or computed with no undefined. */
type AlwaysPresent<F> =
  HasComputed<F> extends true
    ? undefined extends Computed<F>
      ? false
      : true
    : F extends { default: unknown } | { required: true }
      ? true
      : false;
type AttributeOf<F> = HasComputed<F> extends true ? Exclude<Computed<F>, undefined> : SchemaOf<F>;
/** What a field's `carries` adds (a record's `grantsUntil`), each optional. */
type Carried<F> = { [K in keyof F]: F[K] extends { carries(...args: never[]): infer C } ? C : never }[keyof F];

/**
 * A kind's attributes from its fields: the parent's local name (`Parent`, for a kind declared inside its parent),
 * every field but the write-only ones, present when the entry must say it, has a default or a computed value,
 * and what the fields carry.
 */
export type AttributesOf<F, Parent extends string = never> = Simplify<
  { [K in Parent]: string } & {
    -readonly [K in keyof F as F[K] extends { writeOnly: true } ? never : AlwaysPresent<F[K]> extends true ? K : never]: AttributeOf<F[K]>;
  } & {
    -readonly [K in keyof F as F[K] extends { writeOnly: true } ? never : AlwaysPresent<F[K]> extends true ? never : K]?: AttributeOf<F[K]>;
  } & ([Carried<F>] extends [never] ? unknown : { [K in keyof Carried<F> & string]?: Exclude<Carried<F>[K], undefined> })
>;

/** The paths inside an object schema's properties, each before the paths inside it: `settings.cache`, `settings.cache.enabled`. */
export type PathsInside<Name extends string, S> = S extends { properties: infer P }
  ? { [K in keyof P & string]: `${Name}.${K}` | PathsInside<`${Name}.${K}`, P[K]> }[keyof P & string]
  : never;

/** The paths inside the field `name` whose schema is `schema` (a field's `paths`: what `ignoreChanges` may name inside it). */
export function pathsInside<Name extends string, S extends object>(name: Name, schema: S): readonly PathsInside<Name, S>[] {
  const properties = (schema as { properties?: Record<string, object> }).properties ?? {};
  return Object.entries(properties).flatMap(([key, inner]) => [`${name}.${key}`, ...pathsInside(`${name}.${key}`, inner)]) as PathsInside<
    Name,
    S
  >[];
}
