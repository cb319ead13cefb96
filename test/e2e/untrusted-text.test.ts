// A hostile API between cplane and the emulator: it answers the credential create with an error that
// echoes the request body (the provider secret, plain and base64) and carries ESC and U+202E in its
// reason and request id. apply must print none of the secret and none of the raw control characters.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hostileProxy, world, type HostileProxy, type World } from './helpers.js';

let w: World;
let proxy: HostileProxy;

const SECRET = 'sk-e2e-openai-secret';
const EVIL = '\u001b[2J\u001b]0;pwned\u0007\u202eetirw\u202c';

beforeAll(async () => {
  w = await world();
  proxy = await hostileProxy(w.emulator.url, (req, body, res) => {
    if (req.method === 'POST' && req.url === '/v1/provider-credentials') {
      res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': 'req-evil' });
      res.end(
        JSON.stringify({
          ok: false,
          error: {
            code: 'bad_request',
            message: `invalid credential ${EVIL}`,
            details: [
              `body was ${body.toString('utf8')}`,
              `as base64 ${body.toString('base64')}`,
              `secret as base64 ${Buffer.from(SECRET).toString('base64')}`,
            ],
          },
          requestId: `req-${EVIL}`,
        }),
      );
      return true;
    }
    return false;
  });
});
afterAll(async () => {
  await proxy.close();
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
  const env = { CPLANE_BASE_URL: proxy.url };
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
  for (const leak of [
    SECRET,
    Buffer.from(SECRET).toString('base64'),
    Buffer.from(SECRET).toString('base64').replace(/=+$/, ''),
    '\u001b[2J',
    '\u202e',
    '\u0007',
  ]) {
    expect(printed).not.toContain(leak);
  }
}, 60_000);
