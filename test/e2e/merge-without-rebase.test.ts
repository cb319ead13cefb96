// Pull requests that merge without rebasing (docs/ci.md), in a real Git repository through the real CLI: two PRs
// planned from one base. Disjoint addresses: both apply on their merge commits, the second exactly as reviewed (no
// new plan, no write beyond its own), and the next plan is clean. A shared address: the second PR's comment, made
// while the first was open, names it; once the first applies, the second is refused naming the address, writing nothing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, type World } from './helpers.js';

let w: World;
let repo: string;
let infra: string;
let plans: string;
let env: NodeJS.ProcessEnv;
const git = (...args: string[]) =>
  execFileSync('git', ['-C', repo, '-c', 'user.email=dev@example.com', '-c', 'user.name=dev', ...args], { encoding: 'utf8' }).trim();
const project = (name: string, description: string, active = true) =>
  `version: 1\nprojects:\n  ${name}:\n    description: ${description}\n    name: ${name}\n    active: ${active}\n`;

/** A pull request: a branch from main with `files` changed, committed, and planned with --out as PR `pr`. */
async function openPullRequest(pr: number, files: Record<string, string>) {
  git('checkout', '-q', '-b', `pr-${pr}`, 'main');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(infra, name), text);
  git('commit', '-q', '-am', `PR ${pr}`);
  const commit = git('rev-parse', 'HEAD');
  const planFile = join(plans, `pr-${pr}.plan.json`);
  const planned = await w.cli(['plan', infra, '--out', planFile, '--pr', String(pr), '--commit', commit, '--markdown'], env);
  expect(planned.code, planned.stderr).toBe(0);
  git('checkout', '-q', 'main');
  return { planFile, commit, comment: planned.stdout };
}

const merge = (pr: number) => git('merge', '-q', '--no-ff', `pr-${pr}`, '-m', `Merge PR ${pr}`);
const registered = () => {
  const file = join(w.temp, 'state', 'state.json.plans.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { plans: { pr: number }[] }).plans.map((p) => p.pr) : [];
};
const description = async (name: string) => (await w.client.listAll('listProjects', {})).find((p) => p.name === name);

beforeAll(async () => {
  w = await world();
  repo = join(w.temp, 'repo');
  infra = join(repo, 'infra');
  plans = join(w.temp, 'plans');
  mkdirSync(infra, { recursive: true });
  mkdirSync(plans);
  mkdirSync(join(w.temp, 'state'));
  // The state outside the checkout, as a team's would be (here a file; PostgreSQL in test/e2e/postgres/).
  env = { CPLANE_STATE: join(w.temp, 'state', 'state.json') };
  writeFileSync(join(infra, 'alpha.yaml'), project('alpha', 'A0'));
  writeFileSync(join(infra, 'beta.yaml'), project('beta', 'B0'));
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const base = await w.run(['apply', infra, '--auto-approve'], env);
  expect(base.code, base.stderr).toBe(0);
}, 120_000);
afterAll(async () => w.close());

describe('pull requests that merge without rebasing', () => {
  it(
    'disjoint addresses: both apply after merge, the second as reviewed with no write beyond its own; the next plan is clean',
    { timeout: 120_000 },
    async () => {
      const summary = join(w.temp, 'summary.md');
      writeFileSync(summary, '');
      const a = await openPullRequest(1, { 'alpha.yaml': project('alpha', 'A1') });
      const b = await openPullRequest(2, { 'beta.yaml': project('beta', 'B1') });
      expect(registered().sort()).toEqual([1, 2]);
      // Disjoint: neither comment names the other.
      expect(b.comment).not.toContain('Other open pull requests');

      merge(1);
      w.emulator.resetStats();
      const appliedA = await w.cli(['apply', a.planFile, '--github'], { ...env, GITHUB_STEP_SUMMARY: summary, GITHUB_ACTOR: 'merger' });
      expect(appliedA.code, appliedA.stderr).toBe(0);
      expect(w.emulator.stats().writes).toBe(1);
      const digest = `sha256:${createHash('sha256').update(readFileSync(a.planFile)).digest('hex')}`;
      expect(readFileSync(summary, 'utf8')).toContain(`Applied: PR #1 at \`${a.commit.slice(0, 12)}\`, plan \`${digest}\`, by merger.`);

      // main is now base + A + B: B's branch never saw A's change.
      merge(2);
      expect(readFileSync(join(infra, 'alpha.yaml'), 'utf8')).toContain('A1');
      w.emulator.resetStats();
      const appliedB = await w.cli(['apply', b.planFile], env);
      expect(appliedB.stderr).toBe('');
      expect(appliedB.code).toBe(0);
      expect(appliedB.stdout).toContain(
        "The configuration changed since the plan was made (alpha.yaml (changed)); the plan made now has exactly the saved steps at the plan's 1 address(es), so they are applied as reviewed.",
      );
      expect(appliedB.stdout).toContain('project.beta: update');
      expect(appliedB.stdout).not.toContain('project.alpha');
      expect(w.emulator.stats().writes).toBe(1);
      expect((await description('alpha'))?.description).toBe('A1');
      expect((await description('beta'))?.description).toBe('B1');
      // Applied plans leave the registry.
      expect(registered()).toEqual([]);

      const next = await w.cli(['plan', infra, '--detailed-exitcode'], env);
      expect(next.code, next.stdout).toBe(0);
      expect(next.stdout).toContain('No changes.');
    },
  );

  it(
    "a shared address: B's comment names A; after A applies, B is refused naming the address, with 0 writes",
    { timeout: 120_000 },
    async () => {
      const a = await openPullRequest(3, { 'alpha.yaml': project('alpha', 'A2') });
      const b = await openPullRequest(4, { 'alpha.yaml': project('alpha', 'A1', false) });
      expect(b.comment).toContain('**Other open pull requests change the same addresses.**');
      expect(b.comment).toContain(`- #3 (\`${a.commit.slice(0, 12)}\`): \`project.alpha\``);

      merge(3);
      expect((await w.cli(['apply', a.planFile], env)).code).toBe(0);
      merge(4);
      expect(readFileSync(join(infra, 'alpha.yaml'), 'utf8')).toBe(project('alpha', 'A2', false));
      w.emulator.resetStats();
      const refused = await w.cli(['apply', b.planFile], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Error: The saved plan ${b.planFile} is stale or was altered at 1 address:`);
      expect(refused.stderr).toMatch(
        /\n {2}- project\.alpha: differs at [^\n]+ \(applied by another run at [^\n]+, after this plan was made\)\n/,
      );
      expect(w.emulator.stats().writes).toBe(0);
      expect(await description('alpha')).toMatchObject({ description: 'A2', is_active: true });
      // B stays registered until it is planned again (its new commit supersedes it) or its PR is closed.
      expect(registered()).toEqual([4]);
      const listed = await w.run(['state', 'plans', infra], env);
      expect(listed.stdout).toMatch(/^PR #4 {2}[0-9a-f]{12} {2}\S+ {2}sha256:[0-9a-f]{64} {2}1 address\(es\): project\.alpha\n$/);
      // Its pull request closed: the closing workflow forgets it (docs/state.md).
      expect((await w.run(['state', 'plans', infra, '--forget', '4'], env)).stdout).toBe('Forgot the plan of PR #4.\n');
      expect(registered()).toEqual([]);
    },
  );
});
