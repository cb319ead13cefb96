/**
 * The stories of per-address apply locks (docs/state.md, "Locks"), told once and run against each state backend
 * (test/e2e/address-locks.test.ts: a file; test/e2e/postgres/address-locks.test.ts: PostgreSQL). Nothing here waits
 * on time: a lock is held by the test itself through the backend, or by an apply whose write a proxy holds.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { LockInfo, StateBackend } from '../../src/state/index.js';
import { replay } from '../../src/state/replay.js';
import { builtCli } from '../helpers/built-cli.js';
import { hostileProxy, world, type World } from './helpers.js';

export interface StateKit {
  /** The state's location for the CLI (CPLANE_STATE), made fresh for `w`. */
  env(w: World): NodeJS.ProcessEnv;
  /** Another handle on the same state, as a second apply would open it. */
  backend(w: World): StateBackend;
  /** Records address locks whose holder is gone (a dead process, an ended database session); returns their lock id. */
  deadHold(w: World, addresses: string[]): Promise<string>;
}

const project = (name: string, description: string) =>
  `version: 1\nprojects:\n  ${name}:\n    name: ${name}\n    description: ${description}\n`;
const commitOf = (pr: number) => createHash('sha1').update(`commit of PR ${pr}`).digest('hex');

function files(w: World, alpha: string, beta: string): void {
  writeFileSync(join(w.dir, 'alpha.yaml'), project('alpha', alpha));
  writeFileSync(join(w.dir, 'beta.yaml'), project('beta', beta));
}

/** Plans `alpha`/`beta` as pull request `pr` would, saved with --out. */
async function savedPlan(w: World, env: NodeJS.ProcessEnv, pr: number, alpha: string, beta: string): Promise<string> {
  files(w, alpha, beta);
  const planFile = join(w.temp, `pr-${pr}.plan.json`);
  const planned = await w.cli(['plan', w.dir, '--out', planFile, '--pr', String(pr), '--commit', commitOf(pr)], env);
  expect(planned.code, planned.stderr).toBe(0);
  return planFile;
}

/** A holder as another apply of PR `pr`'s plan would record it (this process: alive on this host). */
function applyOf(pr: number): LockInfo {
  return {
    id: randomUUID(),
    pid: process.pid,
    host: hostname(),
    time: new Date().toISOString(),
    command: `cplane apply (PR #${pr})`,
    allowance: { digest: `sha256:${'0'.repeat(64)}`, pullRequest: pr, commit: commitOf(pr) },
  };
}

/** The stored state as a reader finds it: its serial and its pending writes. */
async function stored(kit: StateKit, w: World) {
  const backend = kit.backend(w);
  try {
    const loaded = await backend.load();
    const { contents } = replay(loaded!, backend.location);
    return { serial: contents.serial, journal: contents.journal.length, addresses: Object.keys(contents.resources).sort() };
  } finally {
    await backend.close?.();
  }
}

/** The CLI as a process whose standard error can be awaited for a line (the "Waiting" note). */
function startCli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [builtCli(), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  const said = (text: string) =>
    new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes(text)) resolve();
      });
      void done.then((end) => reject(new Error(`the apply ended (code ${String(end.code)}) before saying "${text}": ${end.stderr}`)));
    });
  return { said, done };
}

async function baseWorld(kit: StateKit): Promise<{ w: World; env: NodeJS.ProcessEnv }> {
  const w = await world();
  const env = kit.env(w);
  files(w, 'A0', 'B0');
  const base = await w.run(['apply', w.dir, '--auto-approve'], env);
  expect(base.code, base.stderr).toBe(0);
  return { w, env };
}

export function addressLockStories(kit: StateKit): void {
  heldAddress(kit);
  disjointApplies(kit);
  goneHolders(kit);
}

function heldAddress(kit: StateKit): void {
  it('an apply whose address another apply holds fails naming its PR, with 0 writes; with --lock-timeout it waits, then applies', async () => {
    const { w, env } = await baseWorld(kit);
    try {
      const plan = await savedPlan(w, env, 2, 'A2', 'B0');
      const holder = kit.backend(w);
      const hold = await holder.lockAddresses!(applyOf(7), ['project.alpha']);
      const before = await stored(kit, w);
      w.emulator.resetStats();

      const refused = await w.cli(['apply', plan], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('1 address this command needs is held by another apply');
      expect(refused.stderr).toContain(`project.alpha by PR #7 at commit ${commitOf(7).slice(0, 12)}`);
      expect(refused.stderr).toContain(`cplane force-unlock ${hold.id}`);
      expect(w.emulator.stats().writes).toBe(0);
      expect(await stored(kit, w)).toEqual(before);

      const waiting = startCli(['apply', plan, '--lock-timeout', '10m'], { ...w.env, ...env }, w.temp);
      await waiting.said('Waiting up to 600 s for 1 address(es)');
      expect(w.emulator.stats().writes).toBe(0);
      await holder.unlockAddresses!(hold);
      await holder.close?.();
      const applied = await waiting.done;
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stderr).toContain('held by PR #7');
      expect(w.emulator.stats().writes).toBe(1);
      expect((await w.client.listAll('listProjects', {})).find((p) => p.name === 'alpha')?.description).toBe('A2');
    } finally {
      await w.close();
    }
  });
}

