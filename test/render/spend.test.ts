// The spend section only formats the planner's amounts: grouping, sign, and no cents on whole dollars per 30 days.
import { describe, expect, it } from 'vitest';
import type { PlanSpend } from '../../src/plan-model/index.js';
import { dollars, spendHeadline, spendLines } from '../../src/render/spend.js';

const spend = (before: string | null, after: string | null, delta: string | null): PlanSpend => ({
  before,
  after,
  delta,
  gateways: [],
  usageReads: 0,
});

describe('spend words', () => {
  it('writes the headline as the issue asks: Max authorised: $1,200/30d → $3,900/30d (+$2,700)', () => {
    expect(spendHeadline(spend('1200.00', '3900.00', '2700.00'))).toBe('Max authorised: $1,200/30d → $3,900/30d (+$2,700)');
    expect(spendHeadline(spend('450.00', '202.86', '-247.14'))).toBe('Max authorised: $450/30d → $202.86/30d (-$247.14)');
    expect(spendHeadline(spend('1200.00', null, null))).toBe('Max authorised: $1,200/30d → unlimited');
  });

  it('groups thousands and keeps cents that are not zero', () => {
    expect([dollars('1234567.00'), dollars('0.50'), dollars('-1000.01')]).toEqual(['$1,234,567', '$0.50', '-$1,000.01']);
  });

  it('shows usage with its cents, and a created object as none before', () => {
    const lines = spendLines({
      ...spend('0.00', '300.00', '300.00'),
      gateways: [
        {
          address: 'gateway.g',
          kind: 'gateway',
          before: null,
          after: { limit: { usd: '10.00', window: 'day' }, per30d: '300.00' },
          usage: { spend7d: '1234.50', requests7d: 1, spend30d: '2000.00', requests30d: 3 },
          tokensBefore: '0.00',
          tokensAfter: '0.00',
          maxBefore: '0.00',
          maxAfter: '300.00',
          tokens: [],
        },
      ],
    });
    expect(lines.map((l) => `${l.name}: ${l.text}`)).toEqual([
      'gateway.g: own limit none → $10.00/day ($300/30d); tokens $0/30d → $0/30d; max $0/30d → $300/30d',
      'usage: used $1,234.50 in 1 request (7d), $2,000.00 in 3 (30d)',
    ]);
  });
});
