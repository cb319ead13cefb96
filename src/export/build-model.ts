/**
 * From the live objects of an account to the configuration that reproduces them, reading each kind's export
 * mapping (ExportMapping in providers/types.ts) instead of naming kinds: which objects are written and which
 * are left out and counted (select.ts), their local names, their entries (account ids become references by
 * local name, AI vendor ids vendor names, write-only values `{ env: NAME }` placeholders), nested as the
 * configuration nests them and grouped into files. Pure: the same live account always gives the same model.
 */
import type { Entry } from '../config/index.js';
import type { ResourceKind } from '../config/types.js';
import { childAddress, resourceAddress } from '../plan-model/index.js';
import { exportedDefinitionOf, exportKinds, kindsDeclaredIn, knownOf, type ExportEntryRequest } from '../providers/index.js';
import { assignLocalNames, compare, upperSnake } from './local-names.js';
import type { AccountObjects } from './account-objects.js';
import { exportedObjects, parentIdOf } from './select.js';

/** A write-only value the folder refers to by environment variable. */
export interface Placeholder {
  env: string;
  /** For people: `the API key of credential openai-prod`. */
  what: string;
}

/** The live object behind each address, for `--adopt`. */
export interface Adoption {
  address: string;
  kind: ResourceKind;
  live: unknown;
}

/** One exported object: its configuration entry and the objects declared inside it. */
export interface ExportedEntry {
  kind: ResourceKind;
  /** Its local name; for a `single` block, its parent's. */
  local: string;
  address: string;
  entry: Entry;
  live: unknown;
  /** Comments for people above fields of the entry. */
  comments: { field: string; text: string }[];
  /** Notes for people above the entry's key. */
  notes: string[];
  /** The objects declared inside it, kind by kind (one-per-parent kinds first), each sorted by local name. */
  children: ExportedEntry[];
}

/** One file of the folder: the top-level entries it holds, in the order written. */
export interface ExportedFile {
  name: string;
  /** The file's opening comment. */
  description: string[];
  entries: ExportedEntry[];
}

/**
 * A principal the exported grants name that only the configuration's `directory:` declares (a user or group):
 * its local name is made from its id, and its public key, which no operation returns, is left to fill in
 * through the environment variable `env` (written `publicKey: ${env.NAME}`, so validate refuses the folder
 * until it is set: export never invents a key).
 */
/**
 * A user or group the exported records are shared with. Its id and public key are each another account's in the
 * next one, so the folder reads both from variables (`idVar`, `keyVar`) that every account applied to gives.
 */
export interface DirectoryEntry {
  section: 'users' | 'groups';
  local: string;
  /** The id in the exported account (the value of `idVar` there; never written in the folder). */
  id: string;
  idVar: string;
  keyVar: string;
  /** `user`, `group`: for people. */
  noun: string;
}

export interface ExportModel {
  /** The files that hold entries, in the order written (main.yaml, which holds none, is not one of them). */
  files: ExportedFile[];
  /** The `directory:` entries the exported objects need, written in main.yaml (sorted by section, then local name). */
  directory: DirectoryEntry[];
  /** The readers' keys to pin in `directory.serviceAccounts`, by name (sorted). */
  pins: { name: string; keyId: string }[];
  placeholders: Placeholder[];
  /** Every exported object, in the order of the files. */
  adoptions: Adoption[];
  /** Objects left out, by the `count.key` of the reason (a definition's `export.skip`). */
  skipped: Record<string, number>;
}

export interface BuildOptions {
  /** Export only what exported objects refer to, for the kinds that say so (set when --project narrows the export). */
  onlyUsedCredentials: boolean;
}

/** What every step of building the model reads: the account, its exported objects and the facts of the API. */
interface ModelInput {
  live: AccountObjects;
  known: ReturnType<typeof knownOf>;
  idOf: (kind: ResourceKind, object: unknown) => string;
  /** The exported objects of a kind. */
  objectsOf: (kind: ResourceKind) => unknown[];
}

