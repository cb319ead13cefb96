// The Markdown plan (`plan --markdown`, the PR comment) draws the changed addresses as a Mermaid graph GitHub
// renders: the steps that change something, an arrow from each to a changed step it waits for, coloured by action;
// up to 50 changes, and none beyond (the table says it all). Rendered with markdown-it, the graph is one fenced
// `mermaid` block that the strict reader of test/helpers/graph-formats.ts accepts.
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import type { PlanStep } from '../../src/plan-model/index.js';
import { MAX_GRAPHED_CHANGES } from '../../src/render/markdown.js';
import { renderPlanMarkdown } from '../../src/render/index.js';
import { labelledEdges, parseMermaid } from '../helpers/graph-formats.js';
import { samplePlan } from './plan-fixture.js';

/** The content of each fenced `mermaid` block of the Markdown, as markdown-it reads it. */
function mermaidBlocks(markdown: string): string[] {
  return new MarkdownIt()
    .parse(markdown, {})
    .filter((t) => t.type === 'fence' && t.info === 'mermaid')
    .map((t) => t.content);
}

const step = (address: string, dependsOn: string[] = [], action: PlanStep['action'] = 'create'): PlanStep => ({
  address,
  kind: 'project',
  action,
  changes: [],
  dependsOn,
  writes: [],
});

describe('the graph of the changes in the Markdown plan', () => {
  it('draws each changed address, coloured by action, with an arrow to the changed steps it waits for', () => {
    const base = samplePlan();
    const plan = samplePlan({
      steps: [...base.steps, step('project.same', ['project.payments'], 'no-op'), step('gateway.waits', ['gateway.prod', 'project.same'])],
    });
    const [block, ...more] = mermaidBlocks(renderPlanMarkdown(plan));
    expect(more).toEqual([]);
    const graph = parseMermaid(block!);
    // The no-op step is not a change: neither drawn nor an edge end.
    expect([...graph.nodes.values()]).toEqual([
      '+ project.payments',
      '~ record.payments/key',
      '~ credential.openai',
      '-/+ gateway_token.prod/ci',
      '- gateway.old',
      '> project.legacy',
      '~ gateway.prod',
      '+ gateway.waits',
    ]);
    expect(labelledEdges(graph)).toEqual(['+ gateway.waits -> ~ gateway.prod', '~ record.payments/key -> + project.payments']);
    const labelsOf = (tone: string) => (graph.styles.get(tone) ?? []).map((id) => graph.nodes.get(id));
    expect(labelsOf('add')).toEqual(['+ project.payments', '+ gateway.waits']);
    expect(labelsOf('change')).toEqual(['~ record.payments/key', '~ credential.openai', '~ gateway.prod']);
    expect(labelsOf('replace')).toEqual(['-/+ gateway_token.prod/ci']);
    expect(labelsOf('remove')).toEqual(['- gateway.old']);
    expect(labelsOf('import')).toEqual(['> project.legacy']);
  });

  it(`draws ${MAX_GRAPHED_CHANGES} changes, and no graph for ${MAX_GRAPHED_CHANGES + 1}`, () => {
    const chain = (n: number) => Array.from({ length: n }, (_, i) => step(`project.p${i}`, i > 0 ? [`project.p${i - 1}`] : []));
    const [fifty] = mermaidBlocks(renderPlanMarkdown(samplePlan({ steps: chain(MAX_GRAPHED_CHANGES) })));
    expect(parseMermaid(fifty!).nodes.size).toBe(50);
    expect(parseMermaid(fifty!).edges).toHaveLength(49);
    const over = renderPlanMarkdown(samplePlan({ steps: chain(MAX_GRAPHED_CHANGES + 1) }));
    expect(mermaidBlocks(over)).toEqual([]);
    expect(over).not.toContain('Graph of the changes');
  });

  it('draws nothing when nothing changes', () => {
    const markdown = renderPlanMarkdown(
      samplePlan({
        steps: [step('project.same', [], 'no-op')],
        summary: { add: 0, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 },
      }),
    );
    expect(mermaidBlocks(markdown)).toEqual([]);
  });
});
