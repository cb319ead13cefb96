/**
 * `cplane state history|pull|push|migrate`: the state as a whole, for teams
 * whose state lives in PostgreSQL: list its versions, print it (sealed values
 * stay sealed), replace it with a checked file, or copy it between a local
 * file and a database.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { lockTimeoutMs } from '../../session/lock-timeout.js';
import {
  isPostgresUrl,
  maskUrl,
  migrateState,
  parseStateFile,
  pullState,
  pushState,
  serializeStateFile,
  stateHistory,
} from '../../state/index.js';
import { locateStateOnly } from '../../session/workspace.js';
import { takePositionals } from './state.js';
import { safeName, safeText } from '../../text/safe-text.js';
import { shellArgument } from '../../text/escape-for.js';
import { jsonText } from '../../text/json-text.js';

const historyUsage = 'state history [dir] [--account ID] [--state URL] [--workspace NAME] [--limit N] [--json]';

export const stateHistoryCommand: CommandModule = {
  async run(ctx) {
    const { dir } = takePositionals(ctx, [], historyUsage);
    const limitText = (ctx.values.limit as string | undefined) ?? '50';
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1)
      throw new AbortError(`--limit must be a whole number of at least 1 (got ${JSON.stringify(limitText)}).`, 'For example --limit 20.');
    const { location, versions } = await stateHistory(await locateStateOnly(ctx, dir), limit);
    if (ctx.values.json === true) {
      ctx.stdout.write(`${jsonText({ location, versions }, 2)}\n`);
      return 0;
    }
    if (versions.length === 0) {
      ctx.stdout.write(`The state ${location} has no versions yet.\n`);
      return 0;
    }
    const serialWidth = Math.max(6, ...versions.map((v) => String(v.serial).length));
    ctx.stdout.write(`${'serial'.padStart(serialWidth)}  ${'saved at'.padEnd(24)}  by\n`);
    for (const v of versions) {
      // Rows of a table anyone with write access can fill: escaped (and the command line redacted) like any untrusted text.
      ctx.stdout.write(
        `${String(v.serial).padStart(serialWidth)}  ${v.savedAt.padEnd(24)}  ${safeName(`${v.who}@${v.host}`)}  \`${safeText(v.command)}\`  ${v.changes} change(s), ${v.bytes} bytes\n`,
      );
    }
    return 0;
  },
};

const pullUsage = 'state pull [dir] [--account ID] [--state PATH|URL] [--workspace NAME]';

export const statePullCommand: CommandModule = {
  async run(ctx) {
    const { dir } = takePositionals(ctx, [], pullUsage);
    const { contents } = await pullState(await locateStateOnly(ctx, dir));
    ctx.stdout.write(serializeStateFile(contents));
    return 0;
  },
};

const pushUsage = 'state push FILE [dir] [--account ID] [--state PATH|URL] [--workspace NAME]';

export const statePushCommand: CommandModule = {
  async run(ctx) {
    const { args, dir } = takePositionals(ctx, ['FILE'], pushUsage);
    const file = resolve(ctx.cwd, args[0]!);
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new AbortError(
        `Cannot read ${file}: ${error.code ?? error.message}.`,
        'Give the path of a state file, e.g. one written by `cplane state pull > state.json`.',
      );
    });
    const contents = parseStateFile(text, file);
    const location = await locateStateOnly(ctx, dir);
    const { location: shown, outcome } = await pushState(
      { ...location, account: location.account ?? contents.account, lockTimeoutMs: lockTimeoutMs(ctx.values) },
      contents,
      'cplane state push',
    );
    ctx.stdout.write(
      outcome === 'unchanged'
        ? `The state ${shown} already holds serial ${contents.serial} of that file; nothing was written.\n`
        : `Pushed ${file} (serial ${contents.serial}) to ${shown}.\n`,
    );
    return 0;
  },
};

const migrateUsage = 'state migrate --to PATH|URL [dir] [--account ID] [--state PATH|URL] [--workspace NAME]';

export const stateMigrateCommand: CommandModule = {
  async run(ctx) {
    const { dir } = takePositionals(ctx, [], migrateUsage);
    const to = ctx.values.to as string | undefined;
    if (!to) throw new AbortError('state migrate needs --to: where to copy the state.', `Usage: cplane ${migrateUsage}`);
    const from = { ...(await locateStateOnly(ctx, dir)), lockTimeoutMs: lockTimeoutMs(ctx.values) };
    const target = { ...from, statePath: isPostgresUrl(to) ? to : resolve(ctx.cwd, to) };
    const result = await migrateState(from, target, 'cplane state migrate');
    const count = Object.keys(result.contents.resources).length;
    ctx.stdout.write(
      result.outcome === 'unchanged'
        ? `${result.to} already holds serial ${result.contents.serial} of this state; nothing was written.\n`
        : `Copied the state (serial ${result.contents.serial}, ${count} resource${count === 1 ? '' : 's'}) from ${result.from} to ${result.to}.\n` +
            `The source was left as it was. Point cplane at the copy with --state ${shellArgument(isPostgresUrl(to) ? maskUrl(to) : to)} (or CPLANE_STATE), then remove the source.\n`,
    );
    return 0;
  },
};
