/**
 * Reading secrets by name (`createReader`): the manifest says where each name is (./manifest.ts) and the
 * credential who reads (./reader-credential.ts), so an application is given two settings, CPLANE_MANIFEST
 * (public) and CPLANE_READER (secret). Every value is read with `readSecretValue`, all of whose checks apply,
 * with the writer keys, account and reader id of the manifest: the API is asked for a record by the manifest's
 * id, never by a name it lists.
 *
 * Values are cached and kept current by polling the Service Account's record list (`GET /records`): one request
 * per interval for every name watched, whatever their number (one per 200 records of the account), then a read
 * of only the records whose version moved. A version never goes backwards; a failed refresh keeps the last good
 * value and reports the error; a new version that cannot be read yet (WRAP_OTHER_VERSION: its wrap for this
 * reader is still to come) is not taken as seen, so the next poll tries it again.
 *
 * A watcher never stalls in silence: a record the list leaves out, and a version the list keeps while the record's
 * `updated_at` moves and a read finds a newer one, are reported (WatchError). A list that fails, or does not end
 * within MAX_LIST_PAGES, is asked again later and later (exponential, with jitter, capped), not at every interval.
 */
import { createClient, type Client, type ClientOptions } from './client.js';
import { WatchError } from './errors.js';
import {
  loadManifest,
  ManifestError,
  manifestDeployment,
  manifestRecord,
  type ManifestDeployment,
  type ReaderManifest,
} from './manifest.js';
import { decodeReaderCredential, type ReaderCredential } from './reader-credential.js';
import { readSecretValue } from './read-secret.js';
import type { ReaderValue } from './read-value.js';

export interface ReaderOptions {
  /** The manifest's path, or the parsed manifest (default: the path in CPLANE_MANIFEST). */
  manifest?: string | object;
  /** The reader credential `cplane-reader-1.…` (default: CPLANE_READER). */
  credential?: string;
  /** The manifest's deployment to read in (default: CPLANE_DEPLOYMENT, else the manifest's only one). */
  deployment?: string;
  /** How long a value read by `get` is used before the record list is asked again (default 30 s); watchers poll at their own interval. */
  intervalMs?: number;
  /** Where a failed refresh is reported when its watcher gave no `onError` (default: a process warning). */
  onError?: (error: Error, name: string) => void;
  /** Options of the client (the base URL, token and account come from the manifest and the credential). */
  client?: Pick<ClientOptions, 'timeoutMs' | 'maxResponseBytes' | 'allowInsecureHttp' | 'retry'>;
  /** What schedules the polls (default: Node's setTimeout and clearTimeout); tests give their own to step through time. */
  timers?: PollTimers;
}

