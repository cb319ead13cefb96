/**
 * `cplane mcp [dir]`: an MCP server over stdio with a tool per API operation,
 * cplane's validate/plan/apply on the folder `dir`, and three local helpers.
 * The work is in src/faces/mcp-server.ts.
 */
import type { CommandModule } from '../command.js';
import { runMcpServer } from '../../faces/mcp-server.js';

export const mcpCommand: CommandModule = { run: runMcpServer };
