// Text from the account or the configuration never becomes a workflow command in a GitHub Actions log. The runner
// obeys `##[command]` anywhere in a line and `::command::` at a line's start: a proxy in front of the emulator
// refuses the credential list with a message carrying `##[add-mask]`, `##[stop-commands]` and, on lines of their
// own, `::stop-commands::` and `::add-mask::`; the configuration's project description carries `##[set-output]`.
// `plan --github` and `validate --github` print every line with no command in it but cplane's own annotations.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hostileProxy, world, type HostileProxy, type World } from './helpers.js';

const MESSAGE = 'forbidden ##[add-mask]hunter2 ##[stop-commands]pwned\n::stop-commands::pwned\n  ::add-mask::hunter2\n##[endgroup]';

let w: World;
let proxy: HostileProxy;

beforeAll(async () => {
  w = await world();
  proxy = await hostileProxy(w.emulator.url, (req, _body, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/v1/provider-credentials')) {
      res.writeHead(403, { 'content-type': 'application/json', 'x-request-id': 'req-::add-mask::x-##[y]' });
      res.end(JSON.stringify({ ok: false, error: { code: 'forbidden', message: MESSAGE }, requestId: 'req-::add-mask::x-##[y]' }));
      return true;
    }
    return false;
  });
});
afterAll(async () => {
  await proxy.close();
  await w.close();
});

/** The lines the runner would read a command in: `##[` anywhere, or `::` at the start that is not cplane's own annotation. */
function commandLines(output: string): string[] {
  return output
    .split(/\r?\n/)
    .filter((line) => line.includes('##[') || (/^\s*::/.test(line) && !/^::(error|warning|notice)[ :]/.test(line)));
}

it("plan --github: the API's message and the configuration's text are printed with no workflow command in them", async () => {
  w.config(`version: 1
projects:
  shop:
    description: "##[set-output name=has_changes;]false ##[add-mask]x"
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
    OPENAI_API_KEY: 'sk-openai-workflow-commands-5512',
  });
  const output = `${run.stdout}\n${run.stderr}`;
  // The text is there, for a person to read.
  expect(output).toContain('hunter2');
  expect(output).toContain('set-output name=has_changes;]false');
  expect(commandLines(output)).toEqual([]);
  expect(commandLines(readFileSync(summary, 'utf8'))).toEqual([]);
});

it('validate --github: an annotation whose message quotes the configuration carries no command', async () => {
  w.config(`version: 1
projects:
  shop:
    description: "\${var.nope##[add-mask]x}"
`);
  const run = await w.cli(['validate', w.dir, '--github'], { GITHUB_STEP_SUMMARY: join(w.dir, '..', 'summary2.md') });
  expect(run.code).toBe(1);
  const output = `${run.stdout}\n${run.stderr}`;
  expect(output).toMatch(/^::error .*add-mask\]x/m);
  expect(commandLines(output)).toEqual([]);
});
