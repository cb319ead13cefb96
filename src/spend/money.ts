/**
 * Money as exact integers, never floats: an amount of US dollars is a decimal string on the wire and in the
 * plan ("100.00"), and a whole number of cents (bigint) while it is added up. Normalising a limit to 30 days
 * divides by 7 for a weekly window, so sums are kept in sevenths of a cent (`Sevenths`) and rounded to the
 * cent once, at the end: a total never carries the rounding of its parts.
 */
import type { SpendWindow } from '../plan-model/index.js';

/** An amount in sevenths of a cent: exact for every window's share of 30 days. */
export type Sevenths = bigint;

/** How many times a window fits in 30 days, in sevenths: a day 30 times, a week 30/7, a month once. */
const PER_30_DAYS_IN_SEVENTHS: Record<SpendWindow, bigint> = {
  minute: 30n * 24n * 60n * 7n,
  hour: 30n * 24n * 7n,
  day: 30n * 7n,
  week: 30n,
  month: 7n,
};

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,6}))?$/;

/**
 * Cents of a decimal dollar string ("12.5" -> 1250n). Digits past the cent (usage costs come to the
 * micro-dollar) are rounded half up. Throws on anything else: callers pass values a schema checked.
 */
export function centsOf(usd: string): bigint {
  const match = DECIMAL.exec(usd.trim());
  if (!match) throw new Error(`not a decimal amount of dollars: ${JSON.stringify(usd)}`);
  const [, sign, whole, fraction = ''] = match;
  const micros = BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  const cents = (micros + 5_000n) / 10_000n;
  return sign === '-' ? -cents : cents;
}

/** "1234.50" from 123450n (two decimals, a minus sign when negative). */
export function usdOf(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** A limit per window as an amount per 30 days, exactly (in sevenths of a cent). */
export function per30Days(usd: string, window: SpendWindow): Sevenths {
  return centsOf(usd) * PER_30_DAYS_IN_SEVENTHS[window];
}

/** Sevenths of a cent rounded to the cent (half away from zero). */
export function roundSevenths(value: Sevenths): bigint {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const cents = (abs * 2n + 7n) / 14n;
  return negative ? -cents : cents;
}

/** A limit normalised to 30 days as the plan shows it: dollars with two decimals, or null for no limit. */
export const shown = (value: Sevenths | null): string | null => (value === null ? null : usdOf(roundSevenths(value)));

/** A sum where null means "no limit": one unlimited part makes the whole unlimited. */
export function sumLimits(values: readonly (Sevenths | null)[]): Sevenths | null {
  let total = 0n;
  for (const value of values) {
    if (value === null) return null;
    total += value;
  }
  return total;
}

/** The smaller of two limits, null being no limit. */
export const minLimit = (a: Sevenths | null, b: Sevenths | null): Sevenths | null => (a === null ? b : b === null ? a : a < b ? a : b);

/** Micro-dollars of a usage cost string (`"0.001234"`): usage is summed in these, then rounded to the cent once. */
export function microsOf(usd: string): bigint {
  const match = DECIMAL.exec(usd.trim());
  if (!match) throw new Error(`not a decimal amount of dollars: ${JSON.stringify(usd)}`);
  const [, sign, whole, fraction = ''] = match;
  const micros = BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return sign === '-' ? -micros : micros;
}

/** Micro-dollars rounded to the cent (half up), as dollars with two decimals. */
export const usdOfMicros = (micros: bigint): string => usdOf((micros + 5_000n) / 10_000n);
