/**
 * `cplane api [OPERATION ...]`: every operation of the table as a command. The
 * work is in src/faces/api-command.ts, loaded only when this command runs.
 */
import type { Command } from '../command.js';
import { connectionHelp, connectionOptions } from '../connection.js';

export const apiCommand: Command = {
  name: ['api'],
  summary: 'List the API operations, or call one directly',
  usage: 'api [OPERATION [--param NAME=VALUE ...] [--body JSON | --body @FILE | --body -] [--all-pages] [--idempotency-key KEY]] [--json]',
  help: [
    'OPERATION           an operation name from `cplane api` (e.g. listProjects); without one, list them all',
    '--param NAME=VALUE  a path or query parameter (repeatable); checked against the operation before sending',
    '--body JSON         the request body: JSON text, @FILE, or - to read stdin; checked before sending',
    '--all-pages         read every page of a list and print them as one result',
    '--idempotency-key K key of a write (default: a new one, printed on stderr so a retry can reuse it)',
    '--json              list the operations as JSON',
    'OPERATION --help    the parameters, body and result of one operation',
    ...connectionHelp.filter((line) => !line.startsWith('--parallelism')),
  ],
  ownHelp: true,
  options: {
    ...connectionOptions,
    param: { type: 'string', multiple: true },
    body: { type: 'string' },
    'all-pages': { type: 'boolean' },
    'idempotency-key': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  run: async (ctx) => (await import('../../faces/api-command.js')).runApiCommand(ctx, apiCommand),
};
