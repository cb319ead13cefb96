// An editor that hands the server a module's folder as its root (a `root_dir` of the file's own folder): the
// server serves the configuration above that calls the module, inside the same Git work tree, so the module's
// inputs have the caller's values and its names lead to the caller's files.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Location } from 'vscode-languageserver-protocol';
import { positionOf, startLsp, uriOf, type LspSession } from '../helpers/lsp-client.js';

const main = `version: 1
projects:
  payments: {}
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
modules:
  team:
    source: ./modules/team
    inputs: { project: payments, credential: openai }
`;
const module = `variables:
  project: {}
  credential: {}
gateways:
  team:
    project: \${var.project}
    defaultModel: gpt-4o-mini
    credentials: ["\${var.credential}"]
`;

let repo: string;
let lsp: LspSession | undefined;
beforeEach(() => {
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'cplane-lsp-module-root-')));
  mkdirSync(join(repo, '.git'));
  mkdirSync(join(repo, 'infra', 'modules', 'team'), { recursive: true });
  writeFileSync(join(repo, 'infra', 'main.yaml'), main);
  writeFileSync(join(repo, 'infra', 'modules', 'team', 'main.yaml'), module);
});
afterEach(async () => {
  await lsp?.close();
  rmSync(repo, { recursive: true, force: true });
});

describe("a module's folder as the workspace folder", () => {
  it("diagnoses the module as the caller's, with no unknown name for its inputs", async () => {
    lsp = await startLsp(join(repo, 'infra', 'modules', 'team'));
    const moduleFile = join(repo, 'infra', 'modules', 'team', 'main.yaml');
    expect(await lsp.diagnosticsOf(uriOf(moduleFile))).toEqual([]);
    lsp.open(moduleFile);
    const references = await lsp.request<Location[]>('textDocument/references', {
      textDocument: { uri: uriOf(moduleFile) },
      position: positionOf(module, 'var.credential', 'var.cr'.length),
      context: { includeDeclaration: true },
    });
    expect(references.map((l) => l.uri).sort()).toEqual([uriOf(join(repo, 'infra', 'main.yaml')), uriOf(moduleFile), uriOf(moduleFile)]);
  });

  it('stays inside the Git work tree: a module folder of a tree with no caller in it is served on its own', async () => {
    rmSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'infra', 'modules', '.git'));
    lsp = await startLsp(join(repo, 'infra', 'modules', 'team'));
    const [unknown] = await lsp.diagnosticsOf(uriOf(join(repo, 'infra', 'modules', 'team', 'main.yaml')), (d) => d.length > 0);
    expect(unknown?.code).toBeDefined();
  });
});
