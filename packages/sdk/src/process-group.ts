/**
 * Stopping a command and everything it started: a command restarted with new values (`cplane run --watch`) is spawned
 * in a process group of its own (`detached: true`), so that a signal reaches the shell and every process it left
 * running, not only the shell. Stopping sends SIGTERM to the group, waits until no process of it is left, and sends
 * SIGKILL to the group once the grace has passed. Without it, a shell's children kept running with the old values.
 * Node's own modules only, so that a reader command of the SDK's can restart its child the same way.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** How often a stopping group is looked at: short against any grace, long against the cost of a look. */
const LOOK_EVERY_MS = 20;

/** Sends `signal` to the child's process group (the child must have been spawned with `detached: true`). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group has ended already.
  }
}

/**
 * True while a process of the group is alive. A process that has exited but is not yet reaped (a zombie, whose new
 * parent may never reap it in a container) holds nothing and does not count; Linux says which those are in /proc.
 */
export function groupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    return readdirSync('/proc').some((entry) => /^\d+$/.test(entry) && isLiveMember(statOf(entry), groupId));
  } catch {
    return true;
  }
}

/** The text of `/proc/PID/stat`, or '' for a process that has gone meanwhile. */
function statOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

/** `/proc/PID/stat`: `PID (COMM) STATE PPID PGRP …`, COMM possibly holding spaces and parentheses. */
function isLiveMember(stat: string, groupId: number): boolean {
  const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(group) === groupId && state !== 'Z' && state !== 'X';
}

/**
 * Stops the child's group: SIGTERM, then SIGKILL once `graceMs` has passed if a process of it is still alive.
 * Resolves with the child's exit (what `exited` gives) once no process of the group is left.
 */
export async function stopGroup<T>(child: ChildProcess, exited: Promise<T>, graceMs: number): Promise<T | undefined> {
  const groupId = child.pid;
  signalGroup(child, 'SIGTERM');
  let killed = false;
  const kill = setTimeout(() => {
    killed = true;
    signalGroup(child, 'SIGKILL');
  }, graceMs);
  try {
    const outcome = await exited.catch(() => undefined);
    // The child is gone; its children may not be. After SIGKILL they end at once, unless the kernel holds one (a
    // process in uninterruptible sleep): that one is left after a second grace rather than waited for forever.
    let looksAfterKill = Math.max(50, Math.ceil(graceMs / LOOK_EVERY_MS));
    while (groupId !== undefined && groupAlive(groupId) && (!killed || looksAfterKill-- > 0)) {
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    }
    return outcome;
  } finally {
    clearTimeout(kill);
  }
}
