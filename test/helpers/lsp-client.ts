// A real Language Server Protocol client (vscode-languageserver-protocol over vscode-jsonrpc) talking to the built
// `cplane lsp` over its stdin and stdout, as an editor does: what the language server's tests and its benchmark use.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node.js';
import type { Diagnostic, Position, PublishDiagnosticsParams, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { builtCli } from './built-cli.js';

export const uriOf = (path: string) => pathToFileURL(path).href;

/** The position of the `nth` place of `needle` in `text`, `shift` characters into it. */
export function positionOf(text: string, needle: string, shift = 0, nth = 0): Position {
  let index = -1;
  for (let i = 0; i <= nth; i++) index = text.indexOf(needle, index + 1);
  if (index === -1) throw new Error(`"${needle}" is not in the text`);
  return TextDocument.create('file:///x', 'yaml', 0, text).positionAt(index + shift);
}

/** Applies a WorkspaceEdit's changes to the files on disk, as an editor applies it and saves. */
export function applyWorkspaceEdit(edit: WorkspaceEdit): string[] {
  const paths: string[] = [];
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    const path = fileURLToPath(uri);
    const doc = TextDocument.create(uri, 'yaml', 0, readFileSync(path, 'utf8'));
    writeFileSync(path, TextDocument.applyEdits(doc, edits as TextEdit[]));
    paths.push(path);
  }
  return paths;
}

export interface LspSession {
  connection: MessageConnection;
  child: ChildProcess;
  /** The last diagnostics published for each URI. */
  diagnostics: Map<string, Diagnostic[]>;
  /** Resolves with the diagnostics of `uri` once a publication for it satisfies `until`. */
  diagnosticsOf(uri: string, until?: (d: Diagnostic[]) => boolean): Promise<Diagnostic[]>;
  /** Opens a file as an editor does (didOpen with its text from disk, or `text`). */
  open(path: string, text?: string): string;
  change(path: string, text: string, version: number): void;
  request<R>(method: string, params: unknown): Promise<R>;
  close(): Promise<void>;
}

/** Starts `cplane lsp --stdio` and initializes it with `folder` as the workspace folder. */
export async function startLsp(
  folder: string,
  env: NodeJS.ProcessEnv = process.env,
  /** The client's process id the server watches (default: this process). */
  processId: number = process.pid,
): Promise<LspSession & { initializeResult: { capabilities: Record<string, unknown> } }> {
  const child = spawn(process.execPath, [builtCli(), 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const diagnostics = new Map<string, Diagnostic[]>();
  const waiting: { uri: string; until: (d: Diagnostic[]) => boolean; resolve: (d: Diagnostic[]) => void }[] = [];
  connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
    diagnostics.set(params.uri, params.diagnostics);
    for (const w of [...waiting]) {
      if (w.uri === params.uri && w.until(params.diagnostics)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(params.diagnostics);
      }
    }
  });
  connection.listen();
  // 'close', not 'exit': what the server wrote on stderr, said when it fails, is then all read.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const initializeResult = await connection.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', {
    processId,
    rootUri: uriOf(folder),
    workspaceFolders: [{ uri: uriOf(folder), name: 'configuration' }],
    capabilities: {},
  });
  await connection.sendNotification('initialized', {});
  return {
    connection,
    child,
    diagnostics,
    initializeResult,
    diagnosticsOf(uri, until = () => true) {
      const known = diagnostics.get(uri);
      if (known && until(known)) return Promise.resolve(known);
      return new Promise((resolve) => waiting.push({ uri, until, resolve }));
    },
    open(path, text) {
      const uri = uriOf(path);
      void connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'yaml', version: 1, text: text ?? readFileSync(path, 'utf8') },
      });
      return uri;
    },
    change(path, text, version) {
      void connection.sendNotification('textDocument/didChange', {
        textDocument: { uri: uriOf(path), version },
        contentChanges: [{ text }],
      });
    },
    request: (method, params) => connection.sendRequest(method, params),
    async close() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      const code = await exited;
      connection.dispose();
      if (code !== 0) throw new Error(`cplane lsp exited with ${code}: ${stderr}`);
    },
  };
}
