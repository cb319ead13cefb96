/**
 * The plan-time warning about secret values that are short or read like a word: the redactor hides every
 * secret wherever it appears in printed text, so `checkout` as a secret would blank out `checkout` in
 * messages and values where it stands as a word (names and addresses are never redacted). Only the source is
 * named, never the value; on standard error, once per command.
 */
import type { CommandContext } from '../../session/command-context.js';
import { safeName, secrets } from '../../text/safe-text.js';

/**
 * Writes the warning of each weak source. A deployment's own run (`plan --all`, `apply --all`, whose output the
 * run may capture into its report) leaves it to the run, which says it once, after its deployments.
 */
export function writeWeakSecretWarnings(ctx: Pick<CommandContext, 'stderr' | 'deployment'>): void {
  if (ctx.deployment) return;
  for (const source of secrets.takeWeakSources()) {
    ctx.stderr.write(
      `Warning: the secret from ${safeName(source)} is short or reads like an ordinary word, so it can match ordinary text: messages and values show (sensitive) wherever it stands as a word of its own (names and addresses never do). Use a long random value (for example \`openssl rand -base64 32\`).\n`,
    );
  }
}
