/**
 * The language server's diagnostics: the loader's, turned into LSP ones and published per file of a
 * configuration folder, debounced after changes, one run at a time per folder, a stale run aborted.
 */
import { dirname } from 'node:path';
import lsp from 'vscode-languageserver/node.js';
import type { Connection, Diagnostic as LspDiagnostic } from 'vscode-languageserver/node.js';
import type { Diagnostic } from '../config/index.js';
import { uriOf, within } from './served-folders.js';
import type { Workspace } from './workspace.js';

const { DiagnosticSeverity } = lsp;

/** How long the diagnostics of a folder wait after a change for the next one (typing) before the loader runs. */
const DEBOUNCE_MS = 200;

/** The range of a loader diagnostic: its line and column, as wide as the caret under it in its snippet. */
function rangeOf(d: Diagnostic) {
  const line = (d.range?.line ?? 1) - 1;
  const character = (d.range?.col ?? 1) - 1;
  const carets = /\^+\s*$/.exec(d.snippet?.split('\n')[1] ?? '')?.[0].trim().length ?? 1;
  return { start: { line, character }, end: { line, character: character + carets } };
}

function toLsp(d: Diagnostic): LspDiagnostic {
  return {
    range: rangeOf(d),
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: 'cplane',
    message: d.detail ? `${d.summary}\n${d.detail}` : d.summary,
  };
}

export class DiagnosticsPublisher {
  private readonly published = new Map<Workspace, Set<string>>();
  private readonly timers = new Map<Workspace, NodeJS.Timeout>();
  private readonly running = new Map<Workspace, Promise<void>>();
  /** The run each folder's last change asked for: a newer change aborts it (its result would be stale). */
  private readonly current = new Map<Workspace, AbortController>();

  constructor(
    private readonly connection: Connection,
    private readonly open: ReadonlyMap<string, string>,
  ) {}

  async publish(workspace: Workspace, how: { inThread?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    const byPath = await workspace.diagnose(how);
    if (how.signal?.aborted) return;
    const before = this.published.get(workspace) ?? new Set();
    for (const [path, diagnostics] of byPath) {
      if (path === workspace.root || !within(workspace.root, path)) continue;
      void this.connection.sendDiagnostics({ uri: uriOf(path), diagnostics: diagnostics.map(toLsp) });
      before.delete(path);
    }
    // A problem of no one file (no configuration file left) is shown on each open file of the folder.
    const general = byPath.get(workspace.root) ?? [];
    for (const path of this.open.keys())
      if (general.length > 0 && dirname(path) === workspace.root)
        void this.connection.sendDiagnostics({ uri: uriOf(path), diagnostics: general.map(toLsp) });
    for (const path of before) void this.connection.sendDiagnostics({ uri: uriOf(path), diagnostics: [] });
    this.published.set(workspace, new Set(byPath.keys()));
  }

  /** Diagnostics after the changes stop for DEBOUNCE_MS; one run at a time per folder, the last change always seen. */
  schedule(workspace: Workspace): void {
    clearTimeout(this.timers.get(workspace));
    this.current.get(workspace)?.abort();
    const run = new AbortController();
    this.current.set(workspace, run);
    this.timers.set(
      workspace,
      setTimeout(() => {
        this.timers.delete(workspace);
        const previous = this.running.get(workspace) ?? Promise.resolve();
        this.running.set(
          workspace,
          previous
            .then(() => this.publish(workspace, { signal: run.signal }))
            .catch((error: unknown) => {
              if (!run.signal.aborted) this.connection.console.error(`cplane lsp: diagnostics failed: ${String(error)}`);
            }),
        );
      }, DEBOUNCE_MS),
    );
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
  }
}
