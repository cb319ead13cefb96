/**
 * Modules: `modules: { payments: { source: ./modules/team, inputs: { team: payments } } }` reads the folder
 * `source` (relative to the calling file, inside the configuration folder) once per call, as its own small
 * configuration: its files declare `variables`, which the call's `inputs` bind (nothing else: not --var, not
 * CPLANE_VAR_*), and resources, whose addresses take the prefix `module.payments.`.
 *
 * Inside a module, a name in a reference (`project: core`, `credentials: [openai]`, `dependsOn`) names the
 * module's own resources. The caller's resources are reached only through inputs: a reference written as
 * exactly `${var.NAME}`, where NAME is given by the call, names the caller's resource of that name. The
 * loader rewrites every reference to the name with its module prefixes (`module.payments.core`, address.ts
 * `nameInModule`), so build-desired and the providers need not know about modules.
 *
 * A module's files may not call modules (one level, so a module's inputs always name root resources), nor
 * set what belongs to the whole configuration (account, state, policies, moved/removed/import blocks).
 * Every diagnostic in a module's file names the call it was read for (SourceFile `within`).
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { collectDeclarations, listConfigFiles, readConfigFiles, secretEnvNames } from '../files/config-folder.js';
import { diagnosticAt, hasErrors, type DiagnosticSink } from '../diagnostics.js';
import { expandFile } from '../values/for-each.js';
import { checkSchema, type UnsetVariables } from '../files/schema-check.js';
import { offsetIn, positionIn, type OpenDocuments, type SourceFile } from '../files/source-file.js';
import { didYouMean } from '../../text/suggest.js';
import { resolveVariables, type VariableValue } from '../values/variables.js';
import { nameInModule, parseAddress, formatAddress } from '../../plan-model/address.js';
import type { LoadedFile } from '../build-desired.js';
import type { ConfigFile, ModuleCallConfig } from '../files/config-file.js';
import type { Entry, KindBlock } from './kind-block.js';

export interface ModuleLoadOptions {
  /** The configuration folder (absolute): module sources must be inside it. */
  root: string;
  /** How a path relative to the root is shown. */
  display: (path: string) => string;
  kinds: readonly KindBlock[];
  env: NodeJS.ProcessEnv;
  /** `cplane validate`: the caller's variables without a value; an input that uses one leaves its variable unknown. */
  unset?: UnsetVariables;
  /** Files an editor holds open (load.ts `open`). */
  open?: OpenDocuments;
}

export interface LoadedModules {
  /** Every module file, once per call, with its call's prefix. */
  files: LoadedFile[];
  /** The module files read, relative to the root with `/` separators, each once, sorted. */
  paths: string[];
}

/** Top-level keys a module's file may not set: they belong to the whole configuration. */
const CALLER_ONLY = ['account', 'state', 'policies', 'directory', 'defaults', 'modules', 'moved', 'removed', 'import'] as const;

const WHOLE_VARIABLE = /^\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}$/;
const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One module call, where it is written. */
interface Call {
  name: string;
  call: ModuleCallConfig;
  file: SourceFile;
  calls: Record<string, ModuleCallConfig>;
  /** Where the call is written: `main.yaml:3:3`. */
  calledAt: string;
  /** `module.payments, called at main.yaml:3:3`: how its diagnostics name it. */
  within: string;
}

export async function loadModules(callers: LoadedFile[], options: ModuleLoadOptions, sink: DiagnosticSink): Promise<LoadedModules> {
  const files: LoadedFile[] = [];
  const paths = new Set<string>();
  const seen = new Map<string, Call>();
  for (const { file, config } of callers) {
    for (const [name, call] of Object.entries(config.modules ?? {})) {
      const calls = config.modules!;
      const { line, col } = file.lines.linePos(offsetIn(file, calls, name));
      const calledAt = `${file.display}:${line}:${col}`;
      const here: Call = { name, call, file, calls, calledAt, within: `module.${name}, called at ${calledAt}` };
      const earlier = seen.get(name);
      if (earlier) {
        sink.push(
          diagnosticAt(file, offsetIn(file, calls, name), {
            code: 'duplicate_module',
            summary: `Module "${name}" is called twice: in ${earlier.calledAt} and again here`,
            detail: 'Each module call needs its own name: it prefixes the addresses of its resources (module.NAME.).',
            end: offsetIn(file, calls, name) + name.length,
          }),
        );
        continue;
      }
      seen.set(name, here);
      const folder = await moduleFolder(here, options, sink);
      if (!folder) continue;
      for (const loaded of await loadCall(here, folder, options, sink)) {
        files.push(loaded);
        paths.add(relative(folder.realRoot, loaded.file.path).split(/[\\/]/).join('/'));
      }
    }
  }
  return { files, paths: [...paths].sort() };
}

