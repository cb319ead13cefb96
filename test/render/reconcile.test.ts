// The reconcile report, as text and as the Markdown of its issue, with the hostile strings of
// test/text/escape-for.test.ts in every field that comes from the API, the state or the configuration (the account
// name, step reasons): the issue has only the elements the report writes itself, and each step names its class.
import MarkdownIt from 'markdown-it';
import { expect, it } from 'vitest';
import { renderReconcileMarkdown, renderReconcileText } from '../../src/render/index.js';
import { HOSTILE } from '../text/hostile-strings.js';
import { samplePlan } from './plan-fixture.js';

const md = new MarkdownIt({ html: true });
const OWN_TAGS = new Set(['h4', 'p', 'strong', 'code', 'pre']);
const view = { classes: ['maintenance'] as const, dryRun: false };

it.each(HOSTILE.filter((text) => text !== ''))('%j', (text) => {
  const base = samplePlan();
  const plan = samplePlan({
    origin: { workspace: 'default', accountName: text } as NonNullable<ReturnType<typeof samplePlan>['origin']>,
    steps: base.steps.slice(0, 1).map((step) => ({ ...step, reason: text, class: 'maintenance' as const })),
    withheld: [{ address: 'project.shop', kind: 'project', action: 'update', class: 'change', reason: text }],
  });
  const html = md.render(renderReconcileMarkdown(plan, view));
  const tags = new Set([...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => m[1]!.toLowerCase()));
  expect([...tags].filter((tag) => !OWN_TAGS.has(tag))).toEqual([]);
  expect(html).not.toMatch(/<!--/);
  // Two code blocks: what was applied, and what waits.
  expect((html.match(/<pre>/g) ?? []).length).toBe(2);
  // The terminal's text has no control character from the strings.
  expect([...renderReconcileText(plan, view, { color: false })].filter((c) => c !== '\n' && /\p{Cc}/u.test(c))).toEqual([]);
});

it("names each step's class, and what a withheld step needs", () => {
  const base = samplePlan();
  const plan = samplePlan({
    steps: [{ ...base.steps[0]!, reason: 'renew: expires in 1 day', class: 'maintenance' }],
    withheld: [
      { address: 'gateway.prod', kind: 'gateway', action: 'update', class: 'change' },
      { address: 'gateway_token.prod/ci', kind: 'gateway_token', action: 'renew', class: 'maintenance', needs: ['gateway.prod'] },
    ],
  });
  const text = renderReconcileText(plan, view, { color: false });
  expect(text).toContain(`  [maintenance] ${base.steps[0]!.action === 'create' ? '+' : '~'} ${base.steps[0]!.address}`);
  expect(text).toContain('  [change] ~ gateway.prod will be updated in place\n');
  expect(text).toContain('  [maintenance] ~ gateway_token.prod/ci will be renewed: left out, it needs gateway.prod\n');
  expect(text).toContain('Applies 1 step; 2 steps wait for a person (not in reconcile.autoApply: maintenance).');
});
