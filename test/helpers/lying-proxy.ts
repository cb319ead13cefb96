// A lying API server for the trust tests: a proxy on 127.0.0.1 in front of the emulator that forwards every
// request and hands each JSON answer to `lie`, which may return another answer to send instead, and may move the
// `Date` header of every answer (a server whose clock lies). It stands for a compromised or malicious service, which
// is what client-side encryption exists for.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** The path without the query string (`/v1/records/ID/read`). */
  path: string;
  /** The query string, `?` included (`?accountId=...`), or '' when there is none. */
  query: string;
  body: unknown;
  /** The bearer token the caller sent. */
  token: string;
}

/**
 * Returns the answer to send instead of `answer` (the emulator's parsed JSON), or undefined to pass it on; an answer
 * made with `withStatus` is also sent with another status (a refusal the emulator would not give). A promise holds
 * the answer until it resolves (a read still in flight).
 */
export type Lie = (request: ProxiedRequest, answer: { status: number; json: unknown }) => unknown;

const statusOf = new WeakMap<object, number>();

/** An answer sent with `status` instead of the emulator's. */
export function withStatus<T extends object>(status: number, json: T): T {
  statusOf.set(json, status);
  return json;
}

export interface LyingProxy {
  url: string;
  /** Changes the lie from now on (undefined: an honest proxy). */
  setLie(lie: Lie | undefined): void;
  /** Moves the `Date` header of every answer by `shiftMs` from now on (0: the emulator's own). */
  setClockShift(shiftMs: number): void;
  close(): Promise<void>;
}

export async function lyingProxy(upstream: string, initial?: Lie): Promise<LyingProxy> {
  let lie = initial;
  let clockShiftMs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>;
      void fetch(`${upstream}${req.url}`, { method: req.method!, headers, ...(raw.length > 0 ? { body: raw } : {}) }).then(
        async (forwarded) => {
          let text = await forwarded.text();
          const request: ProxiedRequest = {
            method: req.method!,
            path: req.url!.split('?')[0]!,
            query: req.url!.slice(req.url!.split('?')[0]!.length),
            body: raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined,
            token: (req.headers.authorization ?? '').replace(/^Bearer /, ''),
          };
          const replaced = lie && text ? await lie(request, { status: forwarded.status, json: JSON.parse(text) }) : undefined;
          if (replaced !== undefined) text = JSON.stringify(replaced);
          res.writeHead((typeof replaced === 'object' && replaced !== null && statusOf.get(replaced)) || forwarded.status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'x-request-id': forwarded.headers.get('x-request-id') ?? '',
            ...(forwarded.headers.get('date')
              ? { date: new Date(Date.parse(forwarded.headers.get('date')!) + clockShiftMs).toUTCString() }
              : {}),
          });
          res.end(text);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setLie: (next) => void (lie = next),
    setClockShift: (shiftMs) => void (clockShiftMs = shiftMs),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
