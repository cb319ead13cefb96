/**
 * The local emulator of the control-plane API: a node:http server on
 * 127.0.0.1 implementing every operation of src/api/operations.ts over an
 * in-memory database seeded from the fixtures, with optional persistence,
 * rate and plan limits, and seeded fault injection.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { operationNames, type OperationName } from '../api/operations.js';
import { fingerprint } from './defaults.js';
import { EmulatorClock, toMs, type Duration } from './clock.js';
import { FaultInjector, parseFaultSpec, type FaultSpec } from './faults.js';
import { fixtures } from './fixtures.js';
import { IdempotencyStore } from './idempotency.js';
import { loadDatabase, Persister } from './persistence.js';
import { createPrng } from './prng.js';
import { RateLimiter } from './rate-limit.js';
import { addEmptyAccount, addExtraAccounts, seedDatabase } from './seed.js';
import { recordUsage, type UsageSeed } from './traffic.js';
import { createRequestListener, type EmulatorState, type EmulatorStats, type PlanLimits } from './server.js';

export { extraAccount, fixtures, printableFixtures, servedFixtures, type Fixtures } from './fixtures.js';
export { parseFaultSpec, type FaultSpec } from './faults.js';
export { formatDuration, parseDuration, type Duration } from './clock.js';
export type { EmulatorStats, PlanLimits } from './server.js';
export type { UsageSeed } from './traffic.js';

export interface EmulatorOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Milliseconds added to every request. */
  latencyMs?: number;
  /** Fault injection, as a spec string (`503=0.1,drop=0.05,seed=7`) or an object. Off by default. */
  faults?: string | FaultSpec;
  /** Requests per second per token before 429 (default: unlimited). */
  rateLimit?: number;
  /** Objects per account before `plan_limit_reached` (default: unlimited). */
  planLimits?: PlanLimits;
  /** JSON file to load at start and save (atomically) after each write. */
  dataFile?: string;
  /** Load `dataFile` but never save it: for benchmarks, where saving a large database after each write would measure the emulator's disk, not cplane. */
  readOnlyData?: boolean;
  /** The base clock (default: the real one); the emulator's clock is it plus `clockOffset`. */
  now?: () => Date;
  /**
   * Shift of the emulator's clock (timestamps, expiry, due dates, idempotency retention, rate windows, the
   * `Date` header): `-25d`, `36h`, or milliseconds. Default: the offset saved in `dataFile`, else 0.
   */
  clockOffset?: Duration;
  /** Seed of the simulated traffic (default 1). */
  seed?: number;
  /** Accounts to add to the fixtures' three (`extraAccount(n)`: Ada their admin, Dana a reader, a group `team`, an active Service Account `deployer`), for fleets and benches. */
  accounts?: number;
}

export interface RunningEmulator {
  /** `http://127.0.0.1:PORT`, without the `/v1` prefix. */
  url: string;
  port: number;
  fixtures: typeof fixtures;
  setFaults(spec: string | FaultSpec | undefined): void;
  setLatency(ms: number): void;
  /** The emulator's current time. */
  now(): Date;
  /** The offset of the emulator's clock from the base clock, in milliseconds. */
  clockOffsetMs(): number;
  /** Sets the offset (`-25d`, `36h`, ms); saved with `dataFile`. */
  setClockOffset(offset: Duration): void;
  /** Moves the clock forward (or back, when negative) by `duration`: how tests make time pass without sleeping. */
  moveClock(duration: Duration): void;
  /** Sets down usage (requests and their cost) per gateway, token, model and time: what tests read spend from. */
  addUsage(seeds: readonly UsageSeed[]): void;
  stats(): EmulatorStats;
  /**
   * The id of the gateway token the data plane would accept for `plaintext` (matched by its hash: neither revoked
   * nor expired on the emulator's clock), or undefined: how a test checks that a delivered token works.
   */
  acceptedGatewayToken(plaintext: string): string | undefined;
  resetStats(): void;
  /** Adds an empty account of this id (a uuid), the admin user an admin of it: `cplane test`, for a configuration's own account. */
  addAccount(id: string): void;
  /**
   * Pauses (`inactive`) or reactivates (`active`) a Service Account: a dashboard action with no API operation, which
   * tests take to give an inactive Service Account a grant it kept from when it was active.
   */
  setServiceAccountStatus(id: string, status: 'active' | 'inactive'): void;
  close(): Promise<void>;
}

