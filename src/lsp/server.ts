/**
 * `cplane lsp`: a language server (Language Server Protocol 3.17, over stdio) for cplane's configuration, on
 * `vscode-languageserver`. It serves each configuration folder an editor opens a file of (with the modules it
 * calls): diagnostics from the loader on open and, debounced, on change, for every file of the folder;
 * completion, hover, go to definition, find references, rename (with the `moved` block that keeps the live
 * object), quick fixes and `cplane fmt` as formatting. A request it cannot answer is an LSP error with a
 * sentence, never a crash: the editor keeps its server.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import lsp from 'vscode-languageserver/node.js';
import type {
  CancellationToken,
  CodeAction,
  CodeActionParams,
  CompletionItem,
  Connection,
  InitializeParams,
  InitializeResult,
  Location,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { formatConfigText, type JsonSchema } from '../config/index.js';
import { packageFile } from '../package-files.js';
import { kindBlocks } from '../providers/index.js';
import { fixesFor, pinServiceAccount } from './code-actions.js';
import { complete, type Suggestion } from './completion.js';
import { hoverAt } from './hover.js';
import { DiagnosticsPublisher } from './publish-diagnostics.js';
import { RenameRefused, renameChanges, renameTarget, type TextChange } from './rename.js';
import { isConfigFile, pathOf, ServedFolders, uriOf, within } from './served-folders.js';
import type { Workspace } from './workspace.js';

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

/** The file a request is about, in its configuration folder. */
interface Served {
  workspace: Workspace;
  path: string;
  text: string;
  doc: TextDocument;
}

/** What every handler shares: the connection, the folders served, their diagnostics. */
interface Server {
  connection: Connection;
  folders: ServedFolders;
  diagnostics: DiagnosticsPublisher;
  /** Runs notifications' work one after another (see `inTurn`). */
  inTurn(work: () => Promise<void>): void;
  /** The workspace and file of a request, or an LSP error that says why there is none. */
  served(uri: string, token?: CancellationToken): Promise<Served>;
  schema(): Promise<JsonSchema>;
}

export function startLanguageServer(input: Readable, output: Writable): Promise<void> {
  const connection = createConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
  const documents = new TextDocuments(TextDocument);
  const server = makeServer(connection);
  let watchFiles = false;
  connection.onInitialize((params) => {
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    return initialize(server, params);
  });
  connection.onInitialized(() => server.inTurn(() => diagnoseWorkspaceFolders(server, watchFiles)));
  // Opening a document fires its change of content too: one handler for both.
  documents.onDidChangeContent((e) => server.inTurn(() => changed(server, e.document.uri, e.document.getText())));
  documents.onDidClose((e) => server.inTurn(() => changed(server, e.document.uri, undefined)));
  connection.onDidChangeWatchedFiles(({ changes }) => server.inTurn(() => changedOnDisk(server, changes)));
  answerQuestions(server);
  answerEdits(server);
  documents.listen(connection);
  connection.listen();
  return untilExit(server, input);
}

function makeServer(connection: Connection): Server {
  const folders = new ServedFolders();
  let schema: JsonSchema | undefined;
  /**
   * The documents' notifications are handled one after another, and a request waits for those before it: it
   * answers on the index of every change the editor sent before asking.
   */
  let settled = Promise.resolve();
  const server: Server = {
    connection,
    folders,
    diagnostics: new DiagnosticsPublisher(connection, folders.open),
    inTurn: (work) => {
      settled = settled.then(work).catch((error: unknown) => connection.console.error(`cplane lsp: ${String(error)}`));
    },
    served: async (uri, token) => {
      await settled;
      return servedFile(folders, uri, token);
    },
    schema: async () => (schema ??= JSON.parse(await readFile(packageFile('schema', 'config.schema.json'), 'utf8')) as JsonSchema),
  };
  return server;
}

