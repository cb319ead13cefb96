/**
 * Where a path the configuration names may lead (a deployment's `varFiles`, a `{ file: }` secret source, a
 * test file; an MCP tool's `varFiles` input): inside the configuration folder, or inside the Git work tree
 * that holds it, so that the folders of one repository can share a var file. A configuration comes from a
 * pull request nobody has reviewed yet, and what it names is read and may be quoted in a diagnostic that
 * goes into the pull-request comment: a path outside (the state key file, /proc/self/environ) would publish
 * it. So a path outside, by `..`, by an absolute path or through a symbolic link that leaves, is refused
 * before anything reads it; so is one through `.git` (the checkout's credentials) or `.cplane` (the state).
 *
 * The work tree is the nearest folder at or above the configuration folder that has a `.git` entry (a folder,
 * or a file in a linked work tree or submodule): found by looking, with no git process. A work tree at the
 * home folder or above it (dotfiles kept in Git) is no bound: it holds `~/.config/cplane/state.key` and every
 * other credential of the user, so the configuration folder is the bound there.
 */
import { lstat, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** The folders a configuration's paths may lead into, as written and with every link resolved. */
export interface PathBounds {
  /** The folder paths must stay in, as its path is written: the work tree's root, else the configuration folder. */
  root: string;
  /** The same folder with its links resolved. */
  realRoot: string;
  /** `the Git work tree /repo` or `the configuration folder /repo/infra`: how messages name it. */
  name: string;
}

/** Path components never read from, wherever they are: the checkout's own data and cplane's state folder. */
const PRIVATE_FOLDERS = new Set(['.git', '.cplane']);

/** Why a path is refused: outside the bounds (as written or once its links are followed), or in a private folder. */
export type PathRefusal = 'outside' | 'link_outside' | 'private';

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** The bounds of the configuration folder `folder` (absolute). */
export async function pathBounds(folder: string): Promise<PathBounds> {
  let tree: string | undefined;
  for (let at = folder; ; at = dirname(at)) {
    if (await exists(resolve(at, '.git'))) {
      tree = at;
      break;
    }
    if (dirname(at) === at) break;
  }
  if (tree !== undefined && within(tree, homedir())) tree = undefined;
  const root = tree ?? folder;
  const realRoot = await realpath(root).catch(() => root);
  return { root, realRoot, name: tree ? `the Git work tree ${tree}` : `the configuration folder ${folder}` };
}

const within = (root: string, path: string) => {
  const inside = relative(root, path);
  return !inside.startsWith('..') && !isAbsolute(inside);
};

const throughPrivate = (root: string, path: string) =>
  relative(root, path)
    .split(sep)
    .some((part) => PRIVATE_FOLDERS.has(part));

/**
 * The path `path` (absolute) resolves to once its links are followed, when it stays in `bounds`; else why not.
 * A path that does not exist (yet) is checked through the nearest folder above it that does.
 */
export async function checkPathInside(path: string, bounds: PathBounds): Promise<{ real: string } | { refused: PathRefusal }> {
  if (!within(bounds.root, path)) return { refused: 'outside' };
  if (throughPrivate(bounds.root, path)) return { refused: 'private' };
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    const parent = await checkPathInside(dirname(path), bounds);
    if ('refused' in parent) return parent;
    real = resolve(parent.real, basename(path));
  }
  if (!within(bounds.realRoot, real)) return { refused: 'link_outside' };
  if (throughPrivate(bounds.realRoot, real)) return { refused: 'private' };
  return { real };
}

/** The refusal in words, after `"<path>" `: `is outside the Git work tree /repo`. */
export function refusalWords(refusal: PathRefusal, bounds: PathBounds): string {
  if (refusal === 'outside') return `is outside ${bounds.name}`;
  if (refusal === 'link_outside') return `leads outside ${bounds.name} through a symbolic link`;
  return `is inside a folder cplane never reads from (${[...PRIVATE_FOLDERS].join(', ')})`;
}

/** What every refusal tells the user to do. */
export const PATH_HINT =
  'Keep the file inside the configuration folder, or elsewhere in the same Git work tree (not through a link that leaves it): nothing outside is read, since a pull request could otherwise name any file of the machine.';
