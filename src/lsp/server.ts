/**
 * `cplane lsp`: a language server (Language Server Protocol 3.17, over stdio) for cplane's configuration, on
 * `vscode-languageserver`. It serves each configuration folder an editor opens a file of (with the modules it
 * calls): diagnostics from the loader on open and, debounced, on change, for every file of the folder;
 * completion, hover, go to definition, find references, rename (with the `moved` block that keeps the live
 * object), quick fixes and `cplane fmt` as formatting. A request it cannot answer is an LSP error with a
 * sentence, never a crash: the editor keeps its server.
 */
import { realpathSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import lsp from 'vscode-languageserver/node.js';
import type {
  CancellationToken,
  CodeAction,
  CompletionItem,
  Diagnostic as LspDiagnostic,
  Location,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { formatConfigText, type Diagnostic, type JsonSchema } from '../config/index.js';
import { packageFile } from '../package-files.js';
import { kindBlocks } from '../providers/index.js';
import { fixesFor, pinServiceAccount } from './code-actions.js';
import { complete } from './completion.js';
import { hoverAt } from './hover.js';
import { RenameRefused, renameChanges, renameTarget, type TextChange } from './rename.js';
import { Workspace } from './workspace.js';

const {
  createConnection,
  DidChangeWatchedFilesNotification,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
  ResponseError,
  ErrorCodes,
  LSPErrorCodes,
  CompletionItemKind,
  DiagnosticSeverity,
  CodeActionKind,
} = lsp;

/** How long the diagnostics of a folder wait after a change for the next one (typing) before the loader runs. */
const DEBOUNCE_MS = 200;

const pathOf = (uri: string): string | undefined => (uri.startsWith('file:') ? fileURLToPath(uri) : undefined);
const uriOf = (path: string) => pathToFileURL(path).href;
const isConfigFile = (path: string) => /\.ya?ml$/i.test(path);
/** Whether `path` is in the configuration folder `root` (or is it): what the server may publish for or edit. */
const within = (root: string, path: string) => {
  const inside = relative(root, path);
  return !inside.startsWith('..') && !isAbsolute(inside);
};

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

export function startLanguageServer(input: Readable, output: Writable): Promise<void> {
  const connection = createConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
  const documents = new TextDocuments(TextDocument);
  /** The open documents' texts by path: what the loader and the index read in place of the disk. */
  const open = new Map<string, string>();
  const workspaces = new Map<string, Workspace>();
  const published = new Map<Workspace, Set<string>>();
  const timers = new Map<Workspace, NodeJS.Timeout>();
  const running = new Map<Workspace, Promise<void>>();
  /** The diagnostics run each folder's last change asked for: a newer change aborts it (its result would be stale). */
  const current = new Map<Workspace, AbortController>();
  let folders: string[] = [];
  let schema: JsonSchema | undefined;
  /**
   * The documents' notifications are handled one after another, and a request waits for those before it: it
   * answers on the index of every change the editor sent before asking.
   */
  let settled = Promise.resolve();
  const inTurn = (work: () => Promise<void>) => {
    settled = settled.then(work).catch((error: unknown) => connection.console.error(`cplane lsp: ${String(error)}`));
  };

  const readText = async (path: string) => open.get(path) ?? (await readFile(path, 'utf8').catch(() => undefined));
  const schemaOf = async () => (schema ??= JSON.parse(await readFile(packageFile('schema', 'config.schema.json'), 'utf8')) as JsonSchema);
  const inFolders = (path: string) =>
    folders.length === 0 ||
    folders.some((f) => {
      const inside = relative(f, path);
      return !inside.startsWith('..') && !isAbsolute(inside);
    });

  /**
   * The configuration folder a file belongs to: one already served that calls its folder as a module, else a folder
   * above it (inside the workspace folders) that does (a module's file opened first), else its own folder.
   */
  async function workspaceOf(path: string): Promise<Workspace | undefined> {
    if (!isConfigFile(path) || !inFolders(path)) return undefined;
    for (const workspace of workspaces.values()) if (workspace.names.covers(path)) return workspace;
    // Modules sit a level or two below their caller (./modules/team): three levels are looked at, no more.
    let above = dirname(path);
    for (let level = 0; level < 3 && above !== dirname(above) && inFolders(dirname(above)); level++) {
      above = dirname(above);
      if (workspaces.has(above) || !(await readdir(above).catch(() => [])).some(isConfigFile)) continue;
      const candidate = await serve(above);
      if (candidate.names.covers(path)) return candidate;
      workspaces.delete(above);
    }
    return serve(dirname(path));
  }

  async function serve(root: string): Promise<Workspace> {
    const workspace = workspaces.get(root) ?? new Workspace(root, open, readText);
    if (!workspaces.has(root)) {
      workspaces.set(root, workspace);
      await workspace.names.load();
    }
    return workspace;
  }

  async function publish(workspace: Workspace, how: { inThread?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    const byPath = await workspace.diagnose(how);
    if (how.signal?.aborted) return;
    const before = published.get(workspace) ?? new Set();
    for (const [path, diagnostics] of byPath) {
      if (path === workspace.root || !within(workspace.root, path)) continue;
      void connection.sendDiagnostics({ uri: uriOf(path), diagnostics: diagnostics.map(toLsp) });
      before.delete(path);
    }
    // A problem of no one file (no configuration file left) is shown on each open file of the folder.
    const general = byPath.get(workspace.root) ?? [];
    for (const path of open.keys())
      if (general.length > 0 && dirname(path) === workspace.root)
        void connection.sendDiagnostics({ uri: uriOf(path), diagnostics: general.map(toLsp) });
    for (const path of before) void connection.sendDiagnostics({ uri: uriOf(path), diagnostics: [] });
    published.set(workspace, new Set(byPath.keys()));
  }

  /** Diagnostics after the changes stop for DEBOUNCE_MS; one run at a time per folder, the last change always seen. */
  function schedule(workspace: Workspace): void {
    clearTimeout(timers.get(workspace));
    current.get(workspace)?.abort();
    const run = new AbortController();
    current.set(workspace, run);
    timers.set(
      workspace,
      setTimeout(() => {
        timers.delete(workspace);
        const previous = running.get(workspace) ?? Promise.resolve();
        running.set(
          workspace,
          previous
            .then(() => publish(workspace, { signal: run.signal }))
            .catch((error: unknown) => {
              if (!run.signal.aborted) connection.console.error(`cplane lsp: diagnostics failed: ${String(error)}`);
            }),
        );
      }, DEBOUNCE_MS),
    );
  }

  async function changed(uri: string, text: string | undefined): Promise<void> {
    const path = pathOf(uri);
    if (path === undefined) return;
    if (text === undefined) open.delete(path);
    else open.set(path, text);
    if (!isConfigFile(path)) return;
    if (!inFolders(path)) {
      void connection.sendDiagnostics({
        uri,
        diagnostics:
          text === undefined
            ? []
            : [
                {
                  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
                  severity: DiagnosticSeverity.Information,
                  code: 'outside_workspace',
                  source: 'cplane',
                  message:
                    'This file is outside the workspace folders: cplane reads configuration folders inside them only. Open its folder as a workspace folder.',
                },
              ],
      });
      return;
    }
    const workspace = await workspaceOf(path);
    if (!workspace) return;
    await workspace.names.update(path);
    schedule(workspace);
  }

  /** The workspace and file of a request, or an LSP error that says why there is none. */
  async function served(
    uri: string,
    token?: CancellationToken,
  ): Promise<{ workspace: Workspace; path: string; text: string; doc: TextDocument }> {
    await settled;
    // The client gave up while the changes before its request were handled: nothing is worked out for it.
    if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'The request was cancelled');
    const path = pathOf(uri);
    if (path === undefined)
      throw new ResponseError(ErrorCodes.InvalidParams, `cplane lsp serves files on disk (file: URIs), not ${uri.split(':')[0]}:`);
    if (!isConfigFile(path)) throw new ResponseError(ErrorCodes.InvalidParams, `${path} is not a configuration file (*.yaml or *.yml)`);
    const workspace = inFolders(path) ? await workspaceOf(path) : undefined;
    if (!workspace)
      throw new ResponseError(
        ErrorCodes.InvalidParams,
        `${path} is outside the workspace folders: cplane reads configuration folders inside them only`,
      );
    const text = (await readText(path)) ?? '';
    return { workspace, path, text, doc: TextDocument.create(uri, 'yaml', 0, text) };
  }

  /** Each file's document once per answer: a rename across 500 files has a thousand places in them. */
  function documentsFor(): (path: string) => Promise<TextDocument> {
    const made = new Map<string, TextDocument>();
    return async (path) => {
      let doc = made.get(path);
      if (!doc) made.set(path, (doc = TextDocument.create(uriOf(path), 'yaml', 0, (await readText(path)) ?? '')));
      return doc;
    };
  }

  async function workspaceEdit(changes: TextChange[]): Promise<WorkspaceEdit> {
    const edits: Record<string, TextEdit[]> = {};
    const documentFor = documentsFor();
    for (const change of changes) {
      const doc = await documentFor(change.path);
      (edits[doc.uri] ??= []).push({
        range: { start: doc.positionAt(change.start), end: doc.positionAt(change.end) },
        newText: change.newText,
      });
    }
    return { changes: edits };
  }

  async function locations(occurrences: { path: string; start: number; end: number }[]): Promise<Location[]> {
    const out: Location[] = [];
    const documentFor = documentsFor();
    for (const o of occurrences) {
      const doc = await documentFor(o.path);
      out.push({ uri: doc.uri, range: { start: doc.positionAt(o.start), end: doc.positionAt(o.end) } });
    }
    return out;
  }

  let watchFiles = false;
  connection.onInitialize((params) => {
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    const given = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    folders = given
      .map(pathOf)
      .filter((p): p is string => p !== undefined)
      .map((p) => {
        try {
          return realpathSync(p);
        } catch {
          return resolve(p);
        }
      });
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: ['.', ' ', '[', ',', '-'] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        documentFormattingProvider: true,
      },
      serverInfo: { name: 'cplane' },
    };
  });

  // A workspace folder that is a configuration folder is diagnosed at once, before any file is opened; its index
  // is made after, so that the first diagnostics wait for one reading of the files, not two.
  connection.onInitialized(() =>
    inTurn(async () => {
      // Files changed on disk but not open (a checkout, a rename's edit written without opening) reach the index too.
      if (watchFiles)
        void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.{yaml,yml}' }] });
      for (const folder of folders) {
        if (!(await readdir(folder).catch(() => [])).some(isConfigFile)) continue;
        const workspace = new Workspace(folder, open, readText);
        workspaces.set(folder, workspace);
        await publish(workspace, { inThread: true }).catch((error: unknown) =>
          connection.console.error(`cplane lsp: diagnostics failed: ${String(error)}`),
        );
        await workspace.names.load();
      }
    }),
  );

  // Opening a document fires its change of content too: one handler for both.
  documents.onDidChangeContent((e) => inTurn(() => changed(e.document.uri, e.document.getText())));
  documents.onDidClose((e) => inTurn(() => changed(e.document.uri, undefined)));

  connection.onCompletion(async ({ textDocument, position }, token): Promise<CompletionItem[]> => {
    const { workspace, path, text, doc } = await served(textDocument.uri, token);
    const offset = doc.offsetAt(position);
    return complete(workspace.names, kindBlocks, await schemaOf(), path, text, offset).map((s) => ({
      label: s.label,
      kind:
        s.what === 'key'
          ? CompletionItemKind.Property
          : s.what === 'variable'
            ? CompletionItemKind.Variable
            : s.what === 'cel'
              ? CompletionItemKind.Variable
              : CompletionItemKind.Reference,
      ...(s.detail ? { detail: s.detail } : {}),
      ...(s.documentation ? { documentation: s.documentation } : {}),
      textEdit: { range: { start: doc.positionAt(s.replaceFrom), end: position }, newText: s.label },
    }));
  });

  connection.onHover(async ({ textDocument, position }, token) => {
    const { workspace, path, text, doc } = await served(textDocument.uri, token);
    const value = hoverAt(workspace.names, await schemaOf(), path, text, doc.offsetAt(position));
    return value === undefined ? null : { contents: { kind: 'markdown', value } };
  });

  connection.onDefinition(async ({ textDocument, position }, token) => {
    const { workspace, path, doc } = await served(textDocument.uri, token);
    const at = workspace.names.occurrenceAt(path, doc.offsetAt(position));
    return at ? locations(workspace.names.declarationsOf(at.symbol)) : null;
  });

  connection.onReferences(async ({ textDocument, position, context }, token) => {
    const { workspace, path, doc } = await served(textDocument.uri, token);
    const at = workspace.names.occurrenceAt(path, doc.offsetAt(position));
    return at ? locations(workspace.names.occurrencesOf(at.symbol).filter((o) => context.includeDeclaration || !o.declaration)) : null;
  });

  const refused = (error: unknown) =>
    error instanceof RenameRefused ? new ResponseError(ErrorCodes.InvalidRequest, error.message) : error;

  connection.onPrepareRename(async ({ textDocument, position }, token) => {
    const { workspace, path, doc } = await served(textDocument.uri, token);
    try {
      const at = renameTarget(workspace.names, kindBlocks, path, doc.offsetAt(position));
      return { range: { start: doc.positionAt(at.start), end: doc.positionAt(at.end) }, placeholder: at.name.split('/').at(-1)! };
    } catch (error) {
      throw refused(error);
    }
  });

  connection.onRenameRequest(async ({ textDocument, position, newName }, token) => {
    const { workspace, path, doc } = await served(textDocument.uri, token);
    try {
      const changes = renameChanges(workspace.names, kindBlocks, path, doc.offsetAt(position), newName);
      // Never an edit of a file outside the configuration folder (the index reads none; this holds whatever it reads).
      const outside = changes.find((c) => !within(workspace.root, c.path));
      if (outside)
        throw new ResponseError(
          ErrorCodes.InvalidRequest,
          `Not renamed: ${outside.path} is outside the configuration folder ${workspace.root}`,
        );
      return await workspaceEdit(changes);
    } catch (error) {
      throw refused(error);
    }
  });

  connection.onCodeAction(async ({ textDocument, range, context }, token) => {
    const { workspace, path, text, doc } = await served(textDocument.uri, token);
    const rootFiles = workspace.names.paths().filter((p) => dirname(p) === workspace.root);
    const directoryPath =
      rootFiles.find((p) => workspace.names.fileNamesOf(p)?.occurrences.some((o) => o.declaration && o.space.startsWith('directory:'))) ??
      (dirname(path) === workspace.root ? path : (rootFiles[0] ?? path));
    const directoryFile = {
      path: directoryPath,
      text: (await readText(directoryPath)) ?? '',
      file: workspace.names.fileNamesOf(directoryPath)?.file,
    };
    const actions: CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== 'cplane' || typeof diagnostic.code !== 'string') continue;
      for (const fix of fixesFor(
        diagnostic.code,
        diagnostic.message.split('\n')[0]!,
        path,
        text,
        workspace.names.fileNamesOf(path)?.file,
        directoryFile,
      )) {
        actions.push({
          title: fix.title,
          kind: CodeActionKind.QuickFix,
          diagnostics: [diagnostic],
          edit: await workspaceEdit([fix.change]),
        });
      }
    }
    const at = workspace.names.occurrenceAt(path, doc.offsetAt(range.start));
    if (at?.space === 'directory:serviceAccounts' && workspace.names.declarationsOf(at.symbol).length === 0) {
      const fix = pinServiceAccount(at.name, directoryFile);
      actions.push({ title: fix.title, kind: CodeActionKind.QuickFix, edit: await workspaceEdit([fix.change]) });
    }
    return actions;
  });

  connection.onDocumentFormatting(async ({ textDocument }, token) => {
    const { text, doc } = await served(textDocument.uri, token);
    const formatted = formatConfigText(text, await schemaOf());
    if (!formatted.ok) throw new ResponseError(ErrorCodes.InvalidRequest, `Not formatted: ${formatted.reason}`);
    return formatted.text === text
      ? []
      : [{ range: { start: doc.positionAt(0), end: doc.positionAt(text.length) }, newText: formatted.text }];
  });

  connection.onDidChangeWatchedFiles(({ changes }) =>
    inTurn(async () => {
      for (const change of changes) {
        const path = pathOf(change.uri);
        if (path === undefined || open.has(path)) continue;
        for (const workspace of workspaces.values()) {
          if (!workspace.names.covers(path)) continue;
          await workspace.names.update(path);
          schedule(workspace);
        }
      }
    }),
  );

  // The client is gone when its end of stdin closes (the library's own watch of the client's process id, given in
  // `initialize`, covers a client killed with stdin held open): the server exits rather than work for no one.
  let shutdown = false;
  connection.onShutdown(() => {
    shutdown = true;
  });
  const clientGone = () => process.exit(shutdown ? 0 : 1);
  input.once('end', clientGone);
  input.once('close', clientGone);

  documents.listen(connection);
  connection.listen();
  return new Promise((done) =>
    connection.onExit(() => {
      for (const timer of timers.values()) clearTimeout(timer);
      done();
    }),
  );
}
