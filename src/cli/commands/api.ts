/**
 * `cplane api [OPERATION ...]`: every operation of the table as a command. The
 * work is in src/faces/api-command.ts, imported only when this runs.
 */
import type { CommandModule } from '../../session/command-context.js';

export const apiCommand: CommandModule = {
  run: async (ctx) => (await import('../../faces/api-command.js')).runApiCommand(ctx),
};
