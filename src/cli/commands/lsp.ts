/**
 * `cplane lsp [--stdio]`: the language server for editors (docs/editors.md), over stdin and stdout. The work is
 * in src/lsp/, which sits below the CLI; this loads it only when the command runs.
 */
import type { Readable, Writable } from 'node:stream';
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { exitCodes } from '../exit-codes.js';

export const lspCommand: CommandModule = {
  async run(ctx) {
    if (ctx.positionals.length > 0)
      throw new AbortError('lsp takes no folder: it serves the folders of the files the editor opens.', 'Usage: cplane lsp [--stdio]');
    const { startLanguageServer } = await import('../../lsp/server.js');
    await startLanguageServer(ctx.stdin as Readable, ctx.stdout as Writable);
    return exitCodes.ok;
  },
};
