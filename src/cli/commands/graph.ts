/**
 * `cplane graph [dir] [--format mermaid|dot] [--plan PLANFILE]`: the configuration's dependency graph, offline
 * (the addresses, and an arrow from each to what it needs, as the planner links a plan's steps), or with --plan
 * the steps of a saved plan coloured by action, as a Mermaid flowchart or Graphviz DOT.
 */
import { formatDiagnostic } from '../../config/index.js';
import { stepGraph, type AddressGraph } from '../../plan-model/index.js';
import { configurationGraph } from '../../planner/index.js';
import { loadConfiguration } from '../../providers/index.js';
import { renderGraph, type GraphFormat } from '../../render/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { variablesLoadOptions } from '../../session/variables-flags.js';
import { exitCodes } from '../exit-codes.js';
import { planFileArgument } from './show.js';

const formats: readonly GraphFormat[] = ['mermaid', 'dot'];

export const graphCommand: CommandModule = {
  async run(ctx) {
    const format = ctx.values.format ?? 'mermaid';
    if (!formats.includes(format as GraphFormat))
      throw new AbortError(`Unknown --format "${String(format)}".`, 'Use --format mermaid (the default) or --format dot.');
    const graph = typeof ctx.values.plan === 'string' ? await planGraph(ctx, ctx.values.plan) : await configGraph(ctx);
    if (typeof graph === 'number') return graph;
    ctx.stdout.write(renderGraph(graph, format as GraphFormat));
    return exitCodes.ok;
  },
};

async function planGraph(ctx: CommandContext, planFile: string): Promise<AddressGraph> {
  if (ctx.positionals.length > 0)
    throw new AbortError(
      'graph --plan takes no configuration folder: the plan is drawn as it was saved.',
      'Usage: cplane graph --plan PLANFILE [--format mermaid|dot]',
    );
  const { plan, unverified } = await planFileArgument(ctx, [planFile], 'graph --plan PLANFILE');
  if (unverified) ctx.stderr.write(`${unverified}\n`);
  return stepGraph(plan.steps);
}

/** The configuration's graph; its diagnostics and exit code 1 when it does not load. Variable values are not needed. */
async function configGraph(ctx: CommandContext): Promise<AddressGraph | number> {
  if (ctx.positionals.length > 1)
    throw new AbortError('graph takes at most one folder.', 'Usage: cplane graph [dir] [--format mermaid|dot]');
  const loaded = await loadConfiguration(ctx.positionals[0] ?? '.', { ...variablesLoadOptions(ctx), allowUnsetVariables: true });
  const color = Boolean(ctx.stderr.isTTY) && !ctx.env.NO_COLOR;
  for (const d of loaded.diagnostics) ctx.stderr.write(`${formatDiagnostic(d, { color })}\n\n`);
  if (!loaded.desired) return exitCodes.error;
  return configurationGraph(loaded.desired.resources);
}
