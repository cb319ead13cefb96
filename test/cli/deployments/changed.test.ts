// `--changed`: the deployments a git diff touches. A var file touches the deployments that list it; any other file
// of the configuration folder or of a module it calls touches all of them; other files none.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { changedDeployments } from '../../../src/cli/deployments/changed.js';
import type { Deployment } from '../../../src/config/index.js';
import { AbortError } from '../../../src/errors.js';

let repo: string;
let dir: string;
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
const deployment = (name: string, varFiles: string[]): Deployment => ({
  name,
  account: name,
  workspace: 'default',
  environment: name,
  variables: {},
  varFiles: varFiles.map((f) => join(dir, f)),
  after: [],
  source: { file: 'main.yaml', line: 1, col: 1 },
});
let deployments: Deployment[];

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'cplane-changed-'));
  dir = join(repo, 'infra');
  mkdirSync(join(dir, 'vars'), { recursive: true });
  mkdirSync(join(repo, 'modules', 'team'), { recursive: true });
  mkdirSync(join(repo, 'docs'));
  writeFileSync(join(dir, 'main.yaml'), 'version: 1\nmodules:\n  a: { source: ../modules/team }\n');
  for (const f of ['vars/staging.yaml', 'vars/prod.yaml']) writeFileSync(join(dir, f), 'env: x\n');
  writeFileSync(join(repo, 'modules', 'team', 'team.yaml'), 'version: 1\n');
  writeFileSync(join(repo, 'docs', 'notes.md'), 'notes\n');
  git('init', '-q');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '-A');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'base');
  deployments = [
    deployment('staging', ['vars/staging.yaml']),
    deployment('prod-eu', ['vars/prod.yaml']),
    deployment('prod-us', ['vars/prod.yaml']),
  ];
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const names = () => changedDeployments(dir, deployments, 'HEAD').chosen.map((d) => d.name);

it('nothing changed: no deployment; a file outside the folder and its modules: none either', () => {
  expect(names()).toEqual([]);
  writeFileSync(join(repo, 'docs', 'notes.md'), 'more notes\n');
  expect(names()).toEqual([]);
});

it('a var file: the deployments that list it', () => {
  writeFileSync(join(dir, 'vars', 'prod.yaml'), 'env: prod\n');
  expect(names()).toEqual(['prod-eu', 'prod-us']);
  git('checkout', '--', '.');
});

it("a file of the folder, a new file in it, or a module's file: every deployment", () => {
  writeFileSync(join(repo, 'modules', 'team', 'team.yaml'), 'version: 1\n# changed\n');
  expect(names()).toEqual(['staging', 'prod-eu', 'prod-us']);
  git('checkout', '--', '.');
  writeFileSync(join(dir, 'extra.yaml'), 'projects: {}\n');
  expect(names()).toEqual(['staging', 'prod-eu', 'prod-us']);
  rmSync(join(dir, 'extra.yaml'));
});

it('a base that does not exist is an error saying what to give', () => {
  expect(() => changedDeployments(dir, deployments, 'no-such-ref')).toThrow(AbortError);
  expect(() => changedDeployments(dir, deployments, 'no-such-ref')).toThrow(/--changed could not read the git diff/);
});
