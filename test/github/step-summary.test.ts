// What --github writes for GitHub: a step summary cut at 1 MiB with a note, outputs no value can break out of,
// annotations on the line a plan problem names.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendStepSummary, STEP_SUMMARY_LIMIT, writeStepOutputs } from '../../src/github/index.js';
import { splitComment } from '../../src/github/comment-parts.js';
import { parseOutputs } from './fake-github.js';

const temp = () => mkdtempSync(join(tmpdir(), 'cplane-summary-'));

describe('the step summary', () => {
  it('keeps a plan under 1 MiB as it is', () => {
    const dir = temp();
    const file = join(dir, 'summary.md');
    appendStepSummary({ GITHUB_STEP_SUMMARY: file }, '#### plan\n\nsmall\n', 'in prod.plan.json');
    expect(readFileSync(file, 'utf8')).toBe('#### plan\n\nsmall\n\n');
    rmSync(dir, { recursive: true });
  });

  it('cuts a plan above 1 MiB at a line end, closes the open code block, and says where the full plan is', () => {
    const dir = temp();
    const file = join(dir, 'summary.md');
    const line = `+ project.p will be created ${'é'.repeat(50)}\n`;
    const plan = `#### plan\n\n\`\`\`diff\n${line.repeat(Math.ceil((2 * STEP_SUMMARY_LIMIT) / Buffer.byteLength(line)))}\`\`\`\n`;
    appendStepSummary({ GITHUB_STEP_SUMMARY: file }, plan, 'in the job log above and in the saved plan `prod.plan.json`');
    const written = readFileSync(file, 'utf8');
    expect(Buffer.byteLength(written)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(written).toContain(
      `> **Cut here:** the full text (${Buffer.byteLength(plan)} bytes) is more than the 1 MiB a step summary holds. The full plan is in the job log above and in the saved plan \`prod.plan.json\`.`,
    );
    expect(written).not.toContain('\uFFFD');
    expect((written.match(/^```/gm) ?? []).length).toBe(2);
    rmSync(dir, { recursive: true });
  });
});

describe('step outputs', () => {
  it('are written in the multi-line form, so a value with a newline cannot set another output', () => {
    const dir = temp();
    const file = join(dir, 'output');
    writeStepOutputs({ GITHUB_OUTPUT: file }, { plan_file: 'a\nhas_changes=false', has_changes: 'true' });
    expect(parseOutputs(readFileSync(file, 'utf8'))).toEqual({ plan_file: 'a\nhas_changes=false', has_changes: 'true' });
    rmSync(dir, { recursive: true });
  });
});

describe('comment parts', () => {
  it('keep a plan that fits in one comment, and cut a single huge line into pieces within the limit', () => {
    expect(splitComment('short\n', 'k')).toEqual(['<!-- cplane-plan key="k" part="0" -->\nshort\n']);
    const parts = splitComment(`${'y'.repeat(200_000)}\n`, 'k');
    expect(parts.length).toBe(4);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(65_536);
    expect(parts.join('').replace(/<!--[^>]*-->\n|_Plan, part \d of \d_\n\n/g, '')).toBe(`${'y'.repeat(200_000)}\n`);
  });
});
