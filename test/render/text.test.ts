// The text rendering: Terraform-style symbols, field changes, reasons, notes, drift, unreadable, and the summary line.
import { describe, expect, it } from 'vitest';
import { renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../src/render/index.js';
import { samplePlan } from './plan-fixture.js';

describe('text', () => {
  const text = renderPlanText(samplePlan(), { color: false });

  it('shows one block per step with its symbol and field changes', () => {
    expect(text).toContain('  +   project "payments"\n      + name = "payments"');
    expect(text).toContain('  ~   record "payments/key"\n      ~ tags = ["a"] -> ["a","b"]\n      ~ value = (sensitive)');
    expect(text).toContain('# credential.openai will have its secret rotated');
    expect(text).toContain(
      '# gateway_token.prod/ci must be replaced (scopes cannot change in place: a new one is created, then the old one is revoked)',
    );
    expect(text).toContain('~ scopes = ["run"] -> ["read_logs","run"]  # forces replacement');
    expect(text).toContain('  -   gateway "old"\n      ! deleting the gateway disables it and revokes its 2 active tokens');
    expect(text).toContain('  >   project "legacy" (id p-9)');
  });

  it('diffs multi-line values line by line', () => {
    expect(text).toContain('~ settings.guardrails.blockedTerms = <<-\n            alpha\n      -     beta\n      +     gamma');
  });

  it('lists drift, what could not be read, and ends with the summary line', () => {
    expect(text).toContain('~ project.payments was changed outside cplane\n      ~ description = "a" -> "b"');
    expect(text).toContain('- gateway.gone was deleted outside cplane');
    expect(text).toContain('! every credential: listCredentials: human-only operation');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Plan incomplete: 1 item could not be read (every credential), so nothing is known about it; for the rest: 1 to import, 1 to add, 3 to change, 1 to replace, 1 to remove.',
    );
  });

  it('colours only when asked', () => {
    expect(text).not.toContain('\u001b[');
    expect(renderPlanText(samplePlan(), { color: true })).toContain('\u001b[32m+  \u001b[39m');
  });

  it('says "No changes." when nothing would change', () => {
    const none = renderPlanText(
      samplePlan({
        steps: [],
        drift: [],
        unreadable: [],
        summary: { add: 0, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 },
      }),
      { color: false },
    );
    expect(none).toBe('No changes. Your infrastructure matches the configuration.\n');
  });

  it('explains a refresh-only plan instead of listing actions', () => {
    const refresh = renderPlanText(samplePlan({ mode: 'refresh-only', steps: [] }), { color: false });
    expect(refresh).toContain('This is a refresh-only plan: cplane will not change any object to undo these changes.');
    expect(refresh).not.toContain('cplane will perform the following actions');
  });
});

describe('markdown', () => {
  const md = renderPlanMarkdown(samplePlan());

  it('has the summary, a table of steps and a collapsible diff', () => {
    expect(md).toContain(
      '**Plan incomplete: 1 item could not be read (every credential), so nothing is known about it; for the rest: 1 to import, 1 to add, 3 to change, 1 to replace, 1 to remove.**',
    );
    expect(md).toContain(
      '| `-/+` | `gateway_token.prod/ci` | replace | scopes cannot change in place: a new one is created, then the old one is revoked |',
    );
    expect(md).toContain('<details><summary>Changes by field</summary>');
    expect(md).toContain('```diff\n+ project.payments will be created\n+     name = "payments"');
    expect(md).toContain('!     value = (sensitive)');
    expect(md).toContain('- `gateway.gone`: deleted outside cplane');
  });

  it('escapes pipes in table cells', () => {
    const plan = samplePlan();
    plan.steps[0]!.reason = 'a|b';
    expect(renderPlanMarkdown(plan)).toContain('| a\\|b |');
  });
});

describe('json', () => {
  it('is the plan itself', () => {
    expect(JSON.parse(renderPlanJson(samplePlan()))).toEqual(samplePlan());
  });
});

describe('a plan that could not read everything', () => {
  it('never says "No changes": its summary says it is incomplete and lists what could not be read', () => {
    const plan = samplePlan({ steps: [], drift: [], summary: { add: 0, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 } });
    const text = renderPlanText(plan, { color: false });
    expect(text).not.toContain('No changes');
    const names = plan.unreadable.map((u) => u.address ?? `every ${u.kind}`).join(', ');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      `Plan incomplete: 1 item could not be read (${names}), so nothing is known about it; for the rest: 0 to add, 0 to change, 0 to replace, 0 to remove.`,
    );
    expect(renderPlanMarkdown(plan)).toContain('**Plan incomplete: 1 item could not be read');
  });
});
