/**
 * GitHub Actions, as `--github` on validate, plan and apply uses them: the
 * Markdown plan or result appended to the job's step summary (cut above the
 * 1 MiB GitHub accepts, with a note saying where the full plan is),
 * `::error` annotations that point at the configuration, and step outputs
 * (`has_changes`, `add`, `change`, `replace`, `remove`, `plan_file`, ...).
 * Everything here appends to files GitHub names in the environment; nothing
 * is sent over the network.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { annotationMessage, annotationProperty } from '../text/escape-for.js';

/** GitHub refuses a step summary above 1 MiB. */
export const STEP_SUMMARY_LIMIT = 1024 * 1024;

/** `text` cut to at most `limit` bytes of UTF-8 at a line end, with `note` after it; unchanged when it fits. */
export function cutMarkdown(text: string, limit: number, note: string): string {
  if (Buffer.byteLength(text) <= limit) return text;
  const room = limit - Buffer.byteLength(note) - 64;
  let cut = Buffer.from(text).subarray(0, Math.max(0, room)).toString('utf8');
  // A partial character at the end decodes to U+FFFD: drop it, then go back to a whole line.
  cut = cut.replace(/\uFFFD$/, '');
  const lastLine = cut.lastIndexOf('\n');
  if (lastLine > 0) cut = cut.slice(0, lastLine + 1);
  // Close a code block left open by the cut, so the note is not shown as code.
  const fences = cut.match(/^```/gm)?.length ?? 0;
  return `${cut}${fences % 2 === 1 ? '```\n' : ''}\n${note}\n`;
}

export function appendStepSummary(env: NodeJS.ProcessEnv, markdown: string, fullPlanAt: string): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const bytes = Buffer.byteLength(markdown);
  const note = `> **Cut here:** the full text (${bytes} bytes) is more than the 1 MiB a step summary holds. The full plan is ${fullPlanAt}.`;
  appendFileSync(file, `${cutMarkdown(markdown, STEP_SUMMARY_LIMIT, note)}\n`);
}

/** The outputs a step wrote in `writeStepOutputs`' form (`name<<DELIMITER`, or `name=value`), the later winning. */
export function readStepOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      outputs[heredoc[1]!] = lines.slice(i + 1, end === -1 ? lines.length : end).join('\n');
      i = end === -1 ? lines.length : end;
    } else if (line.includes('=')) outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return outputs;
}

/** Appends step outputs in GitHub's multi-line form (`name<<DELIMITER`), which no value can break out of. */
export function writeStepOutputs(env: NodeJS.ProcessEnv, outputs: Record<string, string>): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `ghadelimiter_${randomUUID()}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  appendFileSync(file, text);
}

/** A workflow command that GitHub shows as an error on a file and line, e.g. `::error file=main.yaml,line=3,col=5::...`. */
export function errorAnnotation(message: string, at?: { file: string; line: number; col: number }, title?: string): string {
  return annotation('error', message, at, title);
}

/** The same as errorAnnotation, as a warning (`::warning ...::`) or an error. */
export function annotation(
  level: 'error' | 'warning',
  message: string,
  at?: { file: string; line: number; col: number },
  title?: string,
): string {
  const properties = at ? [`file=${annotationProperty({ name: at.file })}`, `line=${at.line}`, `col=${at.col}`] : [];
  if (title) properties.push(`title=${annotationProperty(title)}`);
  return `::${level}${properties.length ? ` ${properties.join(',')}` : ''}::${annotationMessage(message)}`;
}
