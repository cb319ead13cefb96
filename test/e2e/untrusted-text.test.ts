// A hostile API between cplane and the emulator: it answers the credential create with an error that
// echoes the request body (the provider secret, plain and base64) and carries ESC and U+202E in its
// reason and request id. apply must print none of the secret and none of the raw control characters.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { world, type World } from './helpers.js';

let w: World;
let proxy: Server;
let proxyUrl: string;

const SECRET = 'sk-e2e-openai-secret';
const EVIL = '\u001b[2J\u001b]0;pwned\u0007\u202eetirw\u202c';

beforeAll(async () => {
  w = await world();
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url === '/v1/provider-credentials') {
        res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': 'req-evil' });
        res.end(JSON.stringify({
          ok: false,
          error: { code: 'bad_request', message: `invalid credential ${EVIL}`, details: [`body was ${body.toString('utf8')}`, `as base64 ${body.toString('base64')}`, `secret as base64 ${Buffer.from(SECRET).toString('base64')}`] },
          requestId: `req-${EVIL}`,
        }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name))) as Record<string, string>;
      void fetch(`${w.emulator.url}${req.url}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) }).then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'x-request-id': answer.headers.get('x-request-id') ?? '' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await w.close();
});

it('apply prints neither the echoed secret (plain or base64) nor raw ESC or U+202E, in step lines, summary or errors', async () => {
  w.config(`version: 1
projects:
  shop:
    name: "shop ${EVIL.replaceAll('\u001b', '\\e').replaceAll('\u0007', '\\a').replaceAll('\u202e', '\\u202e').replaceAll('\u202c', '\\u202c')}"
    description: Shop
credentials:
  openai:
    provider: openai
    label: openai-evil
    secret: { env: OPENAI_API_KEY }
`);
  const env = { CPLANE_BASE_URL: proxyUrl };
  const plan = await w.cli(['plan', w.dir], env);
  const apply = await w.cli(['apply', w.dir, '--auto-approve', '--no-input'], env);
  expect(apply.code).toBe(1);
  const printed = [plan.stdout, plan.stderr, apply.stdout, apply.stderr].join('\n');
  // The failure is reported, with the escaped reason and request id, and the redacted details.
  expect(printed).toContain('invalid credential \\e[2J\\e]0;pwned\\x07\\u202eetirw\\u202c');
  expect(printed).toContain('request id req-\\e[2J');
  expect(printed).toContain('(sensitive)');
  expect(printed).toContain('shop \\u001b[2J');
  // The body echoed as base64 holds the secret's base64 at some offset: that part is redacted too.
  expect(printed).toMatch(/as base64 [A-Za-z0-9+/]+\(sensitive\)/);
  for (const leak of [SECRET, Buffer.from(SECRET).toString('base64'), Buffer.from(SECRET).toString('base64').replace(/=+$/, ''), '\u001b[2J', '\u202e', '\u0007']) {
    expect(printed).not.toContain(leak);
  }
}, 60_000);
