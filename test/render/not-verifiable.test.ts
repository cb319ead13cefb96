// What no operation reads back (a project's group role) is listed by every renderer as "not verifiable from the
// API", escaped for its place, and "No changes" then says it holds only as far as the API shows.
import { describe, expect, it } from 'vitest';
import { renderDriftText, renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../src/render/index.js';
import { noticeFor, samplePlan } from './plan-fixture.js';

const quiet = samplePlan({
  steps: [],
  drift: [],
  unreadable: [],
  summary: { add: 0, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 },
});
const unverifiable = (address: string) => [noticeFor('not_verifiable', { address, kind: 'project_group_role', data: {} })];
const plan = { ...quiet, notices: unverifiable('project_group_role.payments/platform') };

describe('addresses not verifiable from the API', () => {
  it('are listed in text, and "No changes" says it holds as far as the API shows', () => {
    const text = renderPlanText(plan, { color: false });
    expect(text).toContain(
      'Not verifiable from the API (no operation reads these back: compared with what cplane last applied):\n  ~ project_group_role.payments/platform: not verifiable from the API\n',
    );
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'No changes. Your infrastructure matches the configuration as far as the plan shows it (1 notice listed above).',
    );
  });

  it('are listed in Markdown, escaped', () => {
    expect(renderPlanMarkdown(plan)).toContain('> - project\\_group\\_role.payments/platform: not verifiable from the API');
  });

  it('are plain data in the JSON plan', () => {
    expect(JSON.parse(renderPlanJson(plan)).notices).toMatchObject([
      { code: 'not_verifiable', severity: 'info', address: 'project_group_role.payments/platform', kind: 'project_group_role' },
    ]);
  });

  it('are listed by the drift report too', () => {
    expect(renderDriftText({ ...plan, mode: 'refresh-only' }, { color: false })).toContain(
      '~ project_group_role.payments/platform: not verifiable from the API',
    );
  });

  it('leave the plain "No changes" line alone when there are none', () => {
    expect(renderPlanText(quiet, { color: false }).trimEnd().split('\n').at(-1)).toBe(
      'No changes. Your infrastructure matches the configuration.',
    );
  });

  it('escape a hostile address for the terminal and for Markdown', () => {
    const hostile = { ...quiet, notices: unverifiable('project_group_role.p/x\u001b[31m`@here') };
    expect(renderPlanText(hostile, { color: false })).toContain('~ project_group_role.p/x\\e[31m`@here: not verifiable');
    // The backtick and the mention are escaped: no code span opens, no one is notified.
    expect(renderPlanMarkdown(hostile)).toContain('> - project\\_group\\_role.p/x\\\\e\\[31m\\`@\u200bhere: not verifiable');
  });
});
