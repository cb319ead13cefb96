// cplane_plan and cplane_validate take what the CLI's flags give: variables, var files, a workspace and
// targets. A variable without a value is explained in the tools' terms, never as a command-line flag.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/index.js';
import { world, type World } from '../e2e/helpers.js';
import { call, json, session, SESSION_BUDGET_MS, type Session } from './mcp-session.js';

const config = `version: 1
variables:
  env:
    description: Environment name.
  blurb:
    description: Project description.
    default: made by the assistant
projects:
  shop:
    name: shop-\${var.env}
    description: \${var.blurb}
  extra:
    name: extra-\${var.env}
    description: Extra
`;

interface PlanJson {
  summary: Record<string, number>;
  steps: { address: string; inputs?: Record<string, unknown> }[];
  origin: { workspace: string; variables: Record<string, unknown> };
}

describe('cplane_plan and cplane_validate with variables, var files, workspace and targets', () => {
  let w: World;
  let s: Session;
  beforeAll(async () => {
    w = await world();
    w.config(config);
    mkdirSync(join(w.dir, 'vars'));
    writeFileSync(join(w.dir, 'vars', 'staging.yaml'), 'env: staging\nblurb: from the var file\n');
    s = await session(w, fixtures.tokens.admin);
  }, SESSION_BUDGET_MS);
  afterAll(async () => {
    await s?.close();
    await w?.close();
  });

  it(
    'a variable without a value is an error that names the tool inputs, not --var',
    async () => {
      const result = await call(s, 'cplane_plan');
      expect(result.isError).toBe(true);
      const { diagnostics } = json(result) as { diagnostics: { code: string; summary: string; detail: string }[] };
      expect(diagnostics).toMatchObject([{ code: 'variable_unset', summary: 'Variable "env" is required but has no value' }]);
      expect(diagnostics[0]!.detail).toBe(
        'Give it a value in this tool\'s "variables" input ({"env": VALUE}), in a file listed in "varFiles", or with the environment variable CPLANE_VAR_env of the MCP server.',
      );
      expect(result.content[0]!.text).not.toContain('--var');
    },
    SESSION_BUDGET_MS,
  );

  it(
    'plans with variables, a var file (variables win), a workspace and targets',
    async () => {
      const result = await call(s, 'cplane_plan', {
        varFiles: ['vars/staging.yaml'],
        variables: { env: 'prod' },
        workspace: 'blue',
        targets: ['project.shop'],
      });
      expect(result.isError).toBeUndefined();
      const { plan } = json(result) as { plan: PlanJson };
      expect(plan.origin.workspace).toBe('blue');
      expect(plan.origin.variables).toEqual({ env: 'prod', blurb: 'from the var file' });
      expect(plan.summary).toMatchObject({ add: 1 });
      expect(plan.steps.map((step) => step.address)).toEqual(['project.shop']);
      expect(JSON.stringify(plan.steps[0])).toContain('"shop-prod"');
      expect(JSON.stringify(plan.steps[0])).toContain('"from the var file"');
    },
    SESSION_BUDGET_MS,
  );

  it(
    'plans with exclude, like --exclude',
    async () => {
      const result = await call(s, 'cplane_plan', { variables: { env: 'prod' }, exclude: ['project.shop'] });
      expect(result.isError).toBeUndefined();
      const { plan } = json(result) as { plan: PlanJson & { exclude: string[] } };
      expect(plan.exclude).toEqual(['project.shop']);
      expect(plan.steps.map((step) => step.address)).not.toContain('project.shop');
    },
    SESSION_BUDGET_MS,
  );

  it('validates with the same inputs', async () => {
    const unset = json(await call(s, 'cplane_validate')) as { valid: boolean; unsetVariables: string[] };
    expect(unset).toMatchObject({ valid: true, unsetVariables: ['env'] });
    const set = json(await call(s, 'cplane_validate', { variables: { env: 'prod' } })) as { valid: boolean; unsetVariables: string[] };
    expect(set).toMatchObject({ valid: true, unsetVariables: [] });
    const fromFile = json(await call(s, 'cplane_validate', { varFiles: ['vars/staging.yaml'] })) as { unsetVariables: string[] };
    expect(fromFile.unsetVariables).toEqual([]);
  });

  it('refuses inputs of the wrong shape before running anything', async () => {
    const result = await call(s, 'cplane_plan', { targets: 'project.shop', colour: 'blue' });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^cplane_plan was not run: /);
    expect(result.content[0]!.text).toContain('/targets: Expected array');
    expect(result.content[0]!.text).toContain('colour');
  });
});
