/**
 * The words that make a suggested command run for the configuration and deployment at hand: the configuration
 * folder as given from where the command ran (left out when it is that folder), and `--deployment NAME` when the
 * command runs for a deployment. A hint printed without them would read another folder's state, or be refused for
 * a configuration with deployments (test/e2e/suggested-commands.test.ts runs them).
 */
import { relative } from 'node:path';
import type { CommandContext } from '../../session/command-context.js';

export function hintScope(ctx: CommandContext, configDir: string): string[] {
  const dir = relative(ctx.cwd, configDir);
  return [...(dir === '' ? [] : [dir]), ...(ctx.deployment ? ['--deployment', ctx.deployment.name] : [])];
}
