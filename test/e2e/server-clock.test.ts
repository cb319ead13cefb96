// The API's clock cannot keep access alive (issue 39, item 4). A lying server (test/helpers/lying-proxy.ts) sets the
// `Date` header of every answer a week back; what ends access (a grant's `until`) is decided by the earlier deadline
// of the API's clock and this machine's, through the real CLI: a share whose `until` has passed by this machine's
// clock is not created (before: planned as `+ user_share`), a grant in state whose `until` has passed is revoked,
// and the plan warns, naming both times. An honest server gives no warning. (A token's expiry by this machine's
// clock: test/e2e/expired-token.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import type { Plan } from '../../src/plan-model/index.js';
import { lyingProxy, type LyingProxy } from '../helpers/lying-proxy.js';
import { directoryYaml } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const dana = fixtures.users[2]!;
const WEEK = 7 * 86_400_000;
const isoSecond = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

let w: World;
let proxy: LyingProxy;
const config = (grants: string) => `version: 1
projects:
  shop:
    name: shop-clock
    records:
      db-password:
        value: { generate: { length: 32 } }
        grants:
${grants}
${directoryYaml({ users: { dana: dana.id } })}`;

beforeAll(async () => {
  w = await world({ account: acme });
  proxy = await lyingProxy(w.emulator.url);
});
afterAll(async () => {
  await proxy?.close();
  await w?.close();
});

const viaLyingClock = () => {
  proxy.setClockShift(-WEEK);
  return { CPLANE_BASE_URL: proxy.url };
};
const warning =
  /! the API's clock said (\S+ \S+) UTC and this machine's (\S+ \S+) UTC, more than 5 minutes apart: grants, token expiries and overlaps were ended by the earlier deadline of the two\./;

describe('a server whose clock is a week behind', () => {
  it("cannot have a share created whose until has passed by this machine's clock; the plan names both clocks", async () => {
    const until = isoSecond(Date.now() - 3_600_000);
    w.config(config(`          users: [{ name: dana, until: "${until}" }]`));
    const plan = await w.cli(['plan', w.dir, '--json'], viaLyingClock());
    expect(plan.stderr).toBe('');
    const json = JSON.parse(plan.stdout) as Pick<Plan, 'steps' | 'notices'>;
    const clockSkew = json.notices.find((n) => n.code === 'clock_skew')?.data as { api: string; machine: string } | undefined;
    expect(json.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create project.shop', 'create record.shop/db-password']);
    expect(Date.parse(clockSkew!.machine) - Date.parse(clockSkew!.api)).toBeGreaterThan(WEEK - 60_000);

    const text = await w.cli(['plan', w.dir], viaLyingClock());
    expect(text.stdout).not.toContain('user_share');
    const [, api, machine] = warning.exec(text.stdout)!;
    expect(Date.parse(`${machine}Z`) - Date.parse(`${api}Z`)).toBeGreaterThan(WEEK - 120_000);
    const markdown = await w.cli(['plan', w.dir, '--markdown'], viaLyingClock());
    expect(markdown.stdout).toMatch(/> - the API's clock said .* and this machine's .*, more than 5 minutes apart/);
    // A saved plan keeps the warning, and `cplane show` reads it back (checked against schema/plan.schema.json).
    const saved = await w.cli(['plan', w.dir, '--out', 'clock.plan.json'], viaLyingClock());
    expect(saved.code, saved.stderr).toBe(0);
    const shown = await w.cli(['show', 'clock.plan.json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(warning);
  });

  it("cannot keep a grant in state whose until has passed: it is revoked, though the API's clock says it has not ended", async () => {
    w.config(config(`          users: [{ name: dana, until: "${isoSecond(Date.now() + 30 * 86_400_000)}" }]`));
    const applied = await w.run(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const record = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'db-password')!;
    const readers = async () =>
      JSON.stringify(await w.client.call('readRecord', { path: { id: record.record_id }, body: { scope: ['meta'] } }));
    expect(await readers()).toContain(dana.id);
    // The `until` moved to an hour ago (by this machine's clock): a week ahead of what the lying server says.
    w.config(config(`          users: [{ name: dana, until: "${isoSecond(Date.now() - 3_600_000)}" }]`));
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode'], viaLyingClock());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/# user_share\.shop\/db-password\/dana will be (revoked|removed|deleted)[^\n]*it ended/);
    expect(plan.stdout).toMatch(warning);
    const apply = await w.cli(['apply', w.dir, '--auto-approve'], viaLyingClock());
    expect(apply.code, apply.stderr).toBe(0);
    expect(await readers()).not.toContain(dana.id);
  });

  it("an honest server's plan has no clock warning", async () => {
    proxy.setClockShift(0);
    const plan = await w.cli(['plan', w.dir], { CPLANE_BASE_URL: proxy.url });
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain("the API's clock said");
  });
});
