/** The status line shown on a terminal while plan and apply read the account (src/cli/report/reading-status.ts). */
import { describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/api/client.js';
import { readingStatus, readingStatusText } from '../../src/cli/report/reading-status.js';

function terminal(isTTY: boolean) {
  const writes: string[] = [];
  return {
    writes,
    stream: { isTTY, write: (text: string) => (writes.push(text), true) } as unknown as NodeJS.WritableStream & { isTTY?: boolean },
  };
}

const request: ClientEvent = { type: 'request', operation: 'listProjects', method: 'GET', path: '/projects', attempt: 1 };
const response: ClientEvent = { type: 'response', operation: 'listProjects', status: 200, attempt: 1, durationMs: 5 };
const retry: ClientEvent = { type: 'retry', operation: 'listProjects', attempt: 1, delayMs: 10, reason: 'HTTP 503' };

describe('reading status line', () => {
  it('says how many requests were answered of those sent', () => {
    expect(readingStatusText({ sent: 40, answered: 12 })).toBe('Reading account… 12/40 requests');
  });

  it('on a terminal, redraws in place at most every 100 ms, always for the last answer, and erases itself at the end', () => {
    let clock = 0;
    const { writes, stream } = terminal(true);
    const status = readingStatus(stream, { enabled: true, now: () => clock });
    status.onClientEvent(request);
    status.onClientEvent(request);
    clock = 50;
    status.onClientEvent(response); // 1/2 within 100 ms of the first draw: skipped
    status.onClientEvent(retry); // not counted, not drawn
    clock = 60;
    status.onClientEvent(response); // 2/2: the last of the burst is always drawn
    status.stop();
    status.onClientEvent(request); // after stop: ignored
    status.stop();
    expect(writes).toEqual(['\r\x1b[KReading account… 0/1 requests', '\r\x1b[KReading account… 2/2 requests', '\r\x1b[K']);
  });

  it('without a terminal, or when disabled (--json, CI), writes nothing', () => {
    for (const [isTTY, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const { writes, stream } = terminal(isTTY);
      const status = readingStatus(stream, { enabled });
      status.onClientEvent(request);
      status.onClientEvent(response);
      status.stop();
      expect(writes).toEqual([]);
    }
  });
});
