/**
 * Reads everything an export needs from one account, with the planner's
 * kind definitions, so that export and plan see a live object the same way. Each kind
 * read per account is listed once; a kind that lives under a parent
 * (`relations.within`) is read per parent, in parallel bounded by the limiter,
 * and only for the parents export keeps. `--project` narrows the kind its
 * definition marks `selectedByName` and what belongs to it.
 */
import type { ApiClient } from '../api/client.js';
import { Limiter } from '../api/limiter.js';
import type { ResourceKind } from '../config/types.js';
import { exportedDefinitionOf, exportKinds, listVendors, type LookupResults, type ReadFailure, type RefreshRequest } from '../providers/index.js';
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

export async function readAccount(options: ReadAccountOptions): Promise<AccountObjects> {
  const { client, account } = options;
  const limiter = new Limiter(options.parallelism);
  // Nothing is known in advance about the size of a list, so each is read page after page.
  const request: RefreshRequest = { client, account, parentIds: [], limiter, shared: new Map(), expected: () => 0 };
  const perAccount = exportKinds.filter((kind) => !exportedDefinitionOf(kind).relations.within);
  // The data sources the mappings name objects of (Service Accounts) are read once each, with the first lists.
  const sources = [...new Set(exportKinds.flatMap((kind) => exportedDefinitionOf(kind).export.lookups ?? []))];
  const [vendors, found, ...lists] = await Promise.all([
    listVendors(client),
    Promise.all(sources.map((source) => source.read(client))),
    ...perAccount.map((kind) => exportedDefinitionOf(kind).refresh(request)),
  ]);
  const lookups: LookupResults = new Map(sources.map((source, i) => [source, found[i]!]));
  const objects = selectByName(Object.fromEntries(perAccount.map((kind, i) => [kind, lists[i]!.items])), options.projectNames);

  const perParent = exportKinds.filter((kind) => exportedDefinitionOf(kind).relations.within);
  const kept = exportedObjects({ account, vendors, lookups, objects }, false).exported;
  const read = await Promise.all(perParent.map((kind) => {
    const parentKind = parentKindOf(kind);
    const parentIds = [...(kept.get(parentKind) ?? [])].sort();
    return exportedDefinitionOf(kind).refresh({ ...request, parentIds });
  }));
  failOn(perParent, read.flatMap((r) => r.failures));
  perParent.forEach((kind, i) => (objects[kind] = read[i]!.items));
  return { account, vendors, lookups, objects };
}

function parentKindOf(kind: ResourceKind): ResourceKind {
  const { within, parentIds } = exportedDefinitionOf(kind).relations;
  return parentIds![within!.idField]!;
}

/**
 * The objects of the kind selected by name (--project; all when none is named), refusing a name the account
 * does not have, and of the other kinds only those that belong to a selected object.
 */
function selectByName(objects: Partial<Record<ResourceKind, readonly unknown[]>>, names: string[]): Partial<Record<ResourceKind, readonly unknown[]>> {
  const selected = exportKinds.find((kind) => exportedDefinitionOf(kind).export.selectedByName);
  if (names.length === 0 || selected === undefined) return objects;
  const { export: mapping, identify, config } = exportedDefinitionOf(selected);
  const all = objects[selected] ?? [];
  // The names a user may give: those of the objects export would keep, by the kind's own skip reasons
  // (archived projects are not offered), judged alone since nothing else is decided yet.
  const skipped = (live: unknown) => (mapping.skip ?? []).some((s) => s.when(live, { listed: () => true, exported: () => true, objects: (kind) => objects[kind] ?? [] }));
  const known = [...new Set(all.filter((live) => !skipped(live)).map((live) => mapping.name!(live)))].sort();
  for (const name of names) {
    if (!known.includes(name)) {
      const plural = `${config.noun.charAt(0).toUpperCase()}${config.noun.slice(1)}s`;
      throw new AbortError(
        `No ${config.noun} named "${name}" in this account.`,
        known.length > 0 ? `${plural}: ${known.join(', ')}. --${config.noun} takes a ${config.noun}'s name.` : `The account has no ${config.noun}s.`,
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

/** An export that silently left out what lives under a parent (a gateway's tokens) would look complete: refuse instead. */
function failOn(kinds: ResourceKind[], failures: ReadFailure[]): void {
  const first = failures[0];
  if (!first) return;
  const parentNoun = exportedDefinitionOf(parentKindOf(kinds.find((kind) => exportedDefinitionOf(kind).refreshOperations.includes(first.operation)) ?? kinds[0]!)).config.noun;
  throw new AbortError(
    `Could not read ${first.operation} of ${parentNoun} ${first.parentId ?? '?'}: ${first.reason}${first.requestId ? ` (request id ${first.requestId})` : ''}` +
      (failures.length > 1 ? `, and ${failures.length - 1} more read(s) failed` : '') + '. Nothing was written.',
    `Check that the token may call ${[...new Set(failures.map((f) => f.operation))].join(', ')} in this account.`,
  );
}
