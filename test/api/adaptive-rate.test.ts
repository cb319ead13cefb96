// The token's request rate, found from 429 answers (src/api/adaptive-rate.ts): the rules on a clock the test moves,
// then the real client against the emulator's token bucket, where few of the requests sent are refused.
import { describe, expect, it } from 'vitest';
import { AdaptiveRate, type RateClock } from '../../src/api/adaptive-rate.js';
import { createClient } from '../../src/api/client.js';
import { startEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';

/** A clock that moves only when told to, or when a request sleeps for its turn (time passes while it waits). */
function testClock(): RateClock & { advance(ms: number): void } {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    advance(ms) {
      now += ms;
    },
  };
}

describe('the adaptive rate', () => {
  it('before any 429, caps the requests in flight by a window that grows with each accepted answer', async () => {
    const rate = new AdaptiveRate(testClock(), { initialWindow: 2, windowGrowth: 1 });
    const turns = [await rate.turn(), await rate.turn()];
    let third = false;
    const waiting = rate.turn().then(() => (third = true));
    await Promise.resolve();
    expect(third).toBe(false);
    rate.answered(turns[0]!, false);
    await waiting;
    expect(third).toBe(true);
    expect(rate.ratePerSecond).toBeUndefined();
  });

  it('a 429 sets a rate from what the API accepted, and later requests wait for their turn at it', async () => {
    const clock = testClock();
    const rate = new AdaptiveRate(clock, { initialWindow: 100 });
    for (let i = 0; i < 20; i++) rate.answered(await rate.turn(), false);
    clock.advance(500);
    expect(rate.answered(await rate.turn(), true)).toBe(10); // half of the 20 accepted in the last second
    const sentAt: number[] = [];
    for (let i = 0; i < 3; i++) sentAt.push((await rate.turn()).sentAt);
    expect(sentAt[1]! - sentAt[0]!).toBe(100); // 10 a second: one each 100 ms
    expect(sentAt[2]! - sentAt[1]!).toBe(100);
  });

  it('a 429 of a request sent before the last cut does not cut again', async () => {
    const clock = testClock();
    const rate = new AdaptiveRate(clock, { initialWindow: 100 });
    for (let i = 0; i < 10; i++) rate.answered(await rate.turn(), false);
    const early = await rate.turn();
    const cutter = await rate.turn();
    expect(rate.answered(cutter, true)).toBe(5);
    expect(rate.answered(early, true)).toBeUndefined();
    expect(rate.refusals).toBe(1);
  });

  it('a request of before the cut that gets no answer, or was sent in the cut’s millisecond, does not stop later cuts', async () => {
    const clock = testClock();
    const rate = new AdaptiveRate(clock, { initialWindow: 100 });
    for (let i = 0; i < 10; i++) rate.answered(await rate.turn(), false);
    const cutter = await rate.turn();
    const lost = await rate.turn(); // sent in the same millisecond as the cut below
    const sameMillisecond = await rate.turn();
    expect(rate.answered(cutter, true)).toBe(5);
    rate.unanswered(lost); // a network failure: no answer will come
    rate.answered(sameMillisecond, false);
    clock.advance(1000);
    const after = await rate.turn();
    expect(rate.answered(after, true)).toBeDefined();
    expect(rate.refusals).toBe(2);
  });

  it('a request waiting for its turn goes at the rate when its turn comes, not the rate when it began to wait', async () => {
    // A clock whose sleeps end only when the test moves it, so that several waiters interleave.
    let now = 0;
    const sleepers: { at: number; wake: () => void }[] = [];
    const clock: RateClock = { now: () => now, sleep: (ms) => new Promise<void>((wake) => sleepers.push({ at: now + ms, wake })) };
    const moveTo = async (at: number) => {
      for (let step = now; step <= at; step++) {
        now = step;
        for (const sleeper of sleepers.filter((s) => s.at <= now)) {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          sleeper.wake();
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const rate = new AdaptiveRate(clock, { initialWindow: 100, minRate: 2 });
    rate.answered(await rate.turn(), true); // nothing accepted: the rate is its floor, 2 a second
    expect(rate.ratePerSecond).toBe(2);
    const sentAt: number[] = [];
    const waiting = Array.from({ length: 4 }, () => rate.turn().then((turn) => sentAt.push(turn.sentAt)));
    (rate as unknown as { rate: number }).rate = 1000; // as regrowth sets it while they wait
    await moveTo(520);
    await Promise.all(waiting);
    // Reserved at 2 a second, the fourth would go at 2,000 ms; at the rate of its turn, right after the first.
    expect(sentAt).toEqual([500, 501, 502, 503]);
  });

  it('grows back to the refused rate, and past it, while nothing is refused', async () => {
    const clock = testClock();
    const rate = new AdaptiveRate(clock, { initialWindow: 100, cycleRequests: 20 });
    for (let i = 0; i < 20; i++) rate.answered(await rate.turn(), false);
    rate.answered(await rate.turn(), true); // refused at 20 a second: now 10, back at 20 after a second
    const rates: number[] = [];
    for (let i = 0; i < 100; i++) {
      rate.answered(await rate.turn(), false);
      rates.push(rate.ratePerSecond!);
    }
    expect(rates[0]!).toBeLessThan(12);
    expect(Math.max(...rates)).toBeGreaterThan(25);
  });
});

describe('the client under the emulator rate limit', () => {
  it('sends at the rate it finds: under 5 % of its requests are answered 429, and every write succeeds', async () => {
    const emulator = await startEmulator({ latencyMs: 5, rateLimit: 25 });
    const account = fixtures.accounts[0]!.id;
    // A token of its own, so no other test's requests share its rate.
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account, concurrency: 64 });
    try {
      const writes = 250;
      await Promise.all(
        Array.from({ length: writes }, (_, i) =>
          client.call('createProject', { body: { accountId: account, name: `rate-${i}`, description: 'r' } }),
        ),
      );
      const stats = emulator.stats();
      expect(stats.writes).toBe(writes);
      expect(stats.throttled / stats.requests).toBeLessThan(0.05);
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});
