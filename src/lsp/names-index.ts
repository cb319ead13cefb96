/**
 * The index of names of one configuration folder and the modules it calls: each file's names (file-names.ts),
 * made again only for a file that changed, and the table by symbol made from them when a request needs it. A
 * module call's inputs are resolved here, since what an input names depends on the module's files: an input the
 * module uses as exactly `${var.X}` where a resource is named is a reference to the caller's resource.
 */
import { readdir, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { KindBlock } from '../config/index.js';
import { fileNames, symbolKey, type FileNames, type Occurrence, type Space } from './file-names.js';

/** The text of a file: the editor's buffer when it is open, else the disk's (undefined when it cannot be read). */
export type ReadText = (path: string) => Promise<string | undefined>;

const configFile = (name: string) => /\.ya?ml$/i.test(name);

async function configFilesOf(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder, { withFileTypes: true }))
      .filter((e) => e.isFile() && configFile(e.name))
      .map((e) => join(folder, e.name))
      .sort();
  } catch {
    return [];
  }
}

export class NamesIndex {
  private readonly files = new Map<string, FileNames>();
  private bySymbol: Map<string, Occurrence[]> | undefined;
  /** Module folders called that lead out of the configuration folder through a link: never read nor served. */
  private readonly outside = new Set<string>();

  constructor(
    readonly root: string,
    private readonly kinds: readonly KindBlock[],
    private readonly readText: ReadText,
  ) {}

  /** Reads every file of the folder and of the modules it calls. */
  async load(): Promise<void> {
    for (const path of await configFilesOf(this.root)) await this.index(path);
    await this.loadModules();
  }

  /** The folders of the configuration: the root and each module folder called. */
  folders(): string[] {
    const called = [...this.files.values()].flatMap((f) => [...f.calls.values()]).filter((folder) => !this.outside.has(folder));
    return [this.root, ...new Set(called)];
  }

  /** Whether `path` is a configuration file of this folder or of a module it calls. */
  covers(path: string): boolean {
    return configFile(path) && this.folders().includes(dirname(path));
  }

  paths(): string[] {
    return [...this.files.keys()];
  }

  /** The folder of the module call `name`, if the configuration makes it. */
  moduleFolder(name: string): string | undefined {
    for (const names of this.files.values()) {
      const folder = names.calls.get(name);
      if (folder !== undefined) return folder;
    }
    return undefined;
  }

  /** The module calls of the configuration whose folder is `folder`: the prefixes of its resources' addresses. */
  callsOf(folder: string): string[] {
    return [...this.files.values()].flatMap((f) => [...f.calls].filter(([, to]) => to === folder).map(([name]) => name)).sort();
  }

  fileNamesOf(path: string): FileNames | undefined {
    return this.files.get(path);
  }

  /** One file changed (or appeared, or went: `text` undefined): its names are made again, and a new module folder read. */
  async update(path: string): Promise<void> {
    await this.index(path);
    if (dirname(path) === this.root) await this.loadModules();
  }

  private async index(path: string): Promise<void> {
    this.bySymbol = undefined;
    const text = await this.readText(path);
    if (text === undefined) {
      this.files.delete(path);
      return;
    }
    this.files.set(path, fileNames(path, text, dirname(path), this.root, this.kinds));
  }

  private async loadModules(): Promise<void> {
    const known = new Set([...this.files.keys()].map((p) => dirname(p)));
    for (const folder of this.folders()) {
      if (known.has(folder)) continue;
      if (!(await this.within(folder))) {
        this.outside.add(folder);
        continue;
      }
      for (const path of await configFilesOf(folder)) await this.index(path);
    }
  }

  /** Whether `folder`, its links followed, is inside the configuration folder (as the loader checks a module's source). */
  private async within(folder: string): Promise<boolean> {
    const [real, realRoot] = await Promise.all([realpath(folder).catch(() => undefined), realpath(this.root).catch(() => this.root)]);
    if (real === undefined) return true; // missing: nothing to read
    const inside = relative(realRoot, real);
    return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
  }

  /** Every occurrence of each symbol, with the module calls' inputs resolved. */
  private table(): Map<string, Occurrence[]> {
    if (this.bySymbol) return this.bySymbol;
    const table = new Map<string, Occurrence[]>();
    const put = (o: Occurrence) => {
      const list = table.get(o.symbol);
      if (list) list.push(o);
      else table.set(o.symbol, [o]);
    };
    const asReference = new Map<string, Map<string, string>>();
    for (const names of this.files.values()) {
      names.occurrences.forEach(put);
      if (names.scope === this.root) continue;
      const inFolder = asReference.get(names.scope) ?? new Map<string, string>();
      for (const [variable, kind] of names.variablesAsReferences) inFolder.set(variable, kind);
      asReference.set(names.scope, inFolder);
    }
    for (const names of this.files.values()) {
      for (const input of names.moduleInputs) {
        const kind = asReference.get(input.folder)?.get(input.variable);
        if (kind === undefined) continue;
        const space: Space = `resource:${kind}`;
        put({
          symbol: symbolKey(this.root, space, input.value),
          space,
          name: input.value,
          path: input.path,
          start: input.start,
          end: input.end,
          declaration: false,
        });
      }
    }
    this.bySymbol = table;
    return table;
  }

  occurrencesOf(symbol: string): Occurrence[] {
    return this.table().get(symbol) ?? [];
  }

  declarationsOf(symbol: string): Occurrence[] {
    return this.occurrencesOf(symbol).filter((o) => o.declaration);
  }

  /** The name written at `offset` of `path`, if any (the end of a name counts, as an editor's cursor sits after it). */
  occurrenceAt(path: string, offset: number): Occurrence | undefined {
    for (const list of this.table().values()) {
      for (const o of list) if (o.path === path && o.start <= offset && offset <= o.end) return o;
    }
    return undefined;
  }

  /** The names declared in `scope` of a space (completion). */
  declared(scope: string, space: Space): Occurrence[] {
    const out: Occurrence[] = [];
    for (const names of this.files.values()) {
      if (names.scope !== scope && !space.startsWith('directory:')) continue;
      for (const o of names.occurrences) if (o.declaration && o.space === space) out.push(o);
    }
    return out;
  }
}
