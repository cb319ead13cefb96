// The language server's bounds (issue 47, docs/security.md "Bounds"), with a real LSP client over stdio to the built
// `cplane lsp`: the million-resource forEach file gets validate's diagnostic at the forEach; the server exits when its
// client goes (stdin closed, or the client's process gone) without a shutdown; and a module whose source leaves the
// configuration folder is not followed by definition, references or rename, nor given diagnostics.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { Location, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { innerForEachAt, millionForEach } from '../helpers/million-for-each.js';
import { positionOf, startLsp, uriOf, type LspSession } from '../helpers/lsp-client.js';

let temp: string;
beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-lsp-bounds-'));
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

const exitOf = (lsp: LspSession) =>
  new Promise<number | null>((resolve) => {
    if (lsp.child.exitCode !== null) resolve(lsp.child.exitCode);
    else lsp.child.once('exit', (code) => resolve(code));
  });

test('the million-resource forEach file gets a diagnostic at the forEach, and the server exits when its client closes stdin', async () => {
  writeFileSync(join(temp, 'main.yaml'), millionForEach);
  const lsp = await startLsp(temp);
  const uri = lsp.open(join(temp, 'main.yaml'));
  const [problem] = await lsp.diagnosticsOf(uri, (d) => d.some((x) => x.code === 'for_each_too_many'));
  expect(problem).toMatchObject({
    code: 'for_each_too_many',
    range: { start: { line: innerForEachAt.line - 1, character: innerForEachAt.col - 1 } },
    message:
      'forEach of gateway_token.team[k019]/app would make more than 20000 instances in this file (nested forEach entries multiply)\n' +
      'Split the configuration into several files or modules, or make the forEach maps smaller; 20000 instances per file is the bound.',
  });
  const exited = exitOf(lsp);
  lsp.child.stdin!.end();
  // No shutdown request came first: the exit code says the client went away.
  expect(await exited).toBe(1);
  lsp.connection.dispose();
});

test('the server exits when the client process it was given is gone', async () => {
  writeFileSync(join(temp, 'main.yaml'), 'version: 1\nprojects:\n  core: {}\n');
  const client = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const lsp = await startLsp(temp, process.env, client.pid!);
  await lsp.diagnosticsOf(uriOf(join(temp, 'main.yaml')));
  const exited = exitOf(lsp);
  client.kill('SIGKILL');
  expect(await exited).toBe(1);
  lsp.connection.dispose();
});

test('a module whose source is outside the configuration folder is not followed, renamed into, nor diagnosed', async () => {
  const infra = join(temp, 'infra');
  const outside = join(temp, 'outside');
  mkdirSync(infra);
  mkdirSync(outside);
  const main = `version: 1
projects:
  payments: {}
modules:
  team:
    source: ../outside
    inputs:
      project: payments
`;
  writeFileSync(join(infra, 'main.yaml'), main);
  writeFileSync(join(outside, 'main.yaml'), 'variables:\n  project: {}\nprojects:\n  own:\n    description: ${var.project}\n');
  const lsp = await startLsp(infra);
  try {
    const uri = lsp.open(join(infra, 'main.yaml'));
    const diagnostics = await lsp.diagnosticsOf(uri, (d) => d.length > 0);
    expect(diagnostics.map((d) => d.code)).toEqual(['module_source_outside']);
    const at = { textDocument: { uri }, position: positionOf(main, 'project: payments', 2) };
    expect(await lsp.request<Location[] | null>('textDocument/definition', at)).toBeNull();
    const references = await lsp.request<Location[] | null>('textDocument/references', { ...at, context: { includeDeclaration: true } });
    expect((references ?? []).filter((l) => !l.uri.startsWith(uriOf(infra) + '/'))).toEqual([]);
    const rename = await lsp.request<WorkspaceEdit | null>('textDocument/rename', { ...at, newName: 'team_project' }).catch(() => null);
    expect(Object.keys(rename?.changes ?? {}).filter((u) => !u.startsWith(uriOf(infra) + '/'))).toEqual([]);
    // Everything the server published so far (main.yaml's came last): nothing for the module's file outside.
    expect([...lsp.diagnostics.keys()]).toEqual([uri]);
  } finally {
    await lsp.close();
  }
});

test("a record value that a map variable without a value decides keeps the folder's diagnostics (they vanished)", async () => {
  writeFileSync(
    join(temp, 'main.yaml'),
    'version: 1\nvariables:\n  source: { type: map }\nprojects:\n  core:\n    records:\n      key:\n        value: ${var.source}\n',
  );
  writeFileSync(
    join(temp, 'gateways.yaml'),
    'credentials:\n  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }\ngateways:\n  g:\n    project: cor\n    defaultModel: gpt-4o-mini\n    credentials: [openai]\n',
  );
  const lsp = await startLsp(temp);
  try {
    const problems = await lsp.diagnosticsOf(uriOf(join(temp, 'gateways.yaml')), (d) => d.length > 0);
    expect(problems.map((d) => d.code)).toEqual(['unknown_reference']);
  } finally {
    await lsp.close();
  }
});
