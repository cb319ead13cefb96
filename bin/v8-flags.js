// V8's heap for a command that reads a configuration, plans and exits. By default V8 doubles the young generation
// each time it fills, up to 16 MB a half: a plan at 10,020 resources peaked at about 180 MB of RSS, of which a full
// collection at the peak left 34 MB live. Kept at its first size, the young generation is collected more often and
// the same plan peaks at 146-152 MB written out and 119 MB from forEach, for 1-8 % more CPU on a quiet machine
// (docs/performance.md, "Issue 51"). Collecting the old generation sooner too (--heap-growing-percent=50) gave 123 MB
// but 20-40 % more CPU. Collecting this often once made Node 20 deadlock in KeyObject#export; the SDK's HPKE no
// longer exports keys (packages/sdk/src/hpke.ts, and its test under the same kind of flags).
//
// --expose-gc lets the workspace collect once after loading a large configuration and state
// (src/session/collect-garbage.ts): 150-152 MB down to 139-142 MB at 10,020 resources, for one collection of ~23 ms.
//
// The flags are set before the bundle compiles, by bin/cplane.js and by scripts/code-cache.mjs alike: V8 refuses a
// code cache made under other flags, so both must set the same ones.
'use strict';

const v8 = require('node:v8');

const flags = ['--semi-space-growth-factor=1', '--expose-gc'];

function setV8Flags() {
  for (const flag of flags) v8.setFlagsFromString(flag);
}

module.exports = { flags, setV8Flags };
