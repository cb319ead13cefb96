// The live apply view: finished steps above, steps in flight with spinner, elapsed time and retries.
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApplyEvent, ApplyResult } from '../../src/applier/index.js';
import {
  ApplyProgress,
  counterText,
  loadInk,
  emptyProgress,
  reduceProgress,
  summaryLines,
  type ProgressModel,
} from '../../src/ui/index.js';

// The components take Ink from the loader, as they do in the CLI.
beforeAll(loadInk);

const ref = (n: number, action: 'create' | 'delete' = 'create') =>
  ({ stepId: `project.p${n}`, address: `project.p${n}`, kind: 'project', action }) as const;

function fold(events: [ApplyEvent, number][]): ProgressModel {
  return events.reduce((model, [event, at]) => reduceProgress(model, event, at), emptyProgress);
}

const frame = (model: ProgressModel, now: number, tick = 0) =>
  stripVTControlCharacters(render(<ApplyProgress model={model} now={now} frame={tick} />).lastFrame() ?? '');

describe('ApplyProgress', () => {
  it('shows running steps with spinner, action, elapsed time and retries', () => {
    const model = fold([
      [{ type: 'step-started', ...ref(1), total: 3 }, 0],
      [{ type: 'step-started', ...ref(2), total: 3 }, 500],
      [{ type: 'step-retry', ...ref(2), attempt: 1, delayMs: 200, status: 503, reason: 'unavailable' }, 600],
    ]);
    expect(frame(model, 1500)).toMatchInlineSnapshot(`
      "⠋ project.p1 creating… 1.5s
      ⠋ project.p2 creating… 1.0s (retry 1: 503)
      0 done of 3 steps"
    `);
    expect(frame(model, 1500, 3)).toContain('⠸ project.p1');
  });

  it('prints finished steps once, with ids, failures, skips and the token reveal command', () => {
    const model = fold([
      [{ type: 'step-started', ...ref(1), total: 4 }, 0],
      [{ type: 'step-done', ...ref(1), id: 'id-1', durationMs: 1200, sealed: [] }, 1200],
      [
        {
          type: 'step-started',
          stepId: 'gateway_token.prod/ci',
          address: 'gateway_token.prod/ci',
          kind: 'gateway_token',
          action: 'create',
          total: 4,
        },
        1200,
      ],
      [
        {
          type: 'step-done',
          stepId: 'gateway_token.prod/ci',
          address: 'gateway_token.prod/ci',
          kind: 'gateway_token',
          action: 'create',
          id: 'tok-1',
          durationMs: 300,
          sealed: ['plaintext'],
        },
        1500,
      ],
      [{ type: 'step-failed', ...ref(2, 'delete'), reason: 'deleteProject failed: 409 conflict', durationMs: 10 }, 1500],
      [{ type: 'step-skipped', ...ref(3), cause: 'dependency-failed', after: 'project.p2' }, 1500],
    ]);
    expect(frame(model, 2000)).toMatchInlineSnapshot(`
      "✓ project.p1 created id=id-1 (1.2s)
      ✓ gateway_token.prod/ci created id=tok-1 (0.3s) · new token sealed in state: cplane output
        gateway_token.prod/ci --reveal
      ✗ project.p2 delete failed: deleteProject failed: 409 conflict
      - project.p3 create skipped: depends on project.p2, which failed
      "
    `);
    expect(model.running).toEqual([]);
    expect(model.finished).toBe(4);
  });

  it('notes an interrupt and journal resends', () => {
    const model = fold([
      [{ type: 'journal-resent', address: 'project.p1', operation: 'createProject', outcome: 'done' }, 0],
      [{ type: 'interrupted' }, 0],
    ]);
    expect(frame(model, 0)).toMatchInlineSnapshot(`
      "recovery: project.p1: resent pending createProject with its saved key: done
      Interrupted: no new writes start; waiting for the writes in flight (Ctrl-C again to quit at once).
      "
    `);
  });
});

describe('the counter after an interrupt', () => {
  it('counts as the summary does: steps not started are skipped, not finished work', () => {
    const events: [ApplyEvent, number][] = [];
    for (let n = 1; n <= 6; n++)
      events.push([{ type: 'step-started', ...ref(n), total: 14 }, 0], [{ type: 'step-done', ...ref(n), durationMs: 10, sealed: [] }, 10]);
    events.push([{ type: 'interrupted' }, 10]);
    for (let n = 7; n <= 12; n++) events.push([{ type: 'step-skipped', ...ref(n), cause: 'interrupted' }, 10]);
    const model = fold(events);
    expect(counterText(model)).toBe('6 done, 6 skipped of 14 steps');
    expect(frame(model, 20).split('\n').at(-1)).toBe('6 done, 6 skipped of 14 steps');
    const summary = summaryLines(
      {
        done: Array(6).fill({ sealed: [] }),
        failed: [],
        skipped: Array(6).fill({ address: 'project.p', cause: 'interrupted' }),
        interrupted: true,
        durationMs: 20,
      } as unknown as ApplyResult,
      'Apply',
    );
    expect(summary[0]?.text).toBe('Apply interrupted: 6 done, 0 failed, 6 skipped (0.0s).');
  });
});
