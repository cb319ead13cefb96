/**
 * `cplane api`: the operation table as a command. Without an operation it
 * lists all of them; with one it checks the call against the table (identity
 * first, then parameters and body), sends it with the one API client (which
 * adds the Idempotency-Key to writes and retries only as the spec allows),
 * and prints the unwrapped `data` as JSON, or the API's error envelope on
 * stderr with exit 1. `cplane api <operation> --help` is generated from the
 * table. Every character printed passes through `safeFaceText`.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ApiError, IdentityRefusedError, NetworkError } from '../api/errors.js';
import { identityOf, type ClientEvent } from '../api/client.js';
import { operationFacts, type OperationFacts } from '../api/operation-docs.js';
import { operationNames, type OperationName } from '../api/operations.js';
import type { CommandContext } from '../session/command-context.js';
import { connect, connectionSettings } from '../session/connection.js';
import { locateState } from '../session/workspace.js';
import { AbortError } from '../errors.js';
import { closest } from '../text/suggest.js';
import { fieldsOf, typeLabel } from './describe-schema.js';
import { errorEnvelope, prepareCall, sendCall } from './operation-call.js';
import { queryParamNames } from './request-check.js';
import { safeFaceText } from './safe-text.js';
import { suggestedCommand } from '../text/escape-for.js';
import { jsonText } from '../text/json-text.js';

/** Writes through the one redaction gate. */
type Print = (text: string) => void;

export async function runApiCommand(ctx: CommandContext): Promise<number> {
  const token = typeof ctx.values.token === 'string' ? ctx.values.token : ctx.env.CPLANE_TOKEN;
  const secrets: string[] = token ? [token] : [];
  const out: Print = (text) => ctx.stdout.write(safeFaceText(text, secrets));
  const err: Print = (text) => ctx.stderr.write(safeFaceText(text, secrets));
  try {
    const [name, ...extra] = ctx.positionals;
    if (name === undefined) {
      // `cplane api --help` alone is answered by the command list (src/cli/main.ts).
      out(ctx.values.json ? listJson(token) : listText(token));
      return 0;
    }
    const operation = resolveOperation(name);
    if (extra.length > 0)
      throw new AbortError(`Unexpected arguments after the operation: ${extra.join(' ')}.`, 'Give parameters as --param NAME=VALUE.');
    if (ctx.values.help) {
      out(operationHelp(operationFacts(operation)));
      return 0;
    }
    return await callOperation(ctx, operationFacts(operation), secrets, out, err);
  } catch (error) {
    if (error instanceof AbortError) {
      err(`Error: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`);
      return error.exitCode;
    }
    // A bug is reported by the top-level handler; its message passes the same gate first.
    if (error instanceof Error) error.message = safeFaceText(error.message, secrets);
    throw error;
  }
}

