/**
 * A kind is described once, in its definition module under src/providers/: the rest of the code reads the
 * definitions instead of naming kinds. For every kind of the registry, scripts/kind-names.mjs (which
 * `npm run lint` runs too) counts the files outside src/providers/, src/emulator/ and src/generated/ that hold
 * its name as a quoted literal: at most 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { allowedFiles, filesNamingKinds, schemaKinds } from '../../scripts/kind-names.mjs';
import { kindOrder, kindsNeededBy } from '../../src/providers/index.js';

const root = join(import.meta.dirname, '..', '..');
const naming: Map<string, string[]> = filesNamingKinds(root, [...kindOrder]);

test.each([...kindOrder])('the name of kind %s is a quoted literal in at most 2 files outside its definition', (kind) => {
  const files = naming.get(kind)!;
  expect(files.length, `files naming ${kind}: ${files.join(', ')}`).toBeLessThanOrEqual(allowedFiles);
  expect(allowedFiles).toBe(2);
});

test("npm run lint counts the same kinds: the kind enum of the generated state schema is the registry's", () => {
  expect([...(schemaKinds(root) as string[])].sort()).toEqual([...kindOrder].sort());
});

test('the count finds a kind written as a quoted literal or an address, outside the definitions only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-kind-names-'));
  const write = (file: string, text: string) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  try {
    write('src/a/literal.ts', "export const k = 'widget';\n");
    write('src/b/address.ts', 'export const a = `widget.${name}`;\n');
    write('scripts/double.mjs', 'export const k = "widget";\n');
    write('src/c/longer.ts', "export const k = 'widgets'; const w = 'big_widget'; // widget\n");
    write('src/providers/widget.ts', "export const kind = 'widget';\n");
    write('src/emulator/store.ts', "export const kind = 'widget';\n");
    write('src/generated/kinds.ts', "export const kind = 'widget';\n");
    expect((filesNamingKinds(dir, ['widget']) as Map<string, string[]>).get('widget')!.sort()).toEqual([
      'scripts/double.mjs',
      'src/a/literal.ts',
      'src/b/address.ts',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the lint fails on a module outside src/providers/ that imports a kind definition by name, and names it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-kind-imports-'));
  const write = (file: string, text: string) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  const lint = () => spawnSync(process.execPath, [join(root, 'scripts', 'kind-names.mjs'), dir], { cwd: dir, encoding: 'utf8' });
  try {
    write('schema/state.schema.json', JSON.stringify({ $defs: { kind: { enum: ['widget'] } } }));
    write(
      'src/providers/index.ts',
      "import { widgetKind } from './widget.js';\nconst definitions: readonly KindDefinition[] = [\n  widgetKind,\n] as unknown as KindDefinition[];\nexport const valueKind = definitions[0].kind;\n",
    );
    write('src/providers/widget.ts', 'export const widgetKind = defineKind({});\n');
    write('scripts/build.mjs', '');
    // A registry query by what a kind declares is how the layers above find a kind.
    write('src/cli/asks.ts', "import { valueKind, type AccessKind } from '../providers/index.js';\n");
    expect(lint().status).toBe(0);

    write('src/cli/names.ts', "import {\n  isKind,\n  widgetKind as w,\n} from '../providers/index.js';\n");
    const run = lint();
    expect(run.status).toBe(1);
    expect(run.stdout).toBe(
      [
        'src/cli/names.ts imports the kind definition widgetKind by name',
        'Ask the registry (src/providers/index.ts) for the kind by what it declares (its relations, its touches) instead (docs/architecture.md).',
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the derived kind order puts every kind after the kinds it needs', () => {
  for (const [i, kind] of kindOrder.entries()) {
    for (const needed of kindsNeededBy(kind)) expect(kindOrder.indexOf(needed), `${kind} needs ${needed}`).toBeLessThan(i);
  }
});
