import { describe, expect, it } from 'vitest';
import { lockTimeoutMs } from '../../src/session/lock-timeout.js';

describe('--lock-timeout DURATION', () => {
  it('reads Go-style durations', () => {
    expect(lockTimeoutMs({})).toBe(0);
    expect(lockTimeoutMs({ 'lock-timeout': '0s' })).toBe(0);
    expect(lockTimeoutMs({ 'lock-timeout': '500ms' })).toBe(500);
    expect(lockTimeoutMs({ 'lock-timeout': '30s' })).toBe(30_000);
    expect(lockTimeoutMs({ 'lock-timeout': '1m30s' })).toBe(90_000);
    expect(lockTimeoutMs({ 'lock-timeout': '1.5h' })).toBe(5_400_000);
  });

  it('refuses anything else, naming the forms it takes', () => {
    for (const bad of ['', '30', 's', '5 m', '-1s', '1d', '1m x']) {
      expect(() => lockTimeoutMs({ 'lock-timeout': bad })).toThrow(
        `--lock-timeout expects a duration such as 30s, 5m or 1m30s, got "${bad}".`,
      );
    }
  });
});
