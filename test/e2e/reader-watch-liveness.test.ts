// A watcher through a lying API server (test/helpers/lying-proxy.ts) never stalls in silence, and never storms the
// API: a record the list leaves out is reported (RECORD_NOT_LISTED); a list that keeps the old version while the
// record changed is caught by a check read, which delivers the new value and reports the stale list
// (RECORD_LIST_STALE); a list that never ends stops at MAX_LIST_PAGES pages (RECORD_LIST_TOO_LONG) and the next
// polls wait longer and longer (exponential, jittered, capped), then the interval again once the list answers.
// Time is stepped through injected timers, never waited for. Also: what `onChange` is told besides the value holds
// no value, however it is logged.
import { createReader, type PollTimers, type ReaderManifest, type WatchedVersion } from '@cplane/sdk';
import { backoffDelay } from '@cplane/sdk/internal/reader';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lyingProxy, type LyingProxy } from '../helpers/lying-proxy.js';
import { ciDeployerCredential, twoGrantedRecords } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const env = { STRIPE_KEY: 'sk_live_watch_liveness_4410', DB_PASSWORD: 'db-watch-liveness-9921' };
const configuration = twoGrantedRecords('payments-watch-liveness');

let w: World;
let proxy: LyingProxy;
let manifest: ReaderManifest;
const credential = ciDeployerCredential();
const idOf = (name: string) => manifest.deployments.default!.records[name]!.recordId;
const codeOf = (error: unknown) => (error as { code?: string }).code;

/** Timers a test steps through: nothing runs until `fire`, which runs the poll due and answers the delay of the next. */
function steppedTimers() {
  const pending: { run: () => void; delayMs: number; done: boolean }[] = [];
  let scheduled: (() => void) | undefined;
  const timers: PollTimers = {
    setTimeout(run, delayMs) {
      const timer = { run, delayMs, done: false };
      pending.push(timer);
      scheduled?.();
      return timer;
    },
    clearTimeout: (handle) => void ((handle as { done: boolean }).done = true),
  };
  const due = () => pending.find((t) => !t.done);
  return {
    timers,
    /** Runs the poll due now; resolves with the delay the reader chose for the one after it. */
    async fire(): Promise<number> {
      const timer = due()!;
      timer.done = true;
      const next = new Promise<void>((resolve) => (scheduled = resolve));
      timer.run();
      await next;
      return due()!.delayMs;
    },
  };
}

const readerThroughProxy = (timers?: PollTimers) =>
  createReader({
    manifest: { ...manifest, deployments: { default: { ...manifest.deployments.default!, baseUrl: proxy.url } } },
    credential,
    intervalMs: 0,
    ...(timers ? { timers } : {}),
  });

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(configuration);
  expect((await w.run(['apply', w.dir, '--auto-approve'], env)).code).toBe(0);
  const written = await w.run(['reader-manifest', 'ci-deployer', w.dir]);
  expect(written.code, written.stderr).toBe(0);
  manifest = JSON.parse(written.stdout) as ReaderManifest;
  proxy = await lyingProxy(w.emulator.url);
});
afterAll(async () => {
  await proxy?.close();
  await w?.close();
});

it("onChange's second argument holds no value: logged with JSON.stringify or util.inspect it shows nothing secret", async () => {
  const reader = readerThroughProxy(steppedTimers().timers);
  try {
    let seen: { value: string; read: WatchedVersion } | undefined;
    reader.watch('payments/db-password', (value, read) => (seen = { value, read }));
    // The first poll is the stepped timers' to run: refresh runs one now.
    await reader.refresh();
    const { value, read } = seen!;
    expect(value).toBe(env.DB_PASSWORD);
    expect(Object.keys(read).sort()).toEqual(['accountId', 'name', 'version', 'wrappedAt', 'writerKeyId']);
    expect(read).toMatchObject({ name: 'payments/db-password', version: 1, accountId: acme });
    expect(JSON.stringify(read)).not.toContain(env.DB_PASSWORD);
    expect(inspect(read, { depth: Infinity, showHidden: true, getters: true })).not.toContain(env.DB_PASSWORD);
    expect(Object.values(read)).not.toContain(env.DB_PASSWORD);
  } finally {
    await reader.close();
  }
});

it('a record the list leaves out is reported through onError (RECORD_NOT_LISTED), the last value kept', async () => {
  const errors: Error[] = [];
  const reader = readerThroughProxy(steppedTimers().timers);
  try {
    reader.watch('payments/stripe-key', () => undefined, { onError: (error) => errors.push(error) });
    await reader.refresh();
    proxy.setLie((request, answer) => {
      if (request.method !== 'GET' || request.path !== '/v1/records') return undefined;
      const rows = (answer.json as { data: { record_id: string }[] }).data;
      return { ok: true, data: rows.filter((row) => row.record_id !== idOf('payments/stripe-key')) };
    });
    await reader.refresh();
    expect(errors.map(codeOf)).toEqual(['RECORD_NOT_LISTED']);
    expect(errors[0]!.message).toMatch(/^Secret "payments\/stripe-key": the record list \(GET \/records\) no longer lists record /);
    expect(await reader.get('payments/stripe-key')).toBe(env.STRIPE_KEY);
  } finally {
    proxy.setLie(undefined);
    await reader.close();
  }
});

