// `cplane drift` on an expired token: an expiry is time passing, not a change made outside cplane, so it is listed
// as due and never under "changed outside cplane"; and when the API's clock is far from this machine's, drift gives
// the warning plan gives. Time passes by moving the emulator's clock, never by waiting.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

let w: World;
beforeEach(async () => {
  // The token is made three days ago (by the emulator's clock), to live one day.
  w = await world({ clockOffset: '-3d' });
  w.config(smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 1'));
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
});
afterEach(async () => w.close());

const skewWarning =
  /! the API's clock said \d{4}-\d\d-\d\d \d\d:\d\d UTC and this machine's \d{4}-\d\d-\d\d \d\d:\d\d UTC, more than 5 minutes apart/;

it('lists an expired token as due, not as changed outside cplane, and exits 2', async () => {
  w.emulator.setClockOffset(0);
  const drift = await w.cli(['drift', w.dir]);
  expect(drift.stderr).toBe('');
  expect(drift.code).toBe(2);
  expect(drift.stdout).not.toContain('changed outside cplane since the last apply:');
  expect(drift.stdout).toContain('  ! gateway_token.main/ci expired: issued again by the next reconcile or apply: expired 2 days ago');
  expect(drift.stdout).toContain('No drift, but 1 item due: `cplane reconcile` (or apply) does it.');
  expect(drift.stdout).not.toMatch(skewWarning);
  const json = JSON.parse((await w.cli(['drift', w.dir, '--json'])).stdout) as { hasDrift: boolean; drift: unknown[]; hasDue: boolean };
  expect(json).toMatchObject({ hasDrift: false, drift: [], hasDue: true });
  // plan still shows it as the reason for the replacement.
  const plan = await w.cli(['plan', w.dir]);
  expect(plan.stdout).toMatch(/~ gateway_token\.main\/ci expired 2 days ago\n/);
});

it("warns when the API's clock and this machine's are more than 5 minutes apart, as plan does", async () => {
  const drift = await w.cli(['drift', w.dir]);
  expect(drift.stdout).toContain("The API's clock and this machine's are more than 5 minutes apart:");
  expect(drift.stdout).toMatch(skewWarning);
  expect(drift.stdout).not.toContain('changed outside cplane since the last apply:');
  const markdown = await w.cli(['drift', w.dir, '--markdown']);
  expect(markdown.stdout).toMatch(/the API's clock said .* and this machine's .*, more than 5 minutes apart/);
  const json = JSON.parse((await w.cli(['drift', w.dir, '--json'])).stdout) as { notices: { code: string }[] };
  expect(json.notices.map((n) => n.code)).toContain('clock_skew');
});
