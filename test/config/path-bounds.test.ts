// What a configuration names (a deployment's varFiles, a `{ file: }` secret source) is read only inside its
// folder, or inside the Git work tree that holds it: a path outside, by `..`, absolute or through a link that
// leaves, is an error at its file:line:col and is never read; a diagnostic never quotes a secret source's value.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfiguration } from '../../src/providers/index.js';
import { writeConfig } from './helpers.js';

const A1 = '0a000000-0000-4000-8000-000000000001';
const A2 = '0a000000-0000-4000-8000-000000000002';
/** Bytes no diagnostic may show: a state key file's content, and not a map, so a var file of it is an error. */
const KEY = 'q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8=';

const deployments = (varFiles: string) => `version: 1
variables:
  env: { type: string, default: x }
deployments:
  staging: { account: ${A1}, varFiles: [${varFiles}] }
  prod: { account: ${A2} }
projects:
  app: { description: "\${var.env} app" }
`;

/** A repository holding `outside/state.key` and the configuration folder `repo/infra`; `git` makes `repo` a Git work tree. */
function repository(options: { git: boolean }): { top: string; infra: string } {
  const top = writeConfig({ 'outside/state.key': `${KEY}\n`, 'repo/shared/common.yaml': 'env: shared\n' });
  if (options.git) mkdirSync(join(top, 'repo', '.git'));
  const infra = join(top, 'repo', 'infra');
  mkdirSync(infra, { recursive: true });
  return { top, infra };
}

