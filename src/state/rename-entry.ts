/**
 * Renaming an address in state (`moved` blocks at apply, `cplane state mv`). Sealed values are bound to their
 * address, so they are opened under the old one and sealed under the new one; fingerprints cannot be made again
 * without the secret, so the entry keeps the address they were made for.
 */
import type { ResourceState, SealedValue } from './types.js';

export interface Resealer {
  seal(address: string, plaintext: string): SealedValue;
  open(address: string, sealed: SealedValue): string;
}

export function renamedEntry(keys: Resealer, entry: ResourceState, from: string, to: string): ResourceState {
  const renamed: ResourceState = { ...entry, fingerprintAddress: entry.fingerprintAddress ?? from };
  if (entry.sealed)
    renamed.sealed = Object.fromEntries(Object.entries(entry.sealed).map(([name, value]) => [name, keys.seal(to, keys.open(from, value))]));
  return renamed;
}
