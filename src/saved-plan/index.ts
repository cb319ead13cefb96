/**
 * Saved plans (`cplane plan --out FILE`, `cplane apply FILE`, `cplane show FILE`): written (write.ts) with a MAC
 * (mac.ts), read back within bounds and against the schema (read.ts), with where they were made (origin.ts),
 * checked before anything is opened (prepare-apply.ts), and applied only as a fresh plan with exactly their
 * steps (check-against-fresh-plan.ts).
 */
export { planDigest, writePlanFile } from './write.js';
export { checkPlanMac, planMac, planMacKey, planMacMatches, readPlanToMerge, readPlanToShow, withMac } from './mac.js';
export { MAX_PLAN_FILE_BYTES, planSchemaProblems, readPlanFile, readPlanFileWithDigest, REPLAN, type SavedPlan } from './read.js';
export {
  accountNameOf,
  changedFiles,
  isStateUrl,
  planOrigin,
  plannedFiles,
  recordedStatePath,
  relativePosix,
  stateRecord,
} from './origin.js';
export { prepareSavedPlan, type PreparedSavedPlan } from './prepare-apply.js';
export {
  firstDifference,
  outsideSavedPlan,
  placeholderProblems,
  policyDifferences,
  stepDifferences,
  trustedPlan,
  withPendingResolved,
  withSavedKeys,
} from './check-against-fresh-plan.js';
