// bench/watch: what watching secrets by name costs while nothing changes (docs/sdk.md, "Renewals without a
// restart"). 100 records granted to one Service Account are applied to the emulator, `cplane reader-manifest` writes
// their manifest, and a reader of @cplane/sdk watches 1, 10 and then 100 of them, polling every 100 ms. Counted on
// the emulator, side by side: the record lists asked (one per interval) and every request, over about 10 intervals
// after the first values were read. Goal: one request per interval whatever the number of names (the account's
// record list, one page per 200 records), and no read while no version moves. Printed, and the goal asserted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createReader, encodeReaderCredential } from '../packages/sdk/dist/index.js';
import { runCli } from '../dist/cli/main.js';
import { startEmulator } from '../dist/emulator/index.js';
import { fixtures } from '../dist/emulator/fixtures.js';
import { fixtureKeyPair } from '../dist/emulator/keys.js';

const NAMES = 100;
const INTERVAL_MS = 100;
const account = fixtures.accounts[0].id;
const ciDeployer = fixtures.serviceAccounts[0];
const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-watch-'));
const emulator = await startEmulator({ latencyMs: 0 });

/** `cplane ARGS` in this process; its stdout. */
async function cplane(args, extraEnv = {}) {
  let stdout = '';
  let stderr = '';
  const sink = (append) => new Writable({ write: (chunk, _encoding, done) => (append(chunk.toString()), done()) });
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: account,
    CPLANE_STATE_KEY: Buffer.alloc(32, 7).toString('base64'),
    NO_COLOR: '1',
    ...extraEnv,
  };
  const code = await runCli(args, {
    env,
    cwd: dir,
    stdout: sink((t) => (stdout += t)),
    stderr: sink((t) => (stderr += t)),
    stdin: Readable.from([]),
  });
  if (code !== 0) throw new Error(`cplane ${args.join(' ')} failed: ${stderr}`);
  return stdout;
}

try {
  const records = Array.from(
    { length: NAMES },
    (_, i) => `      secret-${i}:\n        value: { env: SECRET_VALUE }\n        grants: { serviceAccounts: [ci-deployer] }\n`,
  ).join('');
  writeFileSync(join(dir, 'main.yaml'), `version: 1\nprojects:\n  app:\n    name: bench-watch\n    records:\n${records}`);
  await cplane(['apply', dir, '--auto-approve'], { SECRET_VALUE: 'bench-watch-value-0001' });
  const manifest = JSON.parse(await cplane(['reader-manifest', 'ci-deployer', dir]));
  const credential = encodeReaderCredential({
    token: fixtures.tokens.serviceAccount,
    privateKey: fixtureKeyPair(ciDeployer.id).privateKey,
  });

  console.log(
    `watching names of one Service Account (${NAMES} records in the account), polling every ${INTERVAL_MS} ms, nothing changing:`,
  );
  for (const count of [1, 10, 100]) {
    const reader = createReader({ manifest, credential });
    const names = Object.keys(manifest.deployments.default.records).slice(0, count);
    let first = 0;
    for (const name of names) reader.watch(name, () => first++, { intervalMs: INTERVAL_MS });
    while (first < count) await sleep(10);
    emulator.resetStats();
    await sleep(INTERVAL_MS * 10);
    const stats = emulator.stats();
    await reader.close();
    const intervals = stats.byOperation.listRecords ?? 0;
    const perInterval = stats.requests / Math.max(1, intervals);
    console.log(
      `  ${String(count).padStart(3)} name(s): ${perInterval.toFixed(2)} request(s) per interval (${stats.requests} requests over ${intervals} intervals, ${stats.byOperation.readRecord ?? 0} reads)`,
    );
    if (intervals === 0 || perInterval !== 1) process.exitCode = 1;
  }
} finally {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
}
