// The published schema as a user's editor reads it: yaml-language-server (Red Hat's, what docs/editors.md tells
// users to run) over stdio with a real LSP client, on every shipped example and every configuration snippet of
// the docs. An editor sees the text before interpolation, so `${…}` must pass wherever the language takes it,
// while a wrong key or a literal of the wrong type keeps a precise message. The test waits for what the server
// publishes, never for a time.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node.js';
import type { Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '../..');
const configSchema = join(root, 'schema/config.schema.json');
const testSchema = join(root, 'schema/test.schema.json');
const topLevelKeys = new Set(Object.keys((JSON.parse(readFileSync(configSchema, 'utf8')) as { properties: object }).properties));

/** yaml-language-server over stdio: opens files and resolves with what it publishes for each. */
class YamlLanguageServer {
  private readonly connection: MessageConnection;
  private readonly child;
  private readonly waiting = new Map<string, (d: Diagnostic[]) => void>();

  constructor() {
    const bin = join(dirname(createRequire(import.meta.url).resolve('yaml-language-server/package.json')), 'bin/yaml-language-server');
    this.child = spawn(process.execPath, [bin, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.connection = createMessageConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!));
    this.connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.waiting.get(p.uri)?.(p.diagnostics);
      this.waiting.delete(p.uri);
    });
    // The settings an editor gives: validate, and no schema store (no network; the file's own $schema line decides).
    const settings = { validate: true, hover: true, completion: true, schemaStore: { enable: false } };
    this.connection.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => settings));
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.listen();
  }

  async start(): Promise<void> {
    await this.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      capabilities: { workspace: { configuration: true } },
    });
    await this.connection.sendNotification('initialized', {});
    await this.connection.sendNotification('workspace/didChangeConfiguration', {
      settings: { yaml: { validate: true, schemaStore: { enable: false } } },
    });
  }

  /** The diagnostics of a file opened with `text` (default: its content on disk). */
  diagnosticsOf(path: string, text = readFileSync(path, 'utf8')): Promise<Diagnostic[]> {
    const uri = pathToFileURL(path).href;
    const published = new Promise<Diagnostic[]>((resolve) => this.waiting.set(uri, resolve));
    void this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    return published;
  }

  async close(): Promise<void> {
    await this.connection.sendRequest('shutdown');
    await this.connection.sendNotification('exit');
    this.connection.dispose();
    this.child.kill();
  }
}

const line = (d: Diagnostic, offset = 0) => `${d.range.start.line + 1 + offset}:${d.range.start.character + 1} ${d.message}`;

/** Every file of the examples that names its schema (`# yaml-language-server: $schema=...`). */
const examples = readdirSync(join(root, 'examples'), { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.ya?ml$/.test(f) && !f.includes('node_modules'))
  .map((f) => join(root, 'examples', f))
  .filter((f) => readFileSync(f, 'utf8').startsWith('# yaml-language-server: $schema='));

interface Snippet {
  where: string;
  body: string;
  schema: string;
}

/** A workflow's steps (`- run: ...`, `- uses: ...`). */
const isSteps = (value: unknown) =>
  Array.isArray(value) && value.every((step) => step && typeof step === 'object' && ('run' in step || 'uses' in step));

/**
 * Every YAML block of the README, the docs and the examples' READMEs, sorted: a configuration (its keys are the
 * configuration's top-level keys), a test file (`runs:`, `expect:`) or a GitHub workflow (`jobs:`, or steps). A block that
 * is none of them fails the test, so a configuration fragment cannot slip past unchecked.
 */
function snippets(): { config: Snippet[]; tests: Snippet[]; unsorted: string[] } {
  const docs = readdirSync(join(root, 'docs')).map((f) => `docs/${f}`);
  const readmes = readdirSync(join(root, 'examples'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('README.md'))
    .map((f) => `examples/${f}`);
  const out = { config: [] as Snippet[], tests: [] as Snippet[], unsorted: [] as string[] };
  for (const file of ['README.md', ...docs, ...readmes].filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/^( *)```ya?ml\n([\s\S]*?)^\1```/gm)) {
      const indent = m[1]!.length;
      const body = m[2]!
        .split('\n')
        .map((l) => l.slice(indent))
        .join('\n');
      const where = `${file}:${text.slice(0, m.index).split('\n').length + 1}`;
      let value: unknown;
      try {
        value = parse(body);
      } catch {
        value = undefined;
      }
      const keys = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
      if (keys.length > 0 && keys.every((k) => topLevelKeys.has(k))) out.config.push({ where, body, schema: configSchema });
      else if (keys.includes('runs')) out.tests.push({ where, body, schema: testSchema });
      else if (keys.includes('expect') || /^jobs:/m.test(body) || value == null || isSteps(value)) continue;
      else out.unsorted.push(`${where} (keys ${keys.join(', ')})`);
    }
  }
  return out;
}

