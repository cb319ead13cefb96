/**
 * Address locks (docs/state.md, "Locks"): an apply of a saved plan holds the addresses it changes, and those its
 * writes read, for its whole run, so applies on disjoint addresses run at the same time. What the backends share
 * is here: which holds conflict with a request, and the file record beside a file state. The record was written
 * by anyone who can write the state's folder: it is read as untrusted (checked, escaped when printed); it can
 * only make an apply wait, never make one write.
 */
import { readFile } from 'node:fs/promises';
import type { AddressHold, LockInfo } from './errors.js';
import { StateError } from './errors.js';
import { isErrno } from './file-errors.js';

/** A request for address locks, and what the backend did with holders that were gone. */
export interface AddressLockResult {
  /** Holders that were gone (a dead process on this host, an ended database session) and whose addresses were taken over. */
  takenOver: AddressHold[];
}

/** The holds of others that overlap `wanted`, each with only the addresses it shares. */
export function conflictsOf(holds: readonly AddressHold[], wanted: readonly string[], myId: string): AddressHold[] {
  const mine = new Set(wanted);
  return holds
    .filter((h) => h.holder.id !== myId)
    .map((h) => ({ holder: h.holder, addresses: h.addresses.filter((a) => mine.has(a)) }))
    .filter((h) => h.addresses.length > 0);
}

const MAX_HOLDS = 10_000;
const MAX_ADDRESSES = 100_000;

/** A holder as cplane writes it, or undefined (a forged or damaged one). */
export function checkedLockInfo(value: unknown): LockInfo | undefined {
  const v = value as Partial<LockInfo> | null;
  if (typeof v !== 'object' || v === null) return undefined;
  if (typeof v.id !== 'string' || typeof v.pid !== 'number' || typeof v.host !== 'string') return undefined;
  if (typeof v.time !== 'string' || typeof v.command !== 'string') return undefined;
  const a = v.allowance;
  const allowance =
    a && typeof a === 'object' && typeof a.digest === 'string'
      ? {
          digest: a.digest,
          ...(Number.isSafeInteger(a.pullRequest) ? { pullRequest: a.pullRequest } : {}),
          ...(typeof a.commit === 'string' ? { commit: a.commit } : {}),
        }
      : undefined;
  return { id: v.id, pid: v.pid, host: v.host, time: v.time, command: v.command, ...(allowance ? { allowance } : {}) };
}

/** The holds a record holds, checked; STATE_LOCK_UNREADABLE when it is not one cplane writes. */
export function parseAddressRecord(text: string, path: string): AddressHold[] {
  const unreadable = () =>
    new StateError(
      'STATE_LOCK_UNREADABLE',
      `The address locks ${path} cannot be read: it is not a record cplane writes.`,
      `If no cplane apply is running, delete ${path} by hand.`,
    );
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    throw unreadable();
  }
  const holds = (record as { holds?: unknown } | null)?.holds;
  if (!Array.isArray(holds) || holds.length > MAX_HOLDS) throw unreadable();
  return holds.map((h: unknown) => {
    const hold = h as { holder?: unknown; addresses?: unknown } | null;
    const holder = checkedLockInfo(hold?.holder);
    const addresses = hold?.addresses;
    const ok = Array.isArray(addresses) && addresses.length <= MAX_ADDRESSES && addresses.every((a) => typeof a === 'string');
    if (!holder || !ok) throw unreadable();
    return { holder, addresses: addresses as string[] };
  });
}

/** The holds in the record at `path`; none when there is no record. */
export async function readAddressRecord(path: string): Promise<AddressHold[]> {
  try {
    return parseAddressRecord(await readFile(path, 'utf8'), path);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return [];
    throw error;
  }
}

export function serializeAddressRecord(holds: readonly AddressHold[]): string {
  return `${JSON.stringify({ holds })}\n`;
}

/** Rows of (holder, address), as a database returns them, grouped into holds by lock id. */
export function holdsOfRows(rows: readonly { holder: unknown; address: string }[]): AddressHold[] {
  const byId = new Map<string, AddressHold>();
  for (const row of rows) {
    const holder = checkedLockInfo(row.holder) ?? { id: 'unknown', pid: 0, host: 'unknown', time: 'unknown', command: 'unknown' };
    const hold = byId.get(holder.id) ?? { holder, addresses: [] };
    hold.addresses.push(row.address);
    byId.set(holder.id, hold);
  }
  return [...byId.values()];
}
