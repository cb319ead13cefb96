// Rename in the editor keeps the live objects: a project's local name renamed through `cplane lsp` (a real LSP
// client over stdio) changes every file that names it and adds the `moved` block in the same WorkspaceEdit, so
// the next `cplane plan` against the emulator moves the project (and its record with it) and destroys nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import { applyWorkspaceEdit, positionOf, startLsp, uriOf } from '../helpers/lsp-client.js';
import { world, type World } from './helpers.js';

let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => w.close());

const main = `version: 1
projects:
  payments:
    description: Payment services
    records:
      stripe-key: { value: { generate: { length: 32 } } }
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
`;
const gateways = `gateways:
  prod:
    project: payments
    defaultModel: gpt-4o-mini
    credentials: [openai]
`;
const staging = `gateways:
  staging:
    project: payments
    defaultModel: gpt-4o-mini
    credentials: [openai]
    dependsOn: [project.payments, gateway.prod]
`;

describe('rename in the editor', () => {
  it('renames a project across three files with one WorkspaceEdit that adds the moved block, and plan destroys nothing', async () => {
    writeFileSync(join(w.dir, 'main.yaml'), main);
    writeFileSync(join(w.dir, 'gateways.yaml'), gateways);
    writeFileSync(join(w.dir, 'staging.yaml'), staging);
    const applied = await w.run(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);

    const lsp = await startLsp(w.dir, { ...process.env, ...w.env });
    let edit: WorkspaceEdit;
    try {
      const uri = lsp.open(join(w.dir, 'gateways.yaml'));
      expect(await lsp.diagnosticsOf(uri)).toEqual([]);
      const at = positionOf(gateways, 'project: payments', 12);
      expect(await lsp.request('textDocument/prepareRename', { textDocument: { uri }, position: at })).toMatchObject({
        placeholder: 'payments',
      });
      edit = await lsp.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri }, position: at, newName: 'billing' });
    } finally {
      await lsp.close();
    }
    expect(
      Object.keys(edit.changes!)
        .map((u) => u.split('/').at(-1))
        .sort(),
    ).toEqual(['gateways.yaml', 'main.yaml', 'staging.yaml']);
    expect(edit.changes![uriOf(join(w.dir, 'main.yaml'))]!.at(-1)!.newText).toBe(
      '\nmoved:\n  - from: project.payments\n    to: project.billing\n',
    );
    applyWorkspaceEdit(edit);
    expect(readFileSync(join(w.dir, 'staging.yaml'), 'utf8')).toContain(
      '    project: billing\n    defaultModel: gpt-4o-mini\n    credentials: [openai]\n    dependsOn: [project.billing, gateway.prod]\n',
    );

    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stderr).toBe('');
    // The project moves with its record; its name, which defaults to the local name, follows it in place.
    expect(plan.stdout).toContain(
      '  # project.billing will be updated in place\n  # (moved from project.payments)\n  ~   project "billing"\n      ~ name = "payments" -> "billing"\n',
    );
    expect(plan.stdout).toContain('# record.payments/stripe-key has moved to record.billing/stripe-key');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to replace, 0 to remove, 2 to move.');
  });
});