export function buildModel(live: AccountObjects, options: BuildOptions): ExportModel {
  const { exported, skipped } = exportedObjects(live, options.onlyUsedCredentials);
  const idOf = (kind: ResourceKind, object: unknown) => exportedDefinitionOf(kind).identify({ live: object }).id;
  const input: ModelInput = {
    live,
    known: knownOf({ account: live.account, lookups: live.lookups, clocks: { api: live.now, forEnds: live.now } }),
    idOf,
    objectsOf: (kind) => (live.objects[kind] ?? []).filter((object) => exported.get(kind)!.has(idOf(kind, object))),
  };
  const envNames = new EnvNames();
  const directory = directoryEntries(input.objectsOf);
  const names = localNamesOf(input, directory);
  // Entries are made in kind order, so placeholders are taken in it (a clash gets `_2` in that order).
  const entriesOf = entryMaker(input, names, envNames);
  const topLevel = new Map(
    exportKinds.filter((kind) => !exportedDefinitionOf(kind).config.parent).map((kind) => [kind, entriesOf(kind)] as const),
  );
  for (const entries of topLevel.values()) for (const entry of entries) nest(entry);

  const files = filesOf(topLevel);
  const adoptions = files
    .flatMap((file) => file.entries.flatMap(flatten))
    .map(({ address, kind, live: object }) => ({ address, kind, live: object }));
  return { files, directory, pins: readerPins(input), placeholders: envNames.all(), adoptions, skipped };
}

/** The readers' keys to pin, by name (sorted), from the kinds whose export says which key a reader uses. */
function readerPins({ objectsOf, known }: ModelInput): ExportModel['pins'] {
  const pins = new Map<string, string>();
  for (const kind of exportKinds) {
    const pin = exportedDefinitionOf(kind).export.pin;
    for (const object of pin ? objectsOf(kind) : []) {
      const found = pin!(object, known);
      if (found) pins.set(found.name, found.keyId);
    }
  }
  return [...pins].sort((a, b) => compare(a[0], b[0])).map(([name, keyId]) => ({ name, keyId }));
}

/**
 * Local names, among the exported objects of one scope: the account for a top-level kind, the parent for the
 * others. An object of a list block is named as its parent's list names it.
 */
function localNamesOf(
  { objectsOf, idOf, known }: ModelInput,
  directory: readonly DirectoryEntry[],
): Map<ResourceKind, Map<string, string>> {
  const directoryName = (section: DirectoryEntry['section'], id: string) =>
    directory.find((d) => d.section === section && d.id === id)!.local;
  const names = new Map<ResourceKind, Map<string, string>>();
  for (const kind of exportKinds) {
    const { config, export: mapping } = exportedDefinitionOf(kind);
    if (config.list) {
      const listed = (object: unknown) =>
        mapping.directory ? directoryName(mapping.directory.section, mapping.directory.id(object)) : mapping.listItem!(object, known);
      names.set(kind, new Map(objectsOf(kind).map((object) => [idOf(kind, object), listed(object)])));
      continue;
    }
    const kindNames = new Map<string, string>();
    const byScope = new Map<string, unknown[]>();
    for (const object of objectsOf(kind)) {
      const scope = config.parent ? (parentIdOf(kind, object) ?? '') : '';
      byScope.set(scope, [...(byScope.get(scope) ?? []), object]);
    }
    for (const [scope, objects] of byScope) {
      if (config.single) {
        for (const object of objects) kindNames.set(idOf(kind, object), names.get(config.parent!.kind)!.get(scope)!);
        continue;
      }
      const named = assignLocalNames(
        objects.map((object) => ({ id: idOf(kind, object), name: mapping.name!(object) })),
        config.noun,
      );
      for (const [id, name] of named) kindNames.set(id, name);
    }
    names.set(kind, kindNames);
  }
  return names;
}

/** The entries of a kind (inside `parent`, for a declared-inside kind), each with the entries declared inside it. */
function entryMaker(
  { live, known, idOf, objectsOf }: ModelInput,
  names: ReadonlyMap<ResourceKind, ReadonlyMap<string, string>>,
  envNames: EnvNames,
): (kind: ResourceKind, parent?: { id: string; address: string }) => ExportedEntry[] {
  const nameOf = (kind: ResourceKind, id: string) => names.get(kind)?.get(id);
  const vendorName = (id: string) => live.vendors.find((p) => p.provider_id === id)?.name ?? id;
  const entriesOf = (kind: ResourceKind, parent?: { id: string; address: string }): ExportedEntry[] => {
    const { config, export: mapping } = exportedDefinitionOf(kind);
    const objects = objectsOf(kind).filter((object) => !parent || parentIdOf(kind, object) === parent.id);
    return objects
      .map((object) => {
        const id = idOf(kind, object);
        const local = nameOf(kind, id)!;
        const address = !parent
          ? resourceAddress(kind, local)
          : config.single
            ? childAddress(parent.address, kind)
            : childAddress(parent.address, kind, local);
        const made: ExportedEntry = { kind, local, address, entry: {}, live: object, comments: [], notes: [], children: [] };
        const request: ExportEntryRequest<unknown> = {
          live: object,
          local,
          nameOf,
          vendorName,
          known,
          placeholder: (parts, what) => ({ env: envNames.take(parts.map(upperSnake).join('_'), what) }),
          comment: (field, text) => made.comments.push({ field, text }),
          note: (text) => made.notes.push(text),
        };
        made.entry = mapping.entry(request) as Entry;
        made.children = kindsDeclaredIn(kind)
          .filter((child) => exportKinds.includes(child))
          .flatMap((child) => entriesOf(child, { id, address }));
        return made;
      })
      .sort((a, b) => compare(a.local, b.local));
  };
  return entriesOf;
}

