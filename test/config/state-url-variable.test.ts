// A variable may not reach `state: { url }` (19 C6): variable values are saved in plan files (`origin.variables`)
// and shown by `plan --json` and the MCP plan tool, so a password given as `--var dbpw=…` would leak there. The
// configuration is refused with `secret_var_in_state_url` at the variable's place, and the CLI shows no password.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, type World } from '../e2e/helpers.js';
import { BASE, load } from './helpers.js';

const PASSWORD = 'v4r-P4ssw0rd/Secret+x=';
const config = `${BASE}variables:\n  dbpw: {}\nstate:\n  url: postgres://cplane:\${var.dbpw}@127.0.0.1:1/infra\n`;

it('refuses ${var.NAME} in state.url, at its line and column', async () => {
  const { diagnostics } = await load(
    { 'main.yaml': config },
    { env: { OPENAI_API_KEY: 'sk' }, variables: [{ name: 'dbpw', value: PASSWORD }] },
  );
  const refusal = diagnostics.find((d) => d.code === 'secret_var_in_state_url');
  const line = config.split('\n').findIndex((l) => l.includes('${var.dbpw}')) + 1;
  expect(refusal?.range).toMatchObject({ file: 'main.yaml', line, col: '  url: postgres://cplane:'.length + 1 });
  expect(refusal?.summary).toContain('${var.dbpw}');
  expect(refusal?.detail).toContain('CPLANE_STATE');
  expect(JSON.stringify(diagnostics)).not.toContain(PASSWORD);
});

it('keeps a literal $${var.x}', async () => {
  const ok = await load(
    { 'main.yaml': `${BASE}state:\n  url: postgres://cplane@h/infra?application_name=$\${var.x}\n` },
    { env: { OPENAI_API_KEY: 'sk', PGHOST: 'h' } },
  );
  expect(ok.diagnostics).toEqual([]);
});

describe('the CLI', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
    w.config(config.replace(BASE, 'version: 1\n'));
  });
  afterAll(() => w.close());

  it('plan --out and plan --json refuse it: no plan file, no password in any output', async () => {
    for (const extra of [['--out', 'p.json'], ['--json']]) {
      // A configuration error: in-process (World.run).
      const run = await w.run(['plan', w.dir, '--var', `dbpw=${PASSWORD}`, ...extra]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/main\.yaml:\d+:\d+/);
      expect(run.stderr).toContain('state.url may not use a variable (${var.dbpw})');
      expect(`${run.stdout}${run.stderr}`).not.toContain(PASSWORD);
    }
    expect(readdirSync(w.dir)).not.toContain('p.json');
  });
});
