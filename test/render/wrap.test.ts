// Plans wrap at word boundaries at any terminal width of 60 columns or more: no word is cut (a word longer than
// the width gets a line of its own), no line is wider than the terminal, and the words are the plan's, in order.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { renderPlanText } from '../../src/render/index.js';
import { renderDriftText } from '../../src/render/drift.js';
import { visibleWidth, withoutColour, wrapLine } from '../../src/text/wrap.js';
import { samplePlan } from './plan-fixture.js';

const plan = samplePlan({
  origin: { accountName: 'Acme Staging Environment', workspace: 'default' } as never,
  steps: [
    ...samplePlan().steps,
    {
      address: 'gateway_token.team[payments]/ci',
      kind: 'gateway_token',
      action: 'create',
      reason: 'the token expires in 3 days: a new one is issued before the old one is revoked, so the gateway never stops answering',
      changes: [{ path: 'description', after: 'a long description of the token that the team wrote to remind itself of what it is for' }],
      dependsOn: [],
      writes: [],
      notes: ['x'.repeat(130)],
    },
  ],
});
const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');
/** The words, but the rule between sections, which spans the terminal. */
const content = (text: string) => words(text).filter((w) => !/^─+$/.test(w));
const stripColour = withoutColour;

test.each([60, 80, 100])('at %i columns no line is wider (but a longer word), no word is cut, and the content is the same', (width) => {
  for (const color of [false, true]) {
    const unwrapped = renderPlanText(plan, { color });
    const wrapped = renderPlanText(plan, { color, width });
    expect(content(stripColour(wrapped))).toEqual(content(stripColour(unwrapped)));
    for (const line of wrapped.split('\n')) {
      if (visibleWidth(line) > width) expect(words(stripColour(line))).toHaveLength(1);
    }
  }
  // The line that broke mid-word at 80 columns ("Workspace: def" / "ault") keeps its words whole.
  const lines = renderPlanText(plan, { color: false, width }).split('\n');
  expect(lines.some((line) => /\bWorkspace: default$/.test(line) || line.trim() === 'default')).toBe(true);
});

test('a continuation line starts under the text of the line it continues', () => {
  const wrapped = renderPlanText(plan, { color: false, width: 60 }).split('\n');
  const at = wrapped.findIndex((line) => line.includes('# gateway_token.team[payments]/ci'));
  expect(wrapped[at + 1]).toMatch(/^ {4}\S/);
});

test('drift text wraps the same way', () => {
  const wrapped = renderDriftText(plan, { color: false, width: 60 });
  expect(words(wrapped)).toEqual(words(renderDriftText(plan, { color: false })));
  for (const line of wrapped.split('\n')) expect(visibleWidth(line)).toBeLessThanOrEqual(60);
});

test('property: any line at any width of 60 or more: words kept in order and whole, lines within the width but for longer words', () => {
  const word = fc.stringMatching(/^[a-z0-9[\]/._:"(),-]{1,90}$/);
  fc.assert(
    fc.property(
      fc.nat({ max: 12 }),
      fc.array(word, { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 60, max: 200 }),
      (indent, ws, width) => {
        const line = `${' '.repeat(indent)}${ws.join(' ')}`;
        const lines = wrapLine(line, width);
        expect(words(lines.join(' '))).toEqual(ws);
        for (const l of lines) if (l.length > width) expect(words(l)).toHaveLength(1);
        // Each break was needed: the next word would not have fitted on the line before.
        for (let i = 1; i < lines.length; i++) expect(lines[i - 1]!.length + 1 + words(lines[i]!)[0]!.length).toBeGreaterThan(width);
      },
    ),
  );
});
