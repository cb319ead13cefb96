/**
 * The request rate one token may send at, found from the API's answers: the spec says only that a request over the
 * limit gets 429 ("request rate limit values are not shown", Limits 3), so the client learns it.
 *
 * Two phases, after TCP and the AWS SDKs' adaptive retry mode:
 * - Before the first 429 nothing is paced; only the requests in flight are capped by a window that starts at
 *   `initialWindow` and grows by a quarter of a request per answer (about 1.25x per round trip). An API without a
 *   limit reaches `--parallelism` within a few round trips; one with a limit, whose burst hides the limit until it is
 *   spent, finds it with a few refusals instead of a whole `--parallelism` of them.
 * - From the first 429 on, requests are paced by a token bucket, as in the AWS SDKs. A 429 cuts the rate to `beta`
 *   times the rate it was sent at or what the API accepted over the last second, the larger (the first time, `firstBeta`
 *   times what it accepted).
 *   Only a request sent once every request in flight at the last cut has been answered can cut again: the others were
 *   sent at the old rate, or spent the API's allowance beside it, and say nothing of the new one. The rate then grows
 *   back linearly to the refused rate, over `cycleRequests` requests' worth of time at that rate (at least a second),
 *   and past it doubles every twice that time while nothing is refused: flat near the refused rate, as CUBIC is, and
 *   quick to leave a guess that was too low. Counting the cycle in requests probes a small rate as rarely, in
 *   requests, as a large one, so refusals stay a small share of what is sent at any limit; and the API's own burst
 *   allowance repays the time spent below the limit. As in the AWS SDKs, the rate never grows past twice what was
 *   sent in the last second.
 *
 * Google's adaptive throttling (SRE book, "Handling Overload") gives the rule that the client, not the server,
 * should absorb its own excess: a request waits here rather than being sent to be refused. The figures are in
 * docs/performance.md ("The request rate").
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface RateClock {
  /** Milliseconds, monotonic. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: RateClock = { now: () => performance.now(), sleep: (ms, signal) => sleep(ms, undefined, { signal }) };

export interface RateTuning {
  /** Requests in flight allowed before the first answer: the slow start's first window. */
  initialWindow: number;
  /** Growth of the window per accepted answer, before the first 429. */
  windowGrowth: number;
  /** The share of the accepted rate kept after the first 429, and after every later one. */
  firstBeta: number;
  beta: number;
  /** How many requests at the refused rate the rate takes to grow back to it (at least a second's worth). */
  cycleRequests: number;
  /** Slowest rate, in requests per second. */
  minRate: number;
}

export const defaultRateTuning: RateTuning = {
  initialWindow: 4,
  windowGrowth: 0.125,
  firstBeta: 0.5,
  beta: 0.8,
  cycleRequests: 80,
  minRate: 0.5,
};

/** A request's turn: when it was sent, how long it waited for the rate, and the rate then (undefined before the first 429). */
export interface Turn {
  sentAt: number;
  /** How many cuts the rate had had when the request was sent: an answer to a request sent before the last cut is stale. */
  cuts: number;
  heldMs: number;
  ratePerSecond: number | undefined;
}

/** Counts of events in the last second, in ten buckets of 100 ms. */
class LastSecond {
  private readonly buckets = new Array<number>(10).fill(0);
  private bucket = 0;

  add(now: number): void {
    this.advance(now);
    this.buckets[this.bucket % 10]!++;
  }

  count(now: number): number {
    this.advance(now);
    return this.buckets.reduce((a, b) => a + b, 0);
  }

  private advance(now: number): void {
    const current = Math.floor(now / 100);
    if (current - this.bucket >= 10) this.buckets.fill(0);
    else for (let b = this.bucket + 1; b <= current; b++) this.buckets[b % 10] = 0;
    this.bucket = Math.max(this.bucket, current);
  }
}

export class AdaptiveRate {
  private readonly tuning: RateTuning;
  private inFlight = 0;
  private window: number;
  private readonly windowWaiters: (() => void)[] = [];
  /** Requests per second once paced; undefined in the slow start. */
  private rate: number | undefined;
  /** When the next paced request may go (ms). */
  private nextAt = 0;
  /** Paced requests waiting for their turn, first come first served; one timer serves the head of the queue. */
  private readonly paced: { go: () => void }[] = [];
  private pacing = false;
  private lastThrottleAt = Number.NEGATIVE_INFINITY;
  /** The rate the last 429 refused, and how it grows back: seconds to reach it, and requests a second per second. */
  private refusedRate = 0;
  private regrowSeconds = 1;
  private slope = 0;
  private readonly accepted = new LastSecond();
  private readonly sent = new LastSecond();
  /** Requests still in flight that were sent before the last cut. */
  private sentBeforeCut = 0;
  private throttles = 0;

  constructor(
    private readonly clock: RateClock = realClock,
    tuning: Partial<RateTuning> = {},
  ) {
    this.tuning = { ...defaultRateTuning, ...tuning };
    this.window = this.tuning.initialWindow;
  }

  /** Requests per second now, or undefined while nothing has been refused. */
  get ratePerSecond(): number | undefined {
    return this.rate;
  }

  /** How many refusals changed the rate. */
  get refusals(): number {
    return this.throttles;
  }

