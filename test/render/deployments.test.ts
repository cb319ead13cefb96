// The matrix of plan --all: counts per deployment, an error row, hostile account names escaped for the terminal and
// for Markdown, and the one comment kept within its limit, naming the sections that do not fit.
import { expect, it } from 'vitest';
import type { DeploymentSummary } from '../../src/plan-model/index.js';
import { renderDeploymentMatrixText, renderDeploymentsMarkdown } from '../../src/render/index.js';

const row = (deployment: string, extra: Partial<DeploymentSummary> = {}): DeploymentSummary => ({
  deployment,
  account: '0a000000-0000-4000-8000-000000001001',
  accountName: 'Tenant 1',
  add: 1,
  change: 2,
  replace: 0,
  remove: 3,
  import: 0,
  move: 0,
  policyViolations: 1,
  incomplete: 0,
  blocked: false,
  changes: true,
  ...extra,
});

it('prints one line per deployment with its counts, and "-" for a deployment without a plan', () => {
  const text = renderDeploymentMatrixText([row('staging'), row('prod', { error: 'No API token', changes: false })], { color: false });
  expect(text).toContain('Deployments: 2 planned, 1 with changes, 0 without, 1 failed.');
  expect(text).toMatch(/staging +Tenant 1 \(0a000000-0000-4000-8000-000000001001\) +1 +2 +0 +3 +1 +0 +changes/);
  expect(text).toMatch(/prod +Tenant 1 \(0a000000-0000-4000-8000-000000001001\) +- +- +- +- +- +- +error: No API token/);
});

it('has an import column when a deployment adopts objects, and none otherwise', () => {
  const text = renderDeploymentMatrixText([row('sandbox', { add: 0, change: 0, remove: 0, import: 4 }), row('prod')], { color: false });
  expect(text).toMatch(/DEPLOYMENT +ACCOUNT +ADD +CHANGE +REPLACE +REMOVE +IMPORT +POLICY +INCOMPLETE +STATUS/);
  expect(text).toMatch(/sandbox +Tenant 1 \(0a000000-0000-4000-8000-000000001001\) +0 +0 +0 +0 +4 +1 +0 +changes/);
  const { markdown } = renderDeploymentsMarkdown([row('sandbox', { import: 4 })], [], { title: 'cplane plan', limit: 65_000 });
  expect(markdown).toContain('| deployment | account | add | change | replace | remove | import | policy | incomplete | status |');
  expect(renderDeploymentMatrixText([row('prod')], { color: false })).not.toContain('IMPORT');
});

it('has a move column when a deployment renames addresses (`moved` blocks), and none otherwise', () => {
  const text = renderDeploymentMatrixText([row('staging', { add: 0, change: 0, remove: 0, move: 2 }), row('prod')], { color: false });
  expect(text).toMatch(/DEPLOYMENT +ACCOUNT +ADD +CHANGE +REPLACE +REMOVE +MOVE +POLICY +INCOMPLETE +STATUS/);
  expect(text).toMatch(/staging +Tenant 1 \(0a000000-0000-4000-8000-000000001001\) +0 +0 +0 +0 +2 +1 +0 +changes/);
  const { markdown } = renderDeploymentsMarkdown([row('staging', { move: 2 })], [], { title: 'cplane plan', limit: 65_000 });
  expect(markdown).toContain('| deployment | account | add | change | replace | remove | move | policy | incomplete | status |');
  expect(renderDeploymentMatrixText([row('prod')], { color: false })).not.toMatch(/\bMOVE\b/);
});

it('escapes a hostile account name: no terminal escape, no Markdown or HTML markup', () => {
  const hostile = row('staging', { accountName: 'Evil\u001b[31m | <img src=x> @team' });
  const text = renderDeploymentMatrixText([hostile], { color: false });
  expect(text).not.toContain('\u001b');
  const { markdown } = renderDeploymentsMarkdown([hostile], [{ deployment: 'staging', markdown: 'plan' }], {
    title: 'cplane plan',
    limit: 65_000,
  });
  expect(markdown).toContain('Evil\\\\e\\[31m \\| \\<img src=x\\> @\u200bteam');
  expect(markdown).not.toMatch(/[^\\]<img/);
});

it('keeps the comment within its limit: sections that do not fit are named at the end', () => {
  const sections = [
    { deployment: 'a', markdown: 'x'.repeat(3000) },
    { deployment: 'b', markdown: 'y'.repeat(200) },
    { deployment: 'c', markdown: 'z'.repeat(3000) },
  ];
  const { markdown, left } = renderDeploymentsMarkdown([row('a'), row('b'), row('c')], sections, { title: 'cplane plan', limit: 4200 });
  expect(markdown.length).toBeLessThanOrEqual(4200);
  expect(left).toEqual(['c']);
  expect(markdown).toContain('<details><summary>a</summary>');
  expect(markdown).toContain('<details><summary>b</summary>');
  expect(markdown).toContain('The plans of `c` do not fit in one pull-request comment (4,200 characters)');
});
