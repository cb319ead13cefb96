/**
 * Rename of a name across every file of the configuration and its modules, as one edit. A resource that state
 * may hold keeps its live object: the same edit adds the `moved` block from its old address to its new one (one
 * per module call for a resource of a module; what lives under it moves with it). A `directory` name that a
 * record's grants list is also the name of that grant, which moves too. `moved` and `removed` blocks name what
 * state holds, so their addresses are history and are not renamed.
 */
import { relative } from 'node:path';
import { positionIn, type KindBlock } from '../config/index.js';
import { nameInModule, resourceAddress } from '../plan-model/index.js';
import { symbolKey, type Occurrence } from './file-names.js';
import type { NamesIndex } from './names-index.js';

/** A rename that cannot be made, in words for the person who asked. */
export class RenameRefused extends Error {}

export interface TextChange {
  path: string;
  start: number;
  end: number;
  newText: string;
}

const LOCAL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

function kindOfSpace(occurrence: Occurrence): string | undefined {
  return occurrence.space.startsWith('resource:') ? occurrence.space.slice('resource:'.length) : undefined;
}

/** The name at the cursor, if it can be renamed; refused with why otherwise. */
export function renameTarget(index: NamesIndex, kinds: readonly KindBlock[], path: string, offset: number): Occurrence {
  const at = index.occurrenceAt(path, offset);
  if (!at)
    throw new RenameRefused('Nothing to rename here: put the cursor on a local name, a directory name, a variable or a module call.');
  const kind = kindOfSpace(at);
  const block = kinds.find((b) => b.kind === kind);
  if (block?.list || block?.single) throw new RenameRefused(`A ${block.noun} has no name of its own to rename.`);
  const declarations = index.declarationsOf(at.symbol);
  if (declarations.length === 0)
    throw new RenameRefused(`"${at.name}" is not declared in this configuration: declare it before renaming it.`);
  if (declarations.some((d) => d.forEach !== undefined)) {
    throw new RenameRefused(
      `"${at.name}" has forEach: its instances' addresses carry keys known only when the configuration loads. Rename it by hand, with a moved block per instance (docs/configuration.md).`,
    );
  }
  return at;
}

/** The changes of renaming the name at the cursor to `newName`. */
export function renameChanges(index: NamesIndex, kinds: readonly KindBlock[], path: string, offset: number, newName: string): TextChange[] {
  const target = renameTarget(index, kinds, path, offset);
  const pattern = target.space === 'variable' ? VARIABLE_NAME : LOCAL_NAME;
  if (!pattern.test(newName)) {
    throw new RenameRefused(
      `"${newName}" is not a valid name: ${target.space === 'variable' ? "letters, digits and '_', starting with a letter or '_'" : "letters, digits, '_' and '-', starting with a letter or digit"}, at most 100 characters.`,
    );
  }
  const parts = target.name.split('/');
  const renamed = [...parts.slice(0, -1), newName].join('/');
  if (renamed === target.name) return [];
  const scope = target.symbol.split('\u0000')[0]!;
  const taken = index.declarationsOf(symbolKey(scope, target.space, renamed))[0];
  if (taken) throw new RenameRefused(`"${newName}" is already declared (${relative(index.root, taken.path)}): choose another name.`);

  const changes: TextChange[] = index
    .occurrencesOf(target.symbol)
    .map((o) => ({ path: o.path, start: o.start, end: o.end, newText: newName }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.start - b.start));
  const moves = movesOf(index, target, renamed, scope);
  if (moves.length > 0) changes.push(movedBlocks(index, moves, target));
  return changes;
}

/** The addresses that change, old to new. */
function movesOf(index: NamesIndex, target: Occurrence, renamed: string, scope: string): { from: string; to: string }[] {
  if (target.space === 'module') return moduleCallMoves(index, target.name, renamed);
  const prefixes = scope === index.root ? [[]] : index.callsOf(scope).map((call) => [call]);
  const kind = kindOfSpace(target);
  if (kind !== undefined)
    return prefixes.map((modules) => ({
      from: resourceAddress(kind, nameInModule(modules, target.name)),
      to: resourceAddress(kind, nameInModule(modules, renamed)),
    }));
  if (!target.space.startsWith('directory:')) return [];
  // A grant named by the directory name (`grants.users: [dana]`) is the resource user_share.P/R/dana.
  const moves: { from: string; to: string }[] = [];
  for (const path of index.paths()) {
    const names = index.fileNamesOf(path)!;
    const modules = names.scope === index.root ? [[]] : index.callsOf(names.scope).map((call) => [call]);
    for (const listed of names.listed) {
      if (listed.space !== target.space || listed.name !== target.name) continue;
      for (const prefix of modules) {
        moves.push({
          from: resourceAddress(listed.kind, nameInModule(prefix, `${listed.parent}/${target.name}`)),
          to: resourceAddress(listed.kind, nameInModule(prefix, `${listed.parent}/${renamed}`)),
        });
      }
    }
  }
  return moves;
}

