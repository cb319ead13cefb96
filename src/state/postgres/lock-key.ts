/**
 * The advisory lock key of one state: 64 bits of SHA-256 over the schema,
 * account and workspace, so states in different schemas of one database never
 * share a lock (OpenTofu's pg backend once had one global key for creating workspaces).
 */
import { createHash } from 'node:crypto';

export interface LockKey {
  /** The bigint key as a decimal string, for `pg_try_advisory_lock($1::bigint)`. */
  key: string;
  /** How pg_locks shows it: classid is the high 32 bits, objid the low 32 bits (objsubid 1). */
  classid: string;
  objid: string;
}

export function lockKeyOf(schema: string, account: string, workspace: string): LockKey {
  const digest = createHash('sha256').update(`cplane-state\0${schema}\0${account}\0${workspace}`).digest();
  const unsigned = digest.readBigUInt64BE(0);
  return {
    key: BigInt.asIntN(64, unsigned).toString(),
    classid: (unsigned >> 32n).toString(),
    objid: (unsigned & 0xffffffffn).toString(),
  };
}
