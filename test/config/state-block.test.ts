// `state: { url }` in the configuration: it may only repeat the database the runner bound (CPLANE_STATE, --state or
// PGHOST, config/blocks/state-binding.ts), without a password or `${env.NAME}`; the block is checked like any other, and the
// desired state carries the URL for the commands that open the state.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE, load } from './helpers.js';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the state block', () => {
  it('takes a URL that names the bound database (PGHOST or CPLANE_STATE), and --state binds it too', async () => {
    const yaml = `${BASE}state:\n  url: postgres://cplane@db.example.com/infra?sslmode=verify-full\n`;
    for (const [env, stateFlag] of [
      [{ PGHOST: 'DB.example.com', PGPASSWORD: 'pw' }, undefined],
      [{ CPLANE_STATE: 'postgres://cplane:pw@db.example.com:5432/infra' }, undefined],
      [{}, 'postgres://cplane:pw@db.example.com/infra'],
    ] as const) {
      const { dir, desired, diagnostics } = await load(
        { 'main.yaml': yaml },
        { env: { ...env, OPENAI_API_KEY: 'sk' }, ...(stateFlag ? { stateFlag } : {}) },
      );
      folders.push(dir);
      expect(diagnostics).toEqual([]);
      expect(desired?.stateUrl).toBe('postgres://cplane@db.example.com/infra?sslmode=verify-full');
    }
  });

  it('refuses ${env.NAME}, a password, an unbound database and another database than the bound one, each at the URL', async () => {
    const cases: [string, NodeJS.ProcessEnv, string, string][] = [
      [
        'postgres://cplane:${env.DB_PASSWORD}@db/infra',
        { DB_PASSWORD: 'x' },
        'state_url_env',
        'state.url may not read the environment (${env.DB_PASSWORD})',
      ],
      ['postgres://cplane:hunter2-pw@db/infra', { PGHOST: 'db' }, 'state_url_password', 'state.url holds a password'],
      ['postgres://cplane@db/infra?password=hunter2-pw', { PGHOST: 'db' }, 'state_url_password', 'state.url holds a password'],
      [
        'postgres://cplane@evil.example/infra',
        {},
        'state_not_bound',
        'state.url names the database evil.example:5432/infra, but no state is bound',
      ],
      [
        'postgres://cplane@evil.example/infra',
        { CPLANE_STATE: 'postgres://u:p@db/infra' },
        'state_not_bound',
        'but the state is bound to db:5432/infra (CPLANE_STATE)',
      ],
      [
        'postgres://cplane@db/other',
        { PGHOST: 'db', PGDATABASE: 'infra' },
        'state_not_bound',
        'but the state is bound to db:5432/infra (PGHOST)',
      ],
      ['postgres://cplane@db/infra', { CPLANE_STATE: 'state.json' }, 'state_not_bound', 'but the state is bound to a file (CPLANE_STATE)'],
    ];
    for (const [url, env, code, summary] of cases) {
      const { dir, desired, diagnostics } = await load(
        { 'main.yaml': `${BASE}state:\n  url: ${url}\n` },
        { env: { ...env, OPENAI_API_KEY: 'sk' } },
      );
      folders.push(dir);
      expect(desired, url).toBeUndefined();
      const found = diagnostics.find((d) => d.code === code);
      expect(found?.summary, url).toContain(summary);
      expect(found?.range, url).toMatchObject({ file: 'main.yaml', line: BASE.split('\n').length + 1 });
      expect(found?.detail).toContain('CPLANE_STATE');
      expect(JSON.stringify(diagnostics), url).not.toContain('hunter2-pw');
    }
  });

  it('refuses unknown keys in the block', async () => {
    const unknown = await load(
      { 'main.yaml': `${BASE}state:\n  url: postgres://db/infra\n  schema: other\n` },
      { env: { OPENAI_API_KEY: 'sk', PGHOST: 'db' } },
    );
    folders.push(unknown.dir);
    expect(unknown.diagnostics.map((d) => d.code)).toContain('unknown_key');
  });
});
