/**
 * `cplane export`: writes a configuration folder from a live account, so the
 * environment can be reproduced in another account or brought under
 * management (--adopt). Prints what was written, what was skipped and which
 * environment variables the folder needs at apply.
 */
import { lockTimeoutMs } from '../../session/lock-timeout.js';
import { relative, resolve } from 'node:path';
import { createClient } from '../../api/client.js';
import { NetworkError } from '../../api/errors.js';
import { exportAccount, exportAsDeployment, type AsDeploymentResult, type ExportResult } from '../../export/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { clientOptionsOf, connectionSettings } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { suggestedCommand } from '../../text/escape-for.js';
import { jsonText } from '../../text/json-text.js';
import { escapeControl } from '../../text/safe-text.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []);
/** The account asked for: --account, else CPLANE_ACCOUNT (undefined when neither is given). */
const accountOf = (ctx: CommandContext): string | undefined =>
  (typeof ctx.values.account === 'string' && ctx.values.account !== '' ? ctx.values.account : undefined) ??
  (ctx.env.CPLANE_ACCOUNT || undefined);

export const exportCommand: CommandModule = {
  async run(ctx) {
    const asDeployment = typeof ctx.values['as-deployment'] === 'string' ? ctx.values['as-deployment'] : undefined;
    if (asDeployment !== undefined) return runAsDeployment(ctx, asDeployment);
    if (ctx.values.json) throw new AbortError('--json is for export --as-deployment: export writes its folder and a report for people.');
    if (ctx.positionals.length > 0)
      throw new AbortError(`export takes no positional arguments (got "${ctx.positionals[0]}").`, 'Give the output folder with --out DIR.');
    // Checked once, before anything else, so a missing variable is the first thing said.
    const settings = connectionSettings(ctx);
    const out = typeof ctx.values.out === 'string' ? ctx.values.out : 'export';
    const result = await exportAccount({
      connect: (account) => createClient(clientOptionsOf(settings, account)),
      account: accountOf(ctx),
      projectNames: strings(ctx.values.project),
      outDir: resolve(ctx.cwd, out),
      force: ctx.values.force === true,
      adopt: ctx.values.adopt === true,
      group: ctx.values.group === true,
      env: ctx.env,
      parallelism: settings.parallelism,
      command: `cplane export --out ${out}${ctx.values.group ? ' --group' : ''}${ctx.values.adopt ? ' --adopt' : ''}`,
      lockTimeoutMs: lockTimeoutMs(ctx.values),
    }).catch((error: unknown) => {
      // No answer from the API is the user's network or address, not a bug in cplane.
      if (error instanceof NetworkError) throw new AbortError(error.message);
      throw error;
    });
    ctx.stdout.write(report(result, out));
    return 0;
  },
};

/** `export --as-deployment NAME [DIR]`: DIR is the configuration folder, as `plan` and `apply` take it (default `.`). */
async function runAsDeployment(ctx: CommandContext, name: string): Promise<number> {
  for (const flag of ['out', 'adopt', 'group', 'force']) {
    if (ctx.values[flag] !== undefined)
      throw new AbortError(
        `--${flag} cannot be combined with --as-deployment: it adds a deployment to an existing configuration and writes no folder.`,
      );
  }
  if (ctx.positionals.length > 1)
    throw new AbortError(`export --as-deployment takes one configuration folder (got ${ctx.positionals.length}).`);
  const dir = ctx.positionals[0] ?? '.';
  const settings = connectionSettings(ctx);
  const result = await exportAsDeployment({
    connect: (account) => createClient(clientOptionsOf(settings, account)),
    account: accountOf(ctx),
    projectNames: strings(ctx.values.project),
    outDir: resolve(ctx.cwd, dir),
    force: false,
    adopt: false,
    env: ctx.env,
    parallelism: settings.parallelism,
    command: `cplane export --as-deployment ${name}`,
    asDeployment: { name, dir: resolve(ctx.cwd, dir) },
  }).catch((error: unknown) => {
    if (error instanceof NetworkError) throw new AbortError(error.message);
    throw error;
  });
  const file = relative(ctx.cwd, result.file) || result.file;
  const next = suggestedCommand(['plan', '--deployment', result.name, dir]);
  if (ctx.values.json) ctx.stdout.write(`${jsonText(asDeploymentJson(result, file, next), 2)}\n`);
  else {
    ctx.stdout.write(`${asDeploymentReport(result, file, dir, next).join('\n')}\n`);
    // What is left to fill is never guessed: each is a placeholder in the file, and named here with what to give.
    const left = leftToFill(result, file);
    if (left.length > 0) ctx.stderr.write(`${left.join('\n')}\n`);
  }
  return 0;
}

/** A value from the account or the file, on one line of the report. */
const shown = (value: unknown): string => escapeControl(typeof value === 'string' ? value : JSON.stringify(value));

