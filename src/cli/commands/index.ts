/**
 * Every sub-command of `cplane`, in the order `cplane --help` lists them.
 * Each command lives in its own file; add one import and one entry per command.
 */
import type { Command } from '../command.js';
import { emulatorCommand } from './emulator.js';
import { stateCommands } from './state.js';
import { stateTransferCommands } from './state-transfer.js';
import { outputCommand } from './output.js';
import { forceUnlockCommand } from './force-unlock.js';
import { validateCommand } from './validate.js';
import { exportCommand } from './export.js';
import { planCommand } from './plan.js';
import { applyCommand } from './apply.js';
import { destroyCommand } from './destroy.js';

export const commands: Command[] = [
  validateCommand,
  planCommand,
  applyCommand,
  destroyCommand,
  exportCommand,
  ...stateCommands,
  ...stateTransferCommands,
  outputCommand,
  forceUnlockCommand,
  emulatorCommand,
];
