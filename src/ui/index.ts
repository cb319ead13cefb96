/**
 * The terminal UI of apply and destroy: Ink views on a terminal (components
 * are pure functions of their props; renderX functions drive them), and the
 * plain lines and summary text used without one.
 */
export { loadInk } from './ink.js';
export { renderConfirm, ConfirmPrompt, ConfirmInput, type TerminalIo } from './confirm-prompt.js';
export { renderApplyProgress, type ApplyView } from './render-apply.js';
export { ApplyProgress, counterText, spinnerFrames } from './apply-progress.js';
export { ApplySummary } from './apply-summary.js';
export { reduceProgress, emptyProgress, type ProgressModel } from './progress-model.js';
export { eventLine } from './plain-lines.js';
export { summaryLines, type SummaryLine } from './summary-text.js';
export { revealCommand, formatDuration } from './words.js';
