/**
 * `cplane mcp [dir]`: an MCP server over stdio with a tool per API operation,
 * cplane's validate/plan/apply on the folder `dir`, and three local helpers.
 * The work is in src/faces/mcp-server.ts, which sits above the CLI (it runs the
 * CLI's commands), so it is imported only when this runs.
 */
import type { CommandModule } from '../command.js';

export const mcpCommand: CommandModule = {
  run: async (ctx) => (await import('../../faces/mcp-server.js')).runMcpServer(ctx),
};
