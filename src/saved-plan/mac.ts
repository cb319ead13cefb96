/**
 * The MAC of a saved plan file: HMAC-SHA256 over the canonical JSON of the
 * whole plan (its `auth` member aside), under a key derived from the state key,
 * which both the planning and the applying job hold. An edited plan (another
 * state URL, another write) no longer matches, so `cplane apply PLANFILE`
 * refuses it before it opens any connection, and `cplane show` before it shows it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../config/canonical-json.js';
import { deriveSubkey, KeyError, resolveStateKey, type KdfParams } from '../crypto/index.js';
import { AbortError } from '../errors.js';
import type { Plan } from '../plan-model/index.js';
import type { StateCrypto } from '../state/index.js';
import { readPlanFile, REPLAN, writtenForm, type SavedPlan } from './read.js';

/** What the MAC key is derived from the state key for. */
const MAC_KEY_USE = 'plan file mac' as const;

export function planMacKey(stateKey: Uint8Array): Uint8Array {
  return deriveSubkey(stateKey, MAC_KEY_USE);
}

/** Hex MAC of `plan` (without its `auth` member). */
export function planMac(macKey: Uint8Array, plan: object): string {
  const { auth: _auth, ...rest } = plan as { auth?: unknown };
  return createHmac('sha256', macKey)
    .update(`cplane/plan-file/v1\0${canonicalJson(rest)}`, 'utf8')
    .digest('hex');
}

export function planMacMatches(macKey: Uint8Array, plan: object, mac: string): boolean {
  const expected = Buffer.from(planMac(macKey, plan));
  const actual = Buffer.from(mac);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * The plan as `cplane plan --out` saves it: with its MAC under the state's key, and the scrypt parameters when that
 * key comes from a passphrase, so the applying job derives the same key.
 */
export function withMac<P extends Plan>(plan: P, state: { crypto: StateCrypto; kdf: KdfParams | undefined }): P {
  const { kdf } = state;
  return { ...plan, auth: { mac: planMac(state.crypto.subkey(MAC_KEY_USE), plan), ...(kdf ? { kdf } : {}) } };
}

/**
 * Refuses a plan file that is not byte for byte (as canonical JSON) the plan `cplane plan --out` saved with
 * this state key: checked first, so an edited state URL or write never gets a connection opened for it.
 */
export function checkPlanMac(env: NodeJS.ProcessEnv, plan: SavedPlan, planPath: string): void {
  const refused = (why: string) =>
    new AbortError(
      `The saved plan ${planPath} ${why}. Nothing was applied, and no connection was opened.`,
      `Apply only a plan made by \`cplane plan --out\` with the same state key (CPLANE_STATE_KEY, or CPLANE_PASSPHRASE, as in the planning job). ${REPLAN}`,
    );
  if (!plan.auth) throw refused(NO_MAC);
  const check = planMacCheck(env, plan);
  if (check.status === 'no-key')
    throw new AbortError(`The saved plan ${planPath} cannot be checked: ${check.error.message} Nothing was applied.`, check.error.hint);
  if (check.status !== 'verified') throw refused(MAC_MISMATCH);
}

const NO_MAC = 'carries no MAC: it was made by an older cplane, or altered';
const MAC_MISMATCH = 'was changed since it was made, or made with another state key: its MAC does not match';

/** What the MAC of a saved plan says with the state key at hand: checked, absent, wrong, or no key to check it with. */
type MacCheck = { status: 'verified' | 'no-mac' | 'mismatch' } | { status: 'no-key'; error: KeyError };

function planMacCheck(env: NodeJS.ProcessEnv, plan: SavedPlan): MacCheck {
  let key: Uint8Array;
  try {
    // `existing`: never create a key file here; a passphrase key is derived with the plan's (authenticated) parameters.
    key = resolveStateKey(env, { existing: { kdf: plan.auth?.kdf } }).key;
  } catch (error) {
    if (error instanceof KeyError) return { status: 'no-key', error };
    throw error;
  }
  if (!plan.auth) return { status: 'no-mac' };
  return { status: planMacMatches(planMacKey(key), writtenForm(plan), plan.auth.mac) ? 'verified' : 'mismatch' };
}

/**
 * A saved plan read to be shown (`cplane show`, `cplane graph --plan`), never applied: its MAC is checked when the
 * state key is at hand, and a plan that fails the check is refused as apply refuses it. Without the key it is
 * shown all the same, with `unverified` saying why in one line, for the command to print.
 */
export async function readPlanToShow(env: NodeJS.ProcessEnv, planPath: string): Promise<{ plan: SavedPlan; unverified?: string }> {
  const plan = await readPlanFile(planPath);
  const check = planMacCheck(env, plan);
  const refused = (why: string) =>
    new AbortError(
      `The saved plan ${planPath} ${why}. It is not shown: what it says cannot be trusted.`,
      `Show only a plan made by \`cplane plan --out\` with this state key (CPLANE_STATE_KEY, or CPLANE_PASSPHRASE). ${REPLAN}`,
    );
  if (check.status === 'no-key')
    return {
      plan,
      unverified: `UNVERIFIED: no state key at hand (CPLANE_STATE_KEY, CPLANE_PASSPHRASE or the key file), so the MAC of ${planPath} was not checked: it may have been altered.`,
    };
  if (check.status === 'no-mac') throw refused(NO_MAC);
  if (check.status === 'mismatch') throw refused(MAC_MISMATCH);
  return { plan };
}

/**
 * A saved plan read to be merged into one report (`cplane plan --merge`), never applied: the report it makes is
 * what a reviewer reads, so the MAC must be checked, and a plan whose MAC cannot be checked (no state key at
 * hand) is refused as one that fails the check.
 */
export async function readPlanToMerge(env: NodeJS.ProcessEnv, planPath: string): Promise<SavedPlan> {
  const plan = await readPlanFile(planPath);
  const check = planMacCheck(env, plan);
  if (check.status === 'no-key')
    throw new AbortError(`The saved plan ${planPath} cannot be checked: ${check.error.message} Nothing was merged.`, check.error.hint);
  if (check.status !== 'verified') {
    throw new AbortError(
      `The saved plan ${planPath} ${check.status === 'no-mac' ? NO_MAC : MAC_MISMATCH}. Nothing was merged: what it says cannot be trusted.`,
      `Merge only plans made by \`cplane plan --all --out DIR\` with this state key (CPLANE_STATE_KEY, or CPLANE_PASSPHRASE, as in the planning jobs). ${REPLAN}`,
    );
  }
  return plan;
}
