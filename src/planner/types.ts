/** The plan model moved to src/plan-model/; this re-export keeps old import paths working while branches merge. */
export type * from '../plan-model/index.js';
