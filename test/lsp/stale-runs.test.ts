/**
 * The language server stops work its client no longer waits for (issue 47 §2): a newer edit aborts the folder's
 * running load, whose result is then never published, and the next run shows the newest text. Deterministic: the
 * load is a promise the test settles, and the debounce runs on fake timers.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Connection } from 'vscode-languageserver/node.js';
import { DiagnosticsPublisher } from '../../src/lsp/publish-diagnostics.js';
import type { Workspace } from '../../src/lsp/workspace.js';
import { loadConfigurationOffThread } from '../../src/session/configuration-off-thread.js';
import type { Diagnostic } from '../../src/config/index.js';

/** The built module, which starts the bundled worker as `cplane lsp` does (the sources load in this thread). */
const builtOffThread = new URL('../../dist/session/configuration-off-thread.js', import.meta.url).href;
const root = '/work/folder';
const file = `${root}/main.yaml`;
const diagnostic = (summary: string): Diagnostic => ({ severity: 'error', code: 'x', summary, range: { file, line: 1, col: 1 } });

/** A workspace whose loads wait until the test settles them, each with the signal it was given. */
function pendingWorkspace() {
  const loads: { signal: AbortSignal | undefined; settle: (summary: string) => void }[] = [];
  const workspace = {
    root,
    diagnose: ({ signal }: { signal?: AbortSignal } = {}) =>
      new Promise<Map<string, Diagnostic[]>>((resolve) =>
        loads.push({ signal, settle: (summary) => resolve(new Map([[file, [diagnostic(summary)]]])) }),
      ),
  } as unknown as Workspace;
  return { workspace, loads };
}

function recordingConnection() {
  const sent: string[] = [];
  const connection = {
    sendDiagnostics: async ({ diagnostics }: { diagnostics: { message: string }[] }) => {
      sent.push(...diagnostics.map((d) => d.message));
    },
    console: { error: (message: string) => sent.push(`error: ${message}`) },
  } as unknown as Connection;
  return { connection, sent };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('stale diagnostics runs', () => {
  it('a newer edit aborts the running load; its result is dropped and the newest one is published', async () => {
    vi.useFakeTimers();
    const { workspace, loads } = pendingWorkspace();
    const { connection, sent } = recordingConnection();
    const publisher = new DiagnosticsPublisher(connection, new Map());

    publisher.schedule(workspace);
    await vi.advanceTimersByTimeAsync(250);
    expect(loads).toHaveLength(1);
    expect(loads[0]!.signal?.aborted).toBe(false);

    publisher.schedule(workspace); // the user typed again while the first load runs
    expect(loads[0]!.signal?.aborted).toBe(true);
    loads[0]!.settle('of the old text');
    await vi.advanceTimersByTimeAsync(250);
    expect(loads).toHaveLength(2); // one load at a time: the second started once the first ended
    loads[1]!.settle('of the new text');
    await vi.advanceTimersByTimeAsync(0);

    expect(sent).toEqual(['of the new text']);
    publisher.stop();
  });

  it('edits within the debounce start one load, not one per keystroke', async () => {
    vi.useFakeTimers();
    const { workspace, loads } = pendingWorkspace();
    const publisher = new DiagnosticsPublisher(recordingConnection().connection, new Map());
    for (let key = 0; key < 10; key++) {
      publisher.schedule(workspace);
      await vi.advanceTimersByTimeAsync(50);
    }
    await vi.advanceTimersByTimeAsync(250);
    expect(loads).toHaveLength(1);
    publisher.stop();
  });

  it('the loader stops for an aborted signal, in this thread and on the built worker: the load rejects with the abort', async () => {
    const built = (await import(builtOffThread)) as { loadConfigurationOffThread: typeof loadConfigurationOffThread };
    const dir = mkdtempSync(join(tmpdir(), 'cplane-stale-'));
    writeFileSync(join(dir, 'main.yaml'), 'account: acct_1\nprojects:\n  app: { name: app }\n');
    const aborted = new AbortController();
    aborted.abort(new Error('stale: a newer edit'));
    for (const load of [loadConfigurationOffThread, built.loadConfigurationOffThread]) {
      await expect(load(dir, { kinds: [], env: {}, cwd: dir } as never, aborted.signal)).rejects.toThrow('stale: a newer edit');
      const during = new AbortController();
      const loading = load(dir, { kinds: [], env: {}, cwd: dir } as never, during.signal);
      during.abort(new Error('stale while loading'));
      await expect(loading).rejects.toThrow('stale while loading');
      // Not aborted, the same load answers (from the worker, for the built one).
      const answered = await load(dir, { kinds: [], env: {}, cwd: dir } as never, new AbortController().signal);
      expect(answered.loadedIn).toBe(load === loadConfigurationOffThread ? 'thread' : 'worker');
    }
  });
});
