/**
 * `cplane mcp [dir]`: an MCP server over stdio with a tool per API operation,
 * cplane's validate/plan/apply on the folder `dir`, and three local helpers.
 * The work is in src/faces/mcp-server.ts, which sits below the CLI: it gets
 * the commands behind its cplane_* tools from here, each loaded on first use.
 */
import type { CommandModule } from '../../session/command-context.js';

export const mcpCommand: CommandModule = {
  run: async (ctx) =>
    (await import('../../faces/mcp-server.js')).runMcpServer(ctx, {
      validate: async () => (await import('./validate.js')).validateCommand,
      plan: async () => (await import('./plan.js')).planCommand,
      apply: async () => (await import('./apply.js')).applyCommand,
    }),
};
