/**
 * The MCP tools of `cplane mcp`, as plain data plus a `run` function each,
 * with no knowledge of the MCP SDK (mcp-server.ts does the wiring):
 * - one tool per operation of the table, its input schema generated from the
 *   table (path parameters, query parameters, `body`), called with the one
 *   API client after the same checks as `cplane api`;
 * - the three local helpers of the spec: `service_status`,
 *   `list_secret_types`, `generate_secret`.
 * A Service Account token gets only the tools of the Service Account
 * operations, plus the helpers.
 */
import { readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { createClient, identityOf, type ApiClient, type TokenIdentity } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { operationFacts, type OperationFacts } from '../api/operation-docs.js';
import { operationNames, type OperationName } from '../api/operations.js';
import { generateSecret } from '../config/index.js';
import { errorEnvelope, prepareCall, sendCall } from './operation-call.js';
import { packageFile } from '../package-files.js';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool returns: values shown as JSON text, or an error for the assistant to read. */
export interface ToolOutcome {
  isError?: boolean;
  /** Each part becomes one text content item (JSON unless already a string). */
  parts: unknown[];
  /** Secrets this call handled (write-only body values): redacted from what is shown. */
  secrets?: string[];
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
  annotations?: ToolAnnotations;
  run(args: Record<string, unknown>): Promise<ToolOutcome>;
}

export interface ToolConnection {
  client: ApiClient;
  baseUrl: string;
  token: string;
  account: string | undefined;
  env: NodeJS.ProcessEnv;
}

/** `listGatewayTokens` -> `list_gateway_tokens`. */
export const toolName = (operation: string): string => operation.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

/** Input schema of an operation tool: its path and query parameters at the top, its body under `body`. */
function inputSchemaOf(facts: OperationFacts): McpTool['inputSchema'] {
  const { spec } = facts;
  const query = (spec.query ? plain(spec.query) : {}) as { properties?: Record<string, unknown>; required?: string[] };
  const properties: Record<string, unknown> = {};
  for (const param of facts.pathParams)
    properties[param] = { type: 'string', format: 'uuid', description: `Path parameter {${param}} of ${spec.path}.` };
  Object.assign(properties, query.properties ?? {});
  if (spec.body) properties.body = { ...plain(spec.body), description: 'The JSON request body.' };
  if (spec.pages)
    properties.allPages = { type: 'boolean', description: 'Read every page (limit/offset from 0) and return them as one result.' };
  if (!facts.readOnly)
    properties.idempotencyKey = {
      type: 'string',
      description: 'Idempotency-Key of this write; reuse it to retry safely. Default: a new one, returned with the result.',
    };
  const required = [...facts.pathParams, ...(query.required ?? []), ...(spec.body ? ['body'] : [])];
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

function describeOperation(facts: OperationFacts): string {
  const { spec } = facts;
  const identity = spec.identity === 'SA' ? 'A Service Account token may call it.' : 'Human token only.';
  const write = facts.readOnly ? '' : ' Writes carry an Idempotency-Key and are retried only on 429, 500 and 503.';
  return `${facts.summary} (${spec.method} /v1${spec.path}; operation ${facts.name}.) ${identity}${write}`;
}

export function operationTool(name: OperationName, connection: ToolConnection): McpTool {
  const facts = operationFacts(name);
  const { spec } = facts;
  return {
    name: toolName(name),
    description: describeOperation(facts),
    inputSchema: inputSchemaOf(facts),
    annotations: {
      title: name,
      readOnlyHint: facts.readOnly,
      ...(facts.readOnly ? {} : { destructiveHint: facts.destructive, idempotentHint: spec.method === 'PATCH' }),
      openWorldHint: false,
    },
    async run(args) {
      const { body, allPages, idempotencyKey, ...params } = args;
      const call = prepareCall(name, {
        params,
        body,
        allPages: allPages === true,
        idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
      });
      if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') call.problems.push('idempotencyKey must be a string');
      if (call.problems.length > 0)
        return { isError: true, parts: [`${name} was not sent: ${call.problems.join('; ')}`], secrets: call.secrets };
      try {
        const data = await sendCall(connection.client, call);
        return {
          parts: [data ?? null, ...(call.idempotencyKey ? [`Idempotency-Key: ${call.idempotencyKey}`] : [])],
          secrets: call.secrets,
        };
      } catch (error) {
        return {
          isError: true,
          parts: [error instanceof ApiError ? errorEnvelope(error) : error instanceof Error ? error.message : String(error)],
          secrets: call.secrets,
        };
      }
    },
  };
}

// ------------------------------------------------------------------ the three local helpers

const configSchemaFile = packageFile('schema', 'config.schema.json');

interface Bounds {
  minimum: number;
  maximum: number;
}

interface SecretSourceSchema {
  description: string;
  // A value an editor may also see as `${…}` text is `anyOf: [its schema, interpolation]` (providers/schemas.ts).
  properties: Record<string, { description: string; properties?: { length?: { anyOf: [Bounds, unknown] } } }>;
}

/** The secret sources of the configuration language, read from its JSON Schema (the one place they are declared). */
function secretSources(): SecretSourceSchema {
  const schema = JSON.parse(readFileSync(configSchemaFile, 'utf8')) as { $defs: { secretSource: SecretSourceSchema } };
  return schema.$defs.secretSource;
}

export function helperTools(connection: ToolConnection): McpTool[] {
  const { minimum, maximum } = secretSources().properties['generate']?.properties?.length?.anyOf[0] ?? { minimum: 16, maximum: 4096 };
  const lengths: Bounds = { minimum, maximum };
  return [serviceStatusTool(connection), secretTypesTool(lengths), generateSecretTool(lengths)];
}

function serviceStatusTool(connection: ToolConnection): McpTool {
  const identity: TokenIdentity = identityOf(connection.token);
  return {
    name: 'service_status',
    description:
      'The identity of the token in use (human or Service Account), the account, and whether the API is reachable. Local helper: reads only the provider list.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { title: 'Service status', readOnlyHint: true, openWorldHint: false },
    async run() {
      const probe = createClient({ baseUrl: connection.baseUrl, token: connection.token, retry: { maxAttempts: 1 }, timeoutMs: 10_000 });
      const status: Record<string, unknown> = { identity, account: connection.account ?? null, baseUrl: connection.baseUrl };
      try {
        await probe.call('listProviders', {});
        Object.assign(status, { reachable: true, authenticated: true });
      } catch (error) {
        // An inactive Service Account's token is known to the API but may do nothing: not authenticated, for whoever relies on the flag.
        if (error instanceof ApiError)
          Object.assign(status, {
            reachable: true,
            authenticated: error.status !== 401 && error.reason !== 'service_account_inactive',
            error: errorEnvelope(error),
          });
        else
          Object.assign(status, {
            reachable: false,
            authenticated: false,
            error: error instanceof Error ? error.message : String(error),
          });
      } finally {
        await probe.close();
      }
      return { parts: [status] };
    },
  };
}

function secretTypesTool(lengths: Bounds): McpTool {
  return {
    name: 'list_secret_types',
    description:
      'The secret sources the cplane configuration language knows (where a write-only value such as a provider key comes from). Local helper: sends nothing.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { title: 'Secret sources', readOnlyHint: true, openWorldHint: false },
    async run() {
      const sources = secretSources();
      return {
        parts: [
          {
            description: sources.description,
            sources: Object.entries(sources.properties).map(([type, source]) => ({
              type,
              description: source.description,
              ...(type === 'generate' ? { length: lengths } : {}),
            })),
          },
        ],
      };
    },
  };
}

function generateSecretTool(lengths: Bounds): McpTool {
  return {
    name: 'generate_secret',
    description: `A random secret in the format of the configuration's \`generate\` source (base64url, ${lengths.minimum}..${lengths.maximum} characters), made locally and never sent anywhere.`,
    inputSchema: {
      type: 'object',
      properties: {
        length: {
          type: 'integer',
          minimum: lengths.minimum,
          maximum: lengths.maximum,
          default: 32,
          description: 'Number of characters.',
        },
      },
      additionalProperties: false,
    },
    annotations: { title: 'Generate a secret', readOnlyHint: true, openWorldHint: false },
    async run(args) {
      const length = args.length ?? 32;
      if (typeof length !== 'number' || !Number.isInteger(length) || length < lengths.minimum || length > lengths.maximum) {
        return { isError: true, parts: [`length must be a whole number from ${lengths.minimum} to ${lengths.maximum}`] };
      }
      // Made for the caller to see, so not registered with the redactor (resolveSecret would hide it).
      const secret = generateSecret(length);
      return { parts: [{ secret, length, format: 'base64url' }] };
    },
  };
}

/** The operation tools the token may call: all of them, or only the Service Account operations. */
export function operationTools(connection: ToolConnection): McpTool[] {
  const serviceAccount = identityOf(connection.token) === 'service_account';
  return operationNames
    .filter((name) => !serviceAccount || operationFacts(name).spec.identity === 'SA')
    .map((name) => operationTool(name, connection));
}
