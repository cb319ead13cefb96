// The Markdown plan (step summary and PR comment) with the hostile strings of test/text/escape-for.test.ts in every
// field that comes from the API, the state or configuration: drift reasons, step reasons and notes, unreadable
// reasons and request ids, the account name. Rendered with markdown-it, the plan has only the elements it writes
// itself, and none of the strings' markup, mentions or comments.
import MarkdownIt from 'markdown-it';
import { expect, it } from 'vitest';
import { renderPlanMarkdown } from '../../src/render/index.js';
import { HOSTILE } from '../text/hostile-strings.js';
import { noticeFor, samplePlan } from './plan-fixture.js';

const md = new MarkdownIt({ html: true });
const OWN_TAGS = new Set([
  'h4',
  'p',
  'strong',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'code',
  'details',
  'summary',
  'pre',
  'ul',
  'li',
  'blockquote',
]);

it.each(HOSTILE.filter((text) => text !== ''))('%j', (text) => {
  const base = samplePlan();
  const plan = samplePlan({
    origin: { workspace: 'default', accountName: text } as NonNullable<ReturnType<typeof samplePlan>['origin']>,
    steps: base.steps.map((step) => ({ ...step, reason: text, notes: [text] })),
    drift: [{ address: 'gateway.gone', kind: 'gateway', type: 'deleted', reason: text, changes: [] }],
    unreadable: [{ kind: 'credential', operation: 'listCredentials', reason: text, requestId: text }],
    notices: [
      noticeFor('ending_soon', {
        address: 'user_share.p/r/dana',
        kind: 'user_share',
        data: { until: '2026-12-01T18:00:00.000Z', left: 'in 3 days', reason: text },
      }),
    ],
  });
  const html = md.render(renderPlanMarkdown(plan));
  const tags = new Set([...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => m[1]!.toLowerCase()));
  expect([...tags].filter((tag) => !OWN_TAGS.has(tag))).toEqual([]);
  expect(html).not.toMatch(/<!--/);
  expect(html.replace(/<code>[\s\S]*?<\/code>/g, '').replace(/<[^>]*>/g, '')).not.toMatch(/@[\w-]|#\d/);
  // Exactly the plan's own table: a header row and one row per acting step, each of four cells.
  const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => (m[1]!.match(/<t[dh]>/g) ?? []).length);
  expect(rows).toEqual(Array.from({ length: plan.steps.length + 1 }, () => 4));
  expect((html.match(/<details>/g) ?? []).length).toBe((html.match(/<\/details>/g) ?? []).length);
});
