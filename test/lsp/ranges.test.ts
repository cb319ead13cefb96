// A diagnostic on a quoted value covers the value, inside its quotes, in the language server's range and in
// `validate`'s caret alike; its columns are UTF-16 code units (an editor's), also after a non-ASCII character.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { positionOf, startLsp, uriOf, type LspSession } from '../helpers/lsp-client.js';
import { load } from '../config/helpers.js';

const text = `version: 1
projects:
  payments: {}
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
gateways:
  block:
    project: "paymnts"
    defaultModel: m
    credentials: ['openai']
  flow: { name: "Zahlungs-Gateway für 🇩🇪", project: 'paymnts', defaultModel: m, credentials: [opnai] }
`;

let dir: string;
let lsp: LspSession;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cplane-lsp-ranges-'));
  writeFileSync(join(dir, 'main.yaml'), text);
  lsp = await startLsp(dir);
});
afterEach(async () => {
  await lsp.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The range of the `nth` place of `name` in the text: the name itself, without its quotes. */
const rangeOfName = (name: string, nth = 0) => {
  const start = positionOf(text, name, 0, nth);
  return { start, end: { line: start.line, character: start.character + name.length } };
};

describe('ranges of quoted values', () => {
  it('the language server underlines the value inside its quotes, in UTF-16 columns', async () => {
    const diagnostics = await lsp.diagnosticsOf(uriOf(join(dir, 'main.yaml')), (d) => d.length === 3);
    const unknown = diagnostics.filter((d) => d.code === 'unknown_reference').map((d) => d.range);
    expect(unknown).toEqual([rangeOfName('paymnts', 0), rangeOfName('paymnts', 1), rangeOfName('opnai')]);
    // After "für 🇩🇪" (two astral characters: four UTF-16 units), the column is the editor's.
    expect(rangeOfName('paymnts', 1).start.character).toBe(text.split('\n')[10]!.indexOf("'paymnts'") + 1);
  });

  it("validate's caret is under the value, as wide as it, and its column the same", async () => {
    const { diagnostics } = await load({ 'main.yaml': text });
    const first = diagnostics.find((d) => d.code === 'unknown_reference')!;
    expect(first.range).toMatchObject({ line: 8, col: 15 });
    expect(first.snippet!.split('\n')[1]).toBe(`     |               ${'^'.repeat('paymnts'.length)}`);
    const second = diagnostics.filter((d) => d.code === 'unknown_reference')[1]!;
    expect(second.range).toMatchObject({ line: 11, col: rangeOfName('paymnts', 1).start.character + 1 });
  });
});
