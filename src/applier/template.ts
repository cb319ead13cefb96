/**
 * Resolution of the placeholders of a planned write (plan-model/placeholder.ts) just before it is sent,
 * with one walker: `$ref` becomes another address's remote id from state, and every placeholder that needs
 * a secret or a key is resolved by the key ring the applier is given (after undici's interceptors: what
 * happens at apply time is injected, not flagged). The plaintexts used are returned by field so their
 * fingerprints can be recorded; they are never put anywhere else.
 */
import type { ResourceState } from '../state/types.js';
import { mapPlaceholders, type Placeholder, type SecretSource, type Template } from '../plan-model/index.js';

/**
 * The apply-time resolvers, one per placeholder that needs a secret or a key. A new placeholder is one case
 * of `Placeholder` and one resolver here.
 */
export interface KeyRing {
  /** `$secret` (and the plaintext `$encrypt` encrypts): a write-only value read from its source. */
  secret(source: SecretSource): string | Promise<string>;
  /**
   * `$encrypt`: a record value encrypted on the client (a JSON object in the API's EncryptedValue shape), bound to
   * the record and version it is written as, with its fresh data key and its digest.
   */
  encrypt(plaintext: string, place: { recordId: string; version: number }): { value: unknown; dataKey: Uint8Array; digest: string };
  /** `$wrap`: the record's current data key wrapped for one reader (a `cplane-hpke2` wrapper string). */
  wrap(request: { recordId: string; recipientId: string; publicKey: string }): Promise<string>;
  /** Keeps the data key of a value version this apply wrote (a write's `valueVersion` effect) for the wraps that follow. */
  remember(written: WrittenValue): void;
}

/** A value version this apply encrypted: where it is bound, its data key and its digest. */
export interface WrittenValue {
  recordId: string;
  version: number;
  dataKey: Uint8Array;
  digest: string;
}

/** What one write's placeholders are resolved against: the ids in state, the step's secret sources, the key ring. */
export interface TemplateScope {
  resources: Record<string, ResourceState>;
  /** The step's write-only sources by field (`PlanStep.secrets`) and where the step is, for errors. */
  sources: Record<string, SecretSource>;
  address: string;
  keyRing: KeyRing;
}

/** A placeholder that cannot be resolved: a missing id, a field without a secret source, a malformed one. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

export interface Resolved {
  value: unknown;
  /** Plaintext of each write-only field used, by field name. */
  secrets: Map<string, string>;
  /** The `$encrypt` value the template holds, if any: its place, data key and digest. */
  written?: WrittenValue;
}

/** The remote id of an address, or a TemplateError saying why there is none. */
export function idOf(resources: Record<string, ResourceState>, address: string): string {
  const id = resources[address]?.id;
  if (!id) throw new TemplateError(`${address} has no remote id in state (it was not created, or its step failed)`);
  return id;
}

export async function resolveTemplate(template: Template, scope: TemplateScope): Promise<Resolved> {
  const secrets = new Map<string, string>();
  let written: WrittenValue | undefined;
  const plaintext = async (field: string): Promise<string> => {
    let value = secrets.get(field);
    if (value === undefined) {
      const source = scope.sources[field];
      if (!source) throw new TemplateError(`${scope.address}: the plan uses the write-only value ${field} but gives no source for it`);
      value = await scope.keyRing.secret(source);
      secrets.set(field, value);
    }
    return value;
  };
  const resolve = async (placeholder: Placeholder | { tag: 'malformed'; key: string }): Promise<unknown> => {
    switch (placeholder.tag) {
      case '$ref':
        return idOf(scope.resources, placeholder.address);
      case '$secret':
        return plaintext(placeholder.field);
      case '$encrypt': {
        const { field, record, version } = placeholder.encrypt;
        const recordId = typeof record === 'string' ? record : idOf(scope.resources, record.$ref);
        const encrypted = scope.keyRing.encrypt(await plaintext(field), { recordId, version });
        written = { recordId, version, dataKey: encrypted.dataKey, digest: encrypted.digest };
        return encrypted.value;
      }
      case '$wrap': {
        const { record, recipient, publicKey } = placeholder.wrap;
        const recordId = typeof record === 'string' ? record : idOf(scope.resources, record.$ref);
        return scope.keyRing.wrap({ recordId, recipientId: recipient, publicKey });
      }
      case 'malformed':
        throw new TemplateError(`${scope.address}: a malformed ${placeholder.key} placeholder cannot be resolved`);
    }
  };
  const value = await mapPlaceholders(template, resolve);
  return { value, secrets, ...(written ? { written } : {}) };
}

/** Path parameters: every value must resolve to a string without secrets. */
export async function resolvePathParams(path: Record<string, Template>, scope: TemplateScope): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(path)) {
    const { value, secrets } = await resolveTemplate(template, scope);
    if (typeof value !== 'string' || secrets.size > 0) throw new TemplateError(`path parameter ${name} does not resolve to an id`);
    out[name] = value;
  }
  return out;
}

/** Reads a dotted path (`plaintext`, `token.token_id`) from a write's result. */
export function readResultPath(result: unknown, path: string): unknown {
  let node = result;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}
