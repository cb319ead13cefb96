// The MCP tools' `varFiles` input names files the server reads: an assistant's input is not reviewed, so a file
// outside the configuration folder (the state key file), by an absolute path, a ../ path or a link inside the
// folder, is refused before anything reads it, and the key's bytes never reach the assistant. A real MCP client
// over stdio to `cplane mcp` (the built CLI), started without --allow-apply.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/index.js';
import { world, type World } from '../e2e/helpers.js';
import { call, json, session, SESSION_BUDGET_MS, type Session } from './mcp-session.js';

const KEY = 'q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8=';

describe('cplane_plan and cplane_validate refuse var files outside the configuration folder', () => {
  let w: World;
  let s: Session;
  let keyFile: string;
  beforeAll(async () => {
    w = await world();
    w.config('version: 1\nvariables:\n  env: { type: string }\nprojects:\n  shop: { name: "shop-${var.env}" }\n');
    keyFile = join(w.temp, 'config', 'cplane', 'state.key');
    mkdirSync(join(w.temp, 'config', 'cplane'), { recursive: true });
    writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
    mkdirSync(join(w.dir, 'vars'));
    symlinkSync(keyFile, join(w.dir, 'vars', 'staging.yaml'));
    writeFileSync(join(w.dir, 'vars', 'prod.yaml'), 'env: prod\n');
    s = await session(w, fixtures.tokens.admin);
  }, SESSION_BUDGET_MS);
  afterAll(async () => {
    await s?.close();
    await w?.close();
  });

  it.each([
    ['an absolute path', () => keyFile],
    ['a ../ path', () => '../config/cplane/state.key'],
    ['a link inside the folder', () => 'vars/staging.yaml'],
  ])(
    '%s: an error naming the input, and no byte of the file',
    async (_what, path) => {
      for (const tool of ['cplane_plan', 'cplane_validate']) {
        const result = await call(s, tool, { varFiles: ['vars/prod.yaml', path()] });
        expect(result.isError).toBe(true);
        const { diagnostics } = json(result) as { diagnostics: { code: string; summary: string }[] };
        expect(diagnostics.map((d) => d.code)).toEqual(['path_outside']);
        expect(diagnostics[0]!.summary).toContain(`varFiles[1] "${path()}"`);
        expect(JSON.stringify(result)).not.toContain(KEY);
      }
    },
    SESSION_BUDGET_MS,
  );

  it(
    'a var file inside the folder is read as before',
    async () => {
      const result = await call(s, 'cplane_plan', { varFiles: ['vars/prod.yaml'] });
      expect(result.isError).toBeUndefined();
      expect(JSON.stringify(json(result))).toContain('shop-prod');
    },
    SESSION_BUDGET_MS,
  );
});
