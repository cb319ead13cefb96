/**
 * `cplane init [dir]`: gets a machine ready for a configuration, so the first apply finds everything in place:
 * a starter `cplane.yaml` in a folder that has no configuration yet,
 * the state key (found and named with its source, or the key file created where docs/state.md says), the state
 * location (a writable folder, or a PostgreSQL database that answers, with cplane's tables made), and the
 * environment variables the configuration reads, with the unset ones named (names only, never values).
 * Exits 1 when the key or the state location is not usable; unset variables are listed, not errors.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { tokenVariable } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { locateStateOnly } from '../../session/workspace.js';
import { variablesLoadOptions } from '../../session/variables-flags.js';
import { addressVariableOf, environmentNeeds, formatDiagnostic, type EnvironmentNeed } from '../../config/index.js';
import { prepareStateKey, prepareStateLocation, type KeyReport, type LocationReport } from '../../state/index.js';
import { safeLines, safeName } from '../../text/safe-text.js';
import { exitCodes } from '../exit-codes.js';
import { STARTER_CONFIGURATION, STARTER_FILE } from '../init/starter-configuration.js';
import { addSchemaLines } from '../init/schema-line.js';
import { jsonText } from '../../text/json-text.js';

type Checked<T> = { ok: true; value: T } | { ok: false; error: string; hint?: string };

async function attempt<T>(run: () => T | Promise<T>): Promise<Checked<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (!(error instanceof AbortError)) throw error;
    return { ok: false, error: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  }
}

const KEY_SOURCES = { env: 'the environment variable CPLANE_STATE_KEY', passphrase: 'the environment variable CPLANE_PASSPHRASE' } as const;

function keyLine(key: KeyReport): string {
  if (key.created)
    return `created ${key.path} (mode 0600). Keep it and back it up with your other secrets: without it the state's sealed values cannot be opened.`;
  return key.source === 'keyfile' ? `found the key file ${key.path}` : `from ${KEY_SOURCES[key.source]}`;
}

/** What a run against the API reads besides the configuration's own variables: the token a deployment chooses, and the address it is bound to (docs/deployments.md). */
const connectionNeeds = (ctx: CommandContext): readonly { name: string; use: string }[] => {
  const own = ctx.deployment?.tokenName;
  const ownAddress = own !== undefined && ctx.env[addressVariableOf(own)] ? addressVariableOf(own) : undefined;
  return [
    { name: ownAddress ?? 'CPLANE_BASE_URL', use: ownAddress ? `API address of ${tokenVariable(ctx)}` : 'API address (or --base-url)' },
    { name: tokenVariable(ctx), use: own !== undefined ? `API token of the deployment ${ctx.deployment!.name}` : 'API token' },
  ];
};

/**
 * Writes the starter configuration into `dir` (made when missing) when it holds no configuration file; returns
 * the file's path, or undefined when the folder already has a configuration (never overwritten).
 */
async function writeStarterConfiguration(dir: string): Promise<string | undefined> {
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).some((name) => /\.ya?ml$/i.test(name))) return undefined;
  const path = join(dir, STARTER_FILE);
  await writeFile(path, STARTER_CONFIGURATION, { flag: 'wx' });
  return path;
}

export const initCommand: CommandModule = {
  async run(ctx) {
    if (ctx.positionals.length > 1) throw new AbortError('init takes at most one folder.', 'Usage: cplane init [dir]');
    const dir = ctx.positionals[0];
    const starter = await writeStarterConfiguration(resolve(ctx.cwd, dir ?? '.'));
    const location = await locateStateOnly(ctx, dir);
    const key = await attempt(() => prepareStateKey(location.configDir, ctx.env));
    const state = await attempt<LocationReport>(() => prepareStateLocation(location));
    const found = await environmentNeeds(location.configDir, {
      env: ctx.env,
      cwd: ctx.cwd,
      variables: variablesLoadOptions(ctx).variables ?? [],
      ...(ctx.deployment ? { deployment: ctx.deployment.name } : {}),
    });
    const connection = connectionNeeds(ctx);
    const environment: EnvironmentNeed[] = [
      ...connection.map((c) => ({ ...c, set: Boolean(ctx.env[c.name]) })),
      ...found.needs.filter((need) => !connection.some((c) => c.name === need.name)),
    ];
    const ready = key.ok && state.ok && found.diagnostics.every((d) => d.severity !== 'error');
    // For completion and checks in the editor: the files say which schema they follow. A convenience: a file
    // that cannot be written (a read-only checkout) keeps its text, and init goes on.
    const schemaLines = await addSchemaLines(location.configDir).catch(() => []);

    if (ctx.values.json === true) {
      const report = {
        ready,
        ...(starter ? { wrote: starter } : {}),
        stateKey: key.ok ? key.value : { error: key.error, hint: key.hint },
        state: state.ok ? state.value : { error: state.error, hint: state.hint },
        environment,
        unset: environment.filter((e) => !e.set).map((e) => e.name),
        diagnostics: found.diagnostics,
        schemaLineAdded: schemaLines,
      };
      ctx.stdout.write(`${safeLines(jsonText(report, 2))}\n`);
      return ready ? exitCodes.ok : exitCodes.error;
    }
    const failed = (check: { error: string; hint?: string }) => `${check.error}${check.hint ? `\n             ${check.hint}` : ''}`;
    const lines = [
      ...(starter
        ? [`Wrote ${starter}: a starter configuration (one project, one record with a generated value). Edit it, then run \`cplane plan\`.`]
        : []),
      `State key:   ${key.ok ? keyLine(key.value) : failed(key)}`,
      `State:       ${state.ok ? `${state.value.location}: ${state.value.status}` : failed(state)}`,
    ];
    if (schemaLines.length > 0)
      lines.push(`Editor:      added the schema line (# yaml-language-server: $schema=...) to ${schemaLines.map(safeName).join(', ')}`);
    const unset = environment.filter((e) => !e.set);
    lines.push(
      `Environment: ${environment.length} variable${environment.length === 1 ? '' : 's'} read, ${unset.length === 0 ? 'all set' : `${unset.length} unset`}:`,
    );
    const width = Math.max(...environment.map((e) => e.name.length));
    for (const need of environment) lines.push(`  ${safeName(need.name).padEnd(width)}  ${need.set ? 'set  ' : 'UNSET'}  ${need.use}`);
    const color = Boolean(ctx.stderr.isTTY) && !ctx.env.NO_COLOR;
    for (const d of found.diagnostics) ctx.stderr.write(`${formatDiagnostic(d, { color })}\n\n`);
    ctx.stdout.write(`${safeLines(lines.join('\n'))}\n`);
    if (!ready) ctx.stderr.write('Not ready: fix the problems above and run `cplane init` again.\n');
    return ready ? exitCodes.ok : exitCodes.error;
  },
};
