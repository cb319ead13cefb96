/**
 * Placeholders: the objects of a write's template that the applier replaces just before the write is sent,
 * as one tagged union with one recogniser and one walker. Every part of cplane that looks for placeholders
 * (the applier, the planner's list of secrets a step uses, the saved-plan check) goes through `eachPlaceholder`
 * or `mapPlaceholders`; a new placeholder is one case here and one resolver in the applier's key ring.
 *
 * In the plan (JSON) a placeholder is an object with exactly one key, its tag: `{ "$ref": ADDRESS }`,
 * `{ "$secret": FIELD }`, `{ "$encrypt": { field, record, version } }`, and `{ "$wrap": { record, recipient, publicKey } }`.
 */
import type { Template } from './write.js';

export type Placeholder =
  /** The remote id of ADDRESS, read from state (it may have been created earlier in this apply). */
  | { tag: '$ref'; address: string }
  /** The plaintext of the step's write-only FIELD, read from its source in `PlanStep.secrets`. */
  | { tag: '$secret'; field: string }
  /**
   * The same plaintext, encrypted on the client into an EncryptedValue (record values), bound to the record (its
   * id or a `$ref` to its address) and the value version the write makes (crypto/record-value.ts).
   */
  | { tag: '$encrypt'; encrypt: EncryptTarget }
  /**
   * A record's current data key wrapped with HPKE for one reader (@cplane/sdk: packages/sdk/src/data-key-wrap.ts): the record by its
   * id or a `$ref` to its address, the recipient by the reader's id, and the reader's X25519 key (base64).
   */
  | { tag: '$wrap'; wrap: WrapTarget };

/** Whom a `$wrap` wraps the data key of which record for. */
export interface WrapTarget {
  record: string | { $ref: string };
  recipient: string;
  publicKey: string;
}

/** Which field's plaintext a `$encrypt` encrypts, and the place the value is bound to. */
export interface EncryptTarget {
  field: string;
  record: string | { $ref: string };
  version: number;
}

export type PlaceholderTag = Placeholder['tag'];

/** An object that looks like a placeholder but is not one (see placeholderOf). */
export interface MalformedPlaceholder {
  tag: 'malformed';
  key: PlaceholderTag;
  value: unknown;
}

/** Each tag and what its one string value is. */
const tags: { [T in PlaceholderTag]: (value: unknown) => Extract<Placeholder, { tag: T }> | undefined } = {
  $ref: (address) => (typeof address === 'string' ? { tag: '$ref', address } : undefined),
  $secret: (field) => (typeof field === 'string' ? { tag: '$secret', field } : undefined),
  $encrypt: (encrypt) => (isEncryptTarget(encrypt) ? { tag: '$encrypt', encrypt } : undefined),
  $wrap: (wrap) => (isWrapTarget(wrap) ? { tag: '$wrap', wrap } : undefined),
};

/** A record named by its id or by a `$ref` to its address. */
function isRecordTarget(record: unknown): boolean {
  return (
    typeof record === 'string' ||
    (record !== null &&
      typeof record === 'object' &&
      Object.keys(record).length === 1 &&
      typeof (record as { $ref?: unknown }).$ref === 'string')
  );
}

function isWrapTarget(value: unknown): value is WrapTarget {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { record, recipient, publicKey, ...rest } = value as Record<string, unknown>;
  return isRecordTarget(record) && typeof recipient === 'string' && typeof publicKey === 'string' && Object.keys(rest).length === 0;
}

function isEncryptTarget(value: unknown): value is EncryptTarget {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { field, record, version, ...rest } = value as Record<string, unknown>;
  return (
    typeof field === 'string' &&
    isRecordTarget(record) &&
    Number.isInteger(version) &&
    (version as number) >= 1 &&
    Object.keys(rest).length === 0
  );
}

/** The placeholders that take the plaintext of a write-only field. */
export function writeOnlyField(placeholder: Placeholder): string | undefined {
  if (placeholder.tag === '$secret') return placeholder.field;
  return placeholder.tag === '$encrypt' ? placeholder.encrypt.field : undefined;
}

const isTag = (key: string): key is PlaceholderTag => Object.hasOwn(tags, key);

/**
 * The placeholder a template node is, if any. An object that holds a tag among other keys, or a tag whose
 * value is not a string, is `malformed`: no plan made by cplane holds one, a saved plan that does is
 * refused, and the applier never sends one.
 */
export function placeholderOf(node: Template | undefined): Placeholder | MalformedPlaceholder | undefined {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const keys = Object.keys(node);
  const key = keys.find(isTag);
  if (key === undefined) return undefined;
  const value = node[key];
  return (keys.length === 1 ? tags[key](value) : undefined) ?? { tag: 'malformed', key, value };
}

/** Visits every placeholder of a template with where it is (`body.headers.X`, `path.id`). */
export function eachPlaceholder(
  template: Template | undefined,
  at: string,
  visit: (placeholder: Placeholder | MalformedPlaceholder, at: string) => void,
): void {
  if (template === undefined) return;
  const placeholder = placeholderOf(template);
  if (placeholder) visit(placeholder, at);
  else if (Array.isArray(template)) template.forEach((item, i) => eachPlaceholder(item, `${at}[${i}]`, visit));
  else if (template !== null && typeof template === 'object')
    for (const [key, value] of Object.entries(template)) eachPlaceholder(value, `${at}.${key}`, visit);
}

/** A copy of the template with every placeholder replaced by what `resolve` gives for it. */
export async function mapPlaceholders(
  template: Template,
  resolve: (placeholder: Placeholder | MalformedPlaceholder) => Promise<unknown>,
): Promise<unknown> {
  const placeholder = placeholderOf(template);
  if (placeholder) return resolve(placeholder);
  if (Array.isArray(template)) return Promise.all(template.map((item) => mapPlaceholders(item, resolve)));
  if (template !== null && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) out[key] = await mapPlaceholders(value, resolve);
    return out;
  }
  return template;
}
