// The MCP plan tool refuses a configuration whose `state: { url }` uses a variable, as the CLI does (19 C6): its
// result would otherwise carry the variable's value (the password) back to the assistant.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/index.js';
import { world, type World } from '../e2e/helpers.js';

const PASSWORD = 'mcpP4ssw0rd/with+slash=';
let w: World;
let client: Client;

beforeAll(async () => {
  w = await world();
  w.config(
    `version: 1\nvariables:\n  dbpw:\n    default: "${PASSWORD}"\nstate:\n  url: postgres://cplane:\${var.dbpw}@127.0.0.1:1/infra\nprojects:\n  shop:\n    name: shop\n`,
  );
  const env = Object.fromEntries(
    Object.entries({ ...w.env, CPLANE_TOKEN: fixtures.tokens.admin }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(import.meta.dirname, '..', '..', 'bin', 'cplane.js'), 'mcp', w.dir],
    env,
    cwd: w.dir,
    stderr: 'pipe',
  });
  client = new Client({ name: 'cplane-test', version: '1.0.0' });
  await client.connect(transport);
}, 90_000);
afterAll(async () => {
  await client?.close();
  await w?.close();
});

it('cplane_plan is refused with secret_var_in_state_url, and shows no password', async () => {
  const result = (await client.callTool({ name: 'cplane_plan', arguments: {} })) as { content: { text: string }[]; isError?: boolean };
  expect(result.isError).toBe(true);
  const text = result.content.map((c) => c.text).join('\n');
  expect(text).toContain('state.url may not use a variable (${var.dbpw})');
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(encodeURIComponent(PASSWORD));
}, 90_000);
