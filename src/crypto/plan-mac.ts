/**
 * The MAC of a saved plan file: HMAC-SHA256 over the canonical JSON of the
 * whole plan (its `auth` member aside), under a key derived from the state key,
 * which both the planning and the applying job hold. An edited plan (another
 * state URL, another write) no longer matches, so `cplane apply PLANFILE`
 * refuses it before it opens any connection.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../config/canonical-json.js';
import { deriveSubkey } from './state-key.js';

export function planMacKey(stateKey: Uint8Array): Uint8Array {
  return deriveSubkey(stateKey, 'plan file mac');
}

/** Hex MAC of `plan` (without its `auth` member). */
export function planMac(macKey: Uint8Array, plan: object): string {
  const { auth: _auth, ...rest } = plan as { auth?: unknown };
  return createHmac('sha256', macKey).update(`cplane/plan-file/v1\0${canonicalJson(rest)}`, 'utf8').digest('hex');
}

export function planMacMatches(macKey: Uint8Array, plan: object, mac: string): boolean {
  const expected = Buffer.from(planMac(macKey, plan));
  const actual = Buffer.from(mac);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
