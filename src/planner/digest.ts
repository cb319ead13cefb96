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

/** Fields that change with traffic, not with configuration: left out so that use of a token does not make a plan stale. */
const volatile = new Set(['last_used_at']);

/**
 * Digest of one batch of live objects of a kind, as the API sent them: one server writes its keys and lists
 * its objects in one order, so plain serialisation is stable, and cheap enough to run as each batch arrives.
 */
export function digestItems(kind: string, items: unknown[]): string {
  return sha256(`${kind}\n${JSON.stringify(items, kind === 'gateway_token' ? dropVolatile : undefined)}`);
}

function dropVolatile(key: string, value: unknown): unknown {
  return volatile.has(key) ? undefined : value;
}

/** Of all the live objects refresh read: the batch digests by kind, kinds in a fixed order. */
export function liveDigest(batches: Partial<Record<string, string[]>>): string {
  return sha256(Object.keys(batches).sort().map((kind) => `${kind}:${(batches[kind] ?? []).join(',')}`).join('\n'));
}
