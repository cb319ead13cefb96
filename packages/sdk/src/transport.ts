/**
 * The HTTP exchange under the client: one keep-alive agent per client, one
 * request and its whole body per call. It is Node's own http/https client,
 * whose parser is native: undici's WebAssembly parser kept every short
 * command alive about 0.1 s after its last answer, while V8 finished
 * optimising the parser in the background (docs/performance.md).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface Exchange {
  method: string;
  /** Path and query, e.g. `/v1/projects?limit=200`. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface Transport {
  /**
   * Sends one request and reads its answer. `tooLarge` is thrown (and reading stops) once the body
   * passes `maxBytes`. A failure without an answer rejects with Node's error, whose `code`
   * (ECONNRESET, ECONNREFUSED, …) retry.ts judges.
   */
  exchange(request: Exchange, maxBytes: number, tooLarge: () => Error): Promise<Answer>;
  close(): void;
}

export function createTransport(origin: URL, connections: number): Transport {
  const secure = origin.protocol === 'https:';
  const agent = new (secure ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: connections });
  const send = secure ? httpsRequest : httpRequest;
  return {
    exchange: (request, maxBytes, tooLarge) =>
      new Promise<Answer>((resolve, reject) => {
        const headers = {
          ...request.headers,
          ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
        };
        const req = send(
          {
            agent,
            protocol: origin.protocol,
            hostname: origin.hostname,
            port: origin.port,
            method: request.method,
            path: request.path,
            headers,
            signal: request.signal,
          },
          (res) =>
            readCapped(res, maxBytes, tooLarge).then(
              (text) => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }),
              reject,
            ),
        );
        req.on('error', reject);
        req.end(request.body);
      }),
    close: () => agent.destroy(),
  };
}

/** The body as text, refusing (and no longer reading) one larger than maxBytes. */
async function readCapped(res: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    if (Number(res.headers['content-length']) > maxBytes) throw tooLarge();
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    res.destroy();
    throw error;
  }
  return Buffer.concat(chunks).toString('utf8');
}
