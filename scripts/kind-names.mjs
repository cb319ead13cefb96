#!/usr/bin/env node
/**
 * A kind is described once, in its definition module under src/providers/: the rest of the code reads the
 * definitions instead of naming kinds. This counts, for each kind, the files of src/ and scripts/ outside
 * src/providers/ (the definitions), src/emulator/ (the fake API) and src/generated/ whose code holds the
 * kind's name as a quoted literal (for a kind widget: `'widget'`, `"widget"`, or an address written out,
 * `'widget.big'`, `` `widget.${name}` ``), and allows at most 2 such files per kind. It also refuses a module of
 * src/ or scripts/ outside src/providers/ that imports a kind definition by its name (`import { widgetKind } from
 * '../providers/index.js'`, any name the registry's `definitions` list holds): the layers
 * above ask the registry for the kind that plays a part (`valueKind`, `accessKinds`), so a kind added by the recipe
 * is found by what it declares.
 *
 * Run by `npm run lint`, which cannot load the TypeScript registry: it takes the kinds from the kind enum of
 * schema/state.schema.json, which is generated from the registry (test/architecture/schema-kinds.test.ts keeps
 * the two equal). test/architecture/kind-names.test.ts runs the same count over the registry's own kinds.
 *
 *   node scripts/kind-names.mjs [ROOT]   # prints each kind named in too many files and each import of a
 *                                        # definition by name; exits 1 when there is one (ROOT: this repository)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The most files outside the definitions that may name one kind. */
export const allowedFiles = 2;
/** Folders whose files may name any kind: the definitions, the emulator (the fake API) and generated code. */
export const excludedFolders = ['src/providers/', 'src/emulator/', 'src/generated/'];

function codeFiles(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return codeFiles(root, path);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** For each kind, the files (relative to `root`, outside the excluded folders) that hold its name as a quoted literal. */
export function filesNamingKinds(root, kinds) {
  const files = ['src', 'scripts'].flatMap((dir) => codeFiles(root, dir)).map((file) => file.split('\\').join('/'));
  const sources = files
    .filter((file) => !excludedFolders.some((prefix) => file.startsWith(prefix)))
    .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
  return new Map(
    kinds.map((kind) => {
      const literal = new RegExp(`(['"\`])${kind}(\\1|\\.)`);
      return [kind, sources.filter(({ text }) => literal.test(text)).map(({ file }) => file)];
    }),
  );
}

/** The names of the kind definitions the registry lists (its `definitions` array in src/providers/index.ts). */
export function definitionNames(root) {
  const registry = readFileSync(join(root, 'src', 'providers', 'index.ts'), 'utf8');
  const listed = /const definitions\b[^=]*=\s*\[([^\]]*)\]/.exec(registry)?.[1] ?? '';
  return new Set(
    listed
      .split(',')
      .map((name) => name.trim())
      .filter((name) => /^\w+$/.test(name)),
  );
}

/** Each file of src/ and scripts/ outside src/providers/ that imports a kind definition by name, with the names. */
export function definitionImports(root, names = definitionNames(root)) {
  const files = ['src', 'scripts']
    .flatMap((dir) => codeFiles(root, dir))
    .map((file) => file.split('\\').join('/'))
    .filter((file) => !file.startsWith('src/providers/'));
  return files.flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const imported = [...text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"][^'"]*providers\/[^'"]*['"]/g)]
      .flatMap((m) =>
        m[1].split(',').map(
          (spec) =>
            spec
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0],
        ),
      )
      .filter((name) => names.has(name));
    return imported.length > 0 ? [{ file, names: imported }] : [];
  });
}

/** The kinds of the registry as the generated state schema lists them (its `kind` enum). */
export function schemaKinds(root) {
  return JSON.parse(readFileSync(join(root, 'schema', 'state.schema.json'), 'utf8')).$defs.kind.enum;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const kinds = schemaKinds(root);
  const over = [...filesNamingKinds(root, kinds)].filter(([, files]) => files.length > allowedFiles);
  for (const [kind, files] of over) {
    console.log(
      `kind ${kind} is named in ${files.length} files outside its definition (at most ${allowedFiles}): ${files.map((f) => relative('.', join(root, f))).join(', ')}`,
    );
  }
  if (over.length > 0)
    console.log('Read the kind from its definition (src/providers/index.ts) instead of writing its name (docs/architecture.md).');
  const imports = definitionImports(root);
  for (const { file, names } of imports)
    console.log(`${relative('.', join(root, file))} imports the kind definition${names.length > 1 ? 's' : ''} ${names.join(', ')} by name`);
  if (imports.length > 0)
    console.log(
      'Ask the registry (src/providers/index.ts) for the kind by what it declares (its relations, its touches) instead (docs/architecture.md).',
    );
  if (over.length > 0 || imports.length > 0) process.exit(1);
  console.log(
    `each of the ${kinds.length} kinds is named in at most ${allowedFiles} files outside its definition, and imported by name in none`,
  );
}
