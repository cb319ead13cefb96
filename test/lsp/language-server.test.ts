// `cplane lsp` as an editor uses it: the built CLI over stdio, a real LSP client. Each story arranges a
// configuration folder (with a module), opens files and asks what an editor asks. The tests wait for what the
// server publishes, never for a time: the machine may be slow.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeAction, CompletionItem, Hover, Location, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { applyWorkspaceEdit, positionOf, startLsp, uriOf, type LspSession } from '../helpers/lsp-client.js';

const main = `version: 1
variables:
  env:
    default: dev
projects:
  payments:
    name: payments-\${var.env}
directory:
  users:
    dana:
      id: 11111111-1111-4111-8111-111111111111
      publicKey: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
modules:
  team:
    source: ./modules/team
    inputs:
      project: payments
`;

const gateways = `credentials:
  openai:
    provider: openai
    secret: { env: OPENAI_API_KEY }
gateways:
  prod:
    project: payments
    defaultModel: gpt-4o-mini
    credentials: [openai]
`;

const module = `variables:
  project: {}
gateways:
  team:
    project: \${var.project}
    defaultModel: gpt-4o-mini
    credentials: [own]
credentials:
  own:
    provider: openai
    secret: { env: OPENAI_API_KEY }
`;

let dir: string;
let lsp: LspSession;
const file = (name: string) => join(dir, name);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cplane-lsp-'));
  mkdirSync(join(dir, 'modules', 'team'), { recursive: true });
  writeFileSync(file('main.yaml'), main);
  writeFileSync(file('gateways.yaml'), gateways);
  writeFileSync(file('modules/team/main.yaml'), module);
  lsp = await startLsp(dir);
});