it('a list that keeps the old version while the record changed: the new value is delivered and the stale list reported', async () => {
  const errors: Error[] = [];
  const changes: number[] = [];
  const reader = readerThroughProxy(steppedTimers().timers);
  try {
    reader.watch('payments/db-password', (_value, read) => changes.push(read.version), { onError: (error) => errors.push(error) });
    await reader.refresh();
    expect(changes).toEqual([1]);
    // Every row says version 1 from now on; the record's updated_at is the emulator's.
    proxy.setLie((request, answer) => {
      if (request.method !== 'GET' || request.path !== '/v1/records') return undefined;
      const rows = (answer.json as { data: { current_version: number }[] }).data;
      return { ok: true, data: rows.map((row) => ({ ...row, current_version: 1 })) };
    });
    w.emulator.moveClock('1m');
    const rotated = await w.run(['apply', w.dir, '--auto-approve'], { ...env, DB_PASSWORD: 'db-watch-liveness-rotated-5518' });
    expect(rotated.code, rotated.stderr).toBe(0);
    await reader.refresh();
    expect(changes).toEqual([1, 2]);
    expect(await reader.get('payments/db-password')).toBe('db-watch-liveness-rotated-5518');
    expect(errors.map(codeOf)).toEqual(['RECORD_LIST_STALE']);
    expect(errors[0]!.message).toContain('at version 1, but it was read at version 2');
    // Nothing moved since: no read, no report.
    await reader.refresh();
    expect(errors).toHaveLength(1);
  } finally {
    proxy.setLie(undefined);
    await reader.close();
  }
});

it('the delay after failed lists doubles from the interval up to 5 minutes, never shorter than the interval', () => {
  const lowest = (failures: number, intervalMs: number) => backoffDelay(failures, intervalMs, () => 0);
  const highest = (failures: number, intervalMs: number) => backoffDelay(failures, intervalMs, () => 1);
  expect([1, 2, 3, 4, 5, 20].map((n) => highest(n, 30_000))).toEqual([60_000, 120_000, 240_000, 300_000, 300_000, 300_000]);
  expect([1, 2, 3, 4, 5, 20].map((n) => lowest(n, 30_000))).toEqual([30_000, 60_000, 120_000, 150_000, 150_000, 150_000]);
  // An interval shorter than a second backs off from a second; one longer than the cap is never shortened.
  expect(lowest(1, 100)).toBe(1_000);
  expect(lowest(1, 600_000)).toBe(600_000);
});

it('a list that never ends stops at 100 pages, is reported, and the next polls back off (exponential, jittered, capped)', async () => {
  const errors: Error[] = [];
  let lists = 0;
  const stepped = steppedTimers();
  const reader = readerThroughProxy(stepped.timers);
  try {
    reader.watch('payments/stripe-key', () => undefined, { intervalMs: 30_000, onError: (error) => errors.push(error) });
    await reader.refresh();
    // Every page is full, of records no one asked for.
    const row = { record_id: idOf('payments/db-password'), current_version: 1, updated_at: new Date(0).toISOString() };
    proxy.setLie((request) => {
      if (request.method !== 'GET' || request.path !== '/v1/records') return undefined;
      lists++;
      return { ok: true, data: Array.from({ length: 200 }, () => ({ ...row, record_id: randomUUID() })) };
    });
    const delays: number[] = [];
    for (let poll = 0; poll < 3; poll++) delays.push(await stepped.fire());
    expect(lists).toBe(3 * 100);
    expect(errors.map(codeOf)).toEqual(Array(3).fill('RECORD_LIST_TOO_LONG'));
    expect(errors[0]!.message).toContain('did not end within 100 pages of 200 records');
    // Each delay is in [ceiling/2, ceiling], the ceiling doubling from twice the interval (up to 5 minutes: backoffDelay's test).
    delays.forEach((delay, i) => {
      const ceiling = Math.min(300_000, 30_000 * 2 ** (i + 1));
      expect(delay, `poll ${i + 1}`).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay, `poll ${i + 1}`).toBeLessThanOrEqual(ceiling);
    });
    // The list answers again: the next poll is one interval later.
    proxy.setLie(undefined);
    expect(await stepped.fire()).toBe(30_000);
  } finally {
    proxy.setLie(undefined);
    await reader.close();
  }
});