export interface PollTimers {
  setTimeout(run: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * What a watcher is told of a new version besides the value (its second argument): no value, so that logging it
 * (`console.log(read)`, JSON.stringify) shows nothing secret.
 */
export interface WatchedVersion {
  name: string;
  version: number;
  accountId: string;
  writerKeyId: string;
  wrappedAt: Date;
}

/** A value read by name, with what its writer's authenticated wrapper says of it. */
export interface NamedValue extends ReaderValue {
  name: string;
}

export interface WatchOptions {
  /** How often the record list is asked (default 30 s); the reader polls at the shortest interval of its watchers. */
  intervalMs?: number;
  /**
   * Called with each refresh that failed, and when the record list leaves the record out or keeps an old version of
   * it (WatchError); the last good value is kept.
   */
  onError?: (error: Error) => void;
}

export interface Reader {
  /** The deployment read in. */
  readonly deployment: string;
  /** The secret's current value (cached; see ReaderOptions.intervalMs). */
  get(name: string): Promise<string>;
  /** `get`, with the value's version, account, writer and when it was wrapped. */
  read(name: string): Promise<NamedValue>;
  /**
   * Calls `onChange` with the value now and with each newer version (its second argument holds no value); returns
   * the function that stops watching.
   */
  watch(name: string, onChange: (value: string, read: WatchedVersion) => void, options?: WatchOptions): () => void;
  /** Asks the record list once now and reads what changed (what each interval does). */
  refresh(): Promise<void>;
  /** Stops every watcher and closes the connections. */
  close(): Promise<void>;
}

const DEFAULT_INTERVAL_MS = 30_000;
/** The largest page the API gives (docs/api-assumptions.md). */
const PAGE_SIZE = 200;
/** Pages of the record list asked for in one refresh: 20,000 records, far above what one Service Account reads. */
export const MAX_LIST_PAGES = 100;
/** After a failed list the next poll waits longer each time: from the interval (at least BACKOFF_BASE_MS) up to BACKOFF_CAP_MS. */
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 5 * 60_000;

/**
 * The delay after `failures` (1 or more) failed lists in a row: between half the ceiling and the ceiling ("equal
 * jitter", so that many readers of one account do not poll in step), the ceiling doubling from twice the interval up
 * to the cap. Never shorter than the interval.
 */
export function backoffDelay(failures: number, intervalMs: number, random: () => number = Math.random): number {
  const base = Math.max(intervalMs, BACKOFF_BASE_MS);
  const ceiling = Math.min(Math.max(2 * base, BACKOFF_CAP_MS), base * 2 ** Math.min(failures, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A record as the list shows it. */
interface ListedRecord {
  version: number | null;
  updatedAt: string | undefined;
}

const versionOf = (name: string, read: ReaderValue): WatchedVersion => ({
  name,
  version: read.version,
  accountId: read.accountId,
  writerKeyId: read.writerKeyId,
  wrappedAt: read.wrappedAt,
});

interface Watcher {
  name: string;
  recordId: string;
  onChange: (value: string, read: WatchedVersion) => void;
  intervalMs: number;
  onError: ((error: Error) => void) | undefined;
}

/** A reader of the secrets a manifest names, as the Service Account of the credential. */
export function createReader(options: ReaderOptions = {}): Reader {
  const source = options.manifest ?? process.env.CPLANE_MANIFEST;
  if (source === undefined || source === '')
    throw new ManifestError(
      'MANIFEST_INVALID',
      'No reader manifest: set CPLANE_MANIFEST to its path (the file `cplane reader-manifest` writes), or pass manifest.',
    );
  const where = typeof source === 'string' ? source : 'given';
  const manifest = loadManifest(source, where);
  const credential = decodeReaderCredential(
    options.credential ?? process.env.CPLANE_READER,
    options.credential !== undefined ? 'the credential' : 'CPLANE_READER',
  );
  const chosen = manifestDeployment(manifest, options.deployment ?? process.env.CPLANE_DEPLOYMENT, where);
  return new ManifestReader(manifest, chosen, credential, options);
}

class ManifestReader implements Reader {
  readonly deployment: string;
  private readonly client: Client;
  private readonly place: ManifestDeployment;
  /** The newest value read of each record id. */
  private readonly values = new Map<string, ReaderValue>();
  private readonly watchers = new Set<Watcher>();
  /** The `updated_at` the list last gave each record read or watched. */
  private readonly listedAt = new Map<string, string | undefined>();
  /** Failed lists in a row: the next poll waits longer (backoffDelay). */
  private failedLists = 0;
  private readonly timers: PollTimers;
  private lastListed = 0;
  private polling: Promise<void> | undefined;
  private timer: unknown;
  private closed = false;

  constructor(
    private readonly manifest: ReaderManifest,
    chosen: { name: string; deployment: ManifestDeployment },
    private readonly credential: ReaderCredential,
    private readonly options: ReaderOptions,
  ) {
    this.deployment = chosen.name;
    this.timers = options.timers ?? {
      setTimeout: (run, ms) => setTimeout(run, ms),
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    };
    this.place = chosen.deployment;
    this.client = createClient({
      ...options.client,
      baseUrl: this.place.baseUrl,
      token: credential.token,
      accountId: this.place.accountId,
    });
  }

  private recordOf(name: string) {
    return manifestRecord(this.manifest, { name: this.deployment, deployment: this.place }, name);
  }

  async get(name: string): Promise<string> {
    return (await this.read(name)).value;
  }

  async read(name: string): Promise<NamedValue> {
    const { recordId } = this.recordOf(name);
    const known = this.values.get(recordId);
    if (!known) return { name, ...(await this.readRecord(recordId).catch((error: unknown) => Promise.reject(named(error, name)))) };
    // Watchers keep the cache current; otherwise a value older than the interval is checked against the list.
    if (this.timer === undefined && Date.now() - this.lastListed >= (this.options.intervalMs ?? DEFAULT_INTERVAL_MS)) await this.refresh();
    return { name, ...this.values.get(recordId)! };
  }

  watch(name: string, onChange: (value: string, read: WatchedVersion) => void, options: WatchOptions = {}): () => void {
    const watcher: Watcher = {
      name,
      recordId: this.recordOf(name).recordId,
      onChange,
      intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
      onError: options.onError,
    };
    this.watchers.add(watcher);
    const known = this.values.get(watcher.recordId);
    if (known) queueMicrotask(() => onChange(known.value, versionOf(name, known)));
    this.schedule(0);
    return () => {
      this.watchers.delete(watcher);
      if (this.watchers.size === 0) this.stopTimer();
    };
  }

  refresh(): Promise<void> {
    // One poll at a time: a caller during a poll waits for it rather than sending another.
    this.polling ??= this.poll().finally(() => (this.polling = undefined));
    return this.polling;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watchers.clear();
    this.stopTimer();
    await this.polling?.catch(() => undefined);
    await this.client.close();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.watchers.size === 0) return;
    this.stopTimer();
    this.timer = this.timers.setTimeout(() => {
      // After a poll already under way, which a watcher added since is not part of.
      const previous = this.polling?.catch(() => undefined) ?? Promise.resolve();
      void previous
        .then(() => this.refresh())
        .finally(() => {
          const intervalMs = Math.min(...[...this.watchers].map((w) => w.intervalMs));
          this.schedule(this.failedLists > 0 ? backoffDelay(this.failedLists, intervalMs) : intervalMs);
        });
    }, delayMs);
  }

  /** Reads a record's value, no older than one already read, and keeps it when it is newer. */
  private async readRecord(recordId: string): Promise<ReaderValue> {
    const known = this.values.get(recordId);
    const read = await readSecretValue(this.client, {
      recordId,
      privateKey: this.credential.privateKey,
      writerKeys: this.place.writerKeys.map((key) => key.publicKey),
      accountId: this.place.accountId,
      ...(this.place.serviceAccountId ? { readerId: this.place.serviceAccountId } : {}),
      ...(known ? { minVersion: known.version } : {}),
    });
    if (!known || read.version > known.version) this.values.set(recordId, read);
    return this.values.get(recordId)!;
  }

  /**
   * One look at the record list, then a read of each record read or watched whose listed version is newer, or whose
   * listed version stayed while its `updated_at` moved (a check that the list is not stale).
   */
  private async poll(): Promise<void> {
    const tracked = new Set([...this.values.keys(), ...[...this.watchers].map((w) => w.recordId)]);
    let listed: Map<string, ListedRecord>;
    try {
      listed = await this.listRecords();
      this.failedLists = 0;
    } catch (error) {
      this.failedLists++;
      for (const recordId of tracked) this.report(recordId, error);
      return;
    }
    this.lastListed = Date.now();
    for (const recordId of tracked) {
      const known = this.values.get(recordId);
      const row = listed.get(recordId);
      const movedAt = row !== undefined && this.listedAt.has(recordId) && this.listedAt.get(recordId) !== row.updatedAt;
      if (row !== undefined) this.listedAt.set(recordId, row.updatedAt);
      if (known && row === undefined) {
        this.report(
          recordId,
          new WatchError(
            'RECORD_NOT_LISTED',
            `the record list (GET /records) no longer lists record ${recordId}: it was removed, its grant to this Service Account revoked, or the API hides it. The last value read (version ${known.version}) is kept.`,
          ),
        );
        continue;
      }
      // Only a newer version is read, or one the list may be hiding (the record changed, its listed version did not).
      // A version the list gives that is not newer once read changes nothing.
      const listedNewer = row?.version != null && (!known || row.version > known.version);
      if (known && !listedNewer && !movedAt) continue;
      try {
        const read = await this.readRecord(recordId);
        if (known && read.version <= known.version) continue;
        for (const w of this.watchers) if (w.recordId === recordId) w.onChange(read.value, versionOf(w.name, read));
        if (known && !listedNewer)
          this.report(
            recordId,
            new WatchError(
              'RECORD_LIST_STALE',
              `the record list (GET /records) gives record ${recordId} at version ${row?.version ?? 'none'}, but it was read at version ${read.version}: the API's list is stale or lies. The newer value, checked as every value is, was taken.`,
            ),
          );
      } catch (error) {
        this.report(recordId, error);
      }
    }
  }

  /** Every record of the list, by id: at most MAX_LIST_PAGES pages, so a list that never ends fails instead. */
  private async listRecords(): Promise<Map<string, ListedRecord>> {
    const records = new Map<string, ListedRecord>();
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const rows = await this.client.call('listRecords', { query: { limit: PAGE_SIZE, offset: page * PAGE_SIZE } });
      for (const row of rows) records.set(row.record_id, { version: row.current_version, updatedAt: row.updated_at });
      if (rows.length < PAGE_SIZE) return records;
    }
    throw new WatchError(
      'RECORD_LIST_TOO_LONG',
      `the record list (GET /records) did not end within ${MAX_LIST_PAGES} pages of ${PAGE_SIZE} records: the API keeps sending full pages. The last good value is kept, and the list is asked again later.`,
    );
  }

  private report(recordId: string, error: unknown): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    const watchers = [...this.watchers].filter((w) => w.recordId === recordId);
    const names =
      watchers.length > 0
        ? watchers.map((w) => w.name)
        : Object.entries(this.place.records)
            .filter(([, r]) => r.recordId === recordId)
            .map(([name]) => name);
    for (const w of watchers) if (w.onError) w.onError(named(failure, w.name));
    if (watchers.some((w) => w.onError)) return;
    for (const name of names) {
      if (this.options.onError) this.options.onError(named(failure, name), name);
      else
        process.emitWarning(`@cplane/sdk kept the last good value of ${name}: ${failure.message}`, {
          code: (failure as { code?: string }).code ?? 'CPLANE_REFRESH_FAILED',
        });
    }
  }
}

/** The error, its message naming the secret (its code unchanged): the application's name says more than a record id. */
function named(error: unknown, name: string): Error {
  if (!(error instanceof Error)) return new Error(`Secret "${name}": ${String(error)}`);
  const prefix = `Secret "${name}": `;
  if (!error.message.startsWith(prefix)) error.message = prefix + error.message;
  return error;
}