afterEach(async () => {
  await lsp.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cplane lsp', () => {
  it('initializes with the features it serves, and diagnoses the workspace folder with no file open', async () => {
    const { capabilities } = (lsp as LspSession & { initializeResult: { capabilities: Record<string, unknown> } }).initializeResult;
    expect(capabilities).toMatchObject({
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      renameProvider: { prepareProvider: true },
      documentFormattingProvider: true,
    });
    expect(await lsp.diagnosticsOf(uriOf(file('gateways.yaml')))).toEqual([]);
    expect(await lsp.diagnosticsOf(uriOf(file('modules/team/main.yaml')))).toEqual([]);
  });

  it('publishes an error of an unsaved buffer with its range and code, and clears it when fixed', async () => {
    const broken = gateways.replace('project: payments', 'project: paymnets');
    const uri = lsp.open(file('gateways.yaml'), broken);
    const [problem] = await lsp.diagnosticsOf(uri, (d) => d.length > 0);
    expect(problem).toMatchObject({
      code: 'unknown_reference',
      source: 'cplane',
      severity: 1,
      range: { start: { line: 6, character: 13 }, end: { line: 6, character: 21 } },
    });
    expect(problem!.message).toContain('Unknown project "paymnets" in gateway "prod"; did you mean "payments"?');
    lsp.change(file('gateways.yaml'), gateways, 2);
    expect(await lsp.diagnosticsOf(uri, (d) => d.length === 0)).toEqual([]);
  });

  it("completes a project's local name and a directory user where they are named", async () => {
    const typed = `${gateways}    tokens:\n      ci: { scopes: [run] }\nprojects:\n  other:\n    records:\n      key:\n        value: { generate: { length: 32 } }\n        grants:\n          users: [da]\n`;
    const uri = lsp.open(file('gateways.yaml'), typed.replace('project: payments', 'project: pa'));
    const atProject = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(typed.replace('project: payments', 'project: pa'), 'project: pa', 11),
    });
    expect(atProject.map((i) => i.label)).toContain('payments');
    const text = typed.replace('project: payments', 'project: pa');
    const atUser = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(text, 'users: [da', 10),
    });
    expect(atUser.map((i) => i.label)).toEqual(['dana']);
  });

  it('reads a file written on disk and not open once the editor says it changed', async () => {
    await lsp.diagnosticsOf(uriOf(file('gateways.yaml')));
    writeFileSync(file('more.yaml'), 'projects:\n  extra: {}\n');
    await lsp.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(file('more.yaml')), type: 1 }] });
    expect(await lsp.diagnosticsOf(uriOf(file('more.yaml')))).toEqual([]);
    const text = gateways.replace('project: payments', 'project: ');
    const uri = lsp.open(file('gateways.yaml'), text);
    const names = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(text, 'project: ', 9),
    });
    expect(names.map((i) => i.label).sort()).toEqual(['extra', 'payments']);
  });

  it("completes the CEL variables of a policy's rule and of a deployment's autoApprove", async () => {
    const text = 'policies:\n  - name: no-deletes\n    rule: "ac\ndeployments:\n  prod:\n    account: acc-1\n    autoApprove: "plan.k\n';
    const uri = lsp.open(file('cel.yaml'), text);
    const rule = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(text, '"ac', 3),
    });
    expect(rule.map((i) => i.label)).toEqual(['action', 'address', 'kind', 'before', 'after', 'plan', 'usage', 'now']);
    const approve = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(text, '"plan.k', 7),
    });
    expect(approve.map((i) => i.label)).toContain('plan.kinds');
    expect(approve.map((i) => i.label)).toContain('plan.remove');
  });

  it('completes the models the configuration names for the providers of the credentials a gateway attaches', async () => {
    const more = `${gateways}  search:
    project: payments
    defaultModel: gpt-4o
    credentials: [openai]
    tokens:
      ci: { scopes: [run], allowedModels: [o3-mini] }
  other:
    project: payments
    defaultModel: mistral-large
    credentials: [mistral]
`.replace('credentials:\n  openai:', 'credentials:\n  mistral: { provider: mistral, secret: { env: MISTRAL_API_KEY } }\n  openai:');
    const text = more.replace('defaultModel: gpt-4o-mini', 'defaultModel: ');
    const uri = lsp.open(file('gateways.yaml'), text);
    const models = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(text, 'defaultModel: ', 14),
    });
    expect(models.map((i) => i.label)).toEqual(['gpt-4o', 'o3-mini']);
  });

  it('completes the keys the schema allows, and variables in ${var.', async () => {
    const text = `${gateways}    defaultP\n`;
    const uri = lsp.open(file('gateways.yaml'), text);
    const keys = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(text, 'defaultP', 8),
    });
    expect(keys.find((i) => i.label === 'defaultProvider')?.documentation).toContain('Provider name or id');
    const withVariable = gateways.replace('defaultModel: gpt-4o-mini', 'defaultModel: m-${var.e');
    lsp.change(file('gateways.yaml'), withVariable, 2);
    const variables = await lsp.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(withVariable, '${var.e', 7),
    });
    expect(variables.map((i) => i.label)).toEqual(['env']);
  });

  it('goes to a definition across the module boundary, both ways', async () => {
    const callText = readFileSync(file('main.yaml'), 'utf8');
    const intoModule = await lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri: uriOf(file('main.yaml')) },
      position: positionOf(callText, 'project: payments', 2),
    });
    expect(intoModule).toEqual([
      { uri: uriOf(file('modules/team/main.yaml')), range: { start: { line: 1, character: 2 }, end: { line: 1, character: 9 } } },
    ]);
    const outOf = await lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri: uriOf(file('main.yaml')) },
      position: positionOf(callText, 'project: payments', 11),
    });
    expect(outOf).toEqual([
      { uri: uriOf(file('main.yaml')), range: { start: { line: 5, character: 2 }, end: { line: 5, character: 10 } } },
    ]);
    const references = await lsp.request<Location[]>('textDocument/references', {
      textDocument: { uri: uriOf(file('main.yaml')) },
      position: { line: 5, character: 4 },
      context: { includeDeclaration: true },
    });
    expect(references.map((l) => [l.uri.split('/').at(-1), l.range.start.line])).toEqual([
      ['gateways.yaml', 6],
      ['main.yaml', 5],
      ['main.yaml', 16],
    ]);
  });

  it('declares an undeclared variable as a quick fix', async () => {
    const text = gateways.replace('defaultModel: gpt-4o-mini', 'defaultModel: ${var.model}');
    const uri = lsp.open(file('gateways.yaml'), text);
    const diagnostics = await lsp.diagnosticsOf(uri, (d) => d.length > 0);
    expect(diagnostics.map((d) => d.code)).toEqual(['unresolved_variable']);
    const actions = await lsp.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostics[0]!.range,
      context: { diagnostics },
    });
    expect(actions.map((a) => a.title)).toEqual(['Declare variable "model"']);
    writeFileSync(file('gateways.yaml'), text);
    applyWorkspaceEdit(actions[0]!.edit!);
    const fixed = readFileSync(file('gateways.yaml'), 'utf8');
    expect(fixed).toBe(`${text}variables:\n  model: {}\n`);
    lsp.change(file('gateways.yaml'), fixed, 2);
    expect(await lsp.diagnosticsOf(uri, (d) => d.length === 0)).toEqual([]);
  });

  it('adds an unknown user to the directory as a quick fix', async () => {
    const text = `${gateways}projects:\n  other:\n    records:\n      key:\n        value: { generate: { length: 32 } }\n        grants:\n          users: [erin]\n`;
    const uri = lsp.open(file('gateways.yaml'), text);
    const diagnostics = await lsp.diagnosticsOf(uri, (d) => d.length > 0);
    expect(diagnostics.map((d) => d.code)).toEqual(['unknown_directory_name']);
    const actions = await lsp.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostics[0]!.range,
      context: { diagnostics },
    });
    expect(actions.map((a) => a.title)).toEqual(['Add user "erin" to directory.users']);
    applyWorkspaceEdit(actions[0]!.edit!);
    expect(readFileSync(file('main.yaml'), 'utf8')).toContain(
      '  users:\n    dana:\n      id: 11111111-1111-4111-8111-111111111111\n      publicKey: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n    erin:\n      id: TODO\n      publicKey: TODO\n',
    );
  });

  it('offers to pin a Service Account a grant names in the directory', async () => {
    const text = `${gateways}projects:\n  other:\n    records:\n      key:\n        value: { generate: { length: 32 } }\n        grants:\n          serviceAccounts: [ci-deployer]\n`;
    const uri = lsp.open(file('gateways.yaml'), text);
    const at = positionOf(text, 'ci-deployer', 2);
    const actions = await lsp.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: at, end: at },
      context: { diagnostics: [] },
    });
    expect(actions.map((a) => a.title)).toEqual(['Pin Service Account "ci-deployer" in directory.serviceAccounts']);
    applyWorkspaceEdit(actions[0]!.edit!);
    expect(readFileSync(file('main.yaml'), 'utf8')).toContain(
      '      publicKey: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n  serviceAccounts:\n    ci-deployer:\n      keyId: TODO\n',
    );
  });

  it('shows where a name is declared, and a spend limit over 30 days', async () => {
    const text = gateways.replace(
      '    credentials: [openai]\n',
      '    credentials: [openai]\n    settings:\n      spendLimitUsd: "7.00"\n      window: week\n',
    );
    const uri = lsp.open(file('gateways.yaml'), text);
    const name = await lsp.request<Hover>('textDocument/hover', {
      textDocument: { uri },
      position: positionOf(text, 'project: payments', 10),
    });
    expect(name.contents).toEqual({ kind: 'markdown', value: '**project** `payments`\n\ndeclared in main.yaml:6:3' });
    const limit = await lsp.request<Hover>('textDocument/hover', { textDocument: { uri }, position: positionOf(text, 'spendLimitUsd', 3) });
    expect((limit.contents as { value: string }).value).toContain('7.00 USD a week: 30.00 USD over 30 days');
  });

  it('formats a document as cplane fmt does', async () => {
    const text = 'gateways:\n  prod:\n    credentials: [openai]\n    project: payments\n    defaultModel: gpt-4o-mini\n';
    const uri = lsp.open(file('gateways.yaml'), text);
    const edits = await lsp.request<{ newText: string }[]>('textDocument/formatting', {
      textDocument: { uri },
      options: { tabSize: 2, insertSpaces: true },
    });
    expect(edits[0]!.newText).toBe('gateways:\n  prod:\n    project: payments\n    defaultModel: gpt-4o-mini\n    credentials: [openai]\n');
  });
});

