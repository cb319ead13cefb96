// Grants that end within 7 days, as the text plan shows them: one line each with the time left the planner
// measured, and the grant's `reason` (configuration text, from a pull request) with its control characters escaped.
import { expect, it } from 'vitest';
import { renderPlanText } from '../../src/render/index.js';
import { noticeFor, samplePlan } from './plan-fixture.js';

const ending = (reason?: string) =>
  samplePlan({
    notices: [
      noticeFor('ending_soon', {
        address: 'user_share.payments/stripe-key/dana',
        kind: 'user_share',
        data: { until: '2026-12-01T18:00:00.000Z', left: 'in 3 days', ...(reason !== undefined ? { reason } : {}) },
      }),
    ],
  });

it('lists each grant with the time left, its end in UTC and its reason', () => {
  const text = renderPlanText(ending('INC-123'), { color: false });
  expect(text).toContain(
    'Grants that end within 7 days (every plan after the time shown revokes each):\n  ~ user_share.payments/stripe-key/dana: ends in 3 days, at 2026-12-01 18:00 UTC (INC-123)\n',
  );
  expect(renderPlanText(ending(), { color: false })).toContain('dana: ends in 3 days, at 2026-12-01 18:00 UTC\n');
  expect(renderPlanText(samplePlan(), { color: false })).not.toContain('Grants that end');
});

it('escapes a hostile reason: no terminal control sequence, no second line', () => {
  const text = renderPlanText(ending('INC-1\u001b[2J\u001b]0;pwned\u0007\nfake: line'), { color: false });
  expect(text).not.toContain('\u001b');
  expect(text).not.toContain('\nfake: line');
});
