/**
 * `cplane run --manifest FILE --env NAME=PROJECT/RECORD ... [--watch] -- COMMAND`: the values read by name through
 * the SDK's reader (./manifest-reading.ts), all of them before COMMAND starts; with --watch the reader watches every
 * name (one record list per interval for all of them) and COMMAND is restarted with the new values when one changes
 * (./run-watch.ts). A refresh that fails keeps the last good value and is said on stderr.
 */
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { durationFlagMs } from '../../session/lock-timeout.js';
import { registerSecret, safeText } from '../../text/safe-text.js';
import { runChildOnce } from './child-process.js';
import { explainNamed, openManifestReader, readNamed } from './manifest-reading.js';
import { runRestarting } from './run-watch.js';

const DEFAULT_GRACE_MS = 10_000;
const DEFAULT_INTERVAL_MS = 30_000;

export async function runByName(
  ctx: CommandContext,
  manifest: string,
  run: { command: string; args: string[]; entries: { name: string; source: string }[]; env: NodeJS.ProcessEnv; own: string[] },
): Promise<number> {
  if (run.own.length > 0)
    throw new AbortError(`With --manifest, no configuration folder is read: unexpected ${run.own.join(' ')} before --.`, 'Leave it out.');
  const watch = ctx.values.watch === true;
  if (!watch && (ctx.values.grace !== undefined || ctx.values.interval !== undefined))
    throw new AbortError('--grace and --interval are used with --watch.', 'Add --watch, or leave them out.');
  const graceMs = durationFlagMs(ctx.values, 'grace', DEFAULT_GRACE_MS);
  const intervalMs = durationFlagMs(ctx.values, 'interval', DEFAULT_INTERVAL_MS);
  const reader = openManifestReader(ctx, manifest);
  try {
    const values: Record<string, string> = {};
    for (const { name, source } of run.entries) values[name] = await readNamed(reader, source);
    if (!watch) return await runChildOnce(run.command, run.args, { cwd: ctx.cwd, env: { ...run.env, ...values } });
    return await runRestarting({
      command: run.command,
      args: run.args,
      cwd: ctx.cwd,
      env: run.env,
      values,
      graceMs,
      say: (line) => ctx.stderr.write(`${safeText(line)}\n`),
      watch(changed) {
        const stops = run.entries.map(({ name, source }) =>
          reader.watch(
            source,
            (value, read) => {
              registerSecret(value);
              changed(name, value, read.version);
            },
            {
              intervalMs,
              onError: (error) => {
                let said = error.message;
                try {
                  explainNamed(error, source);
                } catch (explained) {
                  said = explained instanceof Error ? explained.message : said;
                }
                ctx.stderr.write(`${safeText(`cplane run: kept the last good value of ${name}: ${said}`)}\n`);
              },
            },
          ),
        );
        return () => stops.forEach((stop) => stop());
      },
    });
  } finally {
    await reader.close();
  }
}
