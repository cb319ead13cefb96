/**
 * The refactoring blocks (`moved`, `removed`, `import`, after Terraform's) gathered from every file and
 * checked against the configuration alone: a `moved` or `removed` whose `from` is still configured, a `moved`
 * between kinds, two moves from one address, a chain of moves that loops, an `import` into an address that
 * is not configured. What needs state (is `to` already managed?) is checked by the planner.
 */
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { offsetIn, positionIn, type SourceFile } from '../files/source-file.js';
import type { LoadedFile } from '../build-desired.js';
import { kindOf } from '../../plan-model/address.js';
import { findCycles, startingAtSmallest } from '../../graph/index.js';
import type { DesiredResource, RefactoringBlocks, SourceRange } from '../types.js';

/** A block: the `index`-th item of the file's list `list` (`moved`, `removed` or `import`). */
interface Placed {
  file: SourceFile;
  list: unknown[];
  index: number;
}

function offsetOf({ file, list, index }: Placed, field?: string): number {
  const block = offsetIn(file, list, index, 'value');
  return field ? (positionIn(file, list[index], field)?.value[0] ?? block) : block;
}

function rangeAt(placed: Placed, field?: string): SourceRange {
  const { line, col } = placed.file.lines.linePos(offsetOf(placed, field));
  return { file: placed.file.display, line, col };
}

export function collectRefactoringBlocks(
  files: LoadedFile[],
  resources: DesiredResource[],
  sink: DiagnosticSink,
): RefactoringBlocks | undefined {
  const configured = new Set(resources.map((r) => r.address));
  const blocks: RefactoringBlocks = { moved: [], removed: [], imports: [] };
  const at = (placed: Placed, field: string, value: string, init: { code: string; summary: string; detail?: string }) => {
    const offset = offsetOf(placed, field);
    sink.push(diagnosticAt(placed.file, offset, { ...init, end: offset + value.length }));
  };

  const movedFrom = new Map<string, { to: string; placed: Placed }>();
  const importedTo = new Set<string>();
  for (const { file, config } of files) {
    (config.moved ?? []).forEach(({ from, to }, i) => {
      const placed = { file, list: config.moved!, index: i };
      if (kindOf(from) !== kindOf(to)) {
        return at(placed, 'to', to, {
          code: 'moved_kind_mismatch',
          summary: `moved: ${from} is a ${kindOf(from)} and cannot move to ${to}, a ${kindOf(to)}`,
          detail: 'A move renames an address; the kind stays the same.',
        });
      }
      if (configured.has(from)) {
        return at(placed, 'from', from, {
          code: 'moved_from_configured',
          summary: `moved: ${from} is still in the configuration`,
          detail: `A moved block says ${from} is now ${to}: rename the resource in the configuration, or delete this block.`,
        });
      }
      if (movedFrom.has(from)) {
        return at(placed, 'from', from, {
          code: 'moved_duplicate_from',
          summary: `moved: ${from} is moved twice (to ${movedFrom.get(from)?.to} and to ${to})`,
          detail: 'An address can move to one place only; delete one of the blocks.',
        });
      }
      movedFrom.set(from, { to, placed });
      blocks.moved.push({ from, to, source: rangeAt(placed) });
    });
    (config.removed ?? []).forEach(({ from }, i) => {
      const placed = { file, list: config.removed!, index: i };
      if (configured.has(from)) {
        return at(placed, 'from', from, {
          code: 'removed_still_configured',
          summary: `removed: ${from} is still in the configuration`,
          detail: 'Delete the resource from the configuration to stop managing it, or delete this block.',
        });
      }
      blocks.removed.push({ from, source: rangeAt(placed) });
    });
    (config.import ?? []).forEach(({ to, id }, i) => {
      const placed = { file, list: config.import!, index: i };
      if (!configured.has(to)) {
        return at(placed, 'to', to, {
          code: 'import_not_configured',
          summary: `import: ${to} is not in the configuration`,
          detail: 'Declare the resource the object is imported into, with the attributes it should keep.',
        });
      }
      if (importedTo.has(to)) {
        return at(placed, 'to', to, {
          code: 'import_duplicate',
          summary: `import: ${to} is imported twice`,
          detail: 'One address adopts one object; delete one of the blocks.',
        });
      }
      importedTo.add(to);
      blocks.imports.push({ to, id, source: rangeAt(placed) });
    });
  }
  reportMoveCycles(movedFrom, at);
  const any = blocks.moved.length + blocks.removed.length + blocks.imports.length > 0;
  return any ? blocks : undefined;
}

/** Each loop of moves (`a -> b -> a`) is reported once, at the block whose `from` comes first in sort order. */
function reportMoveCycles(
  movedFrom: Map<string, { to: string; placed: Placed }>,
  at: (placed: Placed, field: string, value: string, init: { code: string; summary: string; detail?: string }) => void,
): void {
  const moves = new Map([...movedFrom.keys()].sort().map((from) => [from, [movedFrom.get(from)!.to]]));
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  // Each address is moved once, so each loop is one cycle, found once; it is told from its first address in sort order.
  const cycles = findCycles(moves).map((c) => startingAtSmallest(c, byName));
  for (const cycle of cycles.sort((a, b) => byName(a[0]!, b[0]!))) {
    const start = cycle[0]!;
    const placed = movedFrom.get(start)!.placed;
    at(placed, 'from', start, {
      code: 'moved_cycle',
      summary: `moved: the moves form a cycle: ${cycle.join(' -> ')}`,
      detail: 'Each address can be moved once along a chain that ends; delete the block that closes the loop.',
    });
  }
}