describe('cplane lsp on bad input', () => {
  it('publishes a file that is not YAML as a diagnostic, and keeps serving', async () => {
    const uri = lsp.open(file('gateways.yaml'), 'gateways: [unclosed\n  - : :\n');
    const diagnostics = await lsp.diagnosticsOf(uri, (d) => d.length > 0);
    expect(diagnostics[0]!.code).toBe('yaml_syntax');
    // A file that is not a configuration file at all is refused by name.
    await expect(
      lsp.request('textDocument/hover', { textDocument: { uri: uriOf(file('notes.txt')) }, position: { line: 0, character: 0 } }),
    ).rejects.toThrow('is not a configuration file');
    const hover = await lsp.request<Hover>('textDocument/hover', {
      textDocument: { uri: uriOf(file('main.yaml')) },
      position: positionOf(main, 'payments:', 2),
    });
    expect(hover.contents).toMatchObject({ kind: 'markdown' });
  });

  it('refuses a file outside the workspace folder', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'cplane-lsp-outside-'));
    try {
      writeFileSync(join(outside, 'main.yaml'), main);
      const uri = lsp.open(join(outside, 'main.yaml'));
      expect((await lsp.diagnosticsOf(uri))[0]).toMatchObject({ code: 'outside_workspace', severity: 3 });
      await expect(
        lsp.request('textDocument/rename', { textDocument: { uri }, position: { line: 5, character: 4 }, newName: 'x' }),
      ).rejects.toThrow('is outside the workspace folders');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses a rename to a name that exists or is not a valid name, and what cannot be renamed', async () => {
    const uri = uriOf(file('gateways.yaml'));
    const at = positionOf(gateways, 'prod:', 1);
    await expect(
      lsp.request<WorkspaceEdit>('textDocument/rename', {
        textDocument: { uri },
        position: positionOf(gateways, 'openai:', 1),
        newName: 'openai',
      }),
    ).resolves.toEqual({ changes: {} });
    writeFileSync(
      file('more.yaml'),
      'gateways:\n  staging:\n    project: payments\n    defaultModel: gpt-4o-mini\n    credentials: [openai]\n',
    );
    lsp.open(file('more.yaml'));
    await lsp.diagnosticsOf(uriOf(file('more.yaml')));
    await expect(lsp.request('textDocument/rename', { textDocument: { uri }, position: at, newName: 'staging' })).rejects.toThrow(
      '"staging" is already declared (more.yaml): choose another name.',
    );
    await expect(lsp.request('textDocument/rename', { textDocument: { uri }, position: at, newName: 'no good' })).rejects.toThrow(
      '"no good" is not a valid name',
    );
    await expect(
      lsp.request('textDocument/prepareRename', { textDocument: { uri }, position: positionOf(gateways, 'defaultModel', 2) }),
    ).rejects.toThrow('Nothing to rename here');
    // The server is still there.
    expect(await lsp.request('textDocument/prepareRename', { textDocument: { uri }, position: at })).toMatchObject({ placeholder: 'prod' });
  });
});