const emptyStats = (): EmulatorStats => ({
  requests: 0,
  writes: 0,
  throttled: 0,
  byOperation: Object.fromEntries(operationNames.map((name) => [name, 0])) as Record<OperationName, number>,
});

const toFaults = (spec: string | FaultSpec | undefined) =>
  new FaultInjector(typeof spec === 'string' ? parseFaultSpec(spec) : (spec ?? {}));

/** The HTTP server on 127.0.0.1, and its open sockets (closing the emulator destroys them). */
async function listen(
  port: number,
  listener: ReturnType<typeof createRequestListener>,
): Promise<{ server: Server; sockets: Set<Socket>; port: number }> {
  const server: Server = createServer({ requireHostHeader: false }, listener);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => {
    // Unparseable HTTP: answer 400 if the socket still can, never throw.
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, sockets, port: (server.address() as AddressInfo).port };
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const rng = createPrng(options.seed ?? 1);
  const saved = options.dataFile ? loadDatabase(options.dataFile) : undefined;
  const clock = new EmulatorClock(
    options.now ?? (() => new Date()),
    options.clockOffset !== undefined ? toMs(options.clockOffset) : (saved?.clockOffsetMs ?? 0),
  );
  const db = saved ?? seedDatabase(clock.now(), rng);
  db.clockOffsetMs = clock.offsetMs;
  addExtraAccounts(db, options.accounts ?? 0, clock.now());
  const persister = options.dataFile && !options.readOnlyData ? new Persister(options.dataFile, () => state.db) : undefined;
  const state: EmulatorState = {
    db,
    now: () => clock.now(),
    rng,
    faults: toFaults(options.faults),
    latencyMs: options.latencyMs ?? 0,
    rateLimiter: new RateLimiter(options.rateLimit ?? Infinity),
    planLimits: { ...options.planLimits },
    idempotency: new IdempotencyStore(),
    stats: emptyStats(),
    onWrite: () => persister?.schedule(),
  };
  persister?.flush();

  const { server, sockets, port } = await listen(options.port ?? 0, createRequestListener(state));

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    fixtures,
    setFaults: (spec) => {
      state.faults = toFaults(spec);
    },
    setLatency: (ms) => {
      state.latencyMs = ms;
    },
    now: () => clock.now(),
    clockOffsetMs: () => clock.offsetMs,
    setClockOffset: (offset) => {
      clock.setOffset(offset);
      db.clockOffsetMs = clock.offsetMs;
      persister?.schedule();
    },
    moveClock: (duration) => {
      clock.move(duration);
      db.clockOffsetMs = clock.offsetMs;
      persister?.schedule();
    },
    addUsage: (seeds) => {
      for (const seed of seeds) recordUsage(state.db, rng, clock.now(), seed);
      persister?.schedule();
    },
    stats: () => structuredClone(state.stats),
    acceptedGatewayToken: (plaintext) => {
      const hash = fingerprint(plaintext);
      const now = clock.now().getTime();
      return state.db.tokens.find(
        (t) => t.token_hash === hash && t.revoked_at === null && (t.expires_at === null || Date.parse(t.expires_at) > now),
      )?.token_id;
    },
    resetStats: () => {
      state.stats = emptyStats();
    },
    addAccount: (id) => {
      addEmptyAccount(state.db, id, `Test account ${id.slice(0, 8)}`);
      persister?.schedule();
    },
    setServiceAccountStatus: (id, status) => {
      const found = state.db.serviceAccounts.find((s) => s.service_account_id === id);
      if (!found) throw new Error(`no Service Account ${id} in the emulator`);
      found.status = status;
      persister?.schedule();
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      persister?.flush();
    },
  };
}
