import type { KindBlock } from '../src/config/blocks/kind-block.js';
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
/** The text of the generated src/api/routes.ts, from the operations' table. */
export declare function routesSource(api: { operations: Record<string, object>; routeFields: readonly string[] }): Promise<string>;
/** Each stale generated file under `dir` (relative path -> wanted text) as a line to print; with `write`, rewritten. */
export declare function checkFiles(dir: string, files: Record<string, string>, options?: { write?: boolean }): string[];
