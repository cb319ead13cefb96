// The emulator's clock can be shifted (`--clock-offset`, `clockOffset`) and moved during a test, so expiry and due
// dates are tried without waiting; the offset is kept in the --data file, and the client reads the API's time from
// the `Date` header of its answers.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures, formatDuration, parseDuration, startEmulator } from '../../src/emulator/index.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const acme = fixtures.accounts[0]!.id;
const fixed = new Date('2026-06-01T12:00:00.000Z');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('durations', () => {
  it('reads signed, combined durations and writes them back', () => {
    expect(parseDuration('-25d')).toBe(-25 * DAY);
    expect(parseDuration('36h')).toBe(36 * HOUR);
    expect(parseDuration('+1d12h30m15s')).toBe(DAY + 12 * HOUR + 30 * 60_000 + 15_000);
    expect(parseDuration('0')).toBe(0);
    expect(formatDuration(-25 * DAY)).toBe('-25d');
    expect(formatDuration(DAY + 12 * HOUR)).toBe('1d12h');
    expect(formatDuration(0)).toBe('0');
  });

  it('refuses anything else, saying what is accepted', () => {
    for (const bad of ['', '25', 'd', '3x', '1.5d', '--1d', '1d-2h']) {
      expect(() => parseDuration(bad)).toThrow(
        `"${bad}" is not a duration: use a number with d, h, m or s, optionally signed and combined (-25d, 36h, 1d12h, 0)`,
      );
    }
  });
});

describe('the emulator clock', () => {
  it('shifts timestamps, expiry and the Date header, and moves during a test', async () => {
    const emulator = await startEmulator({ now: () => fixed, clockOffset: '-25d' });
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
    try {
      const gateway = (await client.listAll('listGateways', {}))[0]!;
      const token = await client.call('createGatewayToken', {
        path: { id: gateway.gateway_id },
        body: { name: 'clocked', scopes: ['run'], expiresInDays: 30 },
      });
      expect(token.created_at).toBe(new Date(fixed.getTime() - 25 * DAY).toISOString());
      expect(token.expires_at).toBe(new Date(fixed.getTime() + 5 * DAY).toISOString());
      const res = await fetch(`${emulator.url}/v1/accounts`, { headers: { authorization: `Bearer ${fixtures.tokens.admin}` } });
      expect(res.headers.get('date')).toBe(new Date(fixed.getTime() - 25 * DAY).toUTCString());

      emulator.moveClock('36h');
      expect(emulator.clockOffsetMs()).toBe(-25 * DAY + 36 * HOUR);
      expect(emulator.now().toISOString()).toBe(new Date(fixed.getTime() - 25 * DAY + 36 * HOUR).toISOString());
      emulator.setClockOffset(0);
      expect(emulator.now().toISOString()).toBe(fixed.toISOString());
    } finally {
      await client.close();
      await emulator.close();
    }
  });

  it('is the time the client reads from the API (serverNow)', async () => {
    const emulator = await startEmulator({ clockOffset: '3d' });
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
    try {
      await client.call('listAccounts', {});
      // The header has whole seconds.
      expect(Math.abs(client.serverNow().getTime() - (Date.now() + 3 * DAY))).toBeLessThan(2000);
    } finally {
      await client.close();
      await emulator.close();
    }
  });

  it('is kept in the --data file across restarts unless a new offset is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cplane-clock-'));
    dirs.push(dir);
    const dataFile = join(dir, 'data.json');
    const first = await startEmulator({ dataFile, now: () => fixed, clockOffset: '-25d' });
    await first.close();
    expect((JSON.parse(readFileSync(dataFile, 'utf8')) as { clockOffsetMs: number }).clockOffsetMs).toBe(-25 * DAY);

    const second = await startEmulator({ dataFile, now: () => fixed });
    expect(second.clockOffsetMs()).toBe(-25 * DAY);
    second.moveClock('1d');
    await second.close();

    const third = await startEmulator({ dataFile, now: () => fixed, clockOffset: 0 });
    expect(third.now().toISOString()).toBe(fixed.toISOString());
    await third.close();
    expect((JSON.parse(readFileSync(dataFile, 'utf8')) as { clockOffsetMs: number }).clockOffsetMs).toBe(0);
  });

  it('refuses a data file whose offset is not a whole number of milliseconds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cplane-clock-'));
    dirs.push(dir);
    const dataFile = join(dir, 'data.json');
    const first = await startEmulator({ dataFile });
    await first.close();
    writeFileSync(dataFile, readFileSync(dataFile, 'utf8').replace(/"clockOffsetMs":0/, '"clockOffsetMs":"soon"'));
    await expect(startEmulator({ dataFile })).rejects.toThrow(`${dataFile}: clockOffsetMs must be a whole number of milliseconds`);
  });
});

describe('cplane emulator --clock-offset', () => {
  const bin = 'bin/cplane.js';

  it('takes a negative offset as the next argument and says the clock it runs on', async () => {
    const child = spawn(process.execPath, [bin, 'emulator', '--port', '0', '--clock-offset', '-25d'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    await new Promise<void>((resolve) =>
      createInterface({ input: child.stdout! }).on('line', (line) => (lines.push(line), line.startsWith('Press Ctrl-C') && resolve())),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines.find((l) => l.startsWith('Clock: '))).toMatch(
      /^Clock: \d{4}-\d\d-\d\dT[0-9:.]+Z \(offset -25d from this machine's clock\)\.$/,
    );
  });

  it('explains a bad offset', async () => {
    // The message is the subject, not the process: in-process.
    const run = await runInProcess(['emulator', '--clock-offset', 'yesterday'], process.env, process.cwd());
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: --clock-offset: "yesterday" is not a duration: use a number with d, h, m or s, optionally signed and combined (-25d, 36h, 1d12h, 0).\n' +
        'Example: --clock-offset -25d (25 days behind), --clock-offset 36h\n',
    );
  });
});