describe('cplane lsp in a repository with the configuration in a subfolder', () => {
  it("serves a module's file opened first as part of the configuration that calls it", async () => {
    const repo = mkdtempSync(join(tmpdir(), 'cplane-lsp-repo-'));
    const nested = await (async () => {
      mkdirSync(join(repo, 'infra', 'modules', 'team'), { recursive: true });
      writeFileSync(join(repo, 'infra', 'main.yaml'), main);
      writeFileSync(join(repo, 'infra', 'gateways.yaml'), gateways);
      writeFileSync(join(repo, 'infra', 'modules', 'team', 'main.yaml'), module);
      return startLsp(repo);
    })();
    try {
      const uri = nested.open(join(repo, 'infra', 'modules', 'team', 'main.yaml'));
      expect(await nested.diagnosticsOf(uri)).toEqual([]);
      const references = await nested.request<Location[]>('textDocument/references', {
        textDocument: { uri },
        position: positionOf(module, 'project: {}', 2),
        context: { includeDeclaration: false },
      });
      expect(references.map((l) => [l.uri.slice(uriOf(repo).length), l.range.start.line])).toEqual([
        ['/infra/main.yaml', 16],
        ['/infra/modules/team/main.yaml', 4],
      ]);
    } finally {
      await nested.close();
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
