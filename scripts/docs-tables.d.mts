import type { KindBlock } from '../src/config/kind-block.js';
import type { NoticeCheck } from '../src/planner/index.js';

/** The docs' tables, by the name their markers give, from the registry's configuration blocks and the table of notices. */
export declare function generateTables(registry: {
  kindBlocks: readonly KindBlock[];
  nestingOrder: readonly string[];
  noticeChecks: readonly NoticeCheck[];
}): Record<string, string>;
/** The table of a plan's notices (docs/planning.md). */
export declare function noticesTable(noticeChecks: readonly NoticeCheck[]): string;
/** Each stale, unknown or missing table under `dir` as a line to print; with `write`, the stale ones are rewritten. */
export declare function checkTables(dir: string, tables: Record<string, string>, options?: { write?: boolean }): string[];