/**
 * A module's folder as checked: `written` is the path the call gives (for display), `real` the same folder with
 * every symbolic link resolved, which is what is checked to be inside the configuration and what is read, and
 * `identity` its device and inode when checked, compared again before and after its files are read.
 */
interface ModuleFolder {
  written: string;
  real: string;
  realRoot: string;
  identity: Identity;
}

type Identity = { dev: number; ino: number };

/** The folder's identity; 'link' when a symbolic link is there (lstat does not follow it), undefined when it is not a folder. */
async function folderIdentity(path: string): Promise<Identity | 'link' | undefined> {
  try {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return 'link';
    return stats.isDirectory() ? { dev: stats.dev, ino: stats.ino } : undefined;
  } catch {
    return undefined;
  }
}

const sameFolder = (a: Identity | 'link' | undefined, b: Identity) => typeof a === 'object' && a.dev === b.dev && a.ino === b.ino;

/** Where a call's `source` is written in its file: where its diagnostics point. */
const sourceAt = ({ name, file, calls }: Call) => positionIn(file, calls[name], 'source')?.value[0] ?? offsetIn(file, calls, name);

/** The folder checked is no longer there as it was (replaced, or a link put on the way to it): nothing of it is used. */
function refuseChanged(call: Call, sink: DiagnosticSink): undefined {
  const at = sourceAt(call);
  sink.push(
    diagnosticAt(call.file, at, {
      code: 'module_source_changed',
      summary: `module.${call.name}: source folder "${call.call.source}" changed while it was read`,
      detail:
        'Something replaced the folder, or a folder or link on the way to it, after it was checked to be inside the configuration folder. Nothing of it is used: run the command again once the folder stays put.',
      end: at + call.call.source.length,
    }),
  );
  return undefined;
}

/** The call's folder; undefined (and a diagnostic at `source`) when it is remote, absolute, outside the configuration or missing. */
async function moduleFolder(here: Call, { root }: ModuleLoadOptions, sink: DiagnosticSink): Promise<ModuleFolder | undefined> {
  const { name, call, file } = here;
  const at = sourceAt(here);
  const refuse = (code: string, summary: string, detail: string) => {
    sink.push(diagnosticAt(file, at, { code, summary, detail, end: at + call.source.length }));
    return undefined;
  };
  const local = 'Give a folder inside the configuration folder, relative to this file: source: ./modules/team';
  if (isAbsolute(call.source) || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(call.source) || !/^\.\.?(\/|$)/.test(call.source)) {
    return refuse(
      'module_source_not_local',
      `module.${name}: source "${call.source}" must be a relative path starting with ./ or ../`,
      `${local}. Remote and absolute sources are not read: copy the module into the configuration.`,
    );
  }
  const folder = resolve(dirname(file.path), call.source);
  let real: string;
  let realRoot: string;
  try {
    [real, realRoot] = await Promise.all([realpath(folder), realpath(root)]);
  } catch {
    return refuse('module_source_missing', `module.${name}: source folder "${call.source}" does not exist`, local);
  }
  // realpath leaves no link in `real`: one there now was put there since.
  const identity = await folderIdentity(real);
  if (identity === 'link') return refuseChanged(here, sink);
  if (!identity) return refuse('module_source_missing', `module.${name}: source "${call.source}" is not a folder`, local);
  const inside = relative(realRoot, real);
  // Symbolic links are followed before the check, so a link cannot lead a module out of the configuration.
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    return refuse(
      'module_source_outside',
      `module.${name}: source "${call.source}" is ${inside === '' ? 'the configuration folder itself' : 'outside the configuration folder'}`,
      `${local}. A saved plan records the configuration folder's files, so a module must live inside it.`,
    );
  }
  return { written: folder, real, realRoot, identity };
}

