// Deployments over three emulator accounts with the real CLI: plan --all (the matrix, one failing deployment
// not hiding the others, exit codes), plan --all --out DIR then apply DIR, apply --all in waves with a failure
// in one wave (the later wave is not started), autoApprove, and the one pull-request comment (--github).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

const [t1, t2, t3] = [extraAccount(1).id, extraAccount(2).id, extraAccount(3).id];
const globex = fixtures.accounts[2]!.id;

/** staging first; prod-eu and prod-us after it; canary after both. `projects` gives each deployment's project names. */
function configuration(
  options: { projects?: Record<string, string[]>; canary?: string; canaryVarFile?: string; autoApprove?: string } = {},
): string {
  const projects = { staging: ['app'], 'prod-eu': ['app'], 'prod-us': ['app'], canary: ['canary-app'], ...options.projects };
  const rule = options.autoApprove ? `, autoApprove: "${options.autoApprove}"` : '';
  return `version: 1
variables:
  env: { type: string }
  projects: { type: list }
deployments:
  staging: { account: ${t1}, variables: { env: staging, projects: ${JSON.stringify(projects.staging)} }${rule} }
  prod-eu: { account: ${t2}, variables: { env: prod, projects: ${JSON.stringify(projects['prod-eu'])} }, after: [staging]${rule} }
  prod-us: { account: ${t3}, variables: { env: prod, projects: ${JSON.stringify(projects['prod-us'])} }, after: [staging]${rule} }
  canary: { account: ${options.canary ?? t3}, workspace: canary, variables: { env: canary, projects: ${JSON.stringify(projects.canary)} }, after: [prod-eu, prod-us]${options.canaryVarFile ? `, varFiles: [${options.canaryVarFile}]` : ''}${rule} }
projects:
  p:
    forEach: \${var.projects}
    name: \${each.key}
    description: \${var.env} \${each.key}
`;
}

const projectNames = async (w: World, account: string) => {
  const client = createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: account });
  try {
    return (await client.listAll('listProjects', {})).map((p) => p.name).sort();
  } finally {
    await client.close();
  }
};

