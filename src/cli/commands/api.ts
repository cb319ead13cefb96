/**
 * `cplane api [OPERATION ...]`: every operation of the table as a command. The
 * work is in src/faces/api-command.ts.
 */
import type { CommandModule } from '../command.js';
import { runApiCommand } from '../../faces/api-command.js';

export const apiCommand: CommandModule = { run: runApiCommand };
