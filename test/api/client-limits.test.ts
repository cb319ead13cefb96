// The client's bounds against a hostile or broken server: answers are capped in size, every request
// has one deadline covering its headers, its body and its retries, plain http carries the token only
// to this machine unless the user opts in, and redirects are never followed. A scripted server on
// 127.0.0.1 plays the server; limits are set small so nothing waits long.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { ApiError, createClient, InsecureTransportError, NetworkError, ResponseTooLargeError } from '../../src/api/index.js';

const PAT = 'sk-svc-pat-limits-test-token';
const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const fast = { baseDelayMs: 1, maxDelayMs: 2 };
const MiB = 1024 * 1024;

let server: Server | undefined;
const sockets = new Set<Socket>();

/** A server that hands every request to `reply`; counts requests and bytes it managed to send. */
async function scripted(reply: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  server = createServer((req, res) => {
    requests++;
    reply(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, requests: () => requests };
}

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Writes `total` bytes of a JSON string in 64 KiB chunks, respecting back-pressure; returns how many left. */
function stream(res: ServerResponse, total: number, sent: { bytes: number }, headers: Record<string, string> = {}) {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  res.write('{"ok":true,"data":"');
  const more = () => {
    while (sent.bytes < total) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end('"}');
  };
  res.on('error', () => {});
  more();
}

describe('response size cap', () => {
  it('stops reading an answer larger than the cap and names the operation and the limit', async () => {
    const sent = { bytes: 0 };
    const { url } = await scripted((_req, res) => stream(res, 256 * MiB, sent));
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, maxResponseBytes: MiB, retry: fast });
    const before = process.memoryUsage().rss;
    const error = await client.call('listProjects', {}).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).code).toBe('response_too_large');
    expect((error as Error).message).toBe(
      'listProjects: the API answer is larger than 1 MiB, the limit for one answer; no more of it was read. ' +
        'If the answer is expected to be this large, raise CPLANE_MAX_RESPONSE_MB.',
    );
    // The server could push only what fits in socket buffers before the client hung up, far from 256 MiB.
    expect(sent.bytes).toBeLessThan(64 * MiB);
    expect((process.memoryUsage().rss - before) / MiB).toBeLessThan(100);
  }, 30_000);

  it('refuses an answer whose Content-Length is over the cap before reading its body', async () => {
    const sent = { bytes: 0 };
    const { url } = await scripted((_req, res) => stream(res, 8 * MiB, sent, { 'content-length': String(8 * MiB + 21) }));
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, maxResponseBytes: MiB, retry: fast });
    const error = await client.call('listProjects', {}).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(ResponseTooLargeError);
  });

  it('is 32 MiB by default, and 4 MiB for a page of a list, of which one list reads at most 64 MiB', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: PAT });
    expect(client.limits).toEqual({
      maxResponseBytes: 32 * MiB,
      timeoutMs: 60_000,
      list: { pages: 1_000, objects: 100_000, bytes: 64 * MiB, pageBytes: 4 * MiB },
    });
    void client.close();
  });

  it('applies a maximum the user set (CPLANE_MAX_RESPONSE_MB) to the pages of a list too', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: PAT, maxResponseBytes: 10 * MiB });
    expect(client.limits.list.pageBytes).toBe(10 * MiB);
    void client.close();
  });
});

describe('request deadline', () => {
  it('fails a body dripped one byte at a time when the deadline passes, naming the operation', async () => {
    const { url, requests } = await scripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(drip));
    });
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, timeoutMs: 400, retry: fast });
    const error = await client.call('listProjects', {}).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toBe(
      'listProjects: no complete answer from the API within 0.4 s (the deadline of one request, retries included; set CPLANE_REQUEST_TIMEOUT in seconds to change it). ' +
        'Check CPLANE_BASE_URL and the network, then run the command again.',
    );
    expect(requests()).toBe(1);
  }, 10_000);

  it('fails a server that never sends headers by the same deadline, without retrying past it', async () => {
    const { url, requests } = await scripted(() => {});
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, timeoutMs: 400, retry: { ...fast, maxAttempts: 5 } });
    const error = await client.call('listProjects', {}).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/^listProjects: no complete answer from the API within 0\.4 s/);
    expect(requests()).toBe(1);
  }, 10_000);
});

