/**
 * Idempotency-Key store: keyed by (principal, key), fingerprinted by method,
 * path and the exact body bytes. Kept 24 hours by the emulator clock. Only
 * final answers are stored (2xx and 4xx other than 429): a 429, 5xx or fault
 * may be retried with the same key and is then performed.
 */
export interface StoredAnswer {
  fingerprint: string;
  status: number;
  body: string;
  storedAt: number;
}

export const RETENTION_MS = 24 * 60 * 60 * 1000;

export class IdempotencyStore {
  private readonly answers = new Map<string, StoredAnswer>();

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
    this.answers.set(`${principal}\n${key}`, answer);
    if (this.answers.size % 1000 === 0) this.prune(answer.storedAt);
  }

  private prune(nowMs: number): void {
    for (const [id, answer] of this.answers) if (nowMs - answer.storedAt >= RETENTION_MS) this.answers.delete(id);
  }
}

export const storable = (status: number): boolean => (status >= 200 && status < 300) || (status >= 400 && status < 500 && status !== 429);
