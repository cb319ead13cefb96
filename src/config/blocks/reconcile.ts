/**
 * The `reconcile:` block: which step classes `cplane reconcile` applies on its own (`autoApply`, default
 * `[maintenance]`). The schema has checked the classes (an unknown one is an error at its file:line:col);
 * here only a block given in two files is reported.
 */
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { offsetIn } from '../files/source-file.js';
import type { LoadedFile } from '../build-desired.js';
import type { ReconcileSettings } from '../types.js';

export function collectReconcile(files: readonly LoadedFile[], sink: DiagnosticSink): ReconcileSettings | undefined {
  let found: ReconcileSettings | undefined;
  for (const { file, config } of files) {
    if (!config.reconcile) continue;
    const at = offsetIn(file, config, 'reconcile');
    const { line, col } = file.lines.linePos(at);
    if (found) {
      sink.push(
        diagnosticAt(file, at, {
          code: 'duplicate_reconcile',
          summary: `reconcile: is given twice: in ${found.source.file}:${found.source.line} and again here`,
          detail: 'Keep one reconcile: block for the configuration.',
        }),
      );
      continue;
    }
    found = { autoApply: [...(config.reconcile.autoApply ?? ['maintenance'])], source: { file: file.display, line, col } };
  }
  return found;
}