describe('plain http', () => {
  it('refuses to send the token over http to a host other than this machine', () => {
    expect(() => createClient({ baseUrl: 'http://api.example.com', token: PAT })).toThrow(InsecureTransportError);
    expect(() => createClient({ baseUrl: 'http://10.0.0.5:4010', token: PAT })).toThrow(
      'Refusing to send the API token over plain http to 10.0.0.5: anyone on the network path could read it. ' +
        'Use an https:// address, or, if this network is trusted, pass --allow-insecure-http or set CPLANE_ALLOW_INSECURE_HTTP=1.',
    );
  });

  it('allows http to loopback addresses, https anywhere, and http anywhere when the user opts in', () => {
    for (const baseUrl of [
      'http://127.0.0.1:4010',
      'http://localhost:4010',
      'http://[::1]:4010',
      'http://127.5.6.7',
      'https://api.example.com',
    ]) {
      void createClient({ baseUrl, token: PAT }).close();
    }
    void createClient({ baseUrl: 'http://api.example.com', token: PAT, allowInsecureHttp: true }).close();
  });

  it('never follows a redirect, so the token is not sent to another address', async () => {
    let followed = false;
    const target = createServer((_req, res) => {
      followed = true;
      res.end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const { url, requests } = await scripted((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/v1/projects` });
      res.end();
    });
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, retry: fast });
    const error = await client.call('listProjects', {}).catch((e: unknown) => e);
    await client.close();
    await new Promise<void>((resolve) => target.close(() => resolve()));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(302);
    expect(requests()).toBe(1);
    expect(followed).toBe(false);
  });
});

describe('the CLI', () => {
  async function cplane(args: string[], env: Record<string, string>) {
    let stderr = '';
    const out = { write: () => true } as unknown as NodeJS.WritableStream;
    const err = {
      write: (chunk: string) => {
        stderr += chunk;
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const cwd = mkdtempSync(join(tmpdir(), 'cplane-limits-'));
    onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
    const code = await runCli(args, {
      env: { CPLANE_TOKEN: PAT, CPLANE_ACCOUNT: ACCOUNT, ...env },
      cwd,
      stdout: out,
      stderr: err,
      stdin: process.stdin,
    });
    return { code, stderr };
  }

  it('refuses plain http to another machine, and --allow-insecure-http or CPLANE_ALLOW_INSECURE_HTTP=1 opts in', async () => {
    const refused = await cplane(['export', '--out', 'x'], { CPLANE_BASE_URL: 'http://10.255.255.1' });
    expect(refused).toEqual({
      code: 1,
      stderr: expect.stringMatching(/^Error: Refusing to send the API token over plain http to 10\.255\.255\.1/),
    });
    // 0.0.0.0 is not a loopback name, yet on this machine it reaches the scripted server, which sees the opted-in request.
    // It answers 400, which is never retried, so each opted-in run ends on its first request with no backoff.
    const seen: string[] = [];
    const { url } = await scripted((req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.writeHead(400).end();
    });
    const wildcard = url.replace('127.0.0.1', '0.0.0.0');
    expect((await cplane(['export', '--out', 'x'], { CPLANE_BASE_URL: wildcard })).stderr).toMatch(
      /^Error: Refusing to send the API token over plain http to 0\.0\.0\.0/,
    );
    expect(seen).toEqual([]);
    const optIns: { args: string[]; env: Record<string, string> }[] = [
      { args: ['--allow-insecure-http'], env: {} },
      { args: [], env: { CPLANE_ALLOW_INSECURE_HTTP: '1' } },
    ];
    for (const optIn of optIns) {
      const sent = await cplane(['export', '--out', 'x', ...optIn.args], { CPLANE_BASE_URL: wildcard, ...optIn.env });
      expect(sent.code).toBe(1);
    }
    expect(seen).toHaveLength(2);
    expect(new Set(seen)).toEqual(new Set([`Bearer ${PAT}`]));
  }, 20_000);

  it('explains a bad CPLANE_REQUEST_TIMEOUT or CPLANE_MAX_RESPONSE_MB', async () => {
    expect(await cplane(['export'], { CPLANE_BASE_URL: 'http://127.0.0.1:9', CPLANE_REQUEST_TIMEOUT: 'soon' })).toEqual({
      code: 1,
      stderr: 'Error: CPLANE_REQUEST_TIMEOUT must be a positive number, not "soon".\n',
    });
    expect(await cplane(['export'], { CPLANE_BASE_URL: 'http://127.0.0.1:9', CPLANE_MAX_RESPONSE_MB: '0' })).toEqual({
      code: 1,
      stderr: 'Error: CPLANE_MAX_RESPONSE_MB must be a positive number, not "0".\n',
    });
  });
});
