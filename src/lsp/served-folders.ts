/**
 * The configuration folders the language server serves: the editor's workspace folders, the open documents'
 * texts (read in place of the disk), and one Workspace per configuration folder, found from a file's path.
 */
import { realpathSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Workspace } from './workspace.js';

export const pathOf = (uri: string): string | undefined => (uri.startsWith('file:') ? fileURLToPath(uri) : undefined);
export const uriOf = (path: string) => pathToFileURL(path).href;
export const isConfigFile = (path: string) => /\.ya?ml$/i.test(path);
/** Whether `path` is in the folder `root` (or is it): what the server may publish for or edit. */
export const within = (root: string, path: string) => {
  const inside = relative(root, path);
  return !inside.startsWith('..') && !isAbsolute(inside);
};

const realOrResolved = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

export class ServedFolders {
  /** The open documents' texts by path: what the loader and the index read in place of the disk. */
  readonly open = new Map<string, string>();
  readonly workspaces = new Map<string, Workspace>();
  /** The editor's workspace folders (real paths): none means any folder. */
  private folders: string[] = [];

  readonly readText = async (path: string) => this.open.get(path) ?? (await readFile(path, 'utf8').catch(() => undefined));

  setWorkspaceFolders(uris: string[]): void {
    this.folders = uris
      .map(pathOf)
      .filter((p): p is string => p !== undefined)
      .map(realOrResolved);
  }

  workspaceFolders(): readonly string[] {
    return this.folders;
  }

  inFolders(path: string): boolean {
    return this.folders.length === 0 || this.folders.some((f) => within(f, path));
  }

  /**
   * The configuration folder a file belongs to: one already served that calls its folder as a module, else a folder
   * above it (inside the workspace folders) that does (a module's file opened first), else its own folder.
   */
  async workspaceOf(path: string): Promise<Workspace | undefined> {
    if (!isConfigFile(path) || !this.inFolders(path)) return undefined;
    for (const workspace of this.workspaces.values()) if (workspace.names.covers(path)) return workspace;
    return (await this.callerAbove(path)) ?? this.serve(dirname(path));
  }

  /**
   * A configuration folder above `path` that calls its folder as a module. It may be above the workspace folder
   * that holds `path` (an editor that made a module's folder its root), but not above that folder's Git work tree.
   */
  async callerAbove(path: string): Promise<Workspace | undefined> {
    const ceiling = await this.ceilingOf(path);
    // Modules sit a level or two below their caller (./modules/team): three levels are looked at, no more.
    let above = dirname(path);
    for (let level = 0; level < 3 && above !== dirname(above) && (ceiling === undefined || within(ceiling, dirname(above))); level++) {
      above = dirname(above);
      if (this.workspaces.has(above) || !(await readdir(above).catch(() => [])).some(isConfigFile)) continue;
      const candidate = await this.serve(above);
      if (candidate.names.covers(path)) return candidate;
      this.workspaces.delete(above);
    }
    return undefined;
  }

  /** How far up a caller is looked for: the workspace folder of `path`, or its Git work tree's root if higher. */
  private async ceilingOf(path: string): Promise<string | undefined> {
    if (this.folders.length === 0) return undefined;
    const folder = this.folders.find((f) => within(f, path));
    if (folder === undefined) return undefined;
    for (let dir = folder; dir !== dirname(dir); dir = dirname(dir)) {
      if (
        await stat(join(dir, '.git')).then(
          () => true,
          () => false,
        )
      )
        return dir;
    }
    return folder;
  }

  async serve(root: string): Promise<Workspace> {
    const known = this.workspaces.get(root);
    if (known) return known;
    const workspace = this.add(root);
    await workspace.names.load();
    return workspace;
  }

  /** A workspace for `root`, its index not read yet. */
  add(root: string): Workspace {
    const workspace = new Workspace(root, this.open, this.readText);
    this.workspaces.set(root, workspace);
    return workspace;
  }
}
