// A plan saved in one job applies in another: checkout X plans with --var-file and --out; checkout Y, at another
// path and with no variables, applies that file. The account is explicit and named everywhere.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import type { Plan } from '../../src/planner/index.js';
import { planSchemaProblems } from '../../src/saved-plan/index.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { account, runCli, world, type World } from './helpers.js';

const staging = fixtures.accounts[1]!;
const other = fixtures.accounts[2]!;

const config = `version: 1
account: \${var.account}
variables:
  account: { type: string }
  env: { type: string }
  rpm: { type: integer, default: 60 }
projects:
  shop:
    name: shop-\${var.env}
    description: Shop services in \${var.env}
credentials:
  openai:
    provider: openai
    label: openai-\${var.env}
    secret: { env: OPENAI_API_KEY }
gateways:
  main:
    project: shop
    name: Shop gateway
    slug: shop-\${var.env}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    settings:
      requestsPerMinute: \${var.rpm}
    tokens:
      ci:
        scopes: [run]
`;

let w: World;
let temp: string;
/** A clean job's environment: the API address, the token and secrets from the CI secrets; no account, no variables. */
let jobEnv: NodeJS.ProcessEnv;

// Each test arranges its own world and checkouts; a plan file made before the step under test is made in-process
// (the CLI's entry, no subprocess); the step under test runs the real CLI.
beforeEach(async () => {
  w = await world();
  temp = mkdtempSync(join(tmpdir(), 'cplane-checkouts-'));
  const x = join(temp, 'x');
  mkdirSync(join(x, 'infra'), { recursive: true });
  mkdirSync(join(x, 'envs'));
  writeFileSync(join(x, 'infra', 'main.yaml'), config);
  writeFileSync(join(x, 'envs', 'prod.yaml'), `env: prod\naccount: ${account}\nrpm: 120\n`);
  cpSync(x, join(temp, 'elsewhere', 'y'), { recursive: true });
  jobEnv = { ...w.env, CPLANE_ACCOUNT: undefined };
});
afterEach(async () => {
  await w.close();
  rmSync(temp, { recursive: true, force: true });
});

/** X's plan for prod, saved to `prod.plan.json` next to the checkouts, made in-process. */
async function prodPlanSaved(): Promise<void> {
  const planned = await runInProcess(
    ['plan', 'infra', '--var-file', 'envs/prod.yaml', '--out', '../prod.plan.json'],
    jobEnv,
    join(temp, 'x'),
  );
  expect(planned.code, planned.stderr).toBe(0);
}

