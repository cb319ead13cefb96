// Benchmark: ordering plan steps, side by side: the one graph module's stable topological order (a heap of
// ready positions, src/graph/) against the sort it replaced in planner/order.ts (now planner/stages/order.ts) (the ready list sorted again
// before each step), on the same steps: 20,000 gateways under 200 projects, each gateway also waiting for the one
// before it in its project, listed children first so most of the list waits. Prints both medians and their ratio.
import { topologicalOrder } from '../dist/graph/index.js';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The former planner/order.ts, kept here only to be measured against. */
function formerSort(steps) {
  const position = new Map(steps.map((s, i) => [s.address, i]));
  const waiting = new Map(steps.map((s) => [s.address, new Set(s.dependsOn.filter((d) => position.has(d)))]));
  const dependents = new Map();
  for (const step of steps)
    for (const dep of waiting.get(step.address) ?? []) dependents.set(dep, [...(dependents.get(dep) ?? []), step.address]);
  const ready = steps.filter((s) => waiting.get(s.address)?.size === 0).map((s) => s.address);
  const out = [];
  const byId = new Map(steps.map((s) => [s.address, s]));
  while (ready.length > 0) {
    ready.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    const id = ready.shift();
    out.push(byId.get(id));
    for (const next of dependents.get(id) ?? []) {
      const deps = waiting.get(next);
      deps?.delete(id);
      if (deps?.size === 0) ready.push(next);
    }
  }
  return out;
}

const sortNow = (steps) => {
  const byId = new Map(steps.map((s) => [s.address, s]));
  return topologicalOrder(new Map(steps.map((s) => [s.address, s.dependsOn]))).order.map((id) => byId.get(id));
};

const steps = [];
for (let p = 0; p < 200; p++)
  for (let g = 0; g < 100; g++)
    steps.push({ address: `gateway.p${p}-g${g}`, dependsOn: [`project.p${p}`, ...(g > 0 ? [`gateway.p${p}-g${g - 1}`] : [])] });
for (let p = 0; p < 200; p++) steps.push({ address: `project.p${p}`, dependsOn: [] });

const same = JSON.stringify(formerSort(steps).map((s) => s.address)) === JSON.stringify(sortNow(steps).map((s) => s.address));
if (!same) throw new Error('the two sorts disagree');
const time = (sort) => {
  const times = [];
  sort(steps); // warm-up: the compiler, not the sort
  for (let run = 0; run < 7; run++) {
    const start = process.hrtime.bigint();
    sort(steps);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
};
const former = time(formerSort);
const now = time(sortNow);
console.log(
  `${steps.length} steps, same order from both: former sort ${former.toFixed(0)} ms, graph module ${now.toFixed(0)} ms (median of 7, after a warm-up): ${(former / now).toFixed(1)}x`,
);
