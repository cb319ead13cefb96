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
 */
import { createClient, type Client, type ClientOptions } from './client.js';
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
}

/** A value read by name, with what its writer's authenticated wrapper says of it. */
export interface NamedValue extends ReaderValue {
  name: string;
}

export interface WatchOptions {
  /** How often the record list is asked (default 30 s); the reader polls at the shortest interval of its watchers. */
  intervalMs?: number;
  /** Called with each refresh that failed; the last good value is kept. */
  onError?: (error: Error) => void;
}

export interface Reader {
  /** The deployment read in. */
  readonly deployment: string;
  /** The secret's current value (cached; see ReaderOptions.intervalMs). */
  get(name: string): Promise<string>;
  /** `get`, with the value's version, account, writer and when it was wrapped. */
  read(name: string): Promise<NamedValue>;
  /** Calls `onChange` with the value now and with each newer version; returns the function that stops watching. */
  watch(name: string, onChange: (value: string, read: NamedValue) => void, options?: WatchOptions): () => void;
  /** Asks the record list once now and reads what changed (what each interval does). */
  refresh(): Promise<void>;
  /** Stops every watcher and closes the connections. */
  close(): Promise<void>;
}

const DEFAULT_INTERVAL_MS = 30_000;
/** The largest page the API gives (docs/api-assumptions.md). */
const PAGE_SIZE = 200;

interface Watcher {
  name: string;
  recordId: string;
  onChange: (value: string, read: NamedValue) => void;
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
  private lastListed = 0;
  private polling: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly manifest: ReaderManifest,
    chosen: { name: string; deployment: ManifestDeployment },
    private readonly credential: ReaderCredential,
    private readonly options: ReaderOptions,
  ) {
    this.deployment = chosen.name;
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

  watch(name: string, onChange: (value: string, read: NamedValue) => void, options: WatchOptions = {}): () => void {
    const watcher: Watcher = {
      name,
      recordId: this.recordOf(name).recordId,
      onChange,
      intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
      onError: options.onError,
    };
    this.watchers.add(watcher);
    const known = this.values.get(watcher.recordId);
    if (known) queueMicrotask(() => onChange(known.value, { name, ...known }));
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
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.watchers.size === 0) return;
    this.stopTimer();
    this.timer = setTimeout(() => {
      // After a poll already under way, which a watcher added since is not part of.
      const previous = this.polling?.catch(() => undefined) ?? Promise.resolve();
      void previous.then(() => this.refresh()).finally(() => this.schedule(Math.min(...[...this.watchers].map((w) => w.intervalMs))));
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

  /** One look at the record list, then a read of each record read or watched whose listed version is newer. */
  private async poll(): Promise<void> {
    const tracked = new Set([...this.values.keys(), ...[...this.watchers].map((w) => w.recordId)]);
    let listed: Map<string, number | null>;
    try {
      listed = await this.listVersions();
    } catch (error) {
      for (const recordId of tracked) this.report(recordId, error);
      return;
    }
    this.lastListed = Date.now();
    for (const recordId of tracked) {
      const known = this.values.get(recordId);
      const version = listed.get(recordId);
      // Only a newer version is read. The list is the server's word: a version it lists that is not newer once read
      // changes nothing, and a record it leaves out is read only if this reader never had its value.
      if (known && (version === undefined || version === null || version <= known.version)) continue;
      try {
        const read = await this.readRecord(recordId);
        if (!known || read.version > known.version)
          for (const w of this.watchers) if (w.recordId === recordId) w.onChange(read.value, { name: w.name, ...read });
      } catch (error) {
        this.report(recordId, error);
      }
    }
  }

  private async listVersions(): Promise<Map<string, number | null>> {
    const versions = new Map<string, number | null>();
    for (let offset = 0; ; offset += PAGE_SIZE) {
      const rows = await this.client.call('listRecords', { query: { limit: PAGE_SIZE, offset } });
      for (const row of rows) versions.set(row.record_id, row.current_version);
      if (rows.length < PAGE_SIZE) return versions;
    }
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
