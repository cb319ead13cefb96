/**
 * Shared arrangements for the state tests: a configuration folder and a
 * config home (XDG_CONFIG_HOME) in fresh temp folders, so no test touches the
 * real home, and a sample resource.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ResourceState } from '../../src/state/index.js';
import { entryMacKey, macResource } from '../../src/state/entry-mac.js';
import { builtCli } from '../helpers/built-cli.js';

export interface Sandbox {
  root: string;
  configDir: string;
  configHome: string;
  /** Environment with XDG_CONFIG_HOME in the sandbox and no key variables. */
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function makeSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'cplane-state-'));
  const configDir = join(root, 'repo');
  const configHome = join(root, 'config-home');
  return {
    root,
    configDir,
    configHome,
    env: { XDG_CONFIG_HOME: configHome, PATH: process.env.PATH },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function newKey(): string {
  return randomBytes(32).toString('base64');
}

export function resource(kind: ResourceState['kind'], id: string, extra: Partial<ResourceState> = {}): ResourceState {
  const now = '2025-01-02T03:04:05.000Z';
  return { kind, id, inputs: {}, fingerprints: {}, createdAt: now, updatedAt: now, ...extra };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `cplane` as a user would, in `cwd` with exactly `env`. */
export function runCplane(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [builtCli(), ...args], { cwd, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A resource entry with the MAC the store would give it in the state of `binding`, under the base64 state `key`. */
export function authenticResource(
  key: string,
  binding: { account: string; lineage: string },
  address: string,
  entry: ResourceState,
): ResourceState {
  return macResource(entryMacKey(Buffer.from(key, 'base64')), binding, address, entry);
}
