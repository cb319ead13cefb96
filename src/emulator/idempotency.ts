/**
 * Idempotency-Key store: keyed by (principal, key), fingerprinted by method,
 * path and the exact body bytes. Kept 24 hours by the emulator clock. Only
 * final answers are stored (2xx and 4xx other than 429): a 429, 5xx or fault
 * may be retried with the same key and is then performed.
 *
 * Memory stays bounded: the fingerprint is kept as a SHA-256 hash, never the
 * request body (up to 1 MiB), and at most `maxEntries` answers are kept, the
 * oldest dropped first, so a burst of large keyed requests cannot grow it.
 */
import { createHash } from 'node:crypto';

export interface StoredAnswer {
  /** hashFingerprint() of the request. */
  fingerprint: string;
  status: number;
  body: string;
  storedAt: number;
}

export const RETENTION_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_MAX_ENTRIES = 10_000;

/** The hash that stands for a request's method, path, query and body bytes. */
export const hashFingerprint = (fingerprint: string): string => createHash('sha256').update(fingerprint).digest('base64url');

export class IdempotencyStore {
  // A Map iterates in insertion order, so its first entry is the oldest answer.
  private readonly answers = new Map<string, StoredAnswer>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  lookup(principal: string, key: string, nowMs: number): StoredAnswer | undefined {
    const id = `${principal}\n${key}`;
    const found = this.answers.get(id);
    if (found && nowMs - found.storedAt >= RETENTION_MS) {
      this.answers.delete(id);
      return undefined;
    }
    return found;
  }

  store(principal: string, key: string, answer: StoredAnswer): void {
    if (!storable(answer.status)) return;
    const id = `${principal}\n${key}`;
    this.answers.delete(id);
    this.answers.set(id, answer);
    if (this.answers.size % 1000 === 0) this.prune(answer.storedAt);
    while (this.answers.size > this.maxEntries) this.answers.delete(this.answers.keys().next().value!);
  }

  private prune(nowMs: number): void {
    for (const [id, answer] of this.answers) if (nowMs - answer.storedAt >= RETENTION_MS) this.answers.delete(id);
  }
}

export const storable = (status: number): boolean => (status >= 200 && status < 300) || (status >= 400 && status < 500 && status !== 429);
