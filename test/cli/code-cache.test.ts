/**
 * The bundle's code cache (bin/code-cache.js): the build makes one for every bundle file but those that import a
 * module outside the bundle, the CLI starts from them, and a cache is never used for a file other than the one it
 * was made from. (How much it saves goes in bench/startup.mjs, never in a test.)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { builtCli } from '../helpers/built-cli.js';

const temp = mkdtempSync(join(tmpdir(), 'cplane-code-cache-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

it('the build made a cache for each bundle file but those with a dynamic import, and `validate` starts from them', () => {
  const bundle = join(builtCli(), '..', '..', 'dist', 'bundle');
  const uncached: string[] = JSON.parse(readFileSync(join(bundle, 'dynamic-imports.json'), 'utf8'));
  // The two modules that `import()` what the bundle leaves outside (Ink, the PostgreSQL driver), each in a small chunk.
  expect(uncached).toEqual([
    expect.stringMatching(/^chunks\/ink-[\w-]+\.cjs$/),
    expect.stringMatching(/^chunks\/postgres-driver-[\w-]+\.cjs$/),
  ]);
  for (const name of uncached) expect(readFileSync(join(bundle, name), 'utf8')).toMatch(/\bimport\("(ink|pg)"\)/);
  const files = ['cplane.cjs', ...readdirSync(join(bundle, 'chunks')).map((name) => `chunks/${name}`)].filter((name) =>
    name.endsWith('.cjs'),
  );
  expect(files.filter((name) => !existsSync(join(bundle, `${name}.v8cache`)))).toEqual(uncached);

  // The CLI as bin/cplane.js starts it (its V8 flags first: a cache made under other flags is refused), reporting
  // at exit what compiled from a cache.
  const probe = join(temp, 'probe.cjs');
  writeFileSync(
    probe,
    `require(${JSON.stringify(join(builtCli(), '..', 'v8-flags.js'))}).setV8Flags();\n` +
      `const compiled = require(${JSON.stringify(join(builtCli(), '..', 'code-cache.js'))}).useCodeCache();\n` +
      `process.on('exit', () => process.stderr.write(JSON.stringify([...compiled].map(([file, { cached }]) => [file.split('/dist/bundle/')[1], cached]))));\n` +
      `process.argv[1] = ${JSON.stringify(builtCli())};\nrequire(${JSON.stringify(join(bundle, 'cplane.cjs'))});\n`,
  );
  const config = join(temp, 'config');
  mkdirSync(config);
  writeFileSync(join(config, 'main.yaml'), 'projects:\n  core: { description: Core }\n');
  const run = spawnSync(process.execPath, [probe, 'validate', config], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(run.stdout).toBe('Configuration is valid: 1 resource in 1 file.\n');
  const compiled = new Map<string, boolean>(JSON.parse(run.stderr));
  expect([...compiled.keys()]).toEqual(expect.arrayContaining(['cplane.cjs', expect.stringMatching(/^chunks\/config-/)]));
  expect([...compiled].filter(([, cached]) => !cached)).toEqual([]);
});

it('never uses a cache for a file other than the one it was made from, even one of the same length', () => {
  // A copy of bin/ beside a bundle of one file, so the module's own path rules apply.
  const root = join(temp, 'copy');
  cpSync(join(builtCli(), '..'), join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'dist', 'bundle'), { recursive: true });
  const file = join(root, 'dist', 'bundle', 'answer.cjs');
  writeFileSync(file, 'exports.answer = () => "made";\n');
  const run = (code: string) =>
    spawnSync(
      process.execPath,
      ['-e', `const c = require(${JSON.stringify(join(root, 'bin', 'code-cache.js'))}); const compiled = c.useCodeCache(); ${code}`],
      { encoding: 'utf8' },
    );

  const made = run(
    `const { answer } = require(${JSON.stringify(file)}); answer(); c.writeCodeCache(compiled); console.log(answer(), [...compiled.values()].map((s) => s.cached))`,
  );
  expect(made.stdout).toBe('made []\n'); // no cache yet: Node compiled it, so there is nothing to keep

  // The build's way: compile, run, keep.
  const kept = run(
    `const vm = require('node:vm'); const Module = require('node:module'); const script = new vm.Script(Module.wrap(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8')), { filename: ${JSON.stringify(file)} }); c.writeCodeCache(new Map([[${JSON.stringify(file)}, { script }]]));`,
  );
  expect(kept.status).toBe(0);
  expect(existsSync(`${file}.v8cache`)).toBe(true);
  const used = run(`console.log(require(${JSON.stringify(file)}).answer(), [...compiled.values()].map((s) => s.cached))`);
  expect(used.stdout).toBe('made [ true ]\n');

  // The same length, other code: the cache is not used, and the new code runs.
  writeFileSync(file, 'exports.answer = () => "edit";\n');
  const edited = run(`console.log(require(${JSON.stringify(file)}).answer(), [...compiled.values()].map((s) => s.cached))`);
  expect(edited.stdout).toBe('edit []\n');

  // A cache V8 refuses (here: truncated) is not used either; the file compiles as usual.
  writeFileSync(file, 'exports.answer = () => "made";\n');
  const cache = readFileSync(`${file}.v8cache`);
  writeFileSync(`${file}.v8cache`, cache.subarray(0, 12));
  const refused = run(`console.log(require(${JSON.stringify(file)}).answer(), [...compiled.values()].map((s) => s.cached))`);
  expect(refused.stdout).toBe('made [ false ]\n');
});
