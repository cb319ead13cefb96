// Every install path the docs give, run as a user on a fresh machine would, in empty folders and a temporary npm
// prefix (never the machine's): the release's tarballs checked against SHA256SUMS, `npm install -g` of cplane and
// its language server started as docs/editors.md says, cplane installed into a project and run with `npx cplane`,
// and `@cplane/sdk` installed into an application and imported. Neither name is on npm yet: every path is a tarball.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertFreshBuild } from '../helpers/built-cli.js';

const root = resolve(import.meta.dirname, '..', '..');
const temp = mkdtempSync(join(tmpdir(), 'cplane-install-'));
const downloads = join(temp, 'downloads');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const cplaneTarball = `cplane-${version}.tgz`;
const sdkTarball = `cplane-sdk-${version}.tgz`;
const env = { PATH: process.env.PATH ?? '', HOME: temp };
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: temp },
  });

beforeAll(() => {
  assertFreshBuild();
  // What the release attaches (.github/workflows/release.yml, its Pack step): both tarballs and SHA256SUMS.
  mkdirSync(downloads);
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', downloads], { cwd: root });
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', downloads, '--workspace', '@cplane/sdk'], {
    cwd: root,
  });
  execFileSync('sh', ['-c', 'sha256sum -- *.tgz > SHA256SUMS'], { cwd: downloads });
}, 300_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('the install paths of the README, docs/sdk.md and docs/editors.md', () => {
  it('the tarballs pass `sha256sum --check`, and a changed one does not', () => {
    expect(readdirSync(downloads).sort()).toEqual(['SHA256SUMS', cplaneTarball, sdkTarball]);
    const check = () => spawnSync('sha256sum', ['--check', '--ignore-missing', 'SHA256SUMS'], { cwd: downloads, encoding: 'utf8' });
    expect(check()).toMatchObject({ status: 0, stdout: `${cplaneTarball}: OK\n${sdkTarball}: OK\n` });
    const tampered = join(temp, 'tampered');
    mkdirSync(tampered);
    for (const file of readdirSync(downloads)) writeFileSync(join(tampered, file), readFileSync(join(downloads, file)));
    writeFileSync(join(tampered, sdkTarball), Buffer.concat([readFileSync(join(downloads, sdkTarball)), Buffer.from('x')]));
    const bad = spawnSync('sha256sum', ['--check', '--ignore-missing', 'SHA256SUMS'], { cwd: tampered, encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain(`${sdkTarball}: FAILED`);
    const digest = createHash('sha256')
      .update(readFileSync(join(downloads, cplaneTarball)))
      .digest('hex');
    expect(readFileSync(join(downloads, 'SHA256SUMS'), 'utf8')).toContain(`${digest}  ${cplaneTarball}`);
  });

  it(
    "`npm install -g ./cplane-X.tgz`, then `cplane lsp --stdio` (the editors' command) answers an editor",
    { timeout: 300_000 },
    async () => {
      const prefix = join(temp, 'prefix');
      npm(['install', '-g', '--prefix', prefix, `./${cplaneTarball}`], downloads);
      const path = `${join(prefix, 'bin')}:${env.PATH}`;
      expect(execFileSync('cplane', ['--version'], { env: { ...env, PATH: path }, encoding: 'utf8' })).toBe(`cplane ${version}\n`);

      const server = spawn('cplane', ['lsp', '--stdio'], { env: { ...env, PATH: path }, stdio: ['pipe', 'pipe', 'pipe'] });
      const message = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { processId: null, rootUri: null, capabilities: {} },
      });
      const answer = new Promise<string>((done) => {
        let text = '';
        server.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const body = /Content-Length: (\d+)\r\n\r\n/.exec(text);
          if (body && text.length >= body.index + body[0].length + Number(body[1])) done(text.slice(body.index + body[0].length));
        });
      });
      server.stdin.write(`Content-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
      const reply = JSON.parse(await answer) as { id: number; result: { capabilities: Record<string, unknown> } };
      server.kill();
      expect(reply.id).toBe(1);
      expect(reply.result.capabilities).toHaveProperty('completionProvider');
    },
  );

  it("`npm install --save-dev ./cplane-X.tgz` into a project, then `npx cplane` runs the project's copy", { timeout: 300_000 }, () => {
    const project = join(temp, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "infra", "private": true }\n');
    npm(['install', '--save-dev', join(downloads, cplaneTarball)], project);
    const npx = spawnSync('npx', ['--no-install', 'cplane', '--version'], { cwd: project, env, encoding: 'utf8' });
    expect(npx.stdout).toBe(`cplane ${version}\n`);
  });

  it('`npm install ./cplane-sdk-X.tgz` into an application, which imports `@cplane/sdk`', { timeout: 300_000 }, () => {
    const app = join(temp, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
    npm(['install', join(downloads, sdkTarball)], app);
    const imported = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "import('@cplane/sdk').then((m) => console.log(typeof m.createReader))"],
      {
        cwd: app,
        env,
        encoding: 'utf8',
      },
    );
    expect(imported).toBe('function\n');
  });
});
