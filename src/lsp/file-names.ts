/**
 * The names one file declares and uses, with their places in its text: what the language server's index keeps
 * per file (names-index.ts), made again only when that file changes. A name is a symbol of a scope (the folder
 * of the configuration or of a module): a resource's local name, a `directory` entry, a variable or a module
 * call. The file is parsed by the loader's own reader (config/ `parseSourceFile`, positions on the nodes), and
 * what is a reference is read from the kinds' blocks (their `references`), as the loader does.
 */
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { parseSourceFile, positionIn, type Entry, type KindBlock, type SourceFile } from '../config/index.js';
import { parseAddress, parseLocalName } from '../plan-model/index.js';

export type DirectorySection = 'users' | 'groups' | 'roles' | 'serviceAccounts';

/** What a name names: a resource of a kind, an entry of a `directory` section, a variable, a module call. */
export type Space = `resource:${string}` | `directory:${DirectorySection}` | 'variable' | 'module';

/** One place a name is written: its declaration or a use. */
export interface Occurrence {
  /** The symbol: scope, space and full name (symbolKey). */
  symbol: string;
  space: Space;
  /** The full name: a child resource's is its parent's and its own (`payments/stripe-key`). */
  name: string;
  path: string;
  /** Offsets of the written name (the last segment of a child's full name). */
  start: number;
  end: number;
  declaration: boolean;
  /** For a resource's declaration: made by `forEach`, so its addresses carry instance keys. */
  forEach?: unknown;
  /** For a declaration: the entry as written (hover, and the models a gateway's credentials reach). */
  entry?: Entry;
}

/** A module call's input whose value names a resource of the caller when the module uses it as a reference. */
export interface ModuleInput {
  folder: string;
  variable: string;
  value: string;
  path: string;
  start: number;
  end: number;
}

/** A name of a `grants` list: a resource of its own (`user_share.P/R/dana`), renamed with what it names. */
export interface ListedResource {
  kind: string;
  parent: string;
  name: string;
  space: Space;
}

export interface FileNames {
  path: string;
  scope: string;
  occurrences: Occurrence[];
  moduleInputs: ModuleInput[];
  /** Variables used as exactly `${var.X}` where a resource of a kind is named: X -> that kind (a module's inputs). */
  variablesAsReferences: Map<string, string>;
  listed: ListedResource[];
  /** The module calls this file makes, by name, with their folders (absolute). */
  calls: Map<string, string>;
  /** The text the names were read from (the editor's buffer or the disk's). */
  text: string;
  /** The parsed file, or undefined when it does not parse (the loader's diagnostics say why). */
  file: SourceFile | undefined;
}

export const symbolKey = (scope: string, space: Space, name: string) => `${scope}\u0000${space}\u0000${name}`;

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const VARIABLE_USE = /\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g;
const WHOLE_VARIABLE = /^\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}$/;

/**
 * The resource a reference by local name names, and the text of that name: a `forEach` instance
 * (`vendor[openai]`) names its entry (`vendor`), whose name is the text before the key.
 */
function namedEntry(written: string): { name: string; text: string } {
  const segments = parseLocalName(written);
  if (!segments?.some((s) => s.key !== undefined)) return { name: written, text: written };
  const name = segments.map((s) => s.name).join('/');
  return { name, text: segments.length === 1 ? name : written };
}

/**
 * The names of a file. `root` is the configuration folder: the `directory` and module calls are its own, and
 * `scope` the folder the file's names belong to (the root, or a module's folder).
 */
export function fileNames(path: string, text: string, scope: string, root: string, kinds: readonly KindBlock[]): FileNames {
  const out: FileNames = {
    path,
    scope,
    text,
    occurrences: [],
    moduleInputs: [],
    variablesAsReferences: new Map(),
    listed: [],
    calls: new Map(),
    file: undefined,
  };
  const file = parseSourceFile(Buffer.from(text, 'utf8'), path, path, []);
  out.file = file;
  if (!file || !isMapping(file.value)) return out;
  new FileNamesReader(out, file, root, kinds).read(file.value);
  return out;
}

/** The steps of reading one parsed file's names into `out`. */
class FileNamesReader {
  private readonly blockOf: Map<string, KindBlock>;

  constructor(
    private readonly out: FileNames,
    private readonly file: SourceFile,
    private readonly root: string,
    private readonly kinds: readonly KindBlock[],
  ) {
    this.blockOf = new Map(kinds.map((b) => [b.kind, b]));
  }

