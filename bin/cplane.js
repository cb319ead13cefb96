#!/usr/bin/env node
// The sources are compiled and bundled to dist/bundle/ by `npm install` (the prepare script); this shim
// starts them. Like the bundle it is CommonJS (bin/package.json says so), because an ES module as the
// first file costs Node about 5 ms of loader set-up. `cplane --help` and `cplane --version` are answered
// from dist/bundle/help.json, the text globalHelp() and the version printed when the bundle was built
// (scripts/bundle.mjs), without loading the bundle at all. Everything else goes to the bundle.
'use strict';

const args = process.argv.slice(2);
const [first] = args;
if (args.length <= 1 && (first === undefined || first === '--help' || first === '-h' || first === '--version' || first === 'version')) {
  const { help, version } = require('../dist/bundle/help.json');
  process.stdout.write(first === '--version' || first === 'version' ? `cplane ${version}\n` : help);
} else {
  require('./v8-flags.js').setV8Flags();
  require('./code-cache.js').useCodeCache();
  require('../dist/bundle/cplane.cjs');
}
