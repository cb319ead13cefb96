/**
 * `cplane api [OPERATION ...]`: every operation of the table as a command. The
 * work is in src/faces/api-command.ts, which sits above the CLI (it uses the
 * CLI's connection and command list), so it is imported only when this runs.
 */
import type { CommandModule } from '../command.js';

export const apiCommand: CommandModule = {
  run: async (ctx) => (await import('../../faces/api-command.js')).runApiCommand(ctx),
};
