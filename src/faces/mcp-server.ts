/**
 * `cplane mcp`: an MCP server over stdio (the official SDK's low-level
 * Server, so the tools' input schemas are the JSON Schemas generated from the
 * operation table as they are). stdout carries only the protocol; every log
 * line goes to stderr; every text a tool returns passes through `safeFaceText`.
 */
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { identityOf } from '../api/client.js';
import type { CommandContext } from '../session/command-context.js';
import { connect, connectionSettings } from '../session/connection.js';
import { AbortError } from '../errors.js';
import { applyNotAllowed, cplaneTools, type CplaneCommands } from './mcp-cplane-tools.js';
import { helperTools, operationTools, type McpTool, type ToolConnection, type ToolOutcome } from './mcp-tools.js';
import { safeFaceText } from './safe-text.js';
import { version } from '../version.js';

/** `commands` are the cplane commands behind cplane_validate, cplane_plan and cplane_apply, given by the CLI. */
export async function runMcpServer(ctx: CommandContext, commands: CplaneCommands): Promise<number> {
  if (ctx.positionals.length > 1)
    throw new AbortError(`Unexpected arguments: ${ctx.positionals.slice(1).join(' ')}.`, 'Usage: cplane mcp [dir]');
  const settings = connectionSettings(ctx);
  const dir = resolve(ctx.cwd, ctx.positionals[0] ?? '.');
  const account = (typeof ctx.values.account === 'string' && ctx.values.account) || ctx.env.CPLANE_ACCOUNT || undefined;
  const serviceAccount = identityOf(settings.token) === 'service_account';
  const allowApply = ctx.values['allow-apply'] === true;
  const client = connect(ctx, { settings, ...(account ? { account } : {}) });
  const connection: ToolConnection = { client, baseUrl: settings.baseUrl, token: settings.token, account, env: ctx.env };
  const log = (line: string) => ctx.stderr.write(safeFaceText(`cplane mcp: ${line}\n`, [settings.token]));

  // In Service Account mode only the Service Account operations and the three helpers exist (spec, rule 4).
  const own = serviceAccount
    ? undefined
    : cplaneTools({
        dir,
        env: ctx.env,
        allowApply,
        connection: Object.fromEntries(
          ['base-url', 'token', 'account'].filter((k) => ctx.values[k] !== undefined).map((k) => [k, ctx.values[k]]),
        ),
        commands,
      });
  const tools: McpTool[] = [...operationTools(connection), ...(own?.tools ?? []), ...helperTools(connection)];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  const server = new Server({ name: 'cplane', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, description, inputSchema, annotations }) => ({
      name,
      description,
      inputSchema,
      ...(annotations ? { annotations } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    // Refused as a tool result rather than a protocol error, so the assistant reads how a person turns it on.
    if (!tool && own && request.params.name === 'cplane_apply')
      return { content: [{ type: 'text' as const, text: applyNotAllowed }], isError: true };
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}"${serviceAccount ? ' (a Service Account token has only the Service Account operations and the helpers)' : ''}.`,
      );
    let outcome: ToolOutcome;
    try {
      outcome = await tool.run(request.params.arguments ?? {});
    } catch (error) {
      log(`${tool.name} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
      outcome = {
        isError: true,
        parts: [`cplane hit an unexpected problem (a bug) in ${tool.name}: ${error instanceof Error ? error.message : String(error)}`],
      };
    }
    const secrets = [settings.token, ...(outcome.secrets ?? [])];
    return {
      content: outcome.parts.map((part) => ({
        type: 'text' as const,
        text: safeFaceText(typeof part === 'string' ? part : JSON.stringify(part, null, 2), secrets),
      })),
      ...(outcome.isError ? { isError: true } : {}),
    };
  });

  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
  });
  await server.connect(new StdioServerTransport(ctx.stdin as Readable, ctx.stdout as Writable));
  log(
    `serving ${tools.length} tools over stdio (${serviceAccount ? 'Service Account token: Service Account operations and helpers only' : `human token; cplane_apply ${allowApply ? 'on (--allow-apply)' : 'off (start with --allow-apply to offer it)'}`}; ` +
      `account ${account ?? 'not set'}; ${serviceAccount ? '' : `configuration ${dir}; `}API ${settings.baseUrl})`,
  );
  // The client ends the session by closing stdin.
  ctx.stdin.once('end', () => void server.close());
  await closed;
  own?.close();
  await client.close();
  return 0;
}