  read(value: Record<string, unknown>): void {
    this.variableUses(value);
    if (isMapping(value.variables)) {
      for (const name of Object.keys(value.variables)) this.add('variable', name, name, this.keyAt(value.variables, name) ?? 0, true);
    }
    if (isMapping(value.directory) && this.out.scope === this.root) this.directory(value.directory);
    if (isMapping(value.modules) && this.out.scope === this.root) this.modules(value.modules);
    for (const block of this.kinds.filter((b) => !b.parent)) this.declareEntries(block, value[block.key], undefined);
    if (Array.isArray(value.import)) value.import.forEach((item) => isMapping(item) && this.addressUse(item, 'to', item.to));
  }

  private get text(): string {
    return this.out.text;
  }

  /** The name `name` as written in the text from `from` on (a key or value may be quoted). */
  private add(
    space: Space,
    name: string,
    written: string,
    from: number,
    declaration: boolean,
    extra: Partial<Occurrence> = {},
    inScope = this.out.scope,
  ): void {
    const start = this.text.indexOf(written, from);
    if (start === -1) return;
    this.out.occurrences.push({
      symbol: symbolKey(inScope, space, name),
      space,
      name,
      path: this.out.path,
      start,
      end: start + written.length,
      declaration,
      ...extra,
    });
  }

  private keyAt(container: unknown, key: string | number): number | undefined {
    const at = positionIn(this.file, container, key);
    return at?.key ?? at?.value[0];
  }

  private valueAt(container: unknown, key: string | number): [number, number] | undefined {
    return positionIn(this.file, container, key)?.value;
  }

  /** Every `${var.NAME}` in every string, at its place in the text. */
  private variableUses(container: unknown): void {
    if (!isMapping(container) && !Array.isArray(container)) return;
    const entries: [string | number, unknown][] = Array.isArray(container) ? container.map((v, i) => [i, v]) : Object.entries(container);
    for (const [key, inner] of entries) {
      if (typeof inner !== 'string') {
        this.variableUses(inner);
        continue;
      }
      const at = this.valueAt(container, key);
      if (!at) continue;
      for (const match of this.text.slice(at[0], at[1]).matchAll(VARIABLE_USE)) {
        const nameStart = at[0] + match.index + match[0].indexOf('var.') + 'var.'.length;
        this.add('variable', match[1]!, match[1]!, nameStart, false);
      }
    }
  }

  private directory(directory: Record<string, unknown>): void {
    for (const section of ['users', 'groups', 'roles', 'serviceAccounts'] as const) {
      const entries = directory[section];
      if (!isMapping(entries)) continue;
      for (const [name, entry] of Object.entries(entries)) {
        this.add(`directory:${section}`, name, name, this.keyAt(entries, name) ?? 0, true, isMapping(entry) ? { entry } : {});
        if (section !== 'groups' || !isMapping(entry) || !Array.isArray(entry.members)) continue;
        entry.members.forEach(
          (user, i) =>
            typeof user === 'string' &&
            this.add('directory:users', user, user, this.valueAt(entry.members, i)?.[0] ?? 0, false, {}, this.root),
        );
      }
    }
  }

