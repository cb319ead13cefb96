/**
 * `cplane run [dir] --env NAME=ADDRESS|RECORD_ID ... -- COMMAND [ARGS...]`: reads each record with the function
 * `cplane read` uses (as a reader with its private key and pinned writer keys, or as cplane with the state key),
 * then starts COMMAND with those values added to its environment, as `doppler run` and `op run` do. Every record is
 * read before COMMAND starts, so one that cannot be read stops the run with its reason and COMMAND never runs.
 * COMMAND gets those values, not cplane's own credentials (../child-environment.ts: every CPLANE_* variable, the
 * reader's CPLANE_READER, CPLANE_MANIFEST and CPLANE_DEPLOYMENT among them, is consumed by cplane). Nothing is written
 * to disk. SIGINT and SIGTERM are passed on to COMMAND, and its exit code is cplane's (128 + the signal's number when
 * a signal ended it, as a shell says). With --manifest it reads by name as a Service Account, and with --watch
 * restarts COMMAND when a value changes (../run-by-name.ts).
 */
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { childEnvironment, passEnvNames } from '../run/child-environment.js';
import { runChildOnce } from '../run/child-process.js';
import { isRecordId, manifestPathOf } from '../run/manifest-reading.js';
import { runByName } from '../run/run-by-name.js';
import { isRecordAddress, openRecordReading, type RecordTarget } from './read.js';

const usage = 'run [dir] --env NAME=ADDRESS|RECORD_ID ... [--pass-env NAME ...] -- COMMAND [ARGS...]';

export interface EnvEntry {
  name: string;
  /** What follows `=`: an address, a record id, or with --manifest a secret's name. */
  source: string;
  target: RecordTarget;
}

function envEntries(ctx: CommandContext): EnvEntry[] {
  const given = Array.isArray(ctx.values.env) ? (ctx.values.env as string[]) : [];
  if (given.length === 0)
    throw new AbortError('Say which records to hand to the command: --env NAME=ADDRESS or --env NAME=RECORD_ID.', `Usage: cplane ${usage}`);
  const seen = new Set<string>();
  return given.map((text) => {
    const at = text.indexOf('=');
    const name = at > 0 ? text.slice(0, at) : '';
    const source = text.slice(at + 1);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || source === '') {
      throw new AbortError(
        `--env ${JSON.stringify(text)}: expected NAME=ADDRESS or NAME=RECORD_ID, where NAME is a variable name (letters, digits, _).`,
        'For example: --env STRIPE_KEY=record.payments/stripe-key',
      );
    }
    if (seen.has(name)) throw new AbortError(`--env ${name} is given twice.`, 'Give each variable one record.');
    seen.add(name);
    return { name, source, target: isRecordAddress(source) ? { address: source } : { recordId: source } };
  });
}

export const runCommand: CommandModule = {
  async run(ctx) {
    const after = ctx.afterTerminator ?? [];
    const [command, ...args] = after;
    if (command === undefined) throw new AbortError('No command to run: give it after --.', `Usage: cplane ${usage}`);
    const own = ctx.positionals.slice(0, ctx.positionals.length - after.length);
    if (own.length > 1) throw new AbortError(`Unexpected arguments before --: ${own.join(' ')}.`, `Usage: cplane ${usage}`);
    const entries = envEntries(ctx);
    // Without the values: the command is given them last, over anything of the same name.
    const env = await childEnvironment({
      parent: ctx.env,
      dir: own[0] ?? '.',
      cwd: ctx.cwd,
      passEnv: passEnvNames(ctx.values),
      values: {},
    });
    const manifest = manifestPathOf(
      ctx,
      entries.some((e) => e.target.address !== undefined || isRecordId(e.source)),
    );
    if (manifest !== undefined) return await runByName(ctx, manifest, { command, args, entries, env, own });
    const named = entries.find((e) => e.target.address === undefined && !isRecordId(e.source));
    if (named)
      throw new AbortError(
        `--env ${named.name}=${named.source}: "${named.source}" is neither a record address nor a record id, and no reader manifest names it.`,
        `Read by name with --manifest FILE (or CPLANE_MANIFEST), or give the address record.${named.source}.`,
      );
    if (['watch', 'grace', 'interval'].some((flag) => ctx.values[flag] !== undefined))
      throw new AbortError(
        '--watch reads by name: it needs --manifest FILE.',
        'Give --manifest FILE and --env NAME=PROJECT/RECORD (docs/sdk.md), or leave --watch out.',
      );
    const reading = await openRecordReading(ctx, { dir: own[0], byAddress: entries.some((e) => e.target.address !== undefined) });
    const values: Record<string, string> = {};
    try {
      // One after the other, and all of them before the command starts.
      for (const { name, target } of entries) values[name] = await reading.read(target);
    } finally {
      await reading.close();
    }
    return await runChildOnce(command, args, { cwd: ctx.cwd, env: { ...env, ...values } });
  },
};
