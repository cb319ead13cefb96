// Definition and references follow a reference to a `forEach` instance (`vendor[openai]`) to its entry: in a
// gateway's credentials, in a module call's input the module uses as a credential, and in `dependsOn`. In-process
// on the index (src/lsp/), with the configuration checked by the loader first: it is one `validate` accepts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NamesIndex } from '../../src/lsp/names-index.js';
import { kindBlocks, loadConfiguration } from '../../src/providers/index.js';

const main = `version: 1
projects:
  core: {}
credentials:
  vendor:
    forEach: [openai, anthropic]
    provider: \${each.key}
    secret: { env: VENDOR_KEY }
gateways:
  front:
    project: core
    defaultModel: gpt-4o-mini
    credentials: ["vendor[openai]"]
    dependsOn: ["credential.vendor[anthropic]"]
modules:
  team:
    source: ./modules/team
    inputs: { project: core, credential: "vendor[openai]" }
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

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cplane-lsp-foreach-'));
  mkdirSync(join(dir, 'modules', 'team'), { recursive: true });
  writeFileSync(join(dir, 'main.yaml'), main);
  writeFileSync(join(dir, 'modules/team/main.yaml'), module);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const at = (needle: string, nth = 0) => {
  let index = -1;
  for (let i = 0; i <= nth; i++) index = main.indexOf(needle, index + 1);
  return index;
};

describe('names of forEach instances', () => {
  it('the configuration loads (validate accepts it)', async () => {
    const loaded = await loadConfiguration('.', { cwd: dir, env: { VENDOR_KEY: 'x' }, allowUnsetVariables: true });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it("goes from vendor[openai] to vendor's declaration, and finds every use of vendor", async () => {
    const index = new NamesIndex(dir, kindBlocks, (path) => readFile(path, 'utf8').catch(() => undefined));
    await index.load();
    const path = join(dir, 'main.yaml');
    const use = index.occurrenceAt(path, at('vendor[openai]') + 2)!;
    expect(use).toMatchObject({ name: 'vendor', start: at('vendor[openai]'), end: at('vendor[openai]') + 'vendor'.length });
    expect(index.declarationsOf(use.symbol).map((d) => d.start)).toEqual([at('  vendor:') + 2]);

    const fromDeclaration = index.occurrenceAt(path, at('  vendor:') + 3)!;
    const places = index.occurrencesOf(fromDeclaration.symbol);
    expect(places.map((o) => main.slice(o.start, o.end))).toEqual(['vendor', 'vendor', 'vendor', 'vendor']);
    expect(places.map((o) => o.start).sort((a, b) => a - b)).toEqual([
      at('  vendor:') + 2,
      at('vendor[openai]'),
      at('vendor[anthropic]'),
      at('vendor[openai]', 1),
    ]);
  });
});