const loadIn = (dir: string, options: { deployment?: string; allowUnsetVariables?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
  loadConfiguration('.', { env: {}, cwd: dir, ...options });

describe('paths the configuration names stay inside its folder or its Git work tree', () => {
  it.each([
    ['an absolute path', (top: string) => join(top, 'outside', 'state.key')],
    ['a ../ path', () => '../../outside/state.key'],
    ['a link inside the folder that leads outside', () => 'vars/key.yaml'],
  ])('a var file named by %s is an error at its place in varFiles, and is never read', async (_what, path) => {
    const { top, infra } = repository({ git: false });
    mkdirSync(join(infra, 'vars'));
    symlinkSync(join(top, 'outside', 'state.key'), join(infra, 'vars', 'key.yaml'));
    const written = path(top);
    writeFileSync(join(infra, 'main.yaml'), deployments(written));
    for (const options of [{ allowUnsetVariables: true }, { deployment: 'staging' }, { deployment: 'prod' }]) {
      const { desired, diagnostics } = await loadIn(infra, options);
      expect(desired).toBeUndefined();
      expect(diagnostics.map((d) => [d.code, d.range?.file, d.range?.line, d.range?.col])).toEqual([['path_outside', 'main.yaml', 5, 72]]);
      expect(diagnostics[0]!.summary).toContain(`The var file "${written}" of deployment "staging"`);
      expect(JSON.stringify(diagnostics)).not.toContain(KEY);
    }
  });

  it('a var file of a sibling folder of the same Git work tree is read (a .git entry marks the tree)', async () => {
    const { infra } = repository({ git: true });
    writeFileSync(join(infra, 'main.yaml'), deployments('../shared/common.yaml'));
    const { desired, diagnostics } = await loadIn(infra, { deployment: 'staging' });
    expect(diagnostics).toEqual([]);
    expect(desired?.variables.env).toBe('shared');
  });

  it('without a .git above it, the same sibling is outside the configuration folder', async () => {
    const { infra } = repository({ git: false });
    writeFileSync(join(infra, 'main.yaml'), deployments('../shared/common.yaml'));
    const { diagnostics } = await loadIn(infra, { deployment: 'staging' });
    expect(diagnostics.map((d) => d.code)).toEqual(['path_outside']);
    expect(diagnostics[0]!.summary).toContain('is outside the configuration folder');
  });

  it('a Git work tree at the home folder (dotfiles) is no bound: the state key under it stays outside', async () => {
    const { top, infra } = repository({ git: false });
    mkdirSync(join(top, '.git'));
    mkdirSync(join(top, '.config', 'cplane'), { recursive: true });
    writeFileSync(join(top, '.config', 'cplane', 'state.key'), `${KEY}\n`);
    writeFileSync(join(infra, 'main.yaml'), deployments('../../.config/cplane/state.key'));
    const home = process.env.HOME;
    process.env.HOME = top;
    try {
      const { diagnostics } = await loadIn(infra, { deployment: 'staging' });
      expect(diagnostics.map((d) => d.code)).toEqual(['path_outside']);
      expect(diagnostics[0]!.summary).toContain('is outside the configuration folder');
      expect(JSON.stringify(diagnostics)).not.toContain(KEY);
    } finally {
      process.env.HOME = home;
    }
  });

  it("inside the work tree, .git (the checkout's credentials) is never read", async () => {
    const { infra } = repository({ git: true });
    writeFileSync(join(infra, '..', '.git', 'config'), '[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0LXRva2Vu\n');
    writeFileSync(join(infra, 'main.yaml'), deployments('../.git/config'));
    const { diagnostics } = await loadIn(infra, { deployment: 'staging' });
    expect(diagnostics.map((d) => d.code)).toEqual(['path_outside']);
    expect(JSON.stringify(diagnostics)).not.toContain('c2VjcmV0LXRva2Vu');
  });

  it('the state folder .cplane inside the configuration folder is never read either', async () => {
    const { infra } = repository({ git: false });
    mkdirSync(join(infra, '.cplane'));
    writeFileSync(join(infra, '.cplane', 'state.json'), '{"sealed": "c2VhbGVkLXN0YXRl"}\n');
    writeFileSync(join(infra, 'main.yaml'), deployments('.cplane/state.json'));
    const { diagnostics } = await loadIn(infra, { deployment: 'staging' });
    expect(diagnostics.map((d) => d.code)).toEqual(['path_outside']);
    expect(diagnostics[0]!.summary).toContain('is inside a folder cplane never reads from (.git, .cplane)');
  });

  it('a { file: } secret source outside is an error at its path; one inside is taken', async () => {
    const { top, infra } = repository({ git: false });
    writeFileSync(join(infra, 'key.txt'), 'sk-inside-the-folder\n');
    writeFileSync(
      join(infra, 'main.yaml'),
      `version: 1
account: ${A1}
projects:
  app:
    records:
      inside: { value: { file: ./key.txt } }
      outside: { value: { file: ${join(top, 'outside', 'state.key')} } }
`,
    );
    const { diagnostics } = await loadIn(infra);
    expect(diagnostics.map((d) => [d.code, d.range?.line, d.range?.col])).toEqual([['path_outside', 7, 33]]);
    expect(diagnostics[0]!.summary).toMatch(/^The secret source file ".*state\.key" is outside the configuration folder/);
  });

  it('a diagnostic never quotes the value of a secret source (a var file that is also a secret file)', async () => {
    const { infra } = repository({ git: false });
    writeFileSync(join(infra, 'token.txt'), 'tok-0123456789abcdef\n');
    writeFileSync(
      join(infra, 'main.yaml'),
      `version: 1
variables:
  env: { type: string, default: x }
deployments:
  staging: { account: ${A1}, varFiles: [token.txt] }
projects:
  app:
    records:
      api: { value: { file: ./token.txt } }
      env: { value: { env: SECRET_FROM_ENV } }
`,
    );
    writeFileSync(join(infra, 'other.yaml'), 'projects:\n  extra: { description: "pasted sk-env-value-12345 by mistake"\n');
    const { diagnostics } = await loadIn(infra, { deployment: 'staging', env: { SECRET_FROM_ENV: 'sk-env-value-12345' } });
    const text = JSON.stringify(diagnostics);
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(text).not.toContain('tok-0123456789abcdef');
    expect(text).not.toContain('sk-env-value-12345');
    expect(text).toContain('<redacted>');
  });
});
