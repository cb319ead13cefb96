// V8's heap for a command that reads a configuration, plans and exits. By default V8 doubles the young generation
// as a run allocates and lets the old one grow to about four times what survived its last collection: a plan at
// 10,020 resources peaked at 180 MB of RSS, of which a full collection at the peak left 34 MB live
// (docs/performance.md, "Issue 51"). With the young generation kept at its first size and the old one collected
// at half that growth, the same plan peaks at about 125 MB.
//
// The flags are set before the bundle compiles, by bin/cplane.js and by scripts/code-cache.mjs alike: V8 refuses a
// code cache made under other flags, so both must set the same ones.
'use strict';

const v8 = require('node:v8');

const flags = ['--semi-space-growth-factor=1', '--heap-growing-percent=50'];

function setV8Flags() {
  for (const flag of flags) v8.setFlagsFromString(flag);
}

module.exports = { flags, setV8Flags };
