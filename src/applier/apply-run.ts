/** What one apply is given, and what every step of it shares while it runs. */
import type { ApiClient } from '../api/client.js';
import type { Limiter } from '../api/limiter.js';
import type { Plan } from '../plan-model/index.js';
import type { StateStore } from '../state/index.js';
import type { ApplyEvent } from './events.js';
import type { KeyRing } from './template.js';

export interface ApplyOptions {
  plan: Plan;
  state: StateStore;
  client: ApiClient;
  /** Writes in flight at once (default 10); twice as many steps run, the others preparing their next write. */
  parallelism?: number;
  /** When aborted, no new write starts; writes in flight finish and are recorded. */
  signal?: AbortSignal;
  onEvent?: (event: ApplyEvent) => void;
  /** The apply-time resolvers of the placeholders that need a secret or a key (see `stateKeyRing`). */
  keyRing: KeyRing;
  now?: () => Date;
}

/** What every step of one apply shares. */
export interface ApplyRun {
  options: ApplyOptions;
  interrupted: () => boolean;
  /** The write slots: at most `parallelism` writes in flight. */
  sending: Limiter;
}

/** Thrown where a step stops because the apply was interrupted before its next write started. */
export class Interrupted extends Error {}
