/**
 * The record-value encryptor of an open state, for callers that pass
 * `encryptValue` explicitly. applyPlan uses the state's record key by default;
 * this exists for code written before the store exposed it (test/planner), and
 * can go once no caller passes `encryptValue`.
 */
import type { Template } from '../planner/types.js';
import type { StateStore } from '../state/index.js';

export function recordEncryptor(state: StateStore, _env?: NodeJS.ProcessEnv): (plaintext: string) => Template {
  return (plaintext) => state.encryptRecordValue(plaintext) as unknown as Template;
}
