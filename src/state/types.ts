/**
 * What cplane remembers about one account between runs: which remote object
 * each address maps to, the inputs last applied, fingerprints of write-only
 * values, one-time secrets sealed with the state key, and the journal of writes
 * whose answer has not been recorded yet. No secret is ever stored in plaintext.
 */
import type { OperationName } from '../api/operations.js';
import type { ResourceKind } from '../config/types.js';
import type { WriteEffects } from '../plan-model/index.js';
import type { SealedValue } from '../crypto/seal.js';
import type { KdfParams } from '../crypto/state-key.js';

export type { SealedValue };

export interface ResourceState {
  kind: ResourceKind;
  /** Remote id (project_id, record_id, credential_id, gateway_id, token_id; for otel_export the gateway id). */
  id: string;
  /** Ids of parents needed to address the object: e.g. `{ gatewayId }` for a token, `{ projectId }` for a record. */
  parents?: Record<string, string>;
  /** Non-secret inputs last applied, as plain JSON. */
  inputs: Record<string, unknown>;
  /** HMAC-SHA256 (hex) of write-only values by field (`secret`, `value`, `headers.Authorization`), keyed by the state key. */
  fingerprints: Record<string, string>;
  /** Address the fingerprints were made for, when `cplane state mv` renamed the resource (fingerprints cannot be remade without the secret). */
  fingerprintAddress?: string;
  /**
   * Set when `cplane export --adopt` recorded the address: its write-only values were never seen, so a
   * missing fingerprint means "unknown" (not "changed") until an apply writes the value.
   */
  adoptedBy?: 'export';
  /** Non-secret values read from the API's answers, e.g. `tokenPrefix` of a gateway token: safe to show. */
  outputs?: Record<string, string>;
  /** One-time secrets by name (`plaintext` of a gateway token), sealed with the address as associated data. */
  sealed?: Record<string, SealedValue>;
  /**
   * Objects this address named before a renewal (write effect `supersede`), kept working during their overlap:
   * a later apply revokes each once `revocableAt` has passed. Part of the entry, so covered by its MAC.
   */
  superseded?: SupersededObject[];
  createdAt: string;
  updatedAt: string;
  /** HMAC-SHA256 (hex) of the entry under a key derived from the state key (entry-mac.ts); added by the store. */
  mac?: string;
}

export interface SupersededObject {
  id: string;
  parents?: Record<string, string>;
  /** Its non-secret outputs when it was superseded (e.g. `tokenPrefix`). */
  outputs?: Record<string, string>;
  /** ISO time (the API's clock) after which it may be revoked: the new object's creation plus the overlap. */
  revocableAt: string;
}

export interface JournalEntry {
  /** Unique id of the entry (a UUID). */
  id: string;
  /** Address of the plan step the write belongs to. */
  address: string;
  /** Id of the plan step (stable across a re-run of the same plan). */
  stepId: string;
  operation: OperationName;
  pathParams: Record<string, string>;
  idempotencyKey: string;
  /** Exact request body bytes (UTF-8 JSON): plain when it holds no secret, sealed otherwise. */
  body: { plain: string } | { sealed: SealedValue } | null;
  /** When the entry was first saved (ISO time); resends within 24 h keep the key's result. */
  createdAt: string;
  /** What to record in state when the write's answer arrives (so a resend after a crash can finish the job). */
  effects?: WriteEffects;
  /** Fingerprints of the write-only values in the body, recorded with the result. */
  fingerprints?: Record<string, string>;
  /** Kind of the address, to create its state entry if the write creates the object. */
  kind?: ResourceKind;
  /** Non-secret inputs of the step, recorded with the result when this write is the step's last. */
  inputs?: Record<string, unknown>;
  /** HMAC-SHA256 (hex) of the entry under a key derived from the state key (entry-mac.ts); added by the store. */
  mac?: string;
}

export interface StateData {
  version: 2;
  /** Account this state belongs to. A state is never used for another account. */
  account: string;
  /** Random id of this state's history; a state file from another lineage is refused. */
  lineage: string;
  /** Incremented on every save. */
  serial: number;
  resources: Record<string, ResourceState>;
  journal: JournalEntry[];
  /** Set in memory only, by the upgrade of a format-1 file: its sealed values are still bound to their address alone. */
  resealFrom?: 1;
}

export interface StateHeader {
  /** keyCheckOf(state key): a wrong key is detected before anything is opened. */
  keyCheck: string;
  /** Set when the key is derived from CPLANE_PASSPHRASE. */
  kdf?: KdfParams;
  /** `v1` once every entry carries a MAC (entry-mac.ts); a state written before has none until its next writer adds them. */
  entryMacs?: 'v1';
}

/** A whole state as stored: the data plus the header that recognises the key. */
export type StateFileContents = StateData & { header: StateHeader };
