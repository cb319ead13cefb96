// Runs every benchmark in this folder (bench/*.mjs: apply, export, plan, policy, startup, state, validate...) one
// after another and prints their figures.
// Benchmarks import the compiled code from dist/, so `npm run bench` builds first.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const scripts = readdirSync(here)
  .filter((name) => name.endsWith('.mjs'))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n== bench/${script}`);
  const result = spawnSync(process.execPath, [join(here, script)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