async function servedFile(folders: ServedFolders, uri: string, token?: CancellationToken): Promise<Served> {
  // The client gave up while the changes before its request were handled: nothing is worked out for it.
  if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'The request was cancelled');
  const path = pathOf(uri);
  if (path === undefined)
    throw new ResponseError(ErrorCodes.InvalidParams, `cplane lsp serves files on disk (file: URIs), not ${uri.split(':')[0]}:`);
  if (!isConfigFile(path)) throw new ResponseError(ErrorCodes.InvalidParams, `${path} is not a configuration file (*.yaml or *.yml)`);
  const workspace = folders.inFolders(path) ? await folders.workspaceOf(path) : undefined;
  if (!workspace)
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `${path} is outside the workspace folders: cplane reads configuration folders inside them only`,
    );
  const text = (await folders.readText(path)) ?? '';
  return { workspace, path, text, doc: TextDocument.create(uri, 'yaml', 0, text) };
}

function initialize(server: Server, params: InitializeParams): InitializeResult {
  const given = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
  server.folders.setWorkspaceFolders(given);
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
}

/**
 * A workspace folder that is a configuration folder is diagnosed at once, before any file is opened; its index
 * is made after, so that the first diagnostics wait for one reading of the files, not two.
 */
async function diagnoseWorkspaceFolders(server: Server, watchFiles: boolean): Promise<void> {
  // Files changed on disk but not open (a checkout, a rename's edit written without opening) reach the index too.
  if (watchFiles)
    void server.connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.{yaml,yml}' }] });
  for (const folder of server.folders.workspaceFolders()) {
    const files = (await readdir(folder).catch(() => [])).filter(isConfigFile);
    if (files.length === 0) continue;
    // A module's folder given as the root: the configuration that calls it is served, the module with it.
    const caller = await server.folders.callerAbove(join(folder, files[0]!));
    if (caller) {
      if (server.folders.workspaceFolders().includes(caller.root)) continue;
      await server.diagnostics
        .publish(caller)
        .catch((error: unknown) => server.connection.console.error(`cplane lsp: diagnostics failed: ${String(error)}`));
      continue;
    }
    const workspace = server.folders.add(folder);
    await server.diagnostics
      .publish(workspace, { inThread: true })
      .catch((error: unknown) => server.connection.console.error(`cplane lsp: diagnostics failed: ${String(error)}`));
    await workspace.names.load();
  }
}

const outsideWorkspace = {
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
  severity: DiagnosticSeverity.Information,
  code: 'outside_workspace',
  source: 'cplane',
  message:
    'This file is outside the workspace folders: cplane reads configuration folders inside them only. Open its folder as a workspace folder.',
};

/** A document opened, changed (`text`) or closed (undefined): the index updated, the folder's diagnostics scheduled. */
async function changed(server: Server, uri: string, text: string | undefined): Promise<void> {
  const path = pathOf(uri);
  if (path === undefined) return;
  if (text === undefined) server.folders.open.delete(path);
  else server.folders.open.set(path, text);
  if (!isConfigFile(path)) return;
  if (!server.folders.inFolders(path)) {
    void server.connection.sendDiagnostics({ uri, diagnostics: text === undefined ? [] : [outsideWorkspace] });
    return;
  }
  const workspace = await server.folders.workspaceOf(path);
  if (!workspace) return;
  await workspace.names.update(path);
  server.diagnostics.schedule(workspace);
}

async function changedOnDisk(server: Server, changes: { uri: string }[]): Promise<void> {
  for (const change of changes) {
    const path = pathOf(change.uri);
    if (path === undefined || server.folders.open.has(path)) continue;
    for (const workspace of server.folders.workspaces.values()) {
      if (!workspace.names.covers(path)) continue;
      await workspace.names.update(path);
      server.diagnostics.schedule(workspace);
    }
  }
}