let server: YamlLanguageServer;
let dir: string;

beforeAll(async () => {
  server = new YamlLanguageServer();
  await server.start();
  dir = mkdtempSync(join(tmpdir(), 'cplane-editor-schema-'));
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Checks `body` as a file of its own that names `schema`; the lines reported are the body's. */
async function problemsOf(body: string, schema: string, name: string): Promise<string[]> {
  const path = join(dir, `${name}.yaml`);
  mkdirSync(dirname(path), { recursive: true });
  const text = `# yaml-language-server: $schema=${pathToFileURL(schema).href}\n${body}`;
  writeFileSync(path, text);
  return (await server.diagnosticsOf(path, text))
    .sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character)
    .map((d) => line(d, -1));
}

describe('the published schema in yaml-language-server', () => {
  it('finds no problem in any example', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(7);
    const problems: string[] = [];
    for (const file of examples)
      for (const d of await server.diagnosticsOf(file)) problems.push(`${file.slice(root.length + 1)}:${line(d)}`);
    expect(problems).toEqual([]);
  });

  it('finds no problem in any configuration snippet of the docs, and every YAML block of the docs is sorted', async () => {
    const { config, tests, unsorted } = snippets();
    expect(unsorted, 'a YAML block that is neither a configuration, a test file nor a workflow').toEqual([]);
    expect(config.length).toBeGreaterThanOrEqual(30);
    const problems: string[] = [];
    // A snippet shows the keys it is about: an entry's other required keys may be left out, nothing else.
    for (const [i, s] of [...config, ...tests].entries())
      for (const p of await problemsOf(s.body, s.schema, `snippet-${i}`))
        if (!/ Missing property "[A-Za-z]+"\.$/.test(p)) problems.push(`${s.where} + ${p}`);
    expect(problems).toEqual([]);
  });

  it('takes ${…} in an integer, a boolean, a URL, an id and a list of values, as the language does', async () => {
    const body = [
      'variables: { on: { default: true }, ttl: { default: 60 }, ops_id: {}, level: {} }',
      'directory:',
      '  users:',
      '    ops: { id: "${var.ops_id}", publicKey: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= }',
      'gateways:',
      '  main:',
      '    forEach: [a, b]',
      '    project: core',
      '    defaultModel: gpt-4o-mini',
      '    credentials: [openai]',
      '    settings: { cache: { enabled: "${var.on}", ttlSeconds: "${var.ttl}" } }',
      '    otelExport:',
      '      endpoint: https://otel.example.com/v1/${each.key}',
      '      enabled: ${var.on}',
      'reconcile: { autoApply: ["${var.level}"] }',
    ].join('\n');
    expect(await problemsOf(body, configSchema, 'interpolated')).toEqual([]);
  });

  it('keeps a precise message for a wrong key and for a literal of the wrong type', async () => {
    const body = [
      'gateways:',
      '  main:',
      '    project: core',
      '    defaultModel: gpt-4o-mini',
      '    credentials: [openai]',
      '    defaultProvidr: openai',
      '    settings: { cache: { enabled: "yes", ttlSeconds: 9999999 } }',
      '    otelExport: { endpoint: 42 }',
      'reconcile: { autoApply: [sometimes] }',
    ].join('\n');
    expect(await problemsOf(body, configSchema, 'wrong')).toEqual([
      '6:5 Property defaultProvidr is not allowed.',
      '7:35 Incorrect type. Expected "boolean".',
      '7:54 Value is above the maximum of 604800.',
      '8:29 Incorrect type. Expected one of string, null.',
      '9:26 Value is not accepted. Valid values: "maintenance", "drift", "change".',
    ]);
  });
});
