/**
 * Renderers of a Plan: text for terminals, Markdown for pull-request
 * comments, JSON for machines. Each is a pure function of the plan.
 */
export { renderPendingWritesText, renderPlanText, type TextOptions } from './text.js';
export { renderPlanMarkdown } from './markdown.js';
export { renderPlanJson } from './json.js';
export { renderGraph, renderGraphDot, renderGraphMermaid, type GraphFormat } from './graph.js';
export { accountLabel, summaryLine, noChangesLine } from './describe.js';
export { noticeLines } from './notices.js';
export { findingPlace, policyHeadline, refusedLine } from './policies.js';
export { driftHeadline, renderDriftJson, renderDriftMarkdown, renderDriftText } from './drift.js';
export { renderDeploymentMatrixText, renderDeploymentsMarkdown, type DeploymentSection } from './deployments.js';
export { reconcileHeadline, reconcileJson, renderReconcileMarkdown, renderReconcileText, type ReconcileView } from './reconcile.js';
export { accessReportFormats, csvCell, renderAccessReport, type AccessReportFormat } from './access-report.js';
export { renderPullRequestNotes, type SharedAddresses } from './pull-request.js';