/** Each file's document once per answer: a rename across 500 files has a thousand places in them. */
function documentsFor(server: Server): (path: string) => Promise<TextDocument> {
  const made = new Map<string, TextDocument>();
  return async (path) => {
    let doc = made.get(path);
    if (!doc) made.set(path, (doc = TextDocument.create(uriOf(path), 'yaml', 0, (await server.folders.readText(path)) ?? '')));
    return doc;
  };
}

async function workspaceEdit(server: Server, changes: TextChange[]): Promise<WorkspaceEdit> {
  const edits: Record<string, TextEdit[]> = {};
  const documentFor = documentsFor(server);
  for (const change of changes) {
    const doc = await documentFor(change.path);
    (edits[doc.uri] ??= []).push({
      range: { start: doc.positionAt(change.start), end: doc.positionAt(change.end) },
      newText: change.newText,
    });
  }
  return { changes: edits };
}

async function locations(server: Server, occurrences: { path: string; start: number; end: number }[]): Promise<Location[]> {
  const out: Location[] = [];
  const documentFor = documentsFor(server);
  for (const o of occurrences) {
    const doc = await documentFor(o.path);
    out.push({ uri: doc.uri, range: { start: doc.positionAt(o.start), end: doc.positionAt(o.end) } });
  }
  return out;
}

const completionKind = (what: Suggestion['what']) =>
  what === 'key'
    ? CompletionItemKind.Property
    : what === 'variable' || what === 'cel'
      ? CompletionItemKind.Variable
      : CompletionItemKind.Reference;

/** The requests that read the configuration: completion, hover, definition, references. */
function answerQuestions(server: Server): void {
  const { connection } = server;
  connection.onCompletion(async ({ textDocument, position }, token): Promise<CompletionItem[]> => {
    const { workspace, path, text, doc } = await server.served(textDocument.uri, token);
    const offset = doc.offsetAt(position);
    return complete(workspace.names, kindBlocks, await server.schema(), path, text, offset).map((s) => ({
      label: s.label,
      kind: completionKind(s.what),
      ...(s.detail ? { detail: s.detail } : {}),
      ...(s.documentation ? { documentation: s.documentation } : {}),
      textEdit: { range: { start: doc.positionAt(s.replaceFrom), end: position }, newText: s.label },
    }));
  });

  connection.onHover(async ({ textDocument, position }, token) => {
    const { workspace, path, text, doc } = await server.served(textDocument.uri, token);
    const value = hoverAt(workspace.names, await server.schema(), path, text, doc.offsetAt(position));
    return value === undefined ? null : { contents: { kind: 'markdown', value } };
  });

  connection.onDefinition(async ({ textDocument, position }, token) => {
    const { workspace, path, doc } = await server.served(textDocument.uri, token);
    const at = workspace.names.occurrenceAt(path, doc.offsetAt(position));
    return at ? locations(server, workspace.names.declarationsOf(at.symbol)) : null;
  });

  connection.onReferences(async ({ textDocument, position, context }, token) => {
    const { workspace, path, doc } = await server.served(textDocument.uri, token);
    const at = workspace.names.occurrenceAt(path, doc.offsetAt(position));
    const occurrences = at ? workspace.names.occurrencesOf(at.symbol).filter((o) => context.includeDeclaration || !o.declaration) : [];
    return at ? locations(server, occurrences) : null;
  });
}

const refused = (error: unknown) => (error instanceof RenameRefused ? new ResponseError(ErrorCodes.InvalidRequest, error.message) : error);

