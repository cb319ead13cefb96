/**
 * The offboarding part of a plan (`cplane access offboard USER`) as text: whose shares are revoked, each record
 * the user could read with how and what becomes of its value, the groups to leave in the dashboard, and the lines
 * of the configuration to remove. Shown after the steps by the plan's text; it only formats `plan.offboard`.
 */
import type { Offboarding } from '../plan-model/index.js';
import type { Paint } from '../paint.js';
import { safeName, safeText } from '../text/safe-text.js';

export const OFFBOARD_LINES_HEADING =
  'Lines to remove from the configuration (cplane does not edit it; until they are removed, the next plan shares the records again):';

export function offboardLines(offboard: Offboarding, paint: Paint): string[] {
  const user = safeName(offboard.user);
  const out = [paint('bold', `Offboarding user ${user} (${safeText(offboard.userId)}):`)];
  for (const address of offboard.revoked) out.push(`  ${paint('remove', '-')} ${safeName(address)}: share revoked`);
  for (const record of offboard.records) {
    const via = `read through: ${record.via.map(safeText).join('; ')}`;
    if (record.value === 'rotated')
      out.push(
        `  ${paint('change', '~')} ${safeName(record.address)}: rotated by cplane (a new generated value)  ${paint('dim', `(${via})`)}`,
      );
    else
      out.push(
        `  ${paint('warn', '!')} ${safeName(record.address)}: needs a new value from its owner (${safeText(record.source ?? '')}); then apply  ${paint('dim', `(${via})`)}`,
      );
  }
  if (offboard.records.length === 0 && offboard.revoked.length === 0) out.push(`  ${user} can read no record this configuration manages.`);
  if (offboard.groups.length > 0) {
    out.push(
      `  ${paint('warn', '!')} remove ${user} from ${offboard.groups.length === 1 ? 'the group' : 'the groups'} ${offboard.groups.map(safeName).join(', ')} in the dashboard before applying (no API operation changes a group's members)`,
    );
  }
  out.push(`  Only the offboarding is planned: other changes (drift, edits of the configuration) wait for the next plan.`);
  out.push('', paint('bold', OFFBOARD_LINES_HEADING));
  for (const line of offboard.lines) out.push(`  ${safeText(`${line.file}:${line.line}:${line.col}`)}  ${safeText(line.what)}`);
  if (offboard.lines.length === 0) out.push('  (none)');
  return [...out, ''];
}