function disjointApplies(kit: StateKit): void {
  it('two applies on disjoint addresses run at the same time; a third on a held address is refused naming the PR; the next plan is clean', async () => {
    const { w, env } = await baseWorld(kit);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const writeReached = new Promise<void>((resolve) => (reached = resolve));
    // PR 1's apply talks through this proxy, which holds its write: it holds project.alpha until the test lets it go.
    const proxy = await hostileProxy(w.emulator.url, (req) => {
      if (req.method === 'GET') return false;
      reached();
      return released;
    });
    try {
      const viaProxy = { ...env, CPLANE_BASE_URL: proxy.url };
      const a = await savedPlan(w, viaProxy, 1, 'A1', 'B0');
      const b = await savedPlan(w, env, 2, 'A0', 'B1');
      const c = await savedPlan(w, env, 3, 'A3', 'B0');
      files(w, 'A1', 'B1');
      w.emulator.resetStats();
      const runA = w.cli(['apply', a], viaProxy);
      await writeReached;

      const refusedC = await w.cli(['apply', c], env);
      expect(refusedC.code).toBe(1);
      expect(refusedC.stderr).toContain(`project.alpha by PR #1 at commit ${commitOf(1).slice(0, 12)}`);
      expect(w.emulator.stats().writes).toBe(0);

      // PR 1's write is in flight (its journal entry is in the state): PR 2 neither waits for it nor resends it.
      expect((await stored(kit, w)).journal).toBe(1);
      const appliedB = await w.cli(['apply', b], env);
      expect(appliedB.code, appliedB.stderr).toBe(0);
      expect(w.emulator.stats().writes).toBe(1);

      release();
      const appliedA = await runA;
      expect(appliedA.code, appliedA.stderr).toBe(0);
      expect(w.emulator.stats().writes).toBe(2);

      const after = await stored(kit, w);
      expect(after.journal).toBe(0);
      expect(after.addresses).toEqual(['project.alpha', 'project.beta']);
      const list = await w.cli(['state', 'list', w.dir], env);
      expect(list.stdout).toMatch(/project\.alpha[\s\S]*project\.beta/);
      const next = await w.cli(['plan', w.dir, '--detailed-exitcode'], env);
      expect(next.code, next.stdout + next.stderr).toBe(0);
      const live = await w.client.listAll('listProjects', {});
      expect(
        live
          .filter((p) => p.name === 'alpha' || p.name === 'beta')
          .map((p) => `${p.name}=${p.description}`)
          .sort(),
      ).toEqual(['alpha=A1', 'beta=B1']);
    } finally {
      release();
      await proxy.close();
      await w.close();
    }
  });
}

function goneHolders(kit: StateKit): void {
  it("a gone holder's address locks are taken over; force-unlock clears a live holder's with --force", async () => {
    const { w, env } = await baseWorld(kit);
    try {
      const plan = await savedPlan(w, env, 2, 'A2', 'B0');
      await kit.deadHold(w, ['project.alpha']);
      const applied = await w.cli(['apply', plan], env);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stderr).toContain('Took over 1 address lock(s)');

      const holder = kit.backend(w);
      const hold = await holder.lockAddresses!(applyOf(8), ['project.beta']);
      const planB = await savedPlan(w, env, 3, 'A2', 'B3');
      const refused = await w.cli(['force-unlock', hold.id], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('--force');
      expect((await w.cli(['apply', planB], env)).code).toBe(1);

      const cleared = await w.cli(['force-unlock', hold.id, '--force'], env);
      expect(cleared.code, cleared.stderr).toBe(0);
      await holder.close?.();
      const appliedB = await w.cli(['apply', planB], env);
      expect(appliedB.code, appliedB.stderr).toBe(0);
    } finally {
      await w.close();
    }
  });
}
