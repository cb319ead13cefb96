// Hover, in-process on the index (src/lsp/hover.ts): a name with where it is declared and, for a forEach entry, how
// many instances its keys make; a key with the schema's description.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { hoverAt } from '../../src/lsp/hover.js';
import { NamesIndex } from '../../src/lsp/names-index.js';
import { kindBlocks } from '../../src/providers/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cplane-lsp-hover-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('says how many instances a forEach makes, where a name is declared, and what a key means', async () => {
  const text =
    'variables:\n  teams: { default: [a] }\ncredentials:\n  team:\n    forEach: [a, b, c]\n    provider: openai\n    secret: { env: K }\n  each:\n    forEach: ${var.teams}\n    provider: openai\n    secret: { env: K }\n';
  writeFileSync(join(dir, 'main.yaml'), text);
  const index = new NamesIndex(dir, kindBlocks, (path) => readFile(path, 'utf8'));
  await index.load();
  const schema = JSON.parse(readFileSync(new URL('../../schema/config.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const path = join(dir, 'main.yaml');
  expect(hoverAt(index, schema, path, text, text.indexOf('team:') + 1)).toBe(
    '**credential** `team`\n\ndeclared in main.yaml:4:3\n\nforEach makes 3 instances',
  );
  expect(hoverAt(index, schema, path, text, text.indexOf('each:') + 1)).toContain(
    'forEach: its instances are known when the configuration loads',
  );
  expect(hoverAt(index, schema, path, text, text.indexOf('provider') + 2)).toBe(
    'Provider name (e.g. openai) or provider id, as listed by GET /providers.',
  );
});
