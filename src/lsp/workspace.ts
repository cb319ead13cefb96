/**
 * One configuration folder as the language server sees it: its index of names (names-index.ts) and its
 * diagnostics, which are `cplane validate`'s: the same loader (`loadConfiguration`, variables without a value
 * checked for their type only) and the same compilation of the policies' rules, reading the editor's unsaved
 * buffers in place of the files on disk. Nothing is sent to the API.
 */
import { resolve } from 'node:path';
import type { Diagnostic, OpenDocuments } from '../config/index.js';
import { kindBlocks, loadConfiguration } from '../providers/index.js';
import { loadConfigurationOffThread } from '../session/configuration-off-thread.js';
import { NamesIndex, type ReadText } from './names-index.js';

export class Workspace {
  readonly names: NamesIndex;

  constructor(
    readonly root: string,
    private readonly open: OpenDocuments,
    readText: ReadText,
  ) {
    this.names = new NamesIndex(root, kindBlocks, readText);
  }

  /**
   * Every diagnostic of the folder and its modules, by absolute path (a problem of no file is the folder's). On a
   * worker thread (built), so that completion, hover and rename are answered while a large folder loads; the first
   * time in this thread, which has nothing to answer yet and so spares the worker's start and the result's copy.
   * `signal` stops the worker's load when a newer edit makes it stale.
   */
  async diagnose({ inThread = false, signal }: { inThread?: boolean; signal?: AbortSignal } = {}): Promise<Map<string, Diagnostic[]>> {
    const options = { cwd: this.root, allowUnsetVariables: true, open: this.open, env: process.env };
    const loaded = inThread ? await loadConfiguration(this.root, options) : await loadConfigurationOffThread(this.root, options, signal);
    const { unsetVariables = [] } = loaded;
    // As validate: a rule that uses a variable without a value is compiled by plan, with the value.
    const compilable = (loaded.desired?.policies ?? []).filter((p) => !unsetVariables.some((name) => p.rule.includes(`\${var.${name}}`)));
    const policyProblems =
      compilable.length > 0 ? (await (await import('../policy/index.js')).compilePolicies(compilable)).diagnostics : [];
    // Every file read gets its list, empty or not, so that a problem fixed is cleared (before the index is made, the loader's list).
    const files = loaded.desired?.files.map((name) => resolve(this.root, name)) ?? this.names.paths();
    const byPath = new Map<string, Diagnostic[]>(files.map((path) => [path, []]));
    for (const d of [...loaded.diagnostics, ...policyProblems]) {
      const path = d.range ? resolve(this.root, d.range.file) : this.root;
      byPath.set(path, [...(byPath.get(path) ?? []), d]);
    }
    return byPath;
  }
}
