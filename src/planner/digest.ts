/**
 * Digests that let an apply tell whether a saved plan is stale: one of the
 * configuration (with the targets and mode the plan was made for) and one of
 * the live objects refresh read.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, configDigest, type DesiredState } from '../config/index.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function planConfigDigest(desired: DesiredState, targets: string[], mode: string): string {
  return sha256(canonicalJson({ config: configDigest(desired), targets: [...targets].sort(), mode }));
}

/**
 * Digest of one batch of live objects of a kind, as the API sent them: one server writes its keys and lists
 * its objects in one order, so plain serialisation is stable, and cheap enough to run as each batch arrives.
 * Fields that change with traffic, not with configuration (a provider's `volatileFields`), are left out so
 * that use of a token does not make a plan stale.
 */
export function digestItems(kind: string, items: unknown[], volatileFields: readonly string[] = []): string {
  const drop = volatileFields.length > 0 ? (key: string, value: unknown) => (volatileFields.includes(key) ? undefined : value) : undefined;
  return sha256(`${kind}\n${JSON.stringify(items, drop)}`);
}

/** Of all the live objects refresh read: the batch digests by kind, kinds in a fixed order. */
export function liveDigest(batches: Partial<Record<string, string[]>>): string {
  return sha256(Object.keys(batches).sort().map((kind) => `${kind}:${(batches[kind] ?? []).join(',')}`).join('\n'));
}
