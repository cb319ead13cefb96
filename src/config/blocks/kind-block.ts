/**
 * The configuration block of a resource kind, as data (after Terraform's `configschema.Block`): where its
 * entries sit in a file, how an entry becomes attributes (defaults filled), which write-only inputs it has,
 * and which other resources it refers to by local name (implied dependencies, checked to exist). The type
 * lives here, below providers/; each kind's block lives in its definition module in src/providers/, and the
 * caller of loadConfig hands the table in (`kinds`), so that config/ never names a kind.
 */
import type { ResourceKind, SecretSource } from '../../plan-model/kind.js';
import type { Attributes, Directory, DirectorySection } from '../types.js';

/** A JSON Schema as plain data (what schema/*.json hold). */
export type JsonSchema = { [keyword: string]: unknown };

/** A configuration entry as it is in the file (validated by the JSON Schema). */
export type Entry = Record<string, unknown>;

/** An attribute that names other resources by local name: each is an implied dependency and must be declared. */
export type ReferenceRule =
  | { attribute: string; kind: ResourceKind }
  /** A name declared in a section of the configuration's `directory:` (a user to share with): checked to exist, no dependency. */
  | { attribute: string; directory: DirectorySection };

/** `report`'s place for the entry's own value, when the entry is one value rather than a map of fields. */
export const VALUE = Symbol("the entry's value");

/** What `complete` may ask and report once every resource of every file is declared. */
export interface CompleteRequest<A extends object, E = Entry> {
  attributes: A;
  entry: E;
  /** The attributes of a declared resource (by kind and local name), if it is declared. */
  attributesOf(kind: ResourceKind, localName: string): Attributes | undefined;
  /**
   * A problem at `field` of the entry (its value, or the entry's key when the field is absent); `''` is the entry's
   * key, and `VALUE` the entry's own value, for an entry that is one value (the role of `platform: admin`).
   */
  report(field: string | typeof VALUE, diagnostic: { code: string; summary: string; detail?: string; underline?: string }): void;
  /** The configuration's `directory:` (users, groups and roles by name). */
  directory: Directory;
  /** How diagnostics name this entry: `gateway "prod"`. */
  owner: string;
}

/**
 * A one-time secret of an entry's object delivered as a write-only value of another declared resource (a
 * gateway token's plaintext written as a record's value: `deliverTo`). The loader checks the receiver is declared
 * and has no source of its own for that value, gives it the source `{ output: { address, name } }`, and makes it
 * depend on the deliverer (so its value is written after the secret is made).
 */
export interface Delivery {
  /** Where the entry names the receiver (the path of fields to it, e.g. deliverTo then its key), for diagnostics. */
  at: string[];
  kind: ResourceKind;
  localName: string;
  /** The receiver's write-only field that takes the secret (`value`). */
  field: string;
  /** The name of the deliverer's sealed one-time secret (`plaintext`). */
  output: string;
}

/**
 * A principal an entry's object acts on, declared by its kind: what objects of other kinds are ordered around
 * (planner/stages/principals.ts) and refused beside (`checkPrincipals` in build-desired.ts).
 */
export interface Touch {
  /** A user or group of the configuration's `directory:`, or a Service Account by the name the account lists it under. */
  principal: 'user' | 'group' | 'service_account';
  /** The attribute holding the principal's name. */
  attribute: string;
  /**
   * What the object does to it: `grants` gives it access to the object the kind lives under (its parent: the record
   * a user is shared, the project a group has a role on); `creates` makes it; `removes` deletes it.
   */
  as: 'grants' | 'creates' | 'removes';
}

/** `A`: the kind's attributes; `E`: its entry's type in the file (config-file.ts). */
export interface KindBlock<A extends object = Attributes, E = Entry> {
  kind: ResourceKind;
  /** The key holding the entries: a top-level key of a file (`gateways`), or a key inside the parent's entry (`tokens`). */
  key: string;
  /** For a kind declared inside another: the parent's kind and the attribute that gets the parent's local name. */
  parent?: { kind: ResourceKind; attribute: string };
  /** One object per parent (`otelExport: {...}`) rather than a map of them by name; it takes the parent's name. */
  single?: boolean;
  /**
   * The entries are the names of a list at the dotted path `key` inside the parent's entry
   * (`grants.serviceAccounts: [ci-deployer]`): each name is an entry `{ name }` of its own, at the name's place.
   * The parent's `schema` describes the list (the generator places no entry schema for such a block).
   */
  list?: boolean;
  /**
   * The JSON Schema of one entry, without the keys of the kinds declared inside it (the generator puts each
   * child's key before `lifecycle`). schema/config.schema.json is generated from it: `npm run schemas`.
   */
  schema: JsonSchema;
  /** For entries held in a map by local name (all but `single` blocks): what an editor shows on the map's key. */
  mapDescription?: string;
  /** How diagnostics name an entry, followed by its quoted local name: a noun, or `the OTel export of gateway` for a `single` block. */
  noun: string;
  /** The entry's attributes with defaults filled; `parentName` is the local name of the parent it is declared in. */
  attributes(entry: E, localName: string, parentName?: string): A;
  /** Write-only inputs by field (`secret`, `value`, `headers.NAME`); `file` paths as written (the loader resolves them). */
  secrets?(entry: E): Record<string, SecretSource>;
  references?: ReferenceRule[];
  /** Checks and defaults that need the other declared resources (run after all are declared). */
  complete?(req: CompleteRequest<A, E>): void;
  /** The resource this entry's one-time secret is delivered to, if any (see `Delivery`). */
  delivery?(attributes: A): Delivery | undefined;
  /** The principals its objects grant access, create or remove (see `Touch`). */
  touches?: readonly Touch[];
}
