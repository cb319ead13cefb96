// Summarises V8 CPU profiles (the .cpuprofile files of `node --cpu-prof`, e.g. from `bench/plan.mjs --cpu-prof DIR`):
// self and inclusive time per function, summed over every call site and every file given, largest first.
// Usage: node bench/lib/profile-summary.mjs FILE.cpuprofile... [--top N] [--match TEXT]
// --match keeps only the functions whose "name file:line" contains TEXT (e.g. --match planner/).
// Inclusive time counts a recursive function once per sample, not once per frame of it on the stack.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, match: { type: 'string' } },
});
const self = new Map();
const inclusive = new Map();
let totalMs = 0;

for (const file of positionals) {
  const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const nameOf = ({ callFrame: { functionName, url, lineNumber } }) => {
    const where = url ? `${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
    return `${functionName || '(anonymous)'} ${where}`.trim();
  };
  // Each sample's time is the delta to the next sample.
  for (let i = 0; i < samples.length; i++) {
    const ms = (timeDeltas[i + 1] ?? 0) / 1000;
    totalMs += ms;
    let id = samples[i];
    const name = nameOf(byId.get(id));
    self.set(name, (self.get(name) ?? 0) + ms);
    const seen = new Set();
    for (; id !== undefined; id = parentOf.get(id)) {
      const frame = nameOf(byId.get(id));
      if (seen.has(frame)) continue;
      seen.add(frame);
      inclusive.set(frame, (inclusive.get(frame) ?? 0) + ms);
    }
  }
}

const keep = ([name]) => !values.match || name.includes(values.match);
const table = (title, map) => {
  console.log(`${title} (of ${totalMs.toFixed(0)} ms sampled)`);
  const rows = [...map]
    .filter(keep)
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top));
  for (const [name, ms] of rows)
    console.log(`  ${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / totalMs).toFixed(1).padStart(5)} %  ${name}`);
};
table('self time', self);
table('inclusive time', inclusive);
