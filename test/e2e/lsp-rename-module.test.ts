// Rename across a module boundary keeps every live object: a configuration with a module is applied to the
// emulator, three names are renamed through the language server (the module call, the caller's project a call
// passes in, and a credential of the module) with its edits written as an editor writes them, and `cplane plan`
// then shows moves only.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
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
  core: { name: core, description: Core }
modules:
  team:
    source: ./modules/team
    inputs: { project: core }
`;
const module = `variables:
  project: {}
credentials:
  own: { provider: openai, label: own, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: \${var.project}
    name: team gateway
    slug: gw-team
    defaultModel: gpt-4o-mini
    credentials: [own]
    tokens:
      ci: { scopes: [run] }
`;

/** Renames the name at the `nth` place of `needle` in `file` through the language server, and saves the edit. */
async function rename(file: string, needle: string, newName: string, shift = 1): Promise<void> {
  const lsp = await startLsp(w.dir, w.env);
  try {
    const text = readFileSync(file, 'utf8');
    const edit = await lsp.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri: uriOf(file) },
      position: positionOf(text, needle, shift),
      newName,
    });
    applyWorkspaceEdit(edit);
  } finally {
    await lsp.close();
  }
}

it('renames the module call, the project it is given and a credential of the module: the plan shows moves only', async () => {
  w.config(main);
  mkdirSync(join(w.dir, 'modules', 'team'), { recursive: true });
  writeFileSync(join(w.dir, 'modules', 'team', 'main.yaml'), module);
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);

  await rename(join(w.dir, 'main.yaml'), '  team:', 'squad', 3);
  await rename(join(w.dir, 'modules', 'team', 'main.yaml'), 'own:', 'primary', 1);
  await rename(join(w.dir, 'main.yaml'), 'project: core', 'base', 'project: c'.length);
  const renamed = readFileSync(join(w.dir, 'main.yaml'), 'utf8');

  expect(renamed).toContain('  squad:\n');
  expect(renamed).toContain('inputs: { project: base }');
  expect(readFileSync(join(w.dir, 'modules', 'team', 'main.yaml'), 'utf8')).toContain('credentials: [primary]');

  const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('# module.team.gateway.main has moved to module.squad.gateway.main');
  expect(plan.stdout).toContain('# project.core has moved to project.base');
  // The gateway names its renamed credential and project: read back through the new names, it has not changed.
  expect(plan.stdout).not.toContain('changed outside cplane');
  expect(plan.stdout).toMatch(/Plan: 0 to add, 0 to change, 0 to replace, 0 to remove, \d+ to move\./);
  expect(plan.code).toBe(2);

  const apply = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(apply.code).toBe(0);
  expect((await w.run(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
});
