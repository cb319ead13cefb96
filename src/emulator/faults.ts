/**
 * Fault injection, off by default and seeded so a test sees the same faults on
 * every run: added latency, a fraction of requests answered 429/500/503 before
 * anything is done, and `drop`, a fraction of writes that are performed and
 * committed and then answered by closing the connection.
 *
 * Spec string: `429=0.05,500=0.05,503=0.1,drop=0.1,seed=42,latency=20`. From code, `accounts` limits the
 * status faults to the requests of some accounts (one deployment's account fails, the others do not).
 */
import { createPrng, type Prng } from './prng.js';

export interface FaultSpec {
  /** Fraction of requests answered with each status, before any work. */
  status?: Partial<Record<429 | 500 | 503, number>>;
  /** Fraction of successful writes whose response is dropped after commit. */
  drop?: number;
  /** Milliseconds added to every request. */
  latencyMs?: number;
  seed?: number;
  /** Only requests for these accounts (their `x-account-id`) get status faults; every request when absent. */
  accounts?: string[];
}

const STATUSES = [429, 500, 503] as const;

export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = { status: {} };
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, raw, extra] = part.split('=');
    const value = Number(raw);
    if (key === undefined || raw === undefined || extra !== undefined || raw.trim() === '' || !Number.isFinite(value)) {
      throw new Error(`invalid fault "${part}": expected NAME=NUMBER, e.g. 503=0.1`);
    }
    if (key === 'seed') spec.seed = Math.trunc(value);
    else if (key === 'latency') spec.latencyMs = checkNonNegative(key, value);
    else if (key === 'drop') spec.drop = checkFraction(key, value);
    else if (key === '429' || key === '500' || key === '503') spec.status![Number(key) as 429 | 500 | 503] = checkFraction(key, value);
    else throw new Error(`unknown fault "${key}": use 429, 500, 503, drop, latency or seed`);
  }
  const total = STATUSES.reduce((sum, s) => sum + (spec.status?.[s] ?? 0), 0);
  if (total > 1) throw new Error(`the status fault fractions add up to ${total}, more than 1`);
  return spec;
}

function checkFraction(key: string, value: number): number {
  if (value < 0 || value > 1) throw new Error(`fault ${key}=${value}: a fraction between 0 and 1 is expected`);
  return value;
}

function checkNonNegative(key: string, value: number): number {
  if (value < 0) throw new Error(`fault ${key}=${value}: a number of milliseconds >= 0 is expected`);
  return value;
}

export class FaultInjector {
  private rng: Prng;
  constructor(private spec: FaultSpec = {}) {
    this.rng = createPrng(spec.seed ?? 1);
  }

  get latencyMs(): number {
    return this.spec.latencyMs ?? 0;
  }

  /** A status to answer with instead of doing the request (for `account`, its `x-account-id`), or undefined. */
  statusFault(account?: string): number | undefined {
    if (this.spec.accounts && (account === undefined || !this.spec.accounts.includes(account))) return undefined;
    const fractions = STATUSES.map((s) => [s, this.spec.status?.[s] ?? 0] as const);
    if (fractions.every(([, f]) => f === 0)) return undefined;
    let roll = this.rng.next();
    for (const [status, fraction] of fractions) {
      if (roll < fraction) return status;
      roll -= fraction;
    }
    return undefined;
  }

  /** Whether to drop the answer of a committed write. */
  dropFault(): boolean {
    const drop = this.spec.drop ?? 0;
    return drop > 0 && this.rng.next() < drop;
  }
}
