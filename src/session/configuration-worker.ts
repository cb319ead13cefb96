/**
 * The worker thread of configuration-off-thread.ts: loads one configuration and sends back its LoadResult. Its own
 * entry in the CLI's bundle (scripts/bundle.mjs). The environment is this thread's process.env, set by the main
 * thread; the loader's exceptions are not sent (an Error loses its class when cloned): the main thread loads again.
 * In the bundle this entry loads the CLI's entry chunk for the modules they share; that chunk starts the CLI only
 * when the process's script is cplane's (src/cli/main.ts), and a worker's process.argv[1] is this file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfiguration } from '../providers/index.js';
import type { ConfigurationAnswer, ConfigurationJob } from './configuration-off-thread.js';

const job = workerData as ConfigurationJob;
// A promise chain, not a top-level await: the bundle is CommonJS.
void Promise.resolve()
  .then(() => loadConfiguration(job.dir, { ...job.options, env: process.env }))
  .then(
    (result): ConfigurationAnswer => ({ result }),
    (): ConfigurationAnswer => ({ failed: true }),
  )
  .then((answer) => parentPort?.postMessage(answer));