function resolveOperation(name: string): OperationName {
  if ((operationNames as string[]).includes(name)) return name as OperationName;
  // `list_accounts`, `ListAccounts` and `list-accounts` are suggested as `listAccounts`.
  const folded = (s: string) => s.replace(/[-_]/g, '').toLowerCase();
  const same = operationNames.find((candidate) => folded(candidate) === folded(name));
  const suggestions = same ? [same] : closest(name, operationNames);
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}?` : '';
  throw new AbortError(`Unknown operation "${name}"${hint}`, 'Run `cplane api` to list all operations.');
}

// ------------------------------------------------------------------ listing

const identityWords = { H: 'human token only', SA: 'a Service Account token may call it too' } as const;

function listText(token: string | undefined): string {
  const serviceAccount = token !== undefined && identityOf(token) === 'service_account';
  const rows = operationNames.map(operationFacts);
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const pathWidth = Math.max(...rows.map((r) => r.spec.path.length));
  const lines = rows.map((r) => {
    const mark = serviceAccount ? (r.spec.identity === 'SA' ? '* ' : '  ') : '';
    return `${mark}${r.name.padEnd(nameWidth)}  ${r.spec.method.padEnd(6)}  ${r.spec.path.padEnd(pathWidth)}  ${r.spec.identity.padEnd(2)}  ${r.summary}`;
  });
  const callable = rows.filter((r) => r.spec.identity === 'SA').length;
  const footer = [
    '',
    `${rows.length} operations. Identity: H = ${identityWords.H}; SA = ${identityWords.SA}.`,
    ...(serviceAccount ? [`* = callable with the Service Account token in use (${callable} of ${rows.length}).`] : []),
    'Run `cplane api <operation> --help` for its parameters and body.',
  ];
  return `${[...lines, ...footer].join('\n')}\n`;
}

function listJson(token: string | undefined): string {
  const serviceAccount = token !== undefined && identityOf(token) === 'service_account';
  const rows = operationNames.map(operationFacts).map((r) => ({
    name: r.name,
    method: r.spec.method,
    path: r.spec.path,
    identity: r.spec.identity,
    summary: r.summary,
    ...(token !== undefined ? { callable: !serviceAccount || r.spec.identity === 'SA' } : {}),
  }));
  return `${jsonText(rows, 2)}\n`;
}

// ------------------------------------------------------------------ help

function operationHelp(facts: OperationFacts): string {
  const { name, spec } = facts;
  const write = !facts.readOnly;
  const field = (label: string, what: string) => `  ${label.padEnd(22)} ${what}`;
  const usage = [
    `cplane api ${name}`,
    ...facts.pathParams.map((p) => `--param ${p}=UUID`),
    ...(queryParamNames(spec).length > 0 ? ['[--param NAME=VALUE ...]'] : []),
    ...(spec.body ? ['--body JSON|@FILE|-'] : []),
    ...(spec.pages ? ['[--all-pages]'] : []),
    ...(write ? ['[--idempotency-key KEY]'] : []),
  ].join(' ');
  const lines = [
    `Usage: ${usage}`,
    '',
    facts.summary,
    '',
    `  ${spec.method} /v1${spec.path}`,
    `  identity: ${spec.identity} (${identityWords[spec.identity]})`,
  ];
  if (spec.accountScoped) lines.push('  account: sent as x-account-id, from --account or $CPLANE_ACCOUNT');
  if (write)
    lines.push('  write: carries an Idempotency-Key (--idempotency-key, or a new one printed on stderr); retried only on 429, 500, 503');
  if (facts.pathParams.length > 0)
    lines.push('', 'Path parameters (--param NAME=VALUE):', ...facts.pathParams.map((p) => field(p, 'uuid, required')));
  const query = fieldsOf(spec.query);
  if (query.length > 0)
    lines.push(
      '',
      'Query parameters (--param NAME=VALUE):',
      ...query.map((f) => field(f.name, `${f.label}${f.required ? ', required' : ''}`)),
    );
  if (spec.body) {
    const body = fieldsOf(spec.body);
    lines.push('', 'Body (--body JSON, --body @FILE or --body - for stdin):');
    if (body.length === 0) lines.push(`  ${typeLabel(spec.body)}`);
    for (const f of body)
      lines.push(field(f.name, `${f.label}${f.required ? ', required' : ''}${f.writeOnly ? ', write-only (never printed)' : ''}`));
  }
  lines.push('', 'Result (printed as JSON):', `  ${spec.result ? typeLabel(spec.result) : 'nothing (printed as null)'}`);
  if (spec.pages) lines.push('  --all-pages reads every page and prints them as one result');
  return `${lines.join('\n')}\n`;
}

// ------------------------------------------------------------------ calling

async function callOperation(ctx: CommandContext, facts: OperationFacts, secrets: string[], out: Print, err: Print): Promise<number> {
  const { name, spec } = facts;
  const settings = connectionSettings(ctx);
  // Identity first: a Service Account token never gets as far as reading the body, let alone sending.
  if (identityOf(settings.token) === 'service_account' && spec.identity === 'H') {
    throw new AbortError(new IdentityRefusedError(name, spec.method, spec.path).message);
  }
  const call = prepareCall(name, {
    params: parseParams(ctx.values.param),
    body: await readBody(ctx),
    allPages: ctx.values['all-pages'] === true,
    idempotencyKey: typeof ctx.values['idempotency-key'] === 'string' ? ctx.values['idempotency-key'] : undefined,
  });
  secrets.push(...call.secrets);
  if (call.problems.length > 0) {
    throw new AbortError(
      `${name} was not sent:${call.problems.length === 1 ? ` ${call.problems[0]}` : `\n${call.problems.map((p) => `  - ${p}`).join('\n')}`}`,
      `Run \`${suggestedCommand(['api', name, '--help'])}\` for its parameters and body.`,
    );
  }

  const account = spec.accountScoped ? (await locateState(ctx, undefined, () => ({}))).account : undefined;
  if (spec.accountScoped && !account)
    throw new AbortError(`${name} works inside one account, and none is given.`, 'Set CPLANE_ACCOUNT or pass --account ID.');
  if (call.keyIsNew)
    err(
      `Idempotency-Key: ${call.idempotencyKey} (to retry this write safely, run it again with --idempotency-key ${call.idempotencyKey})\n`,
    );
  const client = connect(ctx, { settings, ...(account ? { account } : {}), onEvent: (event) => reportRetry(event, err) });
  try {
    const data = await sendCall(client, call);
    out(`${jsonText(data ?? null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      err(`${jsonText(errorEnvelope(error), 2)}\n`);
      return 1;
    }
    if (error instanceof NetworkError) throw new AbortError(error.message);
    throw error;
  } finally {
    await client.close();
  }
}

function reportRetry(event: ClientEvent, err: Print): void {
  if (event.type === 'retry')
    err(`Retrying ${event.operation} in ${event.delayMs} ms (attempt ${event.attempt} failed: ${event.reason}).\n`);
}

function parseParams(raw: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  for (const item of (raw as string[] | undefined) ?? []) {
    const at = item.indexOf('=');
    if (at <= 0)
      throw new AbortError(`--param "${item.slice(0, 40)}" is not NAME=VALUE.`, 'Example: --param id=0a000000-0000-4000-8000-000000000001');
    const name = item.slice(0, at);
    if (name in params) throw new AbortError(`--param ${name} is given more than once.`);
    params[name] = item.slice(at + 1);
  }
  return params;
}

/** The body from --body JSON, --body @FILE or --body - (stdin); undefined when not given. */
async function readBody(ctx: CommandContext): Promise<unknown> {
  const raw = ctx.values.body;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new AbortError('--body needs a value: JSON text, @FILE or - for stdin.');
  let text: string;
  let source: string;
  if (raw === '-') {
    source = 'stdin';
    text = await readStream(ctx.stdin);
  } else if (raw.startsWith('@')) {
    source = raw.slice(1);
    try {
      text = await readFile(resolve(ctx.cwd, source), 'utf8');
    } catch (error) {
      throw new AbortError(`--body ${raw}: the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
  } else {
    source = 'the --body text';
    text = raw;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // JSON.parse quotes the text around the mistake, which may hold a secret: keep only the position.
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    throw new AbortError(
      `--body: ${source} is not valid JSON${position ? ` (at character ${position})` : ''}.`,
      `Example: --body '{"name": "payments"}'`,
    );
  }
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
