// Markdown and HTML from the API never reach the step summary or the PR comment as markup (19 D8). A proxy in
// front of the emulator answers the credential list with a 403 whose message closes the <details> block, adds a
// tracking image, mentions @octocat and opens an HTML comment, with a request id holding backticks. `plan --github`
// shows it in "Could not be read" as text: rendered with markdown-it, the summary has no <img>, no open comment,
// no mention, and the request id stays inside its code span.
import MarkdownIt from 'markdown-it';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hostileProxy, world, type HostileProxy, type World } from './helpers.js';

const MESSAGE = 'forbidden</details>\n\n<img src="https://evil.example/beacon.png"> @octocat <!--';
const REQUEST_ID = 'req-`x`-``y';

let w: World;
let proxy: HostileProxy;

beforeAll(async () => {
  w = await world();
  proxy = await hostileProxy(w.emulator.url, (req, _body, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/v1/provider-credentials')) {
      res.writeHead(403, { 'content-type': 'application/json', 'x-request-id': REQUEST_ID });
      res.end(JSON.stringify({ ok: false, error: { code: 'forbidden', message: MESSAGE }, requestId: REQUEST_ID }));
      return true;
    }
    return false;
  });
});
afterAll(async () => {
  await proxy.close();
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
  const run = await w.cli(['plan', w.dir, '--github'], {
    CPLANE_BASE_URL: proxy.url,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: join(w.dir, '..', 'out'),
  });
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
