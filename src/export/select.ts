/**
 * Which live objects an export writes, decided kind after kind in kind order from each definition's export
 * mapping: an object declared inside another is considered only when its parent is exported; the first
 * `skip` reason that holds leaves it out (and counts it); when `--project` narrows the export, a kind marked
 * `onlyReferencedWhenNarrowed` keeps only the objects exported objects refer to.
 */
import type { ResourceKind } from '../config/types.js';
import { exportKinds, exportedDefinitionOf, type ExportedSoFar } from '../providers/index.js';
import type { AccountObjects } from './account-objects.js';

export interface Selection {
  /** Ids of the exported objects by kind. */
  exported: Map<ResourceKind, Set<string>>;
  /** Objects left out, by the `count.key` of the reason (every counted reason, zero included). */
  skipped: Record<string, number>;
}

/** The id of `live`'s parent under `key` of its `parents` (LiveIdentity); the configuration parent's when `key` is not given. */
export function parentIdOf(kind: ResourceKind, live: unknown, key?: string): string | undefined {
  const { identify, relations, config } = exportedDefinitionOf(kind);
  const field = key ?? Object.entries(relations.parentIds ?? {}).find(([, parent]) => parent === config.parent?.kind)?.[0];
  return field === undefined ? undefined : identify({ live }).parents?.[field];
}

export function exportedObjects(live: AccountObjects, narrowed: boolean): Selection {
  const exported = new Map<ResourceKind, Set<string>>();
  const listed = new Map(
    exportKinds.map((kind) => [kind, new Set((live.objects[kind] ?? []).map((o) => exportedDefinitionOf(kind).identify({ live: o }).id))]),
  );
  const soFar: ExportedSoFar = {
    listed: (kind, id) => listed.get(kind)?.has(id) ?? false,
    exported: (kind, id) => exported.get(kind)?.has(id) ?? false,
    objects: (kind) => live.objects[kind] ?? [],
  };
  const skipped: Record<string, number> = {};
  for (const kind of exportKinds)
    for (const reason of exportedDefinitionOf(kind).export.skip ?? []) if (reason.count) skipped[reason.count.key] = 0;

  for (const kind of exportKinds) {
    const { export: mapping, identify, config } = exportedDefinitionOf(kind);
    const ids = new Set<string>();
    for (const object of live.objects[kind] ?? []) {
      if (config.parent && !soFar.exported(config.parent.kind, parentIdOf(kind, object) ?? '')) continue;
      const reason = (mapping.skip ?? []).find((s) => s.when(object, soFar));
      if (!reason) ids.add(identify({ live: object }).id);
      else if (reason.count) skipped[reason.count.key]! += 1;
    }
    exported.set(kind, ids);
  }

  if (narrowed) {
    const referenced = new Set<string>();
    for (const kind of exportKinds) {
      const { export: mapping, identify } = exportedDefinitionOf(kind);
      for (const object of live.objects[kind] ?? []) {
        if (!soFar.exported(kind, identify({ live: object }).id)) continue;
        for (const { kind: target, ids } of mapping.refersTo?.(object) ?? []) for (const id of ids) referenced.add(`${target}:${id}`);
      }
    }
    for (const kind of exportKinds.filter((k) => exportedDefinitionOf(k).export.onlyReferencedWhenNarrowed)) {
      exported.set(kind, new Set([...exported.get(kind)!].filter((id) => referenced.has(`${kind}:${id}`))));
    }
  }
  return { exported, skipped };
}
