/**
 * `cplane deployments [dir]` (docs/deployments.md, docs/ci.md): the configuration's deployments and the wave each
 * applies in, offline. `--matrix` prints them as a GitHub Actions matrix (`{"include":[{deployment, account,
 * workspace, wave, environment}]}`, one line, for `fromJSON`; the environment holds that deployment's token, so
 * each job holds its own), `--wave K` only wave K's, so a workflow runs a matrix job per
 * wave with `needs:` between them; `--changed` and `--deployment` choose as `plan --all` does, and the waves are
 * those of the chosen deployments, as `apply --all` runs them.
 */
import { deploymentWaves } from '../../config/index.js';
import { writeStepOutputs } from '../../github/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { safeText } from '../../text/safe-text.js';
import { chooseDeployments } from '../deployments/choose.js';
import { jsonText } from '../../text/json-text.js';

/** One deployment as the matrix lists it: what a job needs to name and run it. */
interface MatrixEntry {
  deployment: string;
  account: string;
  workspace: string;
  wave: number;
  /** Its GitHub environment (`environment:`, default its name): the job's `environment:`, which holds its token alone. */
  environment: string;
}

function parseWave(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[1-9]\d{0,3}$/.test(value))
    throw new AbortError(
      `--wave ${String(value)}: give the number of a wave, 1 for the first.`,
      'Run `cplane deployments` to see the waves.',
    );
  return Number(value);
}

export const deploymentsCommand: CommandModule = {
  async run(ctx: CommandContext): Promise<number> {
    const { values } = ctx;
    if (values.json && values.matrix) throw new AbortError('--json and --matrix cannot be used together.', 'Pick one output format.');
    const wave = parseWave(values.wave);
    const { chosen } = await chooseDeployments(ctx, 'deployments');
    const waves = deploymentWaves(chosen);
    const entries: (MatrixEntry & { after: string[] })[] = waves.flatMap((members, i) =>
      members.map((d) => ({
        deployment: d.name,
        account: d.account,
        workspace: d.workspace,
        wave: i + 1,
        environment: d.environment,
        after: d.after,
      })),
    );
    const shown = wave === undefined ? entries : entries.filter((e) => e.wave === wave);
    const matrix = jsonText({ include: shown.map(({ after: _after, ...entry }) => entry) });

    if (values.matrix) ctx.stdout.write(`${matrix}\n`);
    else if (values.json) ctx.stdout.write(`${jsonText({ waves: waves.length, deployments: shown }, 2)}\n`);
    else ctx.stdout.write(table(shown, waves.length, wave));
    if (values.github === true) writeStepOutputs(ctx.env, { matrix, count: String(shown.length), waves: String(waves.length) });
    return 0;
  },
};

function table(entries: readonly (MatrixEntry & { after: string[] })[], waves: number, wave: number | undefined): string {
  const heading =
    wave === undefined
      ? `${entries.length} deployment${entries.length === 1 ? '' : 's'} in ${waves} wave${waves === 1 ? '' : 's'}.`
      : `Wave ${wave} of ${waves}: ${entries.length} deployment${entries.length === 1 ? '' : 's'}.`;
  const rows = [
    ['WAVE', 'DEPLOYMENT', 'ACCOUNT', 'WORKSPACE', 'AFTER'],
    ...entries.map((e) => [String(e.wave), e.deployment, safeText(e.account), safeText(e.workspace), e.after.join(', ') || '-']),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return `${heading}\n\n${rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}
