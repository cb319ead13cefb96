/**
 * Resolution of the placeholders in a planned write (see Template in
 * planner/types.ts) just before it is sent: `$ref` becomes another address's
 * remote id from state, `$secret` the plaintext from the step's secret source,
 * `$encrypt` that plaintext encrypted into an EncryptedValue. The plaintexts
 * used are returned by field so their fingerprints can be recorded; they are
 * never put anywhere else.
 */
import type { ResourceState } from '../state/types.js';
import type { Template } from '../plan-model/index.js';

export interface TemplateContext {
  resources: Record<string, ResourceState>;
  /** Plaintext of the step's write-only FIELD, from its source. */
  secret(field: string): Promise<string>;
  /** Client-side encryption of a record value (a JSON object in the API's EncryptedValue shape). */
  encrypt(plaintext: string): Template;
}

/** A placeholder that cannot be resolved: a missing id, or a field without a secret source. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

export interface Resolved {
  value: unknown;
  /** Plaintext of each write-only field used, by field name. */
  secrets: Map<string, string>;
}

type Placeholder = { $ref: string } | { $secret: string } | { $encrypt: string };

function placeholderOf(template: Template): Placeholder | undefined {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) return undefined;
  const keys = Object.keys(template);
  if (keys.length !== 1) return undefined;
  const [key] = keys;
  if ((key === '$ref' || key === '$secret' || key === '$encrypt') && typeof template[key] === 'string') return template as Placeholder;
  return undefined;
}

/** The remote id of an address, or a TemplateError saying why there is none. */
export function idOf(resources: Record<string, ResourceState>, address: string): string {
  const id = resources[address]?.id;
  if (!id) throw new TemplateError(`${address} has no remote id in state (it was not created, or its step failed)`);
  return id;
}

export async function resolveTemplate(template: Template, context: TemplateContext): Promise<Resolved> {
  const secrets = new Map<string, string>();
  const plaintext = async (field: string): Promise<string> => {
    let value = secrets.get(field);
    if (value === undefined) {
      value = await context.secret(field);
      secrets.set(field, value);
    }
    return value;
  };
  const walk = async (node: Template): Promise<unknown> => {
    const placeholder = placeholderOf(node);
    if (placeholder) {
      if ('$ref' in placeholder) return idOf(context.resources, placeholder.$ref);
      if ('$secret' in placeholder) return plaintext(placeholder.$secret);
      return context.encrypt(await plaintext(placeholder.$encrypt));
    }
    if (Array.isArray(node)) return Promise.all(node.map(walk));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) out[key] = await walk(value);
      return out;
    }
    return node;
  };
  return { value: await walk(template), secrets };
}

/** Path parameters: every value must resolve to a string without secrets. */
export async function resolvePathParams(path: Record<string, Template>, context: TemplateContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(path)) {
    const { value, secrets } = await resolveTemplate(template, context);
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
