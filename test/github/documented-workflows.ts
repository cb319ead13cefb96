// The YAML blocks of the docs that show a GitHub Actions workflow (or a part of one), found the one way every test
// that checks them uses: docs/ci.md, docs/testing.md and the README, every ```yaml block that names jobs, steps or
// an action. A complete workflow (with `on:`) is run by the workflow harness or linted; a part (jobs without `on:`,
// or steps alone) is linted inside the smallest workflow that holds it, so no block is skipped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const documentedFiles = ['docs/ci.md', 'docs/testing.md', 'README.md'];

export interface DocumentedBlock {
  /** `docs/ci.md:123`: the file and the line of the block's first line. */
  where: string;
  /** `name:` of a complete workflow, or undefined for a part. */
  name?: string;
  /** The file the doc says to save it as (`.github/workflows/cplane-fleet.yml`: `gh run list --workflow` finds it by that name). */
  file?: string;
  text: string;
  /** The block as a workflow file: the text itself, or a part inside the smallest workflow that holds it. */
  workflow: string;
}

const looksLikeWorkflow = (text: string) => /^\s*(jobs:|runs-on:|steps:|-?\s*uses:)/m.test(text);

export function documentedWorkflowBlocks(root: string): DocumentedBlock[] {
  const blocks: DocumentedBlock[] = [];
  for (const docFile of documentedFiles) {
    const doc = readFileSync(join(root, docFile), 'utf8');
    for (const match of doc.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
      const text = match[1]!;
      if (!looksLikeWorkflow(text)) continue;
      const where = `${docFile}:${doc.slice(0, match.index).split('\n').length + 1}`;
      const name = /^name: (.*)$/m.exec(text)?.[1];
      const file = [...doc.slice(Math.max(0, match.index - 1200), match.index).matchAll(/\.github\/workflows\/([\w.-]+\.yml)/g)].at(
        -1,
      )?.[1];
      blocks.push({ where, name: /^on:/m.test(text) ? name : undefined, file, text, workflow: asWorkflow(text) });
    }
  }
  return blocks;
}

function asWorkflow(text: string): string {
  if (/^on:/m.test(text)) return text;
  if (/^jobs:/m.test(text)) return `on: workflow_dispatch\n${text}`;
  // Steps alone, indented as in a job: under a job of their own, at the indent they were written at.
  const indent = /^( *)- /m.exec(text)?.[1] ?? '';
  const steps = text
    .split('\n')
    .map((line) => (line.startsWith(indent) ? `      ${line.slice(indent.length)}` : line))
    .join('\n');
  return `on: workflow_dispatch\njobs:\n  part:\n    runs-on: ubuntu-latest\n    steps:\n${steps}`;
}