/** Reads the call's folder as a configuration of its own: variables bound to the inputs, references named with the prefix. */
async function loadCall(call: Call, folder: ModuleFolder, options: ModuleLoadOptions, sink: DiagnosticSink): Promise<LoadedFile[]> {
  // Read from the resolved path that was checked, never through the written one: a link on the way there may
  // have been changed since. The folder must still be the one checked (same device and inode, not a link)
  // before its files are listed and after they are read; each file is opened without following a link.
  if (!sameFolder(await folderIdentity(folder.real), folder.identity)) {
    refuseChanged(call, sink);
    return [];
  }
  const names = await listConfigFiles(folder.real, sink);
  if (!names) return [];
  const files = await readConfigFiles(
    folder.real,
    names,
    (n) => options.display(relative(options.root, resolve(folder.written, n))),
    sink,
    call.within,
    options.open,
  );
  if (!sameFolder(await folderIdentity(folder.real), folder.identity)) {
    refuseChanged(call, sink);
    return [];
  }
  // A file that could not be read has its own diagnostic; its variables are unknown, so inputs are not checked.
  if (files.length !== names.length) return [];
  for (const file of files) refuseCallerKeys(file, call, sink);
  const declarations = collectDeclarations(files, sink);
  const inputs = call.call.inputs ?? {};
  for (const input of Object.keys(inputs)) {
    if (declarations.has(input)) continue;
    const offset = offsetIn(call.file, inputs, input);
    sink.push(
      diagnosticAt(call.file, offset, {
        code: 'unknown_module_input',
        summary: `module.${call.name} has no variable "${input}"${didYouMean(input, declarations.keys())}`,
        detail: declarations.size ? `The module's variables: ${[...declarations.keys()].join(', ')}.` : 'The module declares no variables.',
        end: offset + input.length,
      }),
    );
  }
  // Inputs that an unset variable of the caller decides (cplane validate) leave the module's variable unknown too.
  const unknownInput = (value: unknown) =>
    typeof value === 'string' && [...value.matchAll(/\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g)].some((m) => options.unset?.has(m[1]!));
  const given: Record<string, VariableValue> = {};
  const unset: UnsetVariables = new Map();
  for (const [name, declaration] of declarations) {
    const value = inputs[name];
    if (value !== undefined && unknownInput(value)) unset.set(name, declaration.config.type);
    else if (value !== undefined) given[name] = value as VariableValue;
    else if (declaration.config.default === undefined) {
      const { line, col } = declaration.file.lines.linePos(
        offsetIn(declaration.file, (declaration.file.value as Record<string, unknown>).variables, name),
      );
      const offset = offsetIn(call.file, call.calls, call.name);
      sink.push(
        diagnosticAt(call.file, offset, {
          code: 'missing_module_input',
          summary: `module.${call.name} is missing the input "${name}" (required by the module's variable at ${declaration.file.display}:${line}:${col})`,
          detail: `Give it under inputs: inputs: { ${name}: VALUE }.`,
          end: offset + call.name.length,
        }),
      );
    }
  }
  const values = await resolveVariables(
    new Map([...declarations].filter(([name]) => !unset.has(name))),
    { env: {}, cwd: options.root, saved: given, savedOrigin: `the input of module.${call.name}`, allowUnset: true },
    sink,
  );
  const scope = { values, declared: new Set(declarations.keys()), env: options.env, secretEnv: secretEnvNames(files.map((f) => f.value)) };
  const loaded: LoadedFile[] = [];
  for (const file of files) {
    const fromCaller = referencesToInputs(file, options.kinds, new Set(Object.keys(given)));
    const before = sink.length;
    expandFile(file, options.kinds, scope, sink);
    // A reference that could not be resolved is left as text: the schema would only add that it is the wrong type.
    if (hasErrors(sink.slice(before))) continue;
    if (!checkSchema(file, options.kinds, sink, unset.size ? unset : undefined)) continue;
    nameReferencesInModule(file, options.kinds, call.name, fromCaller);
    loaded.push({ file, config: file.value as ConfigFile, modules: [call.name] });
  }
  return loaded;
}