/**
 * A module call renamed moves every resource of the module under the new call (`module.team.gateway.main` to
 * `module.squad.gateway.main`): one block per resource declared at the top of the module, as what is declared
 * inside a resource moves with it. A `forEach` entry's instance keys are known only when the configuration loads,
 * so such a module is refused, as a `forEach` entry is.
 */
function moduleCallMoves(index: NamesIndex, call: string, renamed: string): { from: string; to: string }[] {
  const folder = index.moduleFolder(call);
  if (folder === undefined) return [];
  const declared = index
    .paths()
    .filter((path) => index.fileNamesOf(path)!.scope === folder)
    .flatMap((path) => index.fileNamesOf(path)!.occurrences)
    .filter((o) => o.declaration && o.space.startsWith('resource:') && !o.name.includes('/'));
  const withForEach = declared.find((o) => o.forEach !== undefined);
  if (withForEach) {
    throw new RenameRefused(
      `Module call "${call}" not renamed: its module's ${resourceAddress(kindOfSpace(withForEach)!, withForEach.name)} has forEach, whose instances' addresses carry keys known only when the configuration loads. Rename the call by hand, with a moved block per instance (docs/configuration.md).`,
    );
  }
  return declared.map((o) => ({
    from: resourceAddress(kindOfSpace(o)!, nameInModule([call], o.name)),
    to: resourceAddress(kindOfSpace(o)!, nameInModule([renamed], o.name)),
  }));
}

/**
 * The `moved` blocks as one insertion into a file of the configuration folder (a module's file may not hold
 * one): the file that declares the name, or for a module's name the file that calls the module. They go at the
 * end of its `moved:` list (block or flow style), or under a new `moved:` at the end of the file.
 */
function movedBlocks(index: NamesIndex, moves: { from: string; to: string }[], target: Occurrence): TextChange {
  const declaration = index.declarationsOf(target.symbol)[0]!;
  const rootFiles = index.paths().filter((p) => index.fileNamesOf(p)!.scope === index.root);
  const home = rootFiles.includes(declaration.path)
    ? declaration.path
    : (rootFiles.find((p) => index.fileNamesOf(p)!.calls.size > 0) ?? rootFiles[0] ?? declaration.path);
  const text = index.fileNamesOf(home)?.text ?? '';
  const file = index.fileNamesOf(home)?.file;
  const list = file ? (file.value as Record<string, unknown>).moved : undefined;
  const at = file && Array.isArray(list) ? positionIn(file, file.value, 'moved')?.value : undefined;
  if (file && Array.isArray(list) && at) {
    if (text[at[0]] === '[') {
      const close = text.lastIndexOf(']', at[1]);
      const inline = moves.map((m) => `{ from: ${m.from}, to: ${m.to} }`).join(', ');
      return { path: home, start: close, end: close, newText: `${list.length > 0 ? ', ' : ''}${inline}` };
    }
    const first = positionIn(file, list, 0)!.value[0];
    const indent = text.slice(text.lastIndexOf('\n', first - 1) + 1, first).replace(/-\s*$/, '');
    const last = positionIn(file, list, list.length - 1)!.value[1];
    const lineEnd = text.indexOf('\n', last - 1);
    const start = lineEnd === -1 ? text.length : lineEnd + 1;
    return { path: home, start, end: start, newText: `${lineEnd === -1 ? '\n' : ''}${items(moves, indent)}` };
  }
  const newline = text === '' || text.endsWith('\n') ? '' : '\n';
  return { path: home, start: text.length, end: text.length, newText: `${newline}\nmoved:\n${items(moves, '  ')}` };
}

const items = (moves: { from: string; to: string }[], indent: string) =>
  moves.map((m) => `${indent}- from: ${m.from}\n${indent}  to: ${m.to}\n`).join('');
