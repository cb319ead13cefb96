// The policy report as each renderer shows it, including a hostile message (a configuration from a pull request
// is untrusted): it cannot add table cells or lines to the Markdown, colour the terminal, or forge a workflow command.
import { describe, expect, it } from 'vitest';
import { policyAnnotation } from '../../src/cli/report/github-flag.js';
import type { PolicyFinding } from '../../src/plan-model/index.js';
import { renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../src/render/index.js';
import { samplePlan } from './plan-fixture.js';

const hostile: PolicyFinding = {
  policy: 'evil',
  level: 'mandatory',
  address: 'gateway.main',
  kind: 'gateway',
  outcome: 'violated',
  message: 'no | extra cell\n::warning::forged \u001b[31mred',
  at: { file: 'infra/main.yaml', line: 7, col: 3 },
};
const plan = samplePlan({ unreadable: [], policies: { digest: 'a'.repeat(64), policies: 1, checked: 4, findings: [hostile] } });

describe('a hostile policy message', () => {
  it('Markdown: one table row, the pipe escaped, no line break', () => {
    const row = renderPlanMarkdown(plan)
      .split('\n')
      .filter((l) => l.startsWith('| `x` |'));
    expect(row).toEqual([
      '| `x` | mandatory gateway.main: evil: no \\| extra cell\\\\n::warning::forged \\\\e\\[31mred | `infra/main.yaml:7:3` |',
    ]);
  });

  it('text: the escape sequence is shown, not run; the line break cannot start a line of its own', () => {
    const text = renderPlanText(plan, { color: false });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('  x mandatory gateway.main: evil: no | extra cell\\n::warning::forged \\e[31mred  (infra/main.yaml:7:3)');
  });

  it('annotation: one workflow command, the message escaped', () => {
    expect(policyAnnotation(hostile)).toBe(
      '::error file=infra/main.yaml,line=7,col=3,title=Policy evil (mandatory)::gateway.main: evil: no | extra cell\\n::warning::forged \\e[31mred',
    );
  });

  it('JSON: the report as it is', () => {
    expect((JSON.parse(renderPlanJson(plan)) as { policies: unknown }).policies).toEqual(plan.policies);
  });
});