function asDeploymentReport(result: AsDeploymentResult, file: string, dir: string, next: string): string[] {
  const lines = [`Added deployment ${result.name} (account ${shown(result.account)}) to ${file}.`];
  const skippedParts = result.skipped.filter(({ count }) => count > 0).map(({ count, one, many }) => plural(count, one, many));
  if (skippedParts.length > 0) lines.push(`Skipped (not exported): ${skippedParts.join(', ')}.`);
  if (result.inferred.length > 0)
    lines.push(
      `Its variables read off this account's objects: ${result.inferred.map((v) => `${v.name}: ${shown(v.value)}`).join(', ')} (a value equal to the variable's default is not written).`,
    );
  const inferred = new Set(result.inferred.map((v) => `variables.${v.name}`));
  const filled = result.filled.filter((f) => !inferred.has(f.key));
  if (filled.length > 0) {
    lines.push('Filled in:');
    for (const f of filled) lines.push(`  ${f.key}: ${shown(f.value)} (from ${shown(f.from)})`);
  }
  for (const note of result.notes) lines.push(`Not filled: ${shown(note)}`);
  if (result.unmatched.length > 0) {
    lines.push(
      `This account's records are also shared with ${plural(result.unmatched.length, 'user or group', 'users or groups')} the configuration has no directory entry for: ${result.unmatched.map((d) => `${d.section}.${d.local}`).join(', ')}.`,
    );
  }
  lines.push(
    result.open.length > 0
      ? `Next: fill in what is listed below, then \`${suggestedCommand(['validate', dir])}\` and \`${next}\`.`
      : `Next: \`${next}\`.`,
  );
  return lines;
}

/** One line per setting left to fill, where its placeholder is and what to give; then the evidence of each conflict. */
function leftToFill(result: AsDeploymentResult, file: string): string[] {
  if (result.open.length === 0) return [];
  const lines = [
    `${plural(result.open.length, 'setting')} of deployment ${result.name} ${result.open.length === 1 ? 'is' : 'are'} left to fill (a "<fill in: ...>" placeholder in the file, refused by validate, plan and apply until replaced):`,
  ];
  for (const o of result.open) {
    const at = o.line !== undefined ? `${file}:${o.line}:${o.col} ` : '';
    lines.push(`  ${at}deployments.${result.name}.${o.key}: ${shown(o.what)}${o.placeholder ? '' : ' (not written)'}`);
  }
  for (const {
    name,
    evidence: [x, y],
  } of result.conflicts) {
    const side = (e: typeof x) => `${e.address}${e.field ? ` (${e.field})` : ''} gives "${shown(e.value)}" (live "${shown(e.live)}")`;
    lines.push(`Variable "${name}": ${side(x)} but ${side(y)}.`);
  }
  return lines;
}

function asDeploymentJson(result: AsDeploymentResult, file: string, next: string) {
  return {
    deployment: result.name,
    account: result.account,
    file,
    entry: result.entry,
    filled: result.filled,
    toFill: result.open.map((o) => ({ ...o, file })),
    notes: result.notes,
    unmatched: result.unmatched.map((d) => ({ section: d.section, local: d.local })),
    conflicts: result.conflicts.map(({ name, evidence }) => ({ name, evidence })),
    skipped: result.skipped.filter(({ count }) => count > 0),
    next,
  };
}

function report(result: ExportResult, out: string): string {
  const { counts, skipped } = result;
  const lines = [
    `Exported account ${result.account} to ${out}: ${counts.map(({ count, noun }) => plural(count, noun)).join(', ')} in ${plural(result.files.length, 'file')}.`,
  ];
  const skippedParts = skipped.filter(({ count }) => count > 0).map(({ count, one, many }) => plural(count, one, many));
  lines.push(skippedParts.length > 0 ? `Skipped (not exported): ${skippedParts.join(', ')}.` : 'Skipped: nothing.');
  if (result.groups !== undefined) {
    lines.push(
      result.groups.length > 0
        ? `Grouped with forEach: ${result.groups.map((g) => `${g.address} (${g.gateways} gateways)`).join(', ')}.`
        : 'Grouped with forEach: nothing (no two gateways differ only by name).',
    );
  }
  if (result.removed.length > 0)
    lines.push(`Removed ${plural(result.removed.length, 'file')} no longer produced: ${result.removed.join(', ')}.`);
  if (result.placeholders.length > 0) {
    lines.push('Secrets cannot be exported. Before `cplane apply` of this folder, set:');
    const width = Math.max(...result.placeholders.map((p) => p.env.length));
    for (const p of result.placeholders) lines.push(`  ${p.env.padEnd(width)}  ${p.what}`);
  }
  if (result.directory.length > 0) {
    lines.push(
      'Users and groups are named per account: for each account you apply this folder to, give these variables ' +
        "(--var NAME=VALUE, a var file, or a deployment's variables) the id and public key there:",
    );
    for (const d of result.directory) lines.push(`  directory.${d.section}.${d.local}: ${d.idVar}, ${d.keyVar}`);
  }
  const { count: withoutValue, noun } = result.withoutValue;
  if (withoutValue > 0) {
    lines.push(
      `Record values are never exported: ${plural(withoutValue, noun)} ${withoutValue === 1 ? 'is' : 'are'} written without one. ` +
        'Applied to another account, they are created empty: give each a `value:` in its project file first (`cplane plan` lists the records without a value).',
    );
  }
  if (result.adopted !== undefined) {
    lines.push(
      `Adopted ${plural(result.adopted, 'address', 'addresses')} into the state of account ${result.account}: \`${suggestedCommand(['plan', out, '--account', result.account])}\` should show no changes.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
