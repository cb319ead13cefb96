#!/usr/bin/env node
/**
 * `cplane-reader`: the SDK's reader as a command, for applications in any language (docs/sdk.md, "cplane-reader").
 * It reads by name with CPLANE_MANIFEST, CPLANE_READER and CPLANE_DEPLOYMENT (createReader, every check of it):
 *
 *   cplane-reader read NAME                                  the value on stdout
 *   cplane-reader run [--watch] --env VAR=NAME ... -- CMD    CMD with the values in its environment
 *   cplane-reader files --dir DIR [--watch] NAME[=PATH] ...  the values in files of mode 0600, kept current
 *
 * As `cplane run`, the command started never gets CPLANE_* (the reader's own credential, manifest and deployment),
 * only the values it asked for. It runs in a process group of its own: a restart (--watch, when a value changes)
 * sends SIGTERM to the whole group, waits for the command's exit, and sends SIGKILL to the group once --grace has
 * passed. Files are written as Kubernetes' projected secrets and Vault Agent's templates write them: a new file
 * beside the old one, then a rename, so a program that watches or re-reads the file never sees half a value.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, normalize, isAbsolute } from 'node:path';
import { parseArgs } from 'node:util';
import { createReader, type NamedValue, type Reader } from './reader.js';

const USAGE = `Usage:
  cplane-reader read NAME
  cplane-reader run [--watch] [--interval 30s] [--grace 10s] --env VAR=PROJECT/RECORD ... -- COMMAND [ARGS...]
  cplane-reader files --dir DIR [--watch] [--interval 30s] PROJECT/RECORD[=PATH] ...
Reads with CPLANE_MANIFEST (the reader manifest's path), CPLANE_READER (the credential) and CPLANE_DEPLOYMENT.`;

/** A mistake in how the command was called: exit code 2, with the usage. */
class UsageError extends Error {}

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === 'read') return await readCommand(rest, io);
    if (command === 'run') return await runCommand(rest, io);
    if (command === 'files') return await filesCommand(rest, io);
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    throw new UsageError(command === undefined ? 'No command given.' : `Unknown command ${JSON.stringify(command)}.`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`cplane-reader: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    io.stderr.write(`cplane-reader: ${describe(error)}\n`);
    return 1;
  }
}

/** `CODE: message` (the SDK's errors never hold a value, key or token). */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

function reader(io: Io): Reader {
  return createReader({
    onError: (error, name) => io.stderr.write(`cplane-reader: kept the last good value of ${name}: ${describe(error)}\n`),
  });
}

async function readCommand(args: string[], io: Io): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('read takes one name, PROJECT/RECORD.');
  const r = reader(io);
  try {
    io.stdout.write(`${await r.get(positionals[0]!)}\n`);
    return 0;
  } finally {
    await r.close();
  }
}

/** `30s`, `100ms`, `5m`, or seconds. */
export function durationMs(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`${flag} ${JSON.stringify(text)}: expected a duration such as 100ms, 30s or 5m.`);
  return Math.round(Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h']);
}

const timing = {
  watch: { type: 'boolean' },
  interval: { type: 'string', default: '30s' },
  grace: { type: 'string', default: '10s' },
} as const;

/** Watches every name; `changed` gets each newer version than the one read first. Returns the function that stops it. */
function watchAll(
  r: Reader,
  first: Map<string, NamedValue>,
  intervalMs: number,
  changed: (name: string, read: NamedValue) => void,
  io: Io,
): () => void {
  const stops = [...first.keys()].map((name) =>
    r.watch(
      name,
      (value, version) => {
        // The watch callback's metadata holds no value (it may be logged); the value comes as its first argument.
        const read: NamedValue = { ...version, value };
        const known = first.get(name)!;
        if (read.version <= known.version) return;
        first.set(name, read);
        changed(name, read);
      },
      { intervalMs, onError: (error) => io.stderr.write(`cplane-reader: kept the last good value of ${name}: ${describe(error)}\n`) },
    ),
  );
  return () => stops.forEach((stop) => stop());
}

async function runCommand(args: string[], io: Io): Promise<number> {
  const split = args.indexOf('--');
  if (split === -1 || split === args.length - 1) throw new UsageError('run needs the command after --.');
  const { values } = parseArgs({ args: args.slice(0, split), options: { ...timing, env: { type: 'string', multiple: true } } });
  const [command, ...commandArgs] = args.slice(split + 1) as [string, ...string[]];
  const wanted = (values.env ?? []).map((pair) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(pair);
    if (!match)
      throw new UsageError(`--env ${JSON.stringify(pair)}: expected VAR=PROJECT/RECORD, e.g. --env STRIPE_KEY=payments/stripe-key.`);
    return { variable: match[1]!, name: match[2]! };
  });
  if (wanted.length === 0) throw new UsageError('run needs at least one --env VAR=PROJECT/RECORD.');
  const intervalMs = durationMs(values.interval, '--interval');
  const graceMs = durationMs(values.grace, '--grace');

  const r = reader(io);
  try {
    const first = new Map<string, NamedValue>();
    for (const { name } of wanted) if (!first.has(name)) first.set(name, await r.read(name));
    // The reader's own settings never reach the command: only the values it asked for.
    const base = Object.fromEntries(Object.entries(io.env).filter(([name]) => !name.startsWith('CPLANE_')));
    const environment = () => ({ ...base, ...Object.fromEntries(wanted.map(({ variable, name }) => [variable, first.get(name)!.value])) });
    if (!values.watch) {
      await r.close();
      return await new Group(command, commandArgs, environment()).ended();
    }
    return await runWatching({
      command,
      commandArgs,
      graceMs,
      environment,
      io,
      watch: (changed) => watchAll(r, first, intervalMs, changed, io),
    });
  } finally {
    await r.close();
  }
}

/** A command in a process group of its own, so a restart or a signal reaches everything it started. */
class Group {
  readonly child: ChildProcess;
  readonly exit: Promise<number>;
  constructor(command: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { env, stdio: 'inherit', detached: true });
    this.exit = new Promise((resolve) => {
      this.child.once('error', (error) => {
        process.stderr.write(`cplane-reader: cannot start ${command}: ${(error as NodeJS.ErrnoException).code ?? error.message}\n`);
        resolve(127);
      });
      this.child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? signalNumber(signal) : 0)));
    });
  }
  signal(signal: NodeJS.Signals): void {
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, signal);
    } catch {
      // The group has ended already.
    }
  }
  /** Forwards SIGINT, SIGTERM and SIGHUP to the group until it exits; its exit code. */
  async ended(): Promise<number> {
    const forward = (signal: NodeJS.Signals) => this.signal(signal);
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, forward);
    try {
      return await this.exit;
    } finally {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, forward);
    }
  }
  /** SIGTERM to the group, then SIGKILL once `graceMs` has passed; resolves when the command has exited. */
  async stop(graceMs: number): Promise<number> {
    this.signal('SIGTERM');
    const kill = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exit;
    } finally {
      clearTimeout(kill);
    }
  }
}

const signalNumber = (signal: NodeJS.Signals) => ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 })[signal as string] ?? 0;

async function runWatching(run: {
  command: string;
  commandArgs: string[];
  graceMs: number;
  environment: () => NodeJS.ProcessEnv;
  io: Io;
  watch: (changed: (name: string, read: NamedValue) => void) => () => void;
}): Promise<number> {
  let current = new Group(run.command, run.commandArgs, run.environment());
  let restarting: Promise<void> | undefined;
  let again = false;
  let stopping = false;
  /** Groups stopped by a restart: their end is not the command's. */
  const replaced = new WeakSet<Group>();
  return await new Promise<number>((resolve) => {
    let stopWatching = () => {};
    const forward = (signal: NodeJS.Signals) => {
      stopping = true;
      current.signal(signal);
    };
    const finish = (code: number) => {
      stopWatching();
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, forward);
      resolve(code);
    };
    const follow = (group: Group) => void group.exit.then((code) => !replaced.has(group) && finish(code));
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, forward);
    follow(current);
    stopWatching = run.watch((name, read) => {
      run.io.stderr.write(`cplane-reader: ${name} changed (value version ${read.version}); restarting ${run.command}.\n`);
      if (restarting) return void (again = true);
      restarting = (async () => {
        do {
          again = false;
          const old = current;
          replaced.add(old);
          const code = await old.stop(run.graceMs);
          // A signal to cplane-reader during the restart ends it: the command is not started again.
          if (stopping) return finish(code);
          current = new Group(run.command, run.commandArgs, run.environment());
          follow(current);
        } while (again);
      })().finally(() => (restarting = undefined));
    });
  });
}

async function filesCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...timing, dir: { type: 'string' } } });
  if (!values.dir) throw new UsageError('files needs --dir DIR, the folder the files are written in.');
  if (positionals.length === 0) throw new UsageError('files needs at least one PROJECT/RECORD[=PATH].');
  const dir = values.dir;
  const files = positionals.map((item) => {
    const [name, path = item.split('=')[0]!] = item.split('=') as [string, string?];
    const relative = normalize(path);
    if (isAbsolute(relative) || relative.startsWith('..') || relative === '.')
      throw new UsageError(`${JSON.stringify(item)}: the file's PATH must stay inside --dir (a relative path without ..).`);
    return { name, path: join(dir, relative) };
  });
  const intervalMs = durationMs(values.interval, '--interval');
  const r = reader(io);
  try {
    const first = new Map<string, NamedValue>();
    for (const { name } of files) if (!first.has(name)) first.set(name, await r.read(name));
    for (const file of files) writeOwnerOnly(file.path, first.get(file.name)!.value);
    io.stderr.write(`cplane-reader: wrote ${files.length} file(s) in ${dir}.\n`);
    if (!values.watch) return 0;
    return await new Promise<number>((resolve) => {
      const stop = watchAll(
        r,
        first,
        intervalMs,
        (name, read) => {
          for (const file of files.filter((f) => f.name === name)) writeOwnerOnly(file.path, read.value);
          io.stderr.write(`cplane-reader: ${name} changed (value version ${read.version}); its file(s) written again.\n`);
        },
        io,
      );
      const end = () => {
        stop();
        resolve(0);
      };
      process.once('SIGINT', end);
      process.once('SIGTERM', end);
    });
  } finally {
    await r.close();
  }
}

/** Writes `value` to `path` with mode 0600 (folders 0700): a new file beside it, flushed, then renamed over it. */
export function writeOwnerOnly(path: string, value: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = join(dirname(path), `.${Math.random().toString(36).slice(2)}.cplane-reader.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, value);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
}

if (process.argv[1] && /cplane-reader|reader-command\.js$/.test(process.argv[1])) {
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
