// Plain lines for CI: one stable line per event, never a secret.
import { describe, expect, it } from 'vitest';
import { eventLine } from '../../src/ui/index.js';

const ref = { stepId: 'project.payments', address: 'project.payments', kind: 'project', action: 'create' } as const;

describe('eventLine', () => {
  it('writes one line per event', () => {
    expect(eventLine({ type: 'step-started', ...ref, total: 2 }, 'apply')).toBe('apply: project.payments: create started');
    expect(eventLine({ type: 'step-done', ...ref, id: 'abc', durationMs: 1234, sealed: [] }, 'apply')).toBe(
      'apply: project.payments: created id=abc  (1.2s)',
    );
    expect(eventLine({ type: 'step-done', ...ref, action: 'delete', durationMs: 50, sealed: [] }, 'destroy')).toBe(
      'destroy: project.payments: deleted  (0.1s)',
    );
    expect(eventLine({ type: 'step-retry', ...ref, attempt: 2, delayMs: 400, status: 429, reason: 'Too many requests' }, 'apply')).toBe(
      'apply: project.payments: retry 2 in 0.4s (429 Too many requests)',
    );
    expect(eventLine({ type: 'step-failed', ...ref, reason: 'boom', durationMs: 1 }, 'apply')).toBe(
      'apply: project.payments: create failed: boom',
    );
    expect(eventLine({ type: 'step-skipped', ...ref, cause: 'dependency-failed', after: 'project.x' }, 'apply')).toBe(
      'apply: project.payments: create skipped: depends on project.x, which failed',
    );
    expect(eventLine({ type: 'step-skipped', ...ref, cause: 'interrupted' }, 'apply')).toBe(
      'apply: project.payments: create not started (interrupted)',
    );
  });

  it('announces a new token by the command that reveals it', () => {
    const line = eventLine(
      {
        type: 'step-done',
        stepId: 't',
        address: 'gateway_token.prod/ci',
        kind: 'gateway_token',
        action: 'create',
        id: 't1',
        durationMs: 10,
        sealed: ['plaintext'],
      },
      'apply',
    );
    expect(line).toBe(
      'apply: gateway_token.prod/ci: created id=t1  (0.0s); new token kept sealed in state: cplane output gateway_token.prod/ci --reveal',
    );
  });

  it('says what happened to writes left by an earlier run', () => {
    expect(
      eventLine(
        { type: 'journal-dropped', address: 'project.a', operation: 'createProject', createdAt: '2026-01-01T00:00:00.000Z' },
        'apply',
      ),
    ).toBe(
      "apply: project.a: pending createProject from 2026-01-01T00:00:00.000Z is older than the API's 24 h idempotency window: dropped; the refresh reconciles it",
    );
  });
});