/**
 * Puts each child's entry into its parent's, under the child block's key (`records: { name: ... }`, or
 * `otelExport: ...` for a `single` block); a list block's child is its name in the list at the dotted key
 * (`grants: { serviceAccounts: [name] }`).
 */
function nest(parent: ExportedEntry): void {
  for (const child of parent.children) {
    nest(child);
    const { key, single, list } = exportedDefinitionOf(child.kind).config;
    if (list) {
      const path = key.split('.');
      let holder = parent.entry as Record<string, unknown>;
      for (const part of path.slice(0, -1)) holder = (holder[part] ??= {}) as Record<string, unknown>;
      ((holder[path.at(-1)!] ??= []) as string[]).push(child.local);
    } else if (single) parent.entry[key] = child.entry;
    else ((parent.entry[key] ??= {}) as Record<string, Entry>)[child.local] = child.entry;
  }
}

/**
 * One directory entry per principal the exported objects name (kinds whose mapping has `directory`), named
 * from its id (`user-0b000000-0000-4000-8000-000000000003`; the id is the account's text, so only its slug is used), with the
 * variables its id and public key are read from (`user_0b000000_…_id`, `…_public_key`): local names are slugs and
 * unique in their section, and the section starts the name, so the variables are unique too.
 */
function directoryEntries(objectsOf: (kind: ResourceKind) => unknown[]): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  for (const section of ['users', 'groups'] as const) {
    const ids = new Map<string, string>();
    for (const kind of exportKinds) {
      const wanted = exportedDefinitionOf(kind).export.directory;
      if (wanted?.section === section) for (const object of objectsOf(kind)) ids.set(wanted.id(object), wanted.noun);
    }
    const named = assignLocalNames(
      [...ids].map(([id, noun]) => ({ id, name: `${noun}-${id}` })),
      section === 'users' ? 'user' : 'group',
    );
    for (const [id, local] of [...named].sort((a, b) => compare(a[1], b[1]))) {
      const noun = ids.get(id)!;
      const prefix = upperSnake(local).toLowerCase();
      entries.push({ section, local, id, idVar: `${prefix}_id`, keyVar: `${prefix}_public_key`, noun });
    }
  }
  return entries;
}

function flatten(entry: ExportedEntry): ExportedEntry[] {
  return [entry, ...entry.children.flatMap(flatten)];
}

/**
 * The files, as each top-level kind's `export.file` says: first the kinds written in one file of their own
 * (`credentials.yaml`), when they have entries; then one file per entry of a kind written so
 * (`project-<name>.yaml`), which also holds the entries of the kinds that go `with` it.
 */
function filesOf(topLevel: Map<ResourceKind, ExportedEntry[]>): ExportedFile[] {
  const files: ExportedFile[] = [];
  for (const [kind, entries] of topLevel) {
    const { export: mapping, config } = exportedDefinitionOf(kind);
    if (mapping.file && 'description' in mapping.file && entries.length > 0)
      files.push({ name: `${config.key}.yaml`, description: mapping.file.description, entries });
  }
  for (const [kind, entries] of topLevel) {
    const file = exportedDefinitionOf(kind).export.file;
    if (!file || !('perEntry' in file)) continue;
    for (const entry of entries) {
      const belonging = [...topLevel].flatMap(([other, list]) => {
        const goes = exportedDefinitionOf(other).export.file;
        return goes && 'with' in goes && goes.with.kind === kind ? list.filter((e) => e.entry[goes.with.attribute] === entry.local) : [];
      });
      files.push({ name: `${kind}-${entry.local}.yaml`, description: file.perEntry(entry.local), entries: [entry, ...belonging] });
    }
  }
  return files;
}

/** Environment variable names for placeholders, unique in the folder (a clash gets `_2`, `_3`, ... in the order taken). */
class EnvNames {
  private readonly taken = new Map<string, Placeholder>();

  take(wanted: string, what: string): string {
    let env = wanted;
    for (let n = 2; this.taken.has(env); n++) env = `${wanted}_${n}`;
    this.taken.set(env, { env, what });
    return env;
  }

  all(): Placeholder[] {
    return [...this.taken.values()].sort((a, b) => compare(a.env, b.env));
  }
}
