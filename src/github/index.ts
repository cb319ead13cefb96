/**
 * GitHub integration: `--github` output for Actions (actions.ts), the hidden
 * marker and splitting of pull-request comments (comment-parts.ts); the
 * action's comment step runs pr-comment.ts.
 */
export {
  annotation,
  appendStepSummary,
  cutMarkdown,
  errorAnnotation,
  readStepOutputs,
  STEP_SUMMARY_LIMIT,
  writeStepOutputs,
} from './actions.js';
export { checkApplyGate, parseApplyComment, type ApplyComment, type Approval, type GateResult } from './apply-gate.js';
export { githubRepository, type GithubCall } from './rest.js';