  private modules(modules: Record<string, unknown>): void {
    for (const [name, call] of Object.entries(modules)) {
      this.add('module', name, name, this.keyAt(modules, name) ?? 0, true);
      if (!isMapping(call) || typeof call.source !== 'string') continue;
      const folder = resolve(dirname(this.out.path), call.source);
      // A module outside the configuration folder is refused by the loader (module_source_outside): its files are
      // not the configuration's, so no definition, reference or rename follows the call there.
      const inside = relative(this.root, folder);
      if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) continue;
      this.out.calls.set(name, folder);
      if (isMapping(call.inputs)) this.moduleInputs(folder, call.inputs);
    }
  }

  private moduleInputs(folder: string, inputs: Record<string, unknown>): void {
    for (const [input, given] of Object.entries(inputs)) {
      this.add('variable', input, input, this.keyAt(inputs, input) ?? 0, false, {}, folder);
      const at = this.valueAt(inputs, input);
      if (typeof given !== 'string' || !at) continue;
      const start = this.text.indexOf(given, at[0]);
      const { name, text } = namedEntry(given);
      if (start !== -1)
        this.out.moduleInputs.push({ folder, variable: input, value: name, path: this.out.path, start, end: start + text.length });
    }
  }

  /** A reference by local name to a resource of `kind` (or a directory name), or a variable standing for one. */
  private reference(space: Space, container: unknown, key: string | number, written: unknown): void {
    if (typeof written !== 'string') return;
    const whole = WHOLE_VARIABLE.exec(written)?.[1];
    if (whole !== undefined) {
      if (space.startsWith('resource:')) this.out.variablesAsReferences.set(whole, space.slice('resource:'.length));
      return;
    }
    if (written.includes('${')) return;
    const scope = space.startsWith('directory:') ? this.root : this.out.scope;
    const { name, text } = space.startsWith('resource:') ? namedEntry(written) : { name: written, text: written };
    this.add(space, name, text, this.valueAt(container, key)?.[0] ?? 0, false, {}, scope);
  }

  private declareEntries(block: KindBlock, entries: unknown, parent: string | undefined): void {
    if (!isMapping(entries)) return;
    for (const [name, entry] of Object.entries(entries)) {
      const full = parent === undefined ? name : `${parent}/${name}`;
      const extra = isMapping(entry) ? { entry, ...(entry.forEach !== undefined ? { forEach: entry.forEach } : {}) } : {};
      this.add(`resource:${block.kind}`, full, name, this.keyAt(entries, name) ?? 0, true, extra);
      if (isMapping(entry)) this.readEntry(block, entry, full);
    }
  }

  private readEntry(block: KindBlock, entry: Entry, full: string): void {
    for (const rule of block.references ?? []) {
      const space: Space = 'kind' in rule ? `resource:${rule.kind}` : `directory:${rule.directory}`;
      const written = entry[rule.attribute];
      if (Array.isArray(written)) written.forEach((item, i) => this.reference(space, written, i, item));
      else this.reference(space, entry, rule.attribute, written);
    }
    if (Array.isArray(entry.dependsOn)) entry.dependsOn.forEach((address, i) => this.addressUse(entry.dependsOn, i, address));
    for (const child of this.kinds.filter((b) => b.parent?.kind === block.kind)) {
      if (child.single) {
        if (isMapping(entry[child.key])) this.readEntry(child, entry[child.key] as Entry, full);
      } else if (child.list) this.listed(child, entry, full);
      else this.declareEntries(child, entry[child.key], full);
    }
  }

  /** The names of a `grants` list: each a use of a directory name, and a resource of its own. */
  private listed(child: KindBlock, entry: Entry, full: string): void {
    const [first, second] = child.key.split('.');
    const holder = isMapping(entry[first!]) ? (entry[first!] as Entry) : undefined;
    const list = second !== undefined ? holder?.[second] : undefined;
    if (!Array.isArray(list)) return;
    const rule = child.references?.find((r) => 'directory' in r);
    const space: Space = rule && 'directory' in rule ? `directory:${rule.directory}` : 'directory:serviceAccounts';
    list.forEach((item, i) => {
      const name = typeof item === 'string' ? item : isMapping(item) && typeof item.name === 'string' ? item.name : undefined;
      if (name === undefined) return;
      const at = typeof item === 'string' ? this.valueAt(list, i) : this.valueAt(item, 'name');
      if (at) this.add(space, name, name, at[0], false, {}, this.root);
      this.out.listed.push({ kind: child.kind, parent: full, name, space });
    });
  }

  /** An address (`dependsOn`, `import.to`): each segment names the resource of its kind along the parents. */
  private addressUse(container: unknown, key: string | number, written: unknown): void {
    if (typeof written !== 'string') return;
    const address = parseAddress(written);
    const at = this.valueAt(container, key);
    if (!address || address.modules.length > 0 || !at) return;
    const chain: string[] = [];
    for (let kind: string | undefined = address.kind; kind !== undefined; kind = this.blockOf.get(kind)?.parent?.kind) {
      if (!this.blockOf.get(kind)?.single) chain.unshift(kind);
    }
    let from = this.text.indexOf(written, at[0]) + address.kind.length + 1;
    address.segments.forEach((segment, i) => {
      const kind = chain[i];
      const full = address.segments
        .slice(0, i + 1)
        .map((s) => s.name)
        .join('/');
      if (kind !== undefined && !this.blockOf.get(kind)?.list) this.add(`resource:${kind}`, full, segment.name, from, false);
      from = this.text.indexOf('/', from) + 1;
    });
  }
}