function refuseCallerKeys(file: SourceFile, call: Call, sink: DiagnosticSink): void {
  for (const key of CALLER_ONLY) {
    if (!(key in (file.value as Record<string, unknown>))) continue;
    const offset = offsetIn(file, file.value, key);
    sink.push(
      diagnosticAt(file, offset, {
        code: 'module_key_not_allowed',
        summary: `"${key}" cannot be set in a module's file`,
        detail:
          key === 'modules'
            ? 'Modules cannot call modules: call both from the configuration folder, and pass what one needs of the other through inputs.'
            : `It belongs to the whole configuration: set it in the files of the configuration folder that calls module.${call.name}.`,
        end: offset + key.length,
      }),
    );
  }
}

/** A place in a file's value that holds a reference: entry `key` of `container`. */
type Slot = { container: Record<string | number, unknown>; key: string | number };

/** Calls `visit` for every reference (by local name) and every `dependsOn` item of the entries of a file, children included. */
function forEachReference(config: ConfigFile, kinds: readonly KindBlock[], visit: (slot: Slot, dependsOn: boolean) => void): void {
  const walk = (block: KindBlock, entry: Entry) => {
    if (!isMapping(entry)) return;
    // Only references to resources: names in the `directory` (users, groups, roles) belong to the whole configuration.
    for (const rule of block.references ?? []) {
      if (!('kind' in rule)) continue;
      const value = entry[rule.attribute];
      if (Array.isArray(value)) value.forEach((_, i) => visit({ container: value as unknown as Record<number, unknown>, key: i }, false));
      else if (value !== undefined) visit({ container: entry, key: rule.attribute }, false);
    }
    if (Array.isArray(entry.dependsOn))
      entry.dependsOn.forEach((_, i) => visit({ container: entry.dependsOn as Record<number, unknown>, key: i }, true));
    for (const child of kinds.filter((k) => k.parent?.kind === block.kind)) {
      const value = entry[child.key];
      if (child.single) walk(child, value as Entry);
      else if (isMapping(value)) for (const inner of Object.values(value)) walk(child, inner as Entry);
    }
  };
  for (const block of kinds.filter((k) => !k.parent)) {
    const entries = (config as unknown as Record<string, unknown>)[block.key];
    if (isMapping(entries)) for (const entry of Object.values(entries)) walk(block, entry as Entry);
  }
}

/**
 * Slots by the positions of their container (source-file.ts `nodes`): expansion changes values in place, and
 * the instances of a forEach template are copies that share the template's positions, so a mark made on the
 * template holds for each of its instances.
 */
type Slots = WeakMap<object, Set<string | number>>;

/** The references written as exactly `${var.NAME}` with NAME given by the call: they name the caller's resources. */
function referencesToInputs(file: SourceFile, kinds: readonly KindBlock[], inputs: ReadonlySet<string>): Slots {
  const found: Slots = new WeakMap();
  forEachReference(file.value as ConfigFile, kinds, ({ container, key }, dependsOn) => {
    const text = container[key];
    const name = typeof text === 'string' ? WHOLE_VARIABLE.exec(text)?.[1] : undefined;
    const positions = file.nodes.get(container);
    if (dependsOn || name === undefined || !inputs.has(name) || !positions) return;
    if (!found.has(positions)) found.set(positions, new Set());
    found.get(positions)!.add(key);
  });
  return found;
}

/** Rewrites the module's own references with its prefix (`core` -> `module.payments.core`); those from inputs stay the caller's. */
function nameReferencesInModule(file: SourceFile, kinds: readonly KindBlock[], call: string, fromCaller: Slots): void {
  forEachReference(file.value as ConfigFile, kinds, ({ container, key }, dependsOn) => {
    const value = container[key];
    const positions = file.nodes.get(container);
    if (typeof value !== 'string' || (positions && fromCaller.get(positions)?.has(key))) return;
    if (!dependsOn) container[key] = nameInModule([call], value);
    else {
      const address = parseAddress(value);
      if (address) container[key] = formatAddress({ ...address, modules: [call, ...address.modules] });
    }
  });
}
