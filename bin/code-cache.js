// V8's code cache for the bundle (dist/bundle/). Compiling the bundle's 1.7 MB of JavaScript was about a third of
// what a short command costs beyond Node's own start (docs/performance.md, "Start-up"). `npm run build` runs the CLI
// once on an example (scripts/code-cache.mjs) and keeps, beside each bundle file `F.cjs`, `F.cjs.v8cache`: what V8
// compiled for it. A later run hands that to V8 instead of compiling again.
//
// Node 20 has no compile cache of its own (`module.enableCompileCache` is Node 22), so this is the one place that
// compiles the bundle's files itself: the same CommonJS wrapper and `require` that Node gives a module. A cache is
// used only for the exact file it was made from (a CRC-32 of the source heads the cache file: V8 itself compares
// only the source's length) and only if V8 accepts it (same V8 version and flags); otherwise the file compiles as
// usual. The cache is written at build time beside the code it was made from, never at run time nor in a shared
// temporary folder: whoever can change it can change the code itself.
'use strict';

const Module = require('node:module');
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, sep } = require('node:path');
const vm = require('node:vm');
const { crc32 } = require('node:zlib');

const bundleDir = join(__dirname, '..', 'dist', 'bundle') + sep;

/** Where the cache of a bundle file is kept. */
const cacheFileOf = (filename) => `${filename}.v8cache`;

/** The V8 data cached for `source`, or undefined when there is none or it was made from another source. */
function cachedDataFor(filename, source) {
  let file;
  try {
    file = readFileSync(cacheFileOf(filename));
  } catch {
    return undefined;
  }
  return file.length > 4 && file.readUInt32BE(0) === crc32(source) ? file.subarray(4) : undefined;
}

/**
 * From now on, the bundle's files that have a cache compile with it. Returns what was compiled so, by file: the
 * script (for `writeCodeCache`) and whether V8 took the cache.
 * @returns {Map<string, { script: vm.Script, cached: boolean }>}
 */
function useCodeCache() {
  const compiled = new Map();
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileWithCache(source, filename) {
    const cachedData = filename.startsWith(bundleDir) ? cachedDataFor(filename, source) : undefined;
    // Node compiles what has no cache: other modules, and the bundle files the build made none for (a dynamic
    // `import()` of a module outside the bundle, which Node 20 cannot resolve in code V8 took from a cache).
    if (cachedData === undefined) return compile.call(this, source, filename);
    const script = new vm.Script(Module.wrap(source), { filename, cachedData });
    compiled.set(filename, { script, cached: !script.cachedDataRejected });
    const require = (id) => this.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, this, false, options);
    require.main = process.mainModule;
    require.cache = Module._cache;
    return script.runInThisContext({ displayErrors: true }).call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  return compiled;
}

/** Keeps, beside each file compiled, what V8 has compiled of it so far (the functions that ran included). */
function writeCodeCache(compiled) {
  for (const [filename, { script }] of compiled) {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(crc32(readFileSync(filename, 'utf8')));
    writeFileSync(cacheFileOf(filename), Buffer.concat([header, script.createCachedData()]));
  }
}

module.exports = { useCodeCache, writeCodeCache };
