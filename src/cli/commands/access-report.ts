/**
 * `cplane access report [dir]`: per record, who can read it and through which grant, with what a reviewer should
 * look at flagged (docs/access.md, "Access report"). Reads only: the configuration, the state (without its lock)
 * and the account, once each, the account read while the configuration loads; access/access-report.ts computes the report and render/access-report.ts prints it.
 */
import { accessReport, readAccess } from '../../access/index.js';
import { accessReportFormats, renderAccessReport, type AccessReportFormat } from '../../render/index.js';
import type { AccessReport } from '../../plan-model/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { openWorkspaceWhileReading } from '../../session/workspace.js';
import { exitCodes } from '../exit-codes.js';

const MAX_DAYS = 3650;

function formatOf(value: unknown): AccessReportFormat {
  if (value === undefined) return 'text';
  if (accessReportFormats.includes(value as AccessReportFormat)) return value as AccessReportFormat;
  throw new AbortError(
    `--format must be one of ${accessReportFormats.join(', ')} (got "${String(value)}").`,
    'Leave --format out for aligned text.',
  );
}

function unusedDaysOf(value: unknown): number {
  if (value === undefined) return 90;
  const days = /^\d+$/.test(String(value)) ? Number(value) : Number.NaN;
  if (!(days >= 1 && days <= MAX_DAYS))
    throw new AbortError(
      `--unused-days must be a whole number of days from 1 to ${MAX_DAYS} (got "${String(value)}").`,
      'The default is 90.',
    );
  return days;
}

/**
 * What the command does, up to the text it prints: the configuration loads on a worker thread while the account is
 * read (session/workspace.ts, `openWorkspaceWhileReading`), then the report is computed and rendered. The bench
 * (bench/access-report.mjs) calls this very function; the performance marks name its phases for it.
 */
export async function produceAccessReport(
  ctx: CommandContext,
  format: AccessReportFormat,
  unusedDays: number,
): Promise<{ report: AccessReport; text: string }> {
  const { workspace, read: reads } = await openWorkspaceWhileReading(ctx, { lock: false, command: 'cplane access report' }, readAccess);
  try {
    performance.mark('cplane:access-read');
    const report = accessReport({
      desired: workspace.desired,
      state: workspace.state.data.resources,
      reads,
      account: workspace.account,
      unusedDays,
    });
    performance.mark('cplane:access-computed');
    const text = renderAccessReport(report, format);
    performance.mark('cplane:access-rendered');
    return { report, text };
  } finally {
    await workspace.close();
  }
}

export const accessReportCommand: CommandModule = {
  async run(ctx) {
    // Checked before anything is read, so a typo costs no request.
    const { report, text } = await produceAccessReport(ctx, formatOf(ctx.values.format), unusedDaysOf(ctx.values['unused-days']));
    ctx.stdout.write(text);
    if (!report.auditRead) return exitCodes.incomplete;
    return Object.values(report.flagged).some((n) => n > 0) ? exitCodes.flagged : exitCodes.ok;
  },
};
