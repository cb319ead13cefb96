/**
 * Reads everything an export needs from one account, through the one reader of the account
 * (account/read-account.ts) with export's profile, so that export and plan see a live object the same way:
 * each kind read per account is listed once; a kind that lives under a parent (`relations.within`) is read
 * per parent, in parallel bounded by the limiter, and only for the parents export keeps; a refusal stops the
 * export. `--project` narrows the kind its definition marks `selectedByName` and what belongs to it.
 */
import type { ApiClient } from '../api/client.js';
import { exportProfile, readAccount as readLive } from '../account/index.js';
import type { ResourceKind } from '../config/types.js';
import { exportedDefinitionOf, exportKinds, vendors, type DataSource, type LookupResults } from '../providers/index.js';
import type { ProviderT } from '../api/shapes.js';
import { AbortError } from '../errors.js';
import type { AccountObjects } from './account-objects.js';
import { exportedObjects, parentIdOf } from './select.js';

export type { AccountObjects } from './account-objects.js';

export interface ReadAccountOptions {
  client: ApiClient;
  account: string;
  /** Project names to export; every project when empty. */
  projectNames: string[];
  /** Per-parent reads in flight at once. */
  parallelism: number;
}

type Objects = Partial<Record<ResourceKind, readonly unknown[]>>;

const perParent = exportKinds.filter((kind) => exportedDefinitionOf(kind).relations.within);

export async function readAccount(options: ReadAccountOptions): Promise<AccountObjects> {
  const { client, account } = options;
  // The per-account objects, narrowed by --project: decided once, when the per-account lists have arrived.
  let selected: { objects: Objects; kept: Map<ResourceKind, Set<string>> } | undefined;
  const select = (items: Objects, lookups: LookupResults) => {
    if (selected) return selected;
    const objects = selectByName(
      Object.fromEntries(exportKinds.filter((kind) => !perParent.includes(kind)).map((kind) => [kind, items[kind] ?? []])),
      options.projectNames,
    );
    const kept = exportedObjects({ account, vendors: vendorsOf(lookups), lookups, objects, now: client.serverNow() }, false).exported;
    return (selected = { objects, kept });
  };
  const profile = exportProfile((kind, read) => [...(select(read.items, read.lookups).kept.get(parentKindOf(kind)) ?? [])].sort());
  const read = await readLive(client, { account, parallelism: options.parallelism, profile });
  const objects: Objects = {
    ...select(read.items, read.lookups).objects,
    ...Object.fromEntries(perParent.map((kind) => [kind, read.items[kind] ?? []])),
  };
  return { account, vendors: vendorsOf(read.lookups), lookups: read.lookups, objects, now: read.now };
}

const vendorsOf = (lookups: LookupResults) => (lookups.get(vendors as DataSource<unknown>) ?? []) as ProviderT[];

function parentKindOf(kind: ResourceKind): ResourceKind {
  const { within, parentIds } = exportedDefinitionOf(kind).relations;
  return parentIds![within!.idField]!;
}

/**
 * The objects of the kind selected by name (--project; all when none is named), refusing a name the account
 * does not have, and of the other kinds only those that belong to a selected object.
 */
function selectByName(
  objects: Partial<Record<ResourceKind, readonly unknown[]>>,
  names: string[],
): Partial<Record<ResourceKind, readonly unknown[]>> {
  const selected = exportKinds.find((kind) => exportedDefinitionOf(kind).export.selectedByName);
  if (names.length === 0 || selected === undefined) return objects;
  const { export: mapping, identify, config } = exportedDefinitionOf(selected);
  const all = objects[selected] ?? [];
  // The names a user may give: those of the objects export would keep, by the kind's own skip reasons
  // (archived projects are not offered), judged alone since nothing else is decided yet.
  const skipped = (live: unknown) =>
    (mapping.skip ?? []).some((s) => s.when(live, { listed: () => true, exported: () => true, objects: (kind) => objects[kind] ?? [] }));
  const known = [...new Set(all.filter((live) => !skipped(live)).map((live) => mapping.name!(live)))].sort();
  for (const name of names) {
    if (!known.includes(name)) {
      const plural = `${config.noun.charAt(0).toUpperCase()}${config.noun.slice(1)}s`;
      throw new AbortError(
        `No ${config.noun} named "${name}" in this account.`,
        known.length > 0
          ? `${plural}: ${known.join(', ')}. --${config.noun} takes a ${config.noun}'s name.`
          : `The account has no ${config.noun}s.`,
      );
    }
  }
  const kept = all.filter((live) => names.includes(mapping.name!(live)));
  const ids = new Set(kept.map((live) => identify({ live }).id));
  const out: Partial<Record<ResourceKind, readonly unknown[]>> = { ...objects, [selected]: kept };
  for (const kind of exportKinds) {
    const key = Object.entries(exportedDefinitionOf(kind).relations.parentIds ?? {}).find(([, parent]) => parent === selected)?.[0];
    if (key !== undefined) out[kind] = (objects[kind] ?? []).filter((live) => ids.has(parentIdOf(kind, live, key) ?? ''));
  }
  return out;
}
