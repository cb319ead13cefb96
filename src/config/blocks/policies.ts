/**
 * The `policies:` block: every file's policies gathered into one list, each
 * with the place of its rule so that a rule that does not compile is
 * reported at its line. The schema has already checked each policy's shape;
 * here only what spans files is checked (a name given twice). The rules stay
 * text: compiling them is src/policy/'s job, which sits above the planner.
 */
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { offsetIn, positionIn } from '../files/source-file.js';
import type { LoadedFile } from '../build-desired.js';
import type { Policy } from '../types.js';

export function collectPolicies(files: LoadedFile[], sink: DiagnosticSink): Policy[] | undefined {
  const byName = new Map<string, Policy>();
  for (const { file, config } of files) {
    for (const [name, policy] of Object.entries(config.policies ?? {})) {
      const { line, col } = file.lines.linePos(positionIn(file, policy, 'rule')?.value[0] ?? 0);
      const earlier = byName.get(name);
      if (earlier) {
        sink.push(
          diagnosticAt(file, offsetIn(file, config.policies, name), {
            code: 'duplicate_policy',
            summary: `Policy "${name}" is declared twice: in ${earlier.source.file}:${earlier.source.line} and again here`,
            detail: 'Give each policy one name across all files of the configuration.',
          }),
        );
        continue;
      }
      byName.set(name, {
        name,
        level: policy.level,
        kinds: [...(policy.kinds ?? [])],
        actions: [...(policy.actions ?? [])],
        rule: policy.rule,
        message: policy.message ?? policy.rule,
        ...(policy.timeoutMs === undefined ? {} : { timeoutMs: policy.timeoutMs }),
        source: { file: file.display, line, col },
      });
    }
  }
  if (byName.size === 0) return undefined;
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}
