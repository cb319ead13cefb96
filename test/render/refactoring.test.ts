// Moves, forgets and imports each read as their own category in text, Markdown and JSON, counted in the summary line.
import { describe, expect, it } from 'vitest';
import type { PlanStep } from '../../src/plan-model/index.js';
import { renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../src/render/index.js';
import { samplePlan } from './plan-fixture.js';

const steps: PlanStep[] = [
  {
    address: 'gateway.search',
    kind: 'gateway',
    action: 'move',
    moved: { from: 'gateway.search-gw' },
    changes: [],
    dependsOn: [],
    writes: [],
  },
  {
    address: 'project.shop',
    kind: 'project',
    action: 'update',
    moved: { from: 'project.store' },
    changes: [{ path: 'description', before: 'a', after: 'b' }],
    dependsOn: [],
    writes: [],
  },
  {
    address: 'project.side',
    kind: 'project',
    action: 'forget',
    reason: 'removed block at main.yaml:30',
    forget: true,
    changes: [],
    dependsOn: [],
    writes: [],
  },
  {
    address: 'project.legacy',
    kind: 'project',
    action: 'import',
    reason: 'import block at main.yaml:33',
    adopt: { id: 'p-9' },
    changes: [],
    dependsOn: [],
    writes: [],
  },
];
const plan = samplePlan({
  steps,
  drift: [],
  unreadable: [],
  summary: { add: 0, change: 1, replace: 0, remove: 0, import: 1, move: 2, forget: 1 },
});

describe('refactoring steps', () => {
  it('text: "has moved to", "(moved from ...)", "will no longer be managed", "will be imported", and the summary line', () => {
    const text = renderPlanText(plan, { color: false });
    expect(text).toContain('  # gateway.search-gw has moved to gateway.search\n  ->  gateway "search"\n');
    expect(text).toContain('  # project.shop will be updated in place\n  # (moved from project.store)\n  ~   project "shop"\n');
    expect(text).toContain('  # project.side will no longer be managed (removed block at main.yaml:30)\n  .   project "side"\n');
    expect(text).toContain('  # project.legacy will be imported (import block at main.yaml:33)\n  >   project "legacy" (id p-9)\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Plan: 1 to import, 0 to add, 1 to change, 0 to replace, 0 to remove, 2 to move, 1 to forget.',
    );
  });

  it('Markdown: one row each, the move in the Why column, the same summary line', () => {
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('**Plan: 1 to import, 0 to add, 1 to change, 0 to replace, 0 to remove, 2 to move, 1 to forget.**');
    expect(md).toContain('| `->` | `gateway.search` | move | moved from `gateway.search-gw` |');
    expect(md).toContain('| `~` | `project.shop` | update | moved from `project.store` |');
    expect(md).toContain('| `.` | `project.side` | forget | removed block at main.yaml:30 |');
    expect(md).toContain('| `>` | `project.legacy` | import | import block at main.yaml:33 |');
    expect(md).toContain('! gateway.search-gw has moved to gateway.search\n');
  });

  it('JSON: the counts and the moved-from address', () => {
    const json = JSON.parse(renderPlanJson(plan)) as { summary: Record<string, number>; steps: PlanStep[] };
    expect(json.summary).toMatchObject({ move: 2, forget: 1, import: 1 });
    expect(json.steps[0]).toMatchObject({ action: 'move', moved: { from: 'gateway.search-gw' } });
  });
});
