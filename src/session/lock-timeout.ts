/**
 * `--lock-timeout DURATION` (Terraform's flag): how long a command that takes
 * the state lock waits while another run holds it (or, for an apply of a saved plan, one of its addresses); other duration flags (`run --grace`) are read alike. A duration is one or more
 * numbers with a unit, as Go writes them: `500ms`, `30s`, `5m`, `1h`, `1m30s`.
 */
import { AbortError } from '../errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds of `--lock-timeout` (0 when it is not given: fail at once). */
export function lockTimeoutMs(values: Record<string, unknown>): number {
  return durationFlagMs(values, 'lock-timeout', 0);
}

/** Milliseconds of the duration flag `--NAME` (`fallback` when it is not given). */
export function durationFlagMs(values: Record<string, unknown>, name: string, fallback: number): number {
  const text = values[name];
  if (text === undefined) return fallback;
  const parts = typeof text === 'string' ? [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)] : [];
  if (typeof text !== 'string' || parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    throw new AbortError(
      `--${name} expects a duration such as 30s, 5m or 1m30s, got "${String(text)}".`,
      'Write a number with a unit: ms, s, m or h.',
    );
  }
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2] as keyof typeof UNIT_MS], 0));
}
