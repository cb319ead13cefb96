/**
 * Loading a configuration on a worker thread, so the main thread can wait on the network meanwhile: parsing a large
 * configuration is CPU work (1.3 MB of YAML, 60,001 addresses, about 2 s), while a command's list requests are mostly
 * waiting. `cplane access report` reads the account while its configuration loads (workspace.ts,
 * `openWorkspaceWhileReading`); plan and drift could overlap the same way, but their reads depend on the
 * configuration (what to refresh), so only the report does today.
 *
 * One code path for the loading itself: the worker (configuration-worker.ts) calls the very `loadConfiguration`
 * the main thread calls, and this module uses the worker only when it runs built and the worker's entry in the
 * bundle exists (dist/bundle/chunks/configuration-worker.cjs, scripts/bundle.mjs). Run from the TypeScript sources
 * (vitest), it loads the configuration in this thread. test/e2e/configuration-off-thread.test.ts runs the built
 * module and the CLI against in-thread loading, and checks that the worker did the loading.
 * (The policy sandbox's worker, policy/sandbox.ts, is a string instead, since its code is a library's; this one runs
 * our loader, hence a built entry.)
 *
 * What crosses: the worker gets the folder and the load options but not the environment in a message (it is the
 * worker's own `process.env`, given with the `env` option, as the loader reads it in this thread); it sends back
 * the LoadResult, plain data, structured-cloned: 20 MB and about 0.45 s for 60,001 addresses, of which 0.3 s on this
 * thread (bench/access-report.mjs prints it). No secret value crosses: loading resolves none; it only registers the
 * state URL's passwords for redaction, which this thread registers again from the result. Anything but a LoadResult
 * (the loader threw, the worker died, no worker could start) makes this thread load again itself, so an error is the
 * loader's own, with its class and words, exactly as without the worker.
 */
import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LoadOptions, LoadResult } from '../config/index.js';
import { registerUrlPasswords } from '../text/url-secrets.js';
import { packageFile } from '../package-files.js';
import { loadConfiguration } from '../providers/index.js';

export type ConfigurationLoadOptions = Omit<LoadOptions, 'kinds'>;

/** What the main thread hands the worker: the folder and the options, without the environment. */
export interface ConfigurationJob {
  dir: string;
  options: Omit<ConfigurationLoadOptions, 'env'>;
}

/** What the worker sends back: the result, or that the loader threw (the main thread then loads again to throw it). */
export type ConfigurationAnswer = { result: LoadResult } | { failed: true };

/**
 * The bundle's worker entry, when this module runs built (from the bundle, or from tsc's dist/ as the bench runs
 * it) and the bundle is there; undefined from the TypeScript sources (vitest) and from the GitHub Action's bundle
 * (action/dist/*.mjs, which has no worker entry). Built code takes the bundle's entry, three files where tsc's
 * output is a few hundred modules to start, so the bench starts the very worker the CLI starts.
 */
function workerEntry(): string | undefined {
  const ext = extname(fileURLToPath(import.meta.url));
  if (ext !== '.js' && ext !== '.cjs') return undefined;
  try {
    const entry = packageFile('dist', 'bundle', 'chunks', 'configuration-worker.cjs');
    return existsSync(entry) ? entry : undefined;
  } catch {
    // No package.json above this module (copied out of its package): no bundle to start from.
    return undefined;
  }
}

/** Where the configuration was loaded: in a worker, or in this thread (sources, or after the worker failed). */
export type LoadedWhere = 'worker' | 'thread';

/**
 * `loadConfiguration(dir, options)`, on a worker thread when the built worker exists. The promise settles as the
 * in-thread call would: with its result, or with its error.
 */
export async function loadConfigurationOffThread(
  dir: string,
  options: ConfigurationLoadOptions,
  /** Stops the worker (the language server: an edit made the load stale); the promise then rejects with its reason. */
  signal?: AbortSignal,
): Promise<LoadResult & { loadedIn: LoadedWhere }> {
  const entry = workerEntry();
  const answer = entry === undefined ? undefined : await askWorker(entry, dir, options, signal);
  signal?.throwIfAborted();
  if (answer && 'result' in answer) {
    // The loader registers the state URL's passwords for redaction, in the worker's registry: this thread's must know
    // them before it prints anything of the configuration (its warnings), as after loading here.
    registerUrlPasswords(answer.result.desired?.stateUrl);
    return { ...answer.result, loadedIn: 'worker' };
  }
  const result = await loadConfiguration(dir, options);
  // In this thread the load cannot be stopped midway; a stale result is still never returned.
  signal?.throwIfAborted();
  return { ...result, loadedIn: 'thread' };
}

function askWorker(
  entry: string,
  dir: string,
  options: ConfigurationLoadOptions,
  signal: AbortSignal | undefined,
): Promise<ConfigurationAnswer | undefined> {
  const { env, ...rest } = options;
  const job: ConfigurationJob = { dir, options: rest };
  return new Promise((resolve) => {
    // An abort is an event that does not repeat: a load already stale starts no worker at all.
    if (signal?.aborted) {
      resolve(undefined);
      return;
    }
    let worker: Worker;
    try {
      // The environment the loader would read here (secret sources, CPLANE_VAR_*): the worker's process.env.
      worker = new Worker(entry, { workerData: job, env: env ?? process.env });
    } catch {
      resolve(undefined);
      return;
    }
    worker.once('message', (answer: ConfigurationAnswer) => resolve(answer));
    // An error or an exit without an answer: this thread loads again, and says what the loader says.
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
    signal?.addEventListener('abort', () => void worker.terminate(), { once: true });
  });
}
