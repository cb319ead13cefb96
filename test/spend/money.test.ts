// Money in plans is exact: limits are added up in sevenths of a cent and rounded once; usage in micro-dollars.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centsOf, microsOf, per30Days, roundSevenths, shown, sumLimits, usdOf, usdOfMicros } from '../../src/spend/money.js';

describe('money', () => {
  it('normalises a day 30 times, a week 30/7, a month once, an hour 720 times, a minute 43,200', () => {
    expect(shown(per30Days('40.00', 'day'))).toBe('1200.00');
    expect(shown(per30Days('10', 'week'))).toBe('42.86');
    expect(shown(per30Days('99.99', 'month'))).toBe('99.99');
    expect(shown(per30Days('0.01', 'hour'))).toBe('7.20');
    expect(shown(per30Days('0.01', 'minute'))).toBe('432.00');
  });

  it('adds weekly limits before rounding: seven $1/week limits are $30/30d, not 7 x $4.29', () => {
    expect(shown(sumLimits(Array.from({ length: 7 }, () => per30Days('1.00', 'week'))))).toBe('30.00');
    expect(7 * Number(shown(per30Days('1.00', 'week')))).not.toBe(30);
  });

  it('reads amounts as decimals, never as floats (0.1 + 0.2 is 0.30)', () => {
    expect(usdOf(centsOf('0.1') + centsOf('0.2'))).toBe('0.30');
    expect(usdOfMicros(microsOf('0.000001') * 5_000n)).toBe('0.01');
    expect(usdOf(-24714n)).toBe('-247.14');
    expect(() => centsOf('1e3')).toThrow('not a decimal amount of dollars: "1e3"');
  });

  it('one unlimited part makes a sum unlimited', () => {
    expect(sumLimits([per30Days('1.00', 'day'), null])).toBeNull();
    expect(sumLimits([])).toBe(0n);
  });

  it('rounds sevenths half away from zero, symmetrically', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        (v) => roundSevenths(-v) === -roundSevenths(v) && (roundSevenths(v) * 7n - v) * 2n <= 7n && (v - roundSevenths(v) * 7n) * 2n < 7n,
      ),
    );
  });
});
