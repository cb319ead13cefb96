/**
 * One graph module for every graph cplane walks (after Terraform's `internal/dag`): the kind order, the plan's
 * step order, the desired resources' order, `--target`/`--exclude` scopes, the applier's ready queue and the
 * configuration's cycle checks. It is on the ground floor: plain data in, plain data out, and it imports nothing
 * of ours, so every layer may use it.
 */
export { inverse, type Graph } from './graph.js';
export { depthFirstOrder, topologicalOrder, waves, type Ordered, type Waves } from './order.js';
export { findCycles, startingAtSmallest } from './cycles.js';
export { ancestors, descendants, reachable, type ReachOptions } from './reach.js';
export { DependencyWalk } from './walk.js';
