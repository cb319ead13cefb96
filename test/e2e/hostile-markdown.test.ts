// Markdown and HTML from the API never reach the step summary or the PR comment as markup (19 D8). A proxy in
// front of the emulator answers the credential list with a 403 whose message closes the <details> block, adds a
// tracking image, mentions @octocat and opens an HTML comment, with a request id holding backticks. `plan --github`
// shows it in "Could not be read" as text: rendered with markdown-it, the summary has no <img>, no open comment,
// no mention, and the request id stays inside its code span.
import MarkdownIt from 'markdown-it';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { world, type World } from './helpers.js';

const MESSAGE = 'forbidden</details>\n\n<img src="https://evil.example/beacon.png"> @octocat <!--';
const REQUEST_ID = 'req-`x`-``y';

let w: World;
let proxy: Server;
let proxyUrl: string;

beforeAll(async () => {
  w = await world();
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'GET' && req.url?.startsWith('/v1/provider-credentials')) {
        res.writeHead(403, { 'content-type': 'application/json', 'x-request-id': REQUEST_ID });
        res.end(JSON.stringify({ ok: false, error: { code: 'forbidden', message: MESSAGE }, requestId: REQUEST_ID }));
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

it('the step summary shows the 403 as text', async () => {
  w.config(`version: 1
credentials:
  openai:
    provider: openai
    label: openai-main
    secret: { env: OPENAI_API_KEY }
`);
  const summary = join(w.dir, '..', 'summary.md');
  writeFileSync(summary, '');
  const run = await w.cli(['plan', w.dir, '--github'], { CPLANE_BASE_URL: proxyUrl, GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: join(w.dir, '..', 'out') });
  const markdown = readFileSync(summary, 'utf8');
  expect(markdown, run.stderr).toContain('Could not be read');
  const html = new MarkdownIt({ html: true }).render(markdown);
  expect(html).not.toContain('<img');
  expect(html).not.toMatch(/<!--(?! cplane)/);
  expect(html.replace(/<[^>]*>/g, '')).not.toMatch(/@octocat/);
  // The request id is one code span, whole.
  expect(html).toContain('<code>req-`x`-``y</code>');
  // Every <details> the plan opens is closed by the plan, not by the API's text.
  expect((html.match(/<details>/g) ?? []).length).toBe((html.match(/<\/details>/g) ?? []).length);
  expect(html).toContain('forbidden&lt;/details&gt;');
});