describe('deployments over three accounts', () => {
  let w: World;
  // Each test arranges its own world: the applies before the step under test run in-process (the CLI's entry, no
  // subprocess); the step under test runs the real CLI.
  beforeEach(async () => {
    // At most 3 projects per account: prod-us and canary share Tenant 3, where the fourth fails with 409 plan_limit_reached.
    w = await world({ accounts: 3, planLimits: { projects: 3 } });
  });
  afterEach(() => w.close());

  /** Applies `yaml` in-process with `args`, expecting exit `code`. */
  async function appliedInProcess(yaml: string, args: string[], code = 0): Promise<void> {
    w.config(yaml);
    const run = await w.run(['apply', ...args, 'infra']);
    expect(run.code, run.stdout + run.stderr).toBe(code);
  }
  /** The story so far, in-process, step by step as the tests below take it. */
  const steps = {
    applied: () => appliedInProcess(configuration(), ['--all', '--auto-approve']),
    waveFailed: () =>
      appliedInProcess(
        configuration({ projects: { staging: ['app', 'web'], 'prod-eu': ['app', 'web'], 'prod-us': ['app', 'web', 'jobs'] } }),
        ['--all', '--auto-approve'],
        1,
      ),
    docsApproved: () =>
      appliedInProcess(configuration({ autoApprove: 'plan.remove == 0', projects: { staging: ['app', 'web', 'docs'] } }), [
        '--all',
        '--deployment',
        'staging',
      ]),
  };
  async function story(...names: (keyof typeof steps)[]): Promise<void> {
    for (const name of names) await steps[name]();
  }

  it('plan --all: one plan per deployment, the matrix first, exit 2 with changes', async () => {
    w.config(configuration());
    const { code, stdout, stderr } = await w.cli(['plan', '--all', '--detailed-exitcode', 'infra']);
    expect(stderr).toBe('');
    expect(code).toBe(2);
    const [matrix, ...details] = stdout.split('\n=== deployment ');
    expect(matrix).toContain('Deployments: 4 planned, 4 with changes, 0 without.');
    expect(matrix).toMatch(new RegExp(`staging +Tenant 1 \\(${t1}\\) +1 +0 +0 +0 +0 +0 +changes`));
    expect(matrix).toMatch(new RegExp(`canary +Tenant 3 \\(${t3}\\) +1 +0 +0 +0 +0 +0 +changes`));
    expect(details.map((d) => d.split(' ')[0])).toEqual(['staging', 'prod-eu', 'prod-us', 'canary']);
    expect(details[0]).toContain('+ description = "staging app"');
    expect(details[3]).toContain('Workspace: canary');
    // A plan changes nothing.
    expect(await projectNames(w, t1)).toEqual([]);
  });

  it('--deployment chooses some; an unknown name is refused with a suggestion', async () => {
    w.config(configuration());
    const some = await w.cli(['plan', '--deployment', 'prod-eu', '--deployment', 'staging', 'infra']);
    expect(some.code).toBe(0);
    expect(some.stdout).toContain('Deployments: 2 planned');
    expect(
      some.stdout
        .split('\n=== deployment ')
        .slice(1)
        .map((d) => d.split(' ')[0]),
    ).toEqual(['staging', 'prod-eu']);
    const unknown = await w.cli(['plan', '--deployment', 'prod-es', 'infra']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      '--deployment prod-es: the configuration has no deployment "prod-es"; did you mean "prod-eu" or "prod-us"?',
    );
    // Without --all or --deployment, a configuration with deployments says how to choose.
    const plain = await w.cli(['plan', 'infra']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('has deployments (staging, prod-eu, prod-us, canary)');
    expect(plain.stderr).toContain('Run `cplane plan infra --all` for all of them, or `cplane plan infra --deployment staging` for one');
  });

  it('an error in one deployment does not hide the others: exit 1, its row says why', async () => {
    // canary's variable file is missing: its configuration does not load.
    w.config(configuration({ canaryVarFile: 'vars/canary.yaml' }));
    const failed = await w.cli(['plan', '--all', '--detailed-exitcode', 'infra']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Deployments: 4 planned, 3 with changes, 0 without, 1 failed.');
    expect(failed.stdout).toMatch(new RegExp(`canary +${t3} +- +- +- +- +- +- +error: The configuration in .* has 1 error:`));
    expect(failed.stdout).toContain('Cannot read variable file');
    expect(failed.stdout).toContain('+ description = "prod app"');
    // Ada is not a member of Globex: that deployment is an error (exit 1), naming the account; the others are whole.
    w.config(configuration({ canary: globex }));
    const { code, stdout } = await w.cli(['plan', '--all', '--detailed-exitcode', 'infra']);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      new RegExp(
        `canary +${globex} +- +- +- +- +- +- +error: The API refuses this token in account ${globex}: listProjects answered 403 forbidden \\(not_account_member\\)`,
      ),
    );
    expect(stdout).toContain('+ description = "prod app"');
  });

  it('plan --all --out DIR saves one authenticated plan per deployment; apply DIR applies them in waves', async () => {
    w.config(configuration());
    const planned = await w.cli(['plan', '--all', '--out', 'plans', 'infra']);
    expect(planned.code).toBe(0);
    const files = ['canary', 'prod-eu', 'prod-us', 'staging'].map((n) => join(w.temp, 'plans', `${n}.plan.json`));
    const saved = JSON.parse(readFileSync(files[0]!, 'utf8')) as {
      account: string;
      origin: { deployment: string; workspace: string };
      auth: { mac: string };
    };
    expect([saved.account, saved.origin.deployment, saved.origin.workspace, typeof saved.auth.mac]).toEqual([
      t3,
      'canary',
      'canary',
      'string',
    ]);

    // An edited plan is refused before any wave starts.
    const edited = readFileSync(files[3]!, 'utf8');
    writeFileSync(files[3]!, edited.replace('staging app', 'edited app'));
    const refused = await w.cli(['apply', 'plans']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('its MAC does not match');
    expect(refused.stdout).not.toContain('Wave 1');
    expect(await projectNames(w, t1)).toEqual([]);

    writeFileSync(files[3]!, edited);
    const applied = await w.cli(['apply', 'plans']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`Wave 1 of 3: staging (account ${t1})`);
    expect(applied.stdout).toContain(`Wave 2 of 3: prod-eu (account ${t2}), prod-us (account ${t3})`);
    expect(applied.stdout).toContain('Deployments: all 4 applied (staging, prod-eu, prod-us, canary).');
    expect(await projectNames(w, t2)).toEqual(['app']);
    // Two deployments in one account, each with its own workspace and state.
    const again = await w.cli(['plan', '--all', '--detailed-exitcode', 'infra']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Deployments: 4 planned, 0 with changes, 4 without.');
  });

  it('apply DIR refuses a folder that lacks a plan its run chose (its after gate), a forged list, and plans of two runs', async () => {
    w.config(configuration());
    expect((await w.cli(['plan', '--all', '--out', 'plans', 'infra'])).code).toBe(0);
    const file = (name: string) => join(w.temp, 'plans', `${name}.plan.json`);
    const staging = readFileSync(file('staging'), 'utf8');
    rmSync(file('staging'));
    const missing = await w.cli(['apply', 'plans']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'lack the plan of staging (staging.plan.json), which their run chose: the deployments after it would apply without waiting for it. Nothing was applied.',
    );
    expect(missing.stdout).not.toContain('Wave 1');

    // Each plan lists the run's deployments under its MAC: a list edited to leave staging out is refused.
    const planned: Record<string, string> = {};
    for (const name of ['prod-eu', 'prod-us', 'canary']) {
      planned[name] = readFileSync(file(name), 'utf8');
      const plan = JSON.parse(planned[name]) as { origin: { fleet: string[] } };
      expect(plan.origin.fleet).toEqual(['staging', 'prod-eu', 'prod-us', 'canary']);
      plan.origin.fleet = plan.origin.fleet.filter((d) => d !== 'staging');
      writeFileSync(file(name), JSON.stringify(plan));
    }
    const forged = await w.cli(['apply', 'plans']);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain('its MAC does not match');
    expect(await Promise.all([t1, t2, t3].map((t) => projectNames(w, t)))).toEqual([[], [], []]);

    // A plan of a run that chose other deployments does not complete the folder either.
    for (const name of ['prod-eu', 'prod-us', 'canary']) writeFileSync(file(name), planned[name]!);
    expect((await w.cli(['plan', '--deployment', 'staging', '--out', 'again', 'infra'])).code).toBe(0);
    writeFileSync(file('staging'), readFileSync(join(w.temp, 'again', 'staging.plan.json')));
    const mixed = await w.cli(['apply', 'plans']);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toContain('were made by two runs of `cplane plan --all`');
    writeFileSync(file('staging'), staging);
    expect((await w.cli(['apply', 'plans'])).code).toBe(0);
  });

  it('apply --all in waves: a failure in wave 2 stops wave 3, which is named as not started; the summary counts what was applied', async () => {
    await story('applied');
    // prod-us asks for 3 projects in Tenant 3, where canary has one and the account takes 3.
    w.config(configuration({ projects: { staging: ['app', 'web'], 'prod-eu': ['app', 'web'], 'prod-us': ['app', 'web', 'jobs'] } }));
    const { code, stdout } = await w.cli(['apply', '--all', '--auto-approve', 'infra']);
    expect(code).toBe(1);
    expect(stdout).toContain('plan_limit_reached');
    expect(stdout).toMatch(
      /Deployments: applied staging, prod-eu; failed prod-us \(1 of 2 steps applied, 1 failed\); not started canary \(they wait for a failed wave\)\./,
    );
    expect(await projectNames(w, t1)).toEqual(['app', 'web']);
    expect(await projectNames(w, t2)).toEqual(['app', 'web']);
  });

  it('autoApprove: a deployment whose rule holds applies without asking; one whose rule fails is refused', async () => {
    await story('applied', 'waveFailed');
    w.config(configuration({ autoApprove: 'plan.remove == 0 && plan.incomplete == 0' }));
    // Each deployment goes back to one project: a removal, which the rule does not approve.
    const refused = await w.cli(['apply', '--all', 'infra']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'Deployment staging needs approval: its autoApprove rule is false for this plan; nothing was changed.',
    );
    expect(refused.stdout).toContain('not started prod-eu, prod-us, canary');
    expect(await projectNames(w, t1)).toEqual(['app', 'web']);

    w.config(configuration({ autoApprove: 'plan.remove == 0', projects: { staging: ['app', 'web', 'docs'] } }));
    const approved = await w.cli(['apply', '--all', '--deployment', 'staging', 'infra']);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('Approved by the autoApprove rule of deployment staging.');
    expect(await projectNames(w, t1)).toEqual(['app', 'docs', 'web']);

    // A rule that is not CEL stops the run before any wave, at its line.
    w.config(configuration({ autoApprove: 'plan.remove ==' }));
    const bad = await w.cli(['apply', '--all', 'infra']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/main\.yaml:6:122: error: The autoApprove rule of deployment "staging" is not valid CEL/);
  });

  it("compare: live differences the deployments' variables do not explain, as text and JSON", async () => {
    await story('applied', 'waveFailed', 'docsApproved');
    // By now staging (Tenant 1) has app, docs and web; prod-eu (Tenant 2) app and web. Their descriptions differ
    // only by ${var.env} ("staging app", "prod app"): explained, so not reported.
    w.config(configuration());
    const text = await w.cli(['compare', 'staging', 'prod-eu', 'infra']);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('1 difference:\n  + project.docs: only in staging\n');
    const json = await w.cli(['compare', 'staging', 'prod-eu', 'infra', '--json']);
    expect(JSON.parse(json.stdout).differences).toEqual([{ address: 'project.docs', kind: 'only-in-a' }]);
    // A setting changed outside cplane is a difference of its own.
    const client = createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: t2 });
    const web = (await client.listAll('listProjects', {})).find((p) => p.name === 'web')!;
    await client.call('updateProject', { path: { id: web.project_id }, body: { name: 'web', description: 'hand-edited', isActive: true } });
    await client.close();
    const edited = await w.cli(['compare', 'staging', 'prod-eu', 'infra', '--json']);
    expect(JSON.parse(edited.stdout).differences).toContainEqual({
      address: 'project.web',
      kind: 'different',
      field: 'description',
      a: '${var.env} web',
      b: 'hand-edited',
    });
    const unknown = await w.cli(['compare', 'staging', 'prod-es', 'infra']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('did you mean "prod-eu" or "prod-us"?');
  });

  it("--github: one pull-request comment for the whole configuration, within GitHub's limit", async () => {
    const gh = mkdtempSync(join(w.temp, 'gh-'));
    const env = { GITHUB_OUTPUT: join(gh, 'out'), GITHUB_STEP_SUMMARY: join(gh, 'summary'), RUNNER_TEMP: gh, GITHUB_WORKSPACE: w.temp };
    // Enough projects that the four plans cannot all fit in one comment.
    const many = Array.from({ length: 400 }, (_, i) => `project-with-a-long-name-${i}`);
    w.config(configuration({ projects: { staging: many, 'prod-eu': many, 'prod-us': ['app'] } }));
    const { code, stderr } = await w.cli(['plan', '--all', '--github', 'infra'], env);
    expect(code).toBe(0);
    const outputs = readFileSync(env.GITHUB_OUTPUT, 'utf8');
    const markdownFile = /markdown_file<<(\S+)\n(.*)\n/.exec(outputs)![2]!;
    expect(/comment_key<<(\S+)\n(.*)\n/.exec(outputs)![2]).toBe('infra:deployments');
    expect(/failed_canary<<(\S+)\n(.*)\n/.exec(outputs)![2]).toBe('false');
    expect(/has_changes_staging<<(\S+)\n(.*)\n/.exec(outputs)![2]).toBe('true');
    const comment = readFileSync(markdownFile, 'utf8');
    expect(comment.length).toBeLessThan(65_536);
    expect(comment).toContain('| deployment | account | add | change | replace | remove | policy | incomplete | status |');
    expect(comment).toMatch(
      /\| staging \| `0a000000-0000-4000-8000-000000001001` Tenant 1 \| \d{3} \| 0 \| 0 \| \d \| 0 \| 0 \| changes \|/,
    );
    // The two long plans do not fit; the short ones after them do.
    expect(comment).toContain('<details><summary>prod-us</summary>');
    expect(comment).toContain('<details><summary>canary</summary>');
    expect(comment).not.toContain('<details><summary>staging</summary>');
    expect(comment).toMatch(/The plans of `staging`, `prod-eu` do not fit in one pull-request comment/);
    expect(stderr).toContain('do not fit in the one pull-request comment');
    // The step summary has every plan.
    const summary = readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('<details><summary>staging</summary>');
    expect(summary).toContain('p[project-with-a-long-name-399]');
    rmSync(gh, { recursive: true, force: true });
  });
});
