/**
 * Start-up stays light: the command list is plain data and a command's module, with what it needs, loads
 * only when that command runs. A hook records every file a run of the built CLI loads (ES modules
 * through module.register, CommonJS ones from require's cache); a file of the bundle (dist/bundle/)
 * stands for the modules its source map lists. The heavy ones must be absent.
 * (How fast start-up is goes in bench/startup.mjs, never in a test.)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { builtCli } from '../helpers/built-cli.js';

const temp = mkdtempSync(join(tmpdir(), 'cplane-lazy-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const out = join(temp, 'loaded');
writeFileSync(
  join(temp, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(out)}, url + '\\n'); return next(url, context); }\n`,
);
writeFileSync(
  join(temp, 'register.mjs'),
  [
    "import { register, createRequire } from 'node:module';",
    "import { appendFileSync } from 'node:fs';",
    `register(${JSON.stringify(pathToFileURL(join(temp, 'hooks.mjs')).href)});`,
    `process.on('exit', () => appendFileSync(${JSON.stringify(out)}, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n'));`,
  ].join('\n'),
);

/** Paths of the modules one run of the CLI loaded, relative to the repository. */
function modulesOf(...args: string[]): string[] {
  rmSync(out, { force: true });
  spawnSync(process.execPath, ['--import', join(temp, 'register.mjs'), builtCli(), ...args], {
    cwd: temp,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  const root = resolve('.');
  const files = readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((entry) => decodeURIComponent(entry.replace(/^file:\/\//, '')));
  return files.flatMap((file) => {
    if (!file.startsWith(resolve('dist/bundle'))) return [relative(root, file)];
    // The bundler's own helpers (rolldown-runtime) come from no module and have no map.
    if (!existsSync(`${file}.map`)) return [];
    const { sources } = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return sources.map((source) => relative(root, resolve(dirname(file), source)));
  });
}

const heavy = [
  /node_modules\/ink\//,
  /node_modules\/react\//,
  /node_modules\/@sinclair\/typebox\//,
  /dist\/emulator\//,
  /dist\/export\//,
  /node_modules\/ajv\/dist\/(2020|core|compile)/,
];
const loadedHeavy = (modules: string[]) => modules.filter((m) => heavy.some((pattern) => pattern.test(m)));

it('`cplane --help` and `--version` load no ES module: the front door answers them from the text written at build time', () => {
  for (const flag of ['--help', '--version']) {
    const modules = modulesOf(flag);
    expect(modules).toContain('bin/cplane.js');
    expect(modules.filter((m) => !m.startsWith('bin/') && m !== 'dist/bundle/help.json')).toEqual([]);
  }
});

it('`cplane help plan` loads the command list only: no command module, no dependency', () => {
  const modules = modulesOf('help', 'plan');
  expect(modules).toContain('dist/cli/commands/index.js');
  expect(modules.filter((m) => m.includes('node_modules/'))).toEqual([]);
  expect(modules.filter((m) => m.includes('dist/cli/commands/') && !m.endsWith('commands/index.js'))).toEqual([]);
});

it('validate loads no Ink, React, TypeBox, emulator, export or schema compiler', () => {
  const modules = modulesOf('validate', resolve('examples/quickstart'));
  expect(modules).toContain('dist/cli/commands/validate.js');
  expect(loadedHeavy(modules)).toEqual([]);
});

it('plan (stopped early by a missing CPLANE_BASE_URL, after its module has loaded) loads none of them either', () => {
  const modules = modulesOf('plan');
  expect(modules).toContain('dist/cli/commands/plan.js');
  expect(modules).toContain('dist/planner/make-plan.js');
  expect(loadedHeavy(modules)).toEqual([]);
  // Nor the readers' cryptography (HPKE and its hashes), which only `read`, the SDK, the emulator and an apply that wraps use.
  expect(modules.filter((m) => /dist\/crypto\/(hpke|data-key-wrap)\.js|node_modules\/@noble\/hashes\//.test(m))).toEqual([]);
});
