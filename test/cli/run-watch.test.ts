// `cplane run --watch` restarting its command (src/cli/run/run-watch.ts), with real child processes: a command that
// ignores SIGTERM is killed once the grace has passed and started again with the new value; changes that arrive
// while it restarts end with the command running the newest value; the command's own end is cplane's.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { alive } from '../helpers/processes.js';
import { runRestarting } from '../../src/cli/run/run-watch.js';

const temp = mkdtempSync(join(tmpdir(), 'cplane-run-watch-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A child that appends `VALUE` to its log at each start; it ignores SIGTERM when IGNORE_TERM is set, and ends with 5 on `stop`. */
const child = `const fs = require('fs');
if (process.env.IGNORE_TERM) process.on('SIGTERM', () => {});
fs.appendFileSync(process.env.LOG, process.env.VALUE + '\\n');
setInterval(() => { if (fs.existsSync(process.env.LOG + '.stop')) process.exit(5); }, 20);`;

async function restartStory(name: string, env: NodeJS.ProcessEnv, changes: string[]) {
  const log = join(temp, name);
  const lines = () => readFileSync(log, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean);
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise((r) => setTimeout(r, 20));
  };
  const said: string[] = [];
  let changed!: (variable: string, value: string, version: number) => void;
  const done = runRestarting({
    command: process.execPath,
    args: ['-e', child],
    cwd: temp,
    env: { PATH: process.env.PATH, LOG: log, ...env },
    values: { VALUE: 'v1' },
    graceMs: 200,
    say: (line) => said.push(line),
    watch: (c) => ((changed = c), () => undefined),
  });
  await until(() => lines().length === 1);
  changes.forEach((value, i) => changed('VALUE', value, i + 2));
  await until(() => lines().at(-1) === changes.at(-1));
  writeFileSync(`${log}.stop`, '');
  return { code: await done, lines: lines(), said };
}

it('kills a command that ignores SIGTERM once the grace has passed, and starts it again with the new value', async () => {
  const { code, lines, said } = await restartStory('ignores-term', { IGNORE_TERM: '1' }, ['v2']);
  expect(lines).toEqual(['v1', 'v2']);
  expect(said).toEqual([`cplane run: VALUE changed (value version 2); restarting ${process.execPath}.`]);
  expect(code).toBe(5);
});

it('ends with the newest value when changes arrive during a restart, the same value never restarting it', async () => {
  const { lines } = await restartStory('coalesces', { IGNORE_TERM: '1' }, ['v2', 'v3', 'v3']);
  expect(lines[0]).toBe('v1');
  expect(lines.at(-1)).toBe('v3');
  expect(lines.length).toBeLessThanOrEqual(3);
});

it.skipIf(process.platform !== 'linux')(
  'a restart stops every process the command started (its process group), one that ignores SIGTERM too, before the next starts',
  async () => {
    const log = join(temp, 'grandchildren');
    const pidFile = join(temp, 'grandchildren.pids');
    // A shell that starts two `sleep`s (one ignoring SIGTERM), notes their pids, and runs until the stop file exists.
    const shell = `echo "$VALUE" >> "$LOG"
sleep 1000 & echo $! >> "$PIDS"
(trap '' TERM; exec sleep 1000) & echo $! >> "$PIDS"
while [ ! -f "$LOG.stop" ]; do sleep 0.05; done
exit 5`;
    const lines = () => readFileSync(log, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean);
    const pids = () => readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean).map(Number);
    const until = async (test: () => boolean) => {
      while (!test()) await new Promise((r) => setTimeout(r, 20));
    };
    let changed!: (variable: string, value: string, version: number) => void;
    const done = runRestarting({
      command: '/bin/sh',
      args: ['-c', shell],
      cwd: temp,
      env: { PATH: process.env.PATH, LOG: log, PIDS: pidFile },
      values: { VALUE: 'v1' },
      graceMs: 200,
      say: () => undefined,
      watch: (c) => ((changed = c), () => undefined),
    });
    try {
      await until(() => pids().length === 2);
      const first = pids();
      expect(first.every(alive)).toBe(true);
      changed('VALUE', 'v2', 2);
      await until(() => pids().length === 4);
      // The new command started only once the old group had ended: no copy holding v1 is left.
      expect(first.filter(alive)).toEqual([]);
      expect(pids().slice(2).every(alive)).toBe(true);
      expect(lines()).toEqual(['v1', 'v2']);
      writeFileSync(`${log}.stop`, '');
      expect(await done).toBe(5);
    } finally {
      for (const pid of pids()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  },
);
