// A team's open plans in PostgreSQL, through the real CLI: the second pull request's comment names the first one
// that changes the same address; an applied plan leaves the registry, and `cplane state history` records which
// plan (its digest), for which pull request and commit, and who applied it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { world, type World } from '../helpers.js';

const database = withDatabase();
let w: World;
afterEach(async () => w.close());

it(
  'registers each PR plan, names the other open PR on a shared address, and records the applied plan in state history',
  { timeout: 120_000 },
  async () => {
    w = await world();
    const url = new URL(database().url);
    url.searchParams.set('schema', 'open_plans_e2e');
    const env = { CPLANE_STATE: url.toString() };
    w.config('version: 1\nprojects:\n  core: { description: Core }\n');
    expect((await w.run(['apply', w.dir, '--auto-approve'], env)).code).toBe(0);

    w.config('version: 1\nprojects:\n  core: { description: Core as PR 7 wants }\n');
    const first = join(w.temp, 'pr-7.plan.json');
    const planned7 = await w.cli(['plan', w.dir, '--out', first, '--pr', '7', '--commit', 'a'.repeat(40), '--markdown'], env);
    expect(planned7.code, planned7.stderr).toBe(0);
    expect(planned7.stdout).not.toContain('Other open pull requests');
    w.config('version: 1\nprojects:\n  core: { description: Core as PR 8 wants }\n');
    const planned8 = await w.cli(
      ['plan', w.dir, '--out', join(w.temp, 'pr-8.plan.json'), '--pr', '8', '--commit', 'b'.repeat(40), '--markdown'],
      env,
    );
    expect(planned8.code, planned8.stderr).toBe(0);
    expect(planned8.stdout).toContain('- #7 (`aaaaaaaaaaaa`): `project.core`');

    w.config('version: 1\nprojects:\n  core: { description: Core as PR 7 wants }\n');
    const applied = await w.cli(['apply', first], { ...env, GITHUB_ACTOR: 'octocat' });
    expect(applied.code, applied.stderr).toBe(0);
    const digest = `sha256:${createHash('sha256').update(readFileSync(first)).digest('hex')}`;
    const history = await w.cli(['state', 'history', w.dir, '--json'], env);
    const { versions } = JSON.parse(history.stdout) as { versions: { command: string }[] };
    expect(versions[0]!.command).toBe(`cplane apply (PR #7 at aaaaaaaaaaaa, plan ${digest}, by octocat)`);

    // PR 7's plan left the registry: a new plan of PR 8 names no one.
    w.config('version: 1\nprojects:\n  core: { description: Core as PR 8 wants }\n');
    const again = await w.cli(
      ['plan', w.dir, '--out', join(w.temp, 'pr-8.plan.json'), '--pr', '8', '--commit', 'c'.repeat(40), '--markdown'],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain('Other open pull requests');
  },
);