/** The requests that answer with edits: rename, quick fixes, formatting. */
function answerEdits(server: Server): void {
  const { connection } = server;
  connection.onPrepareRename(async ({ textDocument, position }, token) => {
    const { workspace, path, doc } = await server.served(textDocument.uri, token);
    try {
      const at = renameTarget(workspace.names, kindBlocks, path, doc.offsetAt(position));
      return { range: { start: doc.positionAt(at.start), end: doc.positionAt(at.end) }, placeholder: at.name.split('/').at(-1)! };
    } catch (error) {
      throw refused(error);
    }
  });

  connection.onRenameRequest(async ({ textDocument, position, newName }, token) => {
    const { workspace, path, doc } = await server.served(textDocument.uri, token);
    try {
      const changes = renameChanges(workspace.names, kindBlocks, path, doc.offsetAt(position), newName);
      // Never an edit of a file outside the configuration folder (the index reads none; this holds whatever it reads).
      const outside = changes.find((c) => !within(workspace.root, c.path));
      if (outside)
        throw new ResponseError(
          ErrorCodes.InvalidRequest,
          `Not renamed: ${outside.path} is outside the configuration folder ${workspace.root}`,
        );
      return await workspaceEdit(server, changes);
    } catch (error) {
      throw refused(error);
    }
  });

  connection.onCodeAction(async (params, token) => quickFixes(server, params, await server.served(params.textDocument.uri, token)));

  connection.onDocumentFormatting(async ({ textDocument }, token) => {
    const { text, doc } = await server.served(textDocument.uri, token);
    const formatted = formatConfigText(text, await server.schema());
    if (!formatted.ok) throw new ResponseError(ErrorCodes.InvalidRequest, `Not formatted: ${formatted.reason}`);
    return formatted.text === text
      ? []
      : [{ range: { start: doc.positionAt(0), end: doc.positionAt(text.length) }, newText: formatted.text }];
  });
}

/** The file of the folder that holds (or would hold) `directory`: where a quick fix declares a user or group. */
async function directoryFileOf(server: Server, { workspace, path }: Served) {
  const rootFiles = workspace.names.paths().filter((p) => dirname(p) === workspace.root);
  const directoryPath =
    rootFiles.find((p) => workspace.names.fileNamesOf(p)?.occurrences.some((o) => o.declaration && o.space.startsWith('directory:'))) ??
    (dirname(path) === workspace.root ? path : (rootFiles[0] ?? path));
  return {
    path: directoryPath,
    text: (await server.folders.readText(directoryPath)) ?? '',
    file: workspace.names.fileNamesOf(directoryPath)?.file,
  };
}

async function quickFixes(server: Server, { range, context }: CodeActionParams, served: Served): Promise<CodeAction[]> {
  const { workspace, path, text, doc } = served;
  const directoryFile = await directoryFileOf(server, served);
  const actions: CodeAction[] = [];
  for (const diagnostic of context.diagnostics) {
    if (diagnostic.source !== 'cplane' || typeof diagnostic.code !== 'string') continue;
    const summary = diagnostic.message.split('\n')[0]!;
    for (const fix of fixesFor(diagnostic.code, summary, path, text, workspace.names.fileNamesOf(path)?.file, directoryFile)) {
      const edit = await workspaceEdit(server, [fix.change]);
      actions.push({ title: fix.title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], edit });
    }
  }
  const at = workspace.names.occurrenceAt(path, doc.offsetAt(range.start));
  if (at?.space === 'directory:serviceAccounts' && workspace.names.declarationsOf(at.symbol).length === 0) {
    const fix = pinServiceAccount(at.name, directoryFile);
    actions.push({ title: fix.title, kind: CodeActionKind.QuickFix, edit: await workspaceEdit(server, [fix.change]) });
  }
  return actions;
}

/**
 * The client is gone when its end of stdin closes (the library's own watch of the client's process id, given in
 * `initialize`, covers a client killed with stdin held open): the server exits rather than work for no one.
 */
function untilExit(server: Server, input: Readable): Promise<void> {
  let shutdown = false;
  server.connection.onShutdown(() => {
    shutdown = true;
  });
  const clientGone = () => process.exit(shutdown ? 0 : 1);
  input.once('end', clientGone);
  input.once('close', clientGone);
  return new Promise((done) =>
    server.connection.onExit(() => {
      server.diagnostics.stop();
      done();
    }),
  );
}
