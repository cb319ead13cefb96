import type { KindBlock } from '../src/config/kind-block.js';

/** The docs' tables of kinds, by the name their markers give, from the registry's configuration blocks. */
export declare function generateTables(registry: {
  kindBlocks: readonly KindBlock[];
  nestingOrder: readonly string[];
}): Record<string, string>;
/** Each stale, unknown or missing table under `dir` as a line to print; with `write`, the stale ones are rewritten. */
export declare function checkTables(dir: string, tables: Record<string, string>, options?: { write?: boolean }): string[];
