// The two clocks of a plan (src/planner/stages/clocks.ts): what ends access reads the later of the API's clock and this
// machine's, whichever is behind; more than 5 minutes apart is a warning naming both. (Through a lying server:
// test/e2e/server-clock.test.ts.)
import { describe, expect, it } from 'vitest';
import { readClocks } from '../../src/planner/stages/clocks.js';

const machine = new Date('2026-11-28T18:00:00.000Z');
const minutes = (n: number) => new Date(machine.getTime() + n * 60_000);

describe('the clocks of a plan', () => {
  it.each([
    ['behind by a week', -7 * 24 * 60],
    ['ahead by a day', 24 * 60],
  ])('an API clock %s: ends read the later clock, and the skew names both times', (_name, offset) => {
    const clocks = readClocks(minutes(offset), machine);
    expect(clocks.api).toEqual(minutes(offset));
    expect(clocks.forEnds).toEqual(offset < 0 ? machine : minutes(offset));
    expect(clocks.skew).toEqual({ api: minutes(offset).toISOString(), machine: machine.toISOString() });
  });

  it('clocks up to 5 minutes apart give no warning', () => {
    expect(readClocks(minutes(-5), machine).skew).toBeUndefined();
    expect(readClocks(minutes(5), machine).skew).toBeUndefined();
    expect(readClocks(new Date(minutes(-5).getTime() - 1000), machine).skew).toBeDefined();
  });
});
