// bench/startup: how long `cplane` takes to start, against `node -e 0` measured side by side.
// Each command runs in pairs with `node -e 0` (the cost of starting Node itself), RUNS times; the
// figures are the medians and their ratio. Goals: --help and --version <= 1.5x, `validate
// examples/quickstart` <= 3x, `plan` of the quickstart with no changes (emulator started
// beforehand) <= 5x. On a busy machine the wall clock stretches every run, so the CPU time of the
// runs (from /proc) is printed beside it, with how many files of code each command loads. Then `validate` and `plan`
// run side by side with a copy of bin/ and dist/bundle/ that has no code cache (bin/code-cache.js), alternating.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixtures } from '../dist/emulator/fixtures.js';
import { startEmulatorProcess } from './lib/emulator-process.mjs';

const RUNS = 15;
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/cplane.js');
const account = fixtures.accounts[1].id;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** CPU seconds (user + system) of the children this process has waited for, from /proc (Linux only). */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime, in ticks of 10 ms
  } catch {
    return NaN;
  }
}

/** Wall and CPU milliseconds of one run. */
function timed(args, options) {
  const cpuBefore = childrenCpuMs();
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', ...options });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 && result.status !== 2) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpuBefore };
}

/** Files of JavaScript loaded by one run: ES modules through a module.register hook, CommonJS ones from require's cache. */
function modulesLoaded(args, options) {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-mods-'));
  const out = join(dir, 'loaded');
  const hooks = join(dir, 'hooks.mjs');
  const register = join(dir, 'register.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(out)}, url + '\\n'); return next(url, context); }\n`,
  );
  writeFileSync(
    register,
    [
      "import { createRequire, register } from 'node:module';",
      "import { appendFileSync } from 'node:fs';",
      `register(${JSON.stringify(pathToFileURL(hooks).href)});`,
      `process.on('exit', () => appendFileSync(${JSON.stringify(out)}, Object.keys(createRequire(import.meta.url).cache).map((f) => 'file://' + f).join('\\n') + '\\n'));`,
    ].join('\n'),
  );
  try {
    spawnSync(process.execPath, ['--import', register, ...args], options);
    return new Set(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:') && /\.[cm]?js$/.test(url)),
    ).size;
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const emulator = await startEmulatorProcess();
const temp = mkdtempSync(join(tmpdir(), 'cplane-bench-startup-'));
try {
  const dir = join(temp, 'quickstart');
  cpSync(join(root, 'examples/quickstart'), dir, { recursive: true });
  const secrets = Object.fromEntries(
    readFileSync(join(dir, 'demo.env'), 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split('=')),
  );
  const env = {
    PATH: process.env.PATH,
    HOME: temp,
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: account,
    CPLANE_STATE_KEY: Buffer.alloc(32, 3).toString('base64'),
    NO_COLOR: '1',
    ...secrets,
  };
  const options = { cwd: temp, env };
  timed([bin, 'apply', 'quickstart', '--auto-approve'], options);

  const commands = [
    { label: 'cplane --help', args: ['--help'], goal: 1.5 },
    { label: 'cplane --version', args: ['--version'], goal: 1.5 },
    { label: 'cplane validate examples/quickstart', args: ['validate', join(root, 'examples/quickstart')], goal: 3 },
    { label: 'cplane plan (quickstart, no changes)', args: ['plan', 'quickstart', '--detailed-exitcode'], goal: 5 },
  ];
  console.log(`median of ${RUNS} runs, each paired with \`node -e 0\`; the emulator runs in its own process`);
  for (const command of commands) {
    const base = [];
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      base.push(timed(['-e', '0'], options));
      runs.push(timed([bin, ...command.args], options));
    }
    const wall = median(runs.map((r) => r.ms));
    const baseWall = median(base.map((r) => r.ms));
    const ratio = wall / baseWall;
    const cpu = median(runs.map((r) => r.cpuMs));
    const baseCpu = median(base.map((r) => r.cpuMs));
    const modules = modulesLoaded([bin, ...command.args], options);
    console.log(
      `  ${command.label.padEnd(40)} ${wall.toFixed(0).padStart(5)} ms vs node -e 0 ${baseWall.toFixed(0).padStart(4)} ms: ` +
        `${ratio.toFixed(2)}x (goal <= ${command.goal}x) ${ratio <= command.goal ? 'OK' : 'SLOW'}; ` +
        `CPU ${cpu.toFixed(0)} ms vs ${baseCpu.toFixed(0)} ms: ${(cpu / baseCpu).toFixed(2)}x${modules ? `; ${modules} files of code` : ''}`,
    );
  }

  // The same CLI without its code cache: a copy of package.json, bin/ and dist/bundle/ (the caches left out) beside
  // a link to node_modules, so everything else resolves as it does from the repository.
  const bare = join(temp, 'bare');
  cpSync(join(root, 'package.json'), join(bare, 'package.json'));
  cpSync(join(root, 'bin'), join(bare, 'bin'), { recursive: true });
  cpSync(join(root, 'dist', 'bundle'), join(bare, 'dist', 'bundle'), { recursive: true, filter: (file) => !file.endsWith('.v8cache') });
  symlinkSync(join(root, 'node_modules'), join(bare, 'node_modules'));
  console.log(`CPU of the CLI with and without its code cache (median of ${RUNS}, alternating)`);
  for (const command of commands.slice(2)) {
    const cached = [];
    const uncached = [];
    for (let i = 0; i < RUNS; i++) {
      cached.push(timed([bin, ...command.args], options).cpuMs);
      uncached.push(timed([join(bare, 'bin', 'cplane.js'), ...command.args], options).cpuMs);
    }
    const [withCache, without] = [median(cached), median(uncached)];
    console.log(
      `  ${command.label.padEnd(40)} ${withCache.toFixed(0).padStart(4)} ms with the cache, ${without.toFixed(0).padStart(4)} ms without: ${(withCache / without).toFixed(2)}x`,
    );
  }
} finally {
  emulator.close();
  rmSync(temp, { recursive: true, force: true });
}
