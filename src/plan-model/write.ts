/**
 * A write as the plan carries it: the operation, templates for its path and
 * body, and what the applier records in state when it succeeds. The applier
 * resolves the placeholders and never needs to know a resource kind.
 */
import type { OperationName } from '../api/operations.js';

/**
 * A JSON value in which some objects are placeholders, resolved by the applier
 * just before the write is sent:
 * - `{ "$ref": ADDRESS }`: the remote id of ADDRESS, read from state (it may have been created earlier in this apply);
 * - `{ "$secret": FIELD }`: the plaintext of the step's write-only FIELD, read from its source in `PlanStep.secrets`;
 * - `{ "$encrypt": { field, record, version } }`: the same plaintext, encrypted on the client into an EncryptedValue
 *   (record values), bound to the record and the version the write makes.
 * Anything else is sent as it is.
 */
export type Template = null | boolean | number | string | Template[] | { [key: string]: Template };

export interface RefPlaceholder {
  $ref: string;
}

/** What the applier records in state when one write succeeds. */
export interface WriteEffects {
  /**
   * Where the remote id of the step's address comes from: a dotted path into the result, several joined with
   * "/" (an object the API names by two ids, as a record grant is named by the record and the reader), or
   * another address's id.
   */
  id?: { result: string } | { results: string[] } | RefPlaceholder;
  /** Parent ids to record: the key of `parents` -> the parent's id, or a `$ref` to the parent's address. */
  parents?: Record<string, RefPlaceholder | string>;
  /** One-time secret in the result to seal into state, e.g. `{ name: 'plaintext', result: 'plaintext' }`. */
  seal?: { name: string; result: string };
  /** Non-secret values of the answer to keep in state as `outputs`: name -> dotted path (e.g. `{ tokenPrefix: 'token_prefix' }`). */
  outputs?: Record<string, string>;
  /** The remote object is gone (deleted, archived, revoked): remove the address from state. */
  forget?: boolean;
  /** Sentences for people about the answer, shown when the write succeeds (never recorded in state). */
  notices?: ResultNotice[];
  /**
   * A renewal: when this write gives the address a new id, the object it had is kept in state as superseded,
   * to be revoked by a later apply once `overlapHours` have passed since the new object's creation time
   * (a dotted path into the result, read on the API's clock).
   */
  supersede?: { overlapHours: number; createdAt: string };
  /** This write revoked the superseded object with this id: it leaves the address's list of superseded objects. */
  settleSuperseded?: string;
  /**
   * Fields of the answer that must repeat the request: dotted path in the result -> the path parameter, or the
   * dotted path of the body, it must equal (a new token's `gateway_id` and `name`). An answer about another
   * object is an error, and nothing of it is recorded: its id would name an object this write did not make.
   */
  echoes?: Record<string, { path: string } | { body: string }>;
  /**
   * This write makes a new value version of a record from its `$encrypt` value: the dotted paths of the record's
   * id and of the version number in the answer. The apply keeps that version's data key, so wrapping it for the
   * record's readers later in the same apply needs no read of the record.
   */
  valueVersion?: { record: string; version: string };
}

/**
 * The input of a step (recorded in state when it completes) that holds the value version it wrote, for the object
 * whose id the `valueVersion` effect names: the key ring refuses a value older than it (applier/key-ring.ts).
 */
export const VALUE_VERSION_INPUT = 'valueVersion';

/**
 * Says `text`, with `{count}` replaced, when `count` > 0 items of the list at the dotted path `list` of the
 * answer have a true value at the dotted path `flag` (a group role's `changes[].rekey_queued`): the provider
 * words it, the applier only counts, so the applier never knows the kind.
 */
export interface ResultNotice {
  list: string;
  flag: string;
  text: string;
}

export interface PlannedWrite {
  /** Unique in the plan: `${address}#${index}` (the step's address and the write's place in it). */
  id: string;
  operation: OperationName;
  /** Path parameters (templates: usually a `$ref` or a literal id). */
  path: Record<string, Template>;
  body?: Template;
  /** Made at plan time and saved with the plan, so applying the same plan twice writes once. */
  idempotencyKey: string;
  effects: WriteEffects;
  /**
   * The address whose state entry the effects go to, when not the step's own: the old token a delivery replaced,
   * revoked by the receiving record's step only once the new one is delivered. Its write records no inputs or
   * fingerprints of the step.
   */
  address?: string;
  /** One line for people: `POST /projects (create project payments-staging)`. */
  summary: string;
}
