// `state: { url }` in the configuration: the password comes from the environment, the block is checked like
// any other, and the desired state carries the URL for the commands that open the state.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE, load } from './helpers.js';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the state block', () => {
  it('takes the URL with ${env.NAME} interpolated', async () => {
    const { dir, desired, diagnostics } = await load(
      { 'main.yaml': `${BASE}state:\n  url: postgres://cplane:\${env.DB_PASSWORD}@db.example.com/infra?sslmode=verify-full\n` },
      { env: { DB_PASSWORD: 'from-env', OPENAI_API_KEY: 'sk' } },
    );
    folders.push(dir);
    expect(diagnostics).toEqual([]);
    expect(desired?.stateUrl).toBe('postgres://cplane:from-env@db.example.com/infra?sslmode=verify-full');
  });

  it('says which environment variable is missing, and refuses unknown keys in the block', async () => {
    const missing = await load(
      { 'main.yaml': `${BASE}state:\n  url: postgres://cplane:\${env.DB_PASSWORD}@db/infra\n` },
      { env: { OPENAI_API_KEY: 'sk' } },
    );
    folders.push(missing.dir);
    expect(missing.diagnostics.map((d) => [d.code, d.summary])).toContainEqual([
      'unresolved_variable',
      'Environment variable "DB_PASSWORD" is not set (used as ${env.DB_PASSWORD})',
    ]);
    const unknown = await load(
      { 'main.yaml': `${BASE}state:\n  url: postgres://db/infra\n  schema: other\n` },
      { env: { OPENAI_API_KEY: 'sk' } },
    );
    folders.push(unknown.dir);
    expect(unknown.diagnostics.map((d) => d.code)).toContain('unknown_key');
  });
});
