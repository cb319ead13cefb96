// A saved plan keeps the map a forEach ran over: planned with `--var teams=JSON`, applied from the file alone
// (no --var), it creates exactly the instances that were planned.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(async () => w.close());

it('plans with a map given as JSON on the command line and applies the saved plan without it', async () => {
  w.config(`version: 1
variables:
  teams: { type: map }
projects:
  team:
    forEach: \${var.teams}
    name: team-\${each.key}
    description: \${each.value.about}
`);
  const planFile = join(w.dir, '..', 'teams.plan.json');
  const plan = await w.cli(['plan', w.dir, '--out', planFile, '--var', 'teams={"ops":{"about":"Operations"},"web":{"about":"Web"}}']);
  expect(plan.stderr).toContain('Saved the plan to');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('# project.team[ops] will be created');
  expect((JSON.parse(readFileSync(planFile, 'utf8')) as { origin: { variables: unknown } }).origin.variables).toEqual({
    teams: { ops: { about: 'Operations' }, web: { about: 'Web' } },
  });

  const apply = await w.cli(['apply', planFile]);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  expect(apply.stdout).toMatch(/Apply complete: 2 done/);
  const projects = (await w.client.listAll('listProjects', {})).filter((p) => p.name.startsWith('team-'));
  expect(projects.map((p) => [p.name, p.description]).sort()).toEqual([
    ['team-ops', 'Operations'],
    ['team-web', 'Web'],
  ]);
});
