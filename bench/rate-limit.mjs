// Applies under the API's request rate limit, side by side in one run: today's fixed concurrency (CPLANE_RATE=fixed:
// --parallelism requests in flight, each 429 backed off alone) and the adaptive rate (src/api/adaptive-rate.ts).
// The emulator limits each token with a token bucket (`--rate-limit N`: N a second, a second's burst) and answers
// after 20 ms. Each row is one `cplane apply --auto-approve` of RESOURCES projects by the real CLI, and, last, one
// `apply --all` over 4 deployments in 4 accounts that share one token (RESOURCES projects between them).
// Figures: the apply's exit code, the requests sent, the share answered 429, and the wall time over the bound
// writes ÷ limit (below 1 is possible: the bucket's first second of burst is free).
// node bench/rate-limit.mjs [--limits 5,20,100] [--parallelism 10,64] [--resources 1000] [--modes fixed,adaptive]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../dist/emulator/index.js';
import { extraAccountFixtures, fixtures } from '../dist/emulator/fixtures.js';

const { values } = parseArgs({
  options: {
    limits: { type: 'string', default: '5,20,100' },
    parallelism: { type: 'string', default: '10,64' },
    resources: { type: 'string', default: '1000' },
    modes: { type: 'string', default: 'fixed,adaptive' },
    'skip-all': { type: 'boolean', default: false },
  },
});
const list = (text) => text.split(',').map((n) => Number(n));
const limits = list(values.limits);
const parallelisms = list(values.parallelism);
const resources = Number(values.resources);
const modes = values.modes.split(',');
const LATENCY_MS = 20;
const cli = fileURLToPath(new URL('../bin/cplane.js', import.meta.url));

function projects(count, prefix) {
  const lines = [];
  for (let i = 0; i < count; i++) lines.push(`  ${prefix}${i}: { name: ${prefix}${i}, description: bench }`);
  return lines.join('\n');
}

function run(args, env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, wallMs: performance.now() - started, stderr }));
  });
}

async function measure({ limit, parallelism, mode, all }) {
  const accounts = all ? extraAccountFixtures(4).accounts.map((a) => a.id) : [fixtures.accounts[0].id];
  const emulator = await startEmulator({ latencyMs: LATENCY_MS, rateLimit: limit, accounts: all ? 4 : 0 });
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-rate-'));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    NO_COLOR: '1',
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_STATE_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...(mode === 'fixed' ? { CPLANE_RATE: 'fixed' } : {}),
  };
  if (all) {
    const deployments = accounts.map((account, i) => `  d${i}: { account: ${account}, variables: { n: "${i}" } }`).join('\n');
    const each = Math.ceil(resources / accounts.length);
    const lines = [];
    for (let i = 0; i < each; i++) lines.push(`  p${i}: { name: "p${i}-\${var.n}", description: bench }`);
    writeFileSync(
      join(dir, 'main.yaml'),
      `version: 1\nvariables:\n  n: { type: string }\ndeployments:\n${deployments}\nprojects:\n${lines.join('\n')}\n`,
    );
  } else {
    env.CPLANE_ACCOUNT = accounts[0];
    writeFileSync(join(dir, 'main.yaml'), `version: 1\nprojects:\n${projects(resources, 'p')}\n`);
  }
  try {
    const args = ['apply', dir, '--auto-approve', '--parallelism', String(parallelism), ...(all ? ['--all'] : [])];
    const result = await run(args, env);
    const stats = emulator.stats();
    const writes = stats.writes;
    return { ...result, requests: stats.requests, throttled: stats.throttled, writes, boundMs: (writes / limit) * 1000 };
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `apply of ${resources} projects at ${LATENCY_MS} ms latency under a token-bucket rate limit (limit a second, a second's burst)`,
);
console.log('limit  parallelism  mode       what            exit  writes  requests  429s   429 %   wall s   × writes÷limit');
const rows = [];
for (const limit of limits)
  for (const parallelism of parallelisms)
    for (const all of values['skip-all'] ? [false] : [false, true]) {
      if (all && parallelism !== parallelisms[0]) continue;
      for (const mode of modes) {
        const r = await measure({ limit, parallelism, mode, all });
        rows.push({ limit, parallelism, mode, all, ...r });
        console.log(
          [
            String(limit).padStart(5),
            String(parallelism).padStart(11),
            mode.padEnd(9),
            (all ? 'apply --all ×4' : 'apply').padEnd(15),
            String(r.code).padStart(4),
            String(r.writes).padStart(7),
            String(r.requests).padStart(9),
            String(r.throttled).padStart(5),
            `${((100 * r.throttled) / Math.max(r.requests, 1)).toFixed(1)} %`.padStart(7),
            (r.wallMs / 1000).toFixed(1).padStart(8),
            (r.wallMs / r.boundMs).toFixed(2).padStart(16),
          ].join('  '),
        );
        if (r.code !== 0) console.log(`      ${r.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300)}`);
      }
    }
