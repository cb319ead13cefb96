/** How plans and `cplane output` say when: the largest whole unit, never "60 minutes" or "24 hours". */
import { expect, test } from 'vitest';
import { relativeTime } from '../../src/planner/stages/reissue.js';

const s = 1000,
  min = 60 * s,
  h = 60 * min,
  d = 24 * h;

test.each([
  [-(h - 400), '1 hour ago'], // 59 min 59.6 s: the API's whole-second clock makes these common
  [-(h + 2 * s), '1 hour ago'],
  [-45 * min, '45 minutes ago'],
  [90 * s, 'in 2 minutes'],
  [-(59 * s + 600), '1 minute ago'],
  [-(d - 20 * min), '1 day ago'],
  [5 * d + 3 * h, 'in 5 days'],
  [-25 * d, '25 days ago'],
  [30 * s, 'in 30 seconds'],
])('%d ms reads %s', (ms, text) => {
  expect(relativeTime(ms)).toBe(text);
});