  /** Waits for the request's turn; every turn is followed by exactly one `answered` or `unanswered`. */
  async turn(signal?: AbortSignal): Promise<Turn> {
    const started = this.clock.now();
    while (this.rate === undefined && this.inFlight >= Math.floor(this.window)) {
      await new Promise<void>((resolve) => this.windowWaiters.push(resolve));
      signal?.throwIfAborted();
    }
    if (this.rate !== undefined) await new Promise<void>((resolve, reject) => this.queueTurn(resolve, reject, signal));
    const sentAt = this.clock.now();
    this.inFlight++;
    this.sent.add(sentAt);
    return { sentAt, cuts: this.throttles, heldMs: Math.round(sentAt - started), ratePerSecond: this.rate };
  }

  /**
   * Lets waiting requests go one at a time at the rate as it is when each goes, not as it was when it came: a queue
   * of reservations made at a low rate would hold a rate that has since grown back for as long as the queue is.
   */
  private queueTurn(resolve: () => void, reject: (reason: unknown) => void, signal: AbortSignal | undefined): void {
    const waiter = {
      go: () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      },
    };
    const abort = () => {
      const at = this.paced.indexOf(waiter);
      if (at >= 0) this.paced.splice(at, 1);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    this.paced.push(waiter);
    void this.pace();
  }

  private async pace(): Promise<void> {
    if (this.pacing) return;
    this.pacing = true;
    try {
      while (this.paced.length > 0) {
        const now = this.clock.now();
        // A cut while the head waited moves its turn back (nextAt moved): the loop looks again after the sleep.
        if (now < this.nextAt) {
          await this.clock.sleep(this.nextAt - now);
          continue;
        }
        // A timer that fired late does not slow the rate: the lateness is made up, up to one interval.
        const interval = 1000 / this.rate!;
        this.nextAt = Math.max(this.nextAt, now - interval) + interval;
        this.paced.shift()!.go();
      }
    } finally {
      this.pacing = false;
    }
  }

  /** The answer to a request: `throttled` when it was 429. Returns the new rate when this answer changed it. */
  answered(turn: Turn, throttled: boolean): number | undefined {
    this.release();
    const now = this.clock.now();
    const stale = this.settle(turn);
    if (!throttled) {
      this.accepted.add(now);
      if (this.rate === undefined) this.window += this.tuning.windowGrowth;
      else this.rate = this.grown(now);
      return undefined;
    }
    if (stale || this.sentBeforeCut > 0) return undefined;
    const first = this.rate === undefined;
    // The first time, what the API accepted over the last second: its burst allowance and its rate, both spent.
    // Later, the rate the request was sent at, or what the API accepted over the last second when that is more (a
    // refusal just under the limit, after the API's allowance ran out, must not cut far below it), but never more
    // than was sent.
    const accepted = this.accepted.count(now);
    const refused = first ? accepted : Math.min(this.sent.count(now), Math.max(turn.ratePerSecond ?? this.rate!, accepted));
    this.refusedRate = Math.max(this.tuning.minRate, refused);
    const beta = first ? this.tuning.firstBeta : this.tuning.beta;
    this.rate = Math.max(this.tuning.minRate, this.refusedRate * beta);
    this.regrowSeconds = Math.max(1, this.tuning.cycleRequests / this.refusedRate);
    this.slope = (this.refusedRate - this.rate) / this.regrowSeconds;
    this.lastThrottleAt = now;
    this.sentBeforeCut = this.inFlight;
    this.nextAt = now + 1000 / this.rate;
    this.throttles++;
    // Requests waiting for the slow start's window now wait for the paced rate instead.
    for (const wake of this.windowWaiters.splice(0)) wake();
    return this.rate;
  }

  /** A request that got no answer (a network failure, an abort): it no longer counts as in flight. */
  unanswered(turn: Turn): void {
    this.release();
    this.settle(turn);
  }

  /** Whether the request was sent before the last cut; if so, one fewer of those is still in flight. */
  private settle(turn: Turn): boolean {
    const stale = turn.cuts < this.throttles;
    if (stale) this.sentBeforeCut--;
    return stale;
  }

  private release(): void {
    this.inFlight--;
    // Every waiter looks again: the window may have grown by more than the one place freed.
    if (this.inFlight < Math.floor(this.window)) for (const wake of this.windowWaiters.splice(0)) wake();
  }

  /** Linear back to the refused rate, then doubling past it; never more than twice what was sent in the last second. */
  private grown(now: number): number {
    const t = (now - this.lastThrottleAt) / 1000;
    const k = this.regrowSeconds;
    const back = this.refusedRate - this.slope * k;
    const linear = t <= k ? back + this.slope * t : this.refusedRate * 2 ** ((t - k) / (2 * k));
    const sentCap = 2 * Math.max(this.sent.count(now), this.tuning.minRate);
    return Math.max(this.tuning.minRate, Math.min(linear, Math.max(sentCap, this.rate ?? 0)));
  }
}

/**
 * One rate per API address and token in a process: everything sent with a token (a plan's reads, an apply's writes,
 * every deployment of `plan --all` and `apply --all` that shares it, reconcile) draws on what that token may send.
 * Keyed by a digest of the token, never the token.
 */
const rates = new Map<string, AdaptiveRate>();

export function adaptiveRateFor(baseUrl: string, tokenDigest: string): AdaptiveRate {
  const key = `${new URL(baseUrl).origin}\n${tokenDigest}`;
  let rate = rates.get(key);
  if (!rate) rates.set(key, (rate = new AdaptiveRate()));
  return rate;
}
