/**
 * Errors of the state store. Each is an abort (the user's files or environment
 * need fixing, and the hint says how) with a stable `code` that tests and
 * callers branch on; the message wording may change, the codes do not.
 */
import { AbortError } from '../errors.js';
import { safeName, safeText } from '../text/safe-text.js';
import { suggestedCommand } from '../text/escape-for.js';

export type StateErrorCode =
  | 'STATE_NOT_FOUND'
  | 'STATE_CORRUPT'
  | 'STATE_TRUNCATED'
  | 'STATE_SCHEMA'
  | 'STATE_VERSION_FUTURE'
  | 'STATE_VERSION_UNKNOWN'
  | 'STATE_ACCOUNT_MISSING'
  | 'STATE_ACCOUNT_INVALID'
  | 'STATE_ACCOUNT_MISMATCH'
  | 'STATE_CHANGED'
  | 'STATE_READ_ONLY'
  | 'STATE_KEY_INVALID'
  | 'STATE_KEY_MISSING'
  | 'STATE_KEY_FILE_OPEN'
  | 'STATE_KEY_WRONG'
  | 'STATE_KEY_IN_REPO'
  | 'STATE_SEALED_VALUE'
  | 'STATE_LOCKED'
  | 'STATE_LOCK_STALE'
  | 'STATE_LOCK_UNREADABLE'
  | 'STATE_NOT_LOCKED'
  | 'STATE_LOCK_ID_MISMATCH'
  | 'STATE_JOURNAL_PENDING'
  | 'STATE_ADDRESS_UNKNOWN'
  | 'STATE_ADDRESS_EXISTS'
  | 'STATE_KIND_MISMATCH'
  | 'STATE_SYMLINK_BROKEN'
  | 'STATE_FS_READ_ONLY'
  | 'STATE_DISK_FULL'
  | 'STATE_PERMISSION'
  | 'STATE_LOCK_HOLDER_ALIVE'
  | 'STATE_URL_INVALID'
  | 'STATE_WORKSPACE_INVALID'
  | 'STATE_UNREACHABLE'
  | 'STATE_LOCK_LOST'
  | 'STATE_LINEAGE_MISMATCH'
  | 'STATE_SERIAL_BEHIND'
  | 'STATE_ENTRY_FORGED';

export class StateError extends AbortError {
  constructor(
    readonly code: StateErrorCode,
    message: string,
    hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, hint);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** What a lock file says about its holder. */
export interface LockInfo {
  id: string;
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  time: string;
  command: string;
  /** Who allowed the run (a saved plan's apply): recorded with every version it saves (`cplane state history`). */
  allowance?: Allowance;
  /** Held only for one write of an apply that holds its addresses: a writer that finds it waits a moment, whatever --lock-timeout says. */
  brief?: boolean;
}

/** Who allowed an apply: the plan applied (its digest), its pull request and commit, who ran it and who approved it. */
export interface Allowance {
  digest: string;
  pullRequest?: number;
  commit?: string;
  actor?: string;
  /** From a `/cplane apply` comment: who approved the pull request's head commit. */
  approvers?: string[];
}

/**
 * The lock's details as they may be printed: they come from a lock file or a database row that anyone with
 * write access can fill (`host` of `h\nError: FAKE` would forge a line), so every text is escaped and the
 * command line, which may hold a secret, redacted too.
 */
export function printableLock(info: LockInfo): LockInfo {
  return { id: safeName(info.id), pid: info.pid, host: safeName(info.host), time: safeName(info.time), command: safeText(info.command) };
}

/** Who holds a lock, as messages name it: the pull request and commit when the run applies one's plan, else its process. */
export function holderText(info: LockInfo): string {
  const shown = printableLock(info);
  const pr = info.allowance?.pullRequest;
  const commit = info.allowance?.commit;
  const process = `pid ${shown.pid} on ${shown.host}, running \`${shown.command}\` since ${shown.time}, lock id ${shown.id}`;
  if (pr === undefined && commit === undefined) return process;
  const change = [pr !== undefined ? `PR #${pr}` : undefined, commit ? `commit ${safeName(commit.slice(0, 12))}` : undefined]
    .filter(Boolean)
    .join(' at ');
  return `${change} (${process})`;
}

/** The state is locked by another run; `holder` says by whom, `stale` when that process is gone. */
export class StateLockedError extends StateError {
  constructor(
    readonly holder: LockInfo,
    readonly stale: boolean,
    lockPath: string,
  ) {
    const shown = printableLock(holder);
    const who = holderText(holder);
    super(
      stale ? 'STATE_LOCK_STALE' : 'STATE_LOCKED',
      stale ? `The state lock ${lockPath} is stale: its holder (${who}) is no longer running.` : `The state is locked by ${who}.`,
      stale
        ? `If no other cplane uses this state, clear the lock with \`${suggestedCommand(['force-unlock', shown.id])}\` (same --account/--state flags).`
        : `Wait for it to finish. If it is gone, clear the lock with \`${suggestedCommand(['force-unlock', shown.id])}\`.`,
    );
  }
}

/** One run's address locks: the addresses an apply holds for its whole run, and who holds them. */
export interface AddressHold {
  holder: LockInfo;
  addresses: string[];
}

/** How many held addresses a message names before it only counts the rest. */
const ADDRESSES_SHOWN = 5;

/**
 * Addresses an apply needs are held by other runs (`held`: each holder with the addresses it holds of those);
 * a holder of the whole state (`state mv`, an apply without a saved plan) holds every address. The first
 * holder is `holder`, so a waiter and `force-unlock` see it as they see a state lock.
 */
export class AddressesLockedError extends StateLockedError {
  constructor(
    readonly held: AddressHold[],
    location: string,
  ) {
    super(held[0]!.holder, false, location);
    const count = held.reduce((sum, h) => sum + h.addresses.length, 0);
    const parts = held.map((h) => {
      const shown = h.addresses.slice(0, ADDRESSES_SHOWN).map((a) => safeText(a));
      const more = h.addresses.length > shown.length ? ` and ${h.addresses.length - shown.length} more` : '';
      return `${shown.join(', ')}${more} by ${holderText(h.holder)}`;
    });
    this.message = `${count} address${count === 1 ? '' : 'es'} this command needs ${count === 1 ? 'is' : 'are'} held by another apply of ${location}: ${parts.join('; ')}. Nothing was written.`;
    (this as { hint?: string }).hint =
      `Wait for it to finish (\`--lock-timeout 10m\` waits for it). If it is gone, clear its locks with \`${suggestedCommand(['force-unlock', printableLock(held[0]!.holder).id])}\` (same --account/--state flags).`;
  }
}
