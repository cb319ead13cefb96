/* eslint-disable @typescript-eslint/no-require-imports -- a --require preload is CommonJS */
/* global require */
// Preloaded into a CLI child by bench/deployments.mjs (NODE_OPTIONS=--require): at exit it writes the child's own
// CPU time and peak RSS to fd 3, so the bench reads what the process used, not what the machine did meanwhile.
const { writeSync } = require('node:fs');
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  try {
    writeSync(3, `${JSON.stringify({ cpuMs: (user + system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
  } catch {
    // fd 3 is only open when the bench asked for it.
  }
});
