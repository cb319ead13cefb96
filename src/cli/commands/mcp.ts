/**
 * `cplane mcp [dir]`: an MCP server over stdio with a tool per API operation,
 * cplane's validate/plan/apply on the folder `dir`, and three local helpers.
 * The work is in src/faces/mcp-server.ts, loaded (with the MCP SDK) only when
 * this command runs.
 */
import type { Command } from '../command.js';
import { connectionHelp, connectionOptions } from '../connection.js';

export const mcpCommand: Command = {
  name: ['mcp'],
  summary: 'Serve the API and cplane as tools to an AI assistant (MCP over stdio)',
  usage: 'mcp [dir] [--account ID] [--base-url URL]',
  help: [
    'dir                 configuration folder for cplane_validate, cplane_plan and cplane_apply (default: the current folder)',
    ...connectionHelp.filter((line) => !line.startsWith('--parallelism')),
    'See docs/mcp.md for registering the server with an MCP client.',
  ],
  options: connectionOptions,
  run: async (ctx) => (await import('../../faces/mcp-server.js')).runMcpServer(ctx),
};
