/**
 * `cplane compare A B [dir]` (docs/deployments.md): reads the live accounts of two deployments and reports
 * the differences their variables do not explain (an object only one has, a setting that differs): parity
 * drift. Reads only; exit 0 when they match, 2 when they differ (as `cplane drift`), 1 on an error.
 */
import { compareAccounts, managedKey, readAccount, readConfiguredContents, type ParityDifference } from '../../export/index.js';
import { StateError } from '../../state/index.js';
import { openStateFor } from '../../session/workspace.js';
import { loadConfiguration } from '../../providers/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { connect, parseParallelism } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { ConfigInvalidError } from '../../session/errors.js';
import { variablesLoadOptions } from '../../session/variables-flags.js';
import { formatDiagnostic, type Deployment } from '../../config/index.js';
import { safeText } from '../../text/safe-text.js';
import { chooseDeployments, deploymentContext } from '../deployments/choose.js';
import { exitCodes } from '../exit-codes.js';
import { jsonText } from '../../text/json-text.js';

export const compareCommand: CommandModule = {
  async run(ctx) {
    const [a, b, dir, ...rest] = ctx.positionals;
    if (a === undefined || b === undefined || rest.length > 0)
      throw new AbortError(
        'cplane compare takes two deployment names and, optionally, the configuration folder.',
        'Usage: cplane compare DEPLOYMENT_A DEPLOYMENT_B [dir] [--json]',
      );
    if (a === b) throw new AbortError(`cplane compare needs two different deployments; both are ${a}.`);
    const base: CommandContext = { ...ctx, positionals: dir !== undefined ? [dir] : [], values: { ...ctx.values, deployment: [a, b] } };
    const { chosen } = await chooseDeployments(base, 'compare');
    const [first, second] = [a, b].map((name) => chosen.find((d) => d.name === name)!) as [Deployment, Deployment];
    const [x, y] = await Promise.all([first, second].map((d) => readDeployment(base, d)));
    const differences = compareAccounts(x!, y!, await readConfiguredContents(dir ?? '.'));
    if (ctx.values.json === true) {
      ctx.stdout.write(
        `${jsonText({ a: { deployment: a, account: first.account }, b: { deployment: b, account: second.account }, differences }, 2)}\n`,
      );
    } else {
      ctx.stdout.write(renderText(first, second, differences, ctx.values.unmanaged === true));
    }
    return differences.length > 0 ? exitCodes.changes : exitCodes.ok;
  },
};

/** The live objects of a deployment's account, and the variable values the deployment gives. */
async function readDeployment(ctx: CommandContext, deployment: Deployment) {
  const run = deploymentContext(ctx, deployment, { capture: false });
  const dir = ctx.positionals[0] ?? '.';
  const { desired, diagnostics } = await loadConfiguration(dir, { ...variablesLoadOptions(run.ctx) });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!desired || errors.length > 0) {
    throw new ConfigInvalidError(
      `The configuration of deployment ${deployment.name} has ${errors.length} error(s):\n\n${errors.map((d) => formatDiagnostic(d, { color: false })).join('\n')}`,
      'Fix them and run the command again.',
      errors,
    );
  }
  const managed = ctx.values.unmanaged === true ? undefined : await managedBy(run.ctx, dir);
  const client = connect(run.ctx, { account: deployment.account });
  try {
    const objects = await readAccount({
      client,
      account: deployment.account,
      projectNames: [],
      parallelism: parseParallelism(ctx.values.parallelism),
    });
    return { objects, variables: desired.variables, ...(managed ? { managed } : {}) };
  } finally {
    await client.close();
  }
}

/** The objects the deployment's state manages (none before its first apply): what compare looks at without --unmanaged. */
async function managedBy(ctx: CommandContext, dir: string): Promise<Set<string>> {
  let store;
  try {
    store = await openStateFor(ctx, dir, { lock: false, command: 'cplane compare' });
  } catch (error) {
    if (error instanceof StateError && error.code === 'STATE_NOT_FOUND') return new Set();
    throw error;
  }
  try {
    return new Set(Object.values(store.data.resources).map((entry) => managedKey(entry.kind, entry.id)));
  } finally {
    await store.close();
  }
}

const shown = (value: unknown) => safeText(value === undefined ? '(not set)' : JSON.stringify(value));

function renderText(a: Deployment, b: Deployment, differences: ParityDifference[], unmanaged: boolean): string {
  const head = `Comparing deployment ${a.name} (account ${a.account}) with ${b.name} (account ${b.account}), values their variables explain left out${unmanaged ? '' : ", objects no deployment's state manages left out"}.`;
  if (differences.length === 0) return `${head}\n\nNo differences: the two accounts match.\n`;
  const lines = differences.map((d) =>
    d.kind === 'only-in-a'
      ? `  + ${safeText(d.address)}: only in ${a.name}`
      : d.kind === 'only-in-b'
        ? `  + ${safeText(d.address)}: only in ${b.name}`
        : `  ~ ${safeText(d.address)}: ${safeText(d.field ?? '')} is ${shown(d.a)} in ${a.name}, ${shown(d.b)} in ${b.name}`,
  );
  return `${head}\n\n${differences.length} difference${differences.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`;
}
