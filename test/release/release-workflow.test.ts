// The release workflow (.github/workflows/release.yml) run by the workflow harness on a tag, up to its publish job:
// the tagged sources built, the action's bundle committed onto releases/v0 and the tag v0 (which workflows pin), and
// the two tarballs packed with their SHA-256 checksums. Then the action is run from that tag, as a workflow's job
// checks it out: only what the tag holds, its bundle included, nothing installed. Two steps have stand-ins: `npm ci`
// (the node_modules this run installed) and the test suite (this very run: `npm test`, then `npm run test:release`).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fakeRunner, type Runner } from '../github/fake-github.js';
import { parseWorkflowFile, runWorkflow, type WorkflowRun } from '../github/workflow-harness.js';
import { assertFreshBuild } from '../helpers/built-cli.js';

const root = resolve(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const tag = `v${version}`;
const temp = mkdtempSync(join(tmpdir(), 'cplane-release-'));
const repo = join(temp, 'repo');
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: 'pipe' }).trim();

let release: WorkflowRun;
let tagged: string;
let runner: Runner | undefined;

beforeAll(async () => {
  assertFreshBuild();
  // The repository as it would be tagged: every file git keeps (tracked, or new and not ignored), as they are now.
  mkdirSync(repo);
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    cpSync(join(root, file), join(repo, file));
  }
  git('init', '--quiet', '--initial-branch', 'main');
  git('config', 'user.email', 'maintainer@example.com');
  git('config', 'user.name', 'Maintainer');
  git('config', 'uploadpack.allowAnySHA1InWant', 'true');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'the sources');
  git('tag', tag);
  tagged = git('rev-parse', 'HEAD');

  const text = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');
  release = await runWorkflow(await parseWorkflowFile('.github/workflows/release.yml', text), {
    repo,
    repository: 'acme/cplane',
    eventName: 'push',
    event: { ref: `refs/tags/${tag}` },
    sha: tagged,
    ref: `refs/tags/${tag}`,
    runId: 1,
    secrets: { NPM_TOKEN: 'npm-test-token' },
    apiUrl: 'http://127.0.0.1:9',
    action: { ref: 'OWNER/cplane@v0', path: root },
    artifacts: join(temp, 'artifacts'),
    temp,
    baseEnv: { PATH: process.env.PATH, HOME: temp, NO_COLOR: '1', npm_config_cache: join(temp, 'npm-cache') },
    skipJobs: ['publish'],
    standIns: {
      Install: `ln -s ${JSON.stringify(join(root, 'node_modules'))} node_modules`,
      Test: 'echo "npm test and npm run test:release: this run"',
    },
  });
}, 600_000);
afterAll(() => {
  runner?.close();
  rmSync(temp, { recursive: true, force: true });
});

it('builds, bundles and packs the tag; the publish job is the one left', () => {
  const failed = release.jobs.flatMap((j) => j.steps.filter((s) => s.outcome === 'failure').map((s) => `${j.name}/${s.name}: ${s.stderr}`));
  expect(failed).toEqual([]);
  expect(release.jobs.map((j) => [j.id, j.result])).toEqual([
    ['build', 'success'],
    ['action', 'success'],
    ['publish', 'skipped'],
  ]);
  // What publish would do: both packages with provenance, and the release with the tarballs and their checksums.
  const text = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');
  expect(text).toContain('npm publish --provenance --access public release/cplane-sdk-*.tgz');
  expect(text).toContain('npm publish --provenance --access public release/cplane-[0-9]*.tgz');
  expect(text).toMatch(/gh release create .* release\/\*\.tgz release\/SHA256SUMS/);
});

it('the tarballs of cplane and @cplane/sdk, each with its SHA-256 in SHA256SUMS', () => {
  const packages = join(temp, 'artifacts', '1', 'packages');
  expect(readdirSync(packages).sort()).toEqual(['SHA256SUMS', `cplane-${version}.tgz`, `cplane-sdk-${version}.tgz`]);
  const sums = readFileSync(join(packages, 'SHA256SUMS'), 'utf8');
  for (const file of [`cplane-${version}.tgz`, `cplane-sdk-${version}.tgz`]) {
    const digest = createHash('sha256')
      .update(readFileSync(join(packages, file)))
      .digest('hex');
    expect(sums).toContain(`${digest}  ${file}\n`);
  }
});

it('the action release ref: one commit on the tag that adds only action/dist/, at releases/v0 and the tag v0', () => {
  const major = tag.split('.')[0]!;
  const bundled = git('rev-parse', `${major}^{commit}`);
  expect(git('rev-parse', `releases/${major}`)).toBe(bundled);
  expect(git('rev-parse', `${bundled}^`)).toBe(tagged);
  const added = git('diff', '--name-only', tagged, bundled).split('\n');
  expect(added.every((file) => file.startsWith('action/dist/'))).toBe(true);
  expect(added).toEqual(expect.arrayContaining(['action/dist/cplane.mjs', 'action/dist/pr-comment.mjs', 'action/dist/drift-issue.mjs']));
  // main and the source tag carry no bundle.
  expect(git('ls-tree', '-r', '--name-only', tag, 'action')).toBe('');
});

it('the action runs from the tag v0 as a job checks it out: its bundle, nothing installed', async () => {
  const checkout = join(temp, 'action-at-v0');
  mkdirSync(checkout);
  execFileSync('sh', ['-c', `git -C ${JSON.stringify(repo)} archive v0 action.yml action | tar -x -C ${JSON.stringify(checkout)}`]);
  expect(existsSync(join(checkout, 'node_modules'))).toBe(false);
  runner = fakeRunner(checkout);
  mkdirSync(join(runner.workspace, 'infra'));
  writeFileSync(join(runner.workspace, 'infra', 'main.yaml'), 'version: 1\nprojects:\n  shop: { description: Shop }\n');
  const run = await runner.step(
    'cplane',
    { command: 'validate', args: 'infra' },
    { PATH: process.env.PATH, HOME: runner.workspace, NO_COLOR: '1' },
  );
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Configuration is valid');
});
