/**
 * What a plan says beside its steps (`plan.notices`, planner/checks/notices.ts), in one loop for every renderer: each
 * code's heading once, then one line per notice. No code is named here: a new notice shows with no edit.
 */
import { noticeGroups, type Notice } from '../plan-model/index.js';
import type { Paint } from '../paint.js';
import { markdownText } from '../text/escape-for.js';
import { safeText } from '../text/safe-text.js';

/** `!` marks what a reviewer must act on or accept, `~` what is only said. */
const symbolOf = (notice: Pick<Notice, 'severity'>) => (notice.severity === 'warning' ? '!' : '~');

/** The notices as terminal lines, each section followed by a blank line. */
export function noticeLines(notices: readonly Notice[] | undefined, paint: Paint): string[] {
  return noticeGroups(notices).flatMap((group) => [
    paint(group.severity === 'warning' ? 'warn' : 'bold', safeText(group.heading)),
    ...group.notices.map((n) => `  ${paint(n.severity === 'warning' ? 'warn' : 'change', symbolOf(n))} ${safeText(n.message)}`),
    '',
  ]);
}

/** The notices as quoted lists: a caution block for the sections of warnings. */
export function noticesMarkdown(notices: readonly Notice[] | undefined): string[] {
  return noticeGroups(notices).flatMap((group) => [
    ...(group.severity === 'warning' ? ['> [!WARNING]'] : []),
    `> **${markdownText(group.heading)}**`,
    ...group.notices.map((n) => `> - ${markdownText(n.message)}`),
    '',
  ]);
}
