/**
 * The state of the live apply view, folded from apply events: an append-only
 * log of finished steps and notices (printed once, above), and the steps
 * running now (redrawn with a spinner and their elapsed time).
 */
import type { ApplyEvent } from '../applier/index.js';
import type { Action } from '../plan-model/index.js';
import { eventLine, safeEvent } from './plain-lines.js';

export interface RunningStep {
  stepId: string;
  address: string;
  action: Action;
  startedAt: number;
  retries: number;
  lastRetry?: string;
}

export type LogItem =
  | { key: string; type: 'done'; address: string; action: Action; id?: string; durationMs: number; sealed: boolean }
  | { key: string; type: 'failed'; address: string; action: Action; reason: string }
  | { key: string; type: 'skipped'; address: string; action: Action; why: string }
  | { key: string; type: 'notice'; text: string; tone: 'plain' | 'warning' };

export interface ProgressModel {
  total: number;
  /** done + failed + skipped. */
  finished: number;
  /** Counted as the end-of-apply summary counts them, so the counter and the summary agree (also after an interrupt). */
  done: number;
  failed: number;
  skipped: number;
  log: LogItem[];
  running: RunningStep[];
  /** Requests a second the API's rate limit holds the token to, once it refused one (429). */
  ratePerSecond?: number;
}

export const emptyProgress: ProgressModel = { total: 0, finished: 0, done: 0, failed: 0, skipped: 0, log: [], running: [] };

type EventOf<T extends ApplyEvent['type']> = Extract<ApplyEvent, { type: T }>;

export function reduceProgress(model: ProgressModel, untrusted: ApplyEvent, now: number): ProgressModel {
  const event = safeEvent(untrusted);
  const key = `${model.log.length}`;
  switch (event.type) {
    case 'step-started':
      return {
        ...model,
        total: event.total,
        running: [...model.running, { stepId: event.stepId, address: event.address, action: event.action, startedAt: now, retries: 0 }],
      };
    case 'rate-limited':
      return { ...model, ratePerSecond: event.ratePerSecond };
    case 'step-retry':
      return {
        ...model,
        running: model.running.map((r) =>
          r.stepId === event.stepId ? { ...r, retries: r.retries + 1, lastRetry: event.status ? String(event.status) : event.reason } : r,
        ),
      };
    case 'step-done':
      return stepDone(model, event, key);
    case 'step-failed':
      return finished(model, event.stepId, 'failed', {
        key,
        type: 'failed',
        address: event.address,
        action: event.action,
        reason: event.reason,
      });
    case 'step-skipped':
      return stepSkipped(model, event, key);
    case 'interrupted':
      return withNotice(
        model,
        key,
        'Interrupted: no new writes start; waiting for the writes in flight (Ctrl-C again to quit at once).',
        'warning',
      );
    case 'journal-resent':
    case 'journal-dropped':
      return withNotice(model, key, eventLine(event, 'recovery'), 'plain');
  }
}

/** A step that ended: out of the running list, counted, and its line (and any more) added to the log. */
function finished(model: ProgressModel, stepId: string, count: 'done' | 'failed' | 'skipped', ...items: LogItem[]): ProgressModel {
  return {
    ...model,
    finished: model.finished + 1,
    [count]: model[count] + 1,
    running: model.running.filter((r) => r.stepId !== stepId),
    log: [...model.log, ...items],
  };
}

function stepDone(model: ProgressModel, event: EventOf<'step-done'>, key: string): ProgressModel {
  const done: LogItem = {
    key,
    type: 'done',
    address: event.address,
    action: event.action,
    ...(event.id ? { id: event.id } : {}),
    durationMs: event.durationMs,
    sealed: event.sealed.length > 0,
  };
  const notices = (event.notices ?? []).map((text, i): LogItem => ({
    key: `${key}.${i}`,
    type: 'notice',
    text: `${event.address}: ${text}`,
    tone: 'warning',
  }));
  return finished(model, event.stepId, 'done', done, ...notices);
}

function stepSkipped(model: ProgressModel, event: EventOf<'step-skipped'>, key: string): ProgressModel {
  const why = event.cause === 'interrupted' ? 'not started (interrupted)' : `skipped: depends on ${event.after ?? 'a step'}, which failed`;
  return finished(model, event.stepId, 'skipped', { key, type: 'skipped', address: event.address, action: event.action, why });
}

function withNotice(model: ProgressModel, key: string, text: string, tone: 'plain' | 'warning'): ProgressModel {
  return { ...model, log: [...model.log, { key, type: 'notice', text, tone }] };
}
