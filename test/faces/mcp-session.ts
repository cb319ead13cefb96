// An MCP session as an assistant has it: the SDK's own client over a real stdio pipe to `cplane mcp` (the
// compiled CLI as a subprocess), against the emulator of an e2e world and its configuration folder.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { World } from '../e2e/helpers.js';

const root = join(import.meta.dirname, '..', '..');
export const SESSION_BUDGET_MS = 90_000;

export interface Session {
  client: Client;
  stderr: () => string;
  /** Transport errors, such as a line on stdout that is not a protocol message. */
  errors: Error[];
  close(): Promise<void>;
}

/** Starts `cplane mcp <dir> ...flags` with `token`. */
export async function session(w: World, token: string, flags: string[] = []): Promise<Session> {
  const env = Object.fromEntries(
    Object.entries({ ...w.env, CPLANE_TOKEN: token }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'bin', 'cplane.js'), 'mcp', w.dir, ...flags],
    env,
    cwd: w.dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'cplane-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, errors, close: () => client.close() };
}

export type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };
export const call = async (s: Session, name: string, args: Record<string, unknown> = {}) =>
  (await s.client.callTool({ name, arguments: args })) as ToolResult;
export const json = (result: ToolResult): unknown => JSON.parse(result.content[0]!.text);
