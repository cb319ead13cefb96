/**
 * `cplane access offboard USER`: a placeholder in this branch, so the command list compiles; the offboarding
 * command (issue 34 §3) replaces this file with its own `runOffboard`.
 */
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../session/errors.js';

export async function runOffboard(_ctx: CommandContext): Promise<number> {
  throw new AbortError('cplane access offboard is not yet available in this build.', 'Use `cplane access report` to see who can read each record.');
}