describe('cplane apply PLANFILE in another checkout', () => {
  it('plans in X with --var-file, applies in Y at another path with no variables, using the state location in the plan', async () => {
    const x = join(temp, 'x');
    const y = join(temp, 'elsewhere', 'y');
    const planned = await runCli(['plan', 'infra', '--var-file', 'envs/prod.yaml', '--out', '../prod.plan.json'], jobEnv, x);
    expect(planned.stderr).toContain('Saved the plan to');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain(`Account: ${staging.name} (${account})   Workspace: default`);

    const plan = JSON.parse(readFileSync(join(temp, 'prod.plan.json'), 'utf8')) as Plan;
    expect(await planSchemaProblems(plan)).toEqual([]);
    expect(plan.origin).toMatchObject({
      workspace: 'default',
      accountName: staging.name,
      configDir: 'infra',
      variables: { env: 'prod', account, rpm: 120 },
      state: { path: `.cplane/${account}/state.json` },
    });
    expect(plan.origin!.files.map((f) => f.path)).toEqual(['main.yaml']);
    expect(JSON.stringify(plan)).not.toContain(temp);
    expect(JSON.stringify(plan)).not.toContain(w.env.OPENAI_API_KEY);

    const applied = await runCli(['apply', '../../prod.plan.json'], jobEnv, y);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/Apply complete: 4 done/);
    const project = (await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop-prod');
    expect(project?.description).toBe('Shop services in prod');
    // State went to Y's configuration folder, not X's.
    expect(readFileSync(join(y, 'infra', '.cplane', account, 'state.json'), 'utf8')).toContain('gateway.main');
    expect(() => readFileSync(join(x, 'infra', '.cplane', account, 'state.json'))).toThrow();
  });

  it("refuses when the configuration in Y wants something else at the plan's addresses, naming the changed files", async () => {
    const x = join(temp, 'x');
    const y = join(temp, 'elsewhere', 'y');
    writeFileSync(join(x, 'envs', 'stage.yaml'), `env: stage\naccount: ${account}\n`);
    expect((await runCli(['plan', 'infra', '--var-file', 'envs/stage.yaml', '--out', '../stage.plan.json'], jobEnv, x)).code).toBe(0);
    writeFileSync(join(y, 'infra', 'main.yaml'), config.replace('Shop services', 'Edited shop services'));
    writeFileSync(join(y, 'infra', 'extra.yml'), 'version: 1\n');
    const run = await runCli(['apply', '../../stage.plan.json'], jobEnv, y);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `or the configuration now wants something else; changed files: extra.yml (added), main.yaml (changed)). Nothing was applied:`,
    );
    expect((await w.client.listAll('listProjects', {})).some((p) => p.name === 'shop-stage')).toBe(false);
  });

  it('refuses an account or workspace that contradicts the plan, naming both', async () => {
    await prodPlanSaved();
    const path = join(temp, 'prod.plan.json');
    const byEnv = await runCli(['apply', path], { ...jobEnv, CPLANE_ACCOUNT: other.id }, join(temp, 'x'));
    expect(byEnv.code).toBe(1);
    expect(byEnv.stderr).toContain(
      `Error: CPLANE_ACCOUNT says account ${other.id}, but the saved plan ${path} was made for account ${account}.`,
    );
    const byFlag = await runCli(['apply', path, '--workspace', 'blue'], jobEnv, join(temp, 'x'));
    expect(byFlag.stderr).toContain(`Error: --workspace says workspace blue, but the saved plan ${path} was made for workspace default.`);
    const withVars = await runCli(['apply', path, '--var', 'env=dev'], jobEnv, join(temp, 'x'));
    expect(withVars.stderr).toContain('Error: --var cannot be used with a saved plan: the plan carries the values it was made with.');
  });

  it('refuses a plan file of format 1 (absolute folder) with a clear message', async () => {
    const path = join(temp, 'old.plan.json');
    writeFileSync(path, JSON.stringify({ formatVersion: 1, configDir: '/somewhere' }));
    const run = await runCli(['apply', path], jobEnv, temp);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: ${path} was made by an older cplane (plan format 1), which cannot be applied from another folder or job.`,
    );
  });
});

describe('an explicit account', () => {
  it('refuses --account or CPLANE_ACCOUNT that contradicts the configuration, naming both', async () => {
    const x = join(temp, 'x');
    const byEnv = await runCli(['plan', 'infra', '--var-file', 'envs/prod.yaml'], { ...jobEnv, CPLANE_ACCOUNT: other.id }, x);
    expect(byEnv.code).toBe(1);
    expect(byEnv.stderr).toContain(`CPLANE_ACCOUNT is ${other.id}, but the configuration's account is ${account}`);
    expect(byEnv.stderr).toContain('infra/main.yaml:2:');
    const byFlag = await runCli(['plan', 'infra', '--var-file', 'envs/prod.yaml', '--account', other.id], jobEnv, x);
    expect(byFlag.code).toBe(1);
    expect(byFlag.stderr).toContain(`--account is ${other.id}, but the configuration's account is ${account}`);
    const validate = JSON.parse(
      (await runCli(['validate', 'infra', '--var-file', 'envs/prod.yaml', '--json'], { ...jobEnv, CPLANE_ACCOUNT: other.id }, x)).stdout,
    ) as { diagnostics: { code: string }[] };
    expect(validate.diagnostics.map((d) => d.code)).toEqual(['account_mismatch']);
  });

  it('names the account (name and id) and the workspace in the Markdown and JSON plans', async () => {
    const x = join(temp, 'x');
    const markdown = await runCli(['plan', 'infra', '--var-file', 'envs/prod.yaml', '--markdown', '--workspace', 'blue'], jobEnv, x);
    expect(markdown.stdout).toContain(`#### cplane plan for account \`${staging.name}\` (\`${account}\`), workspace \`blue\``);
    const json = JSON.parse((await runCli(['plan', 'infra', '--var-file', 'envs/prod.yaml', '--json'], jobEnv, x)).stdout) as Plan;
    expect(json.account).toBe(account);
    expect(json.origin).toMatchObject({ accountName: staging.name, workspace: 'default' });
  });
});
