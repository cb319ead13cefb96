// Each kind of policy result (pass, advisory violation, mandatory violation, a rule that errors at evaluation) as
// `cplane plan` shows it in every output format: text, --json, --markdown, and --github (step summary, annotations
// at the resource's file:line:col, step outputs). A mandatory finding fails the plan with exit 1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { shopGateway, world, type World } from './helpers.js';

const policies = `policies:
  names-set:
    level: mandatory
    kinds: [project, gateway, gateway_token]
    rule: "action == 'delete' || after.name != ''"
  spend-limit:
    level: advisory
    kinds: [gateway]
    rule: "has(after.settings) && has(after.settings.spendLimitUsd)"
    message: Every gateway should have a spend limit.
  tokens-expire:
    level: mandatory
    kinds: [gateway_token]
    rule: "after.expiresInDays != null && after.expiresInDays <= 90"
    message: Tokens must expire within 90 days.
  owner-tag:
    level: advisory
    kinds: [project]
    rule: "after.owner == 'platform'"
`;

const config = (expiresInDays: number | null, spendLimit: boolean) => `version: 1
${shopGateway}${spendLimit ? '    settings: { spendLimitUsd: "10.00" }\n' : ''}    tokens:
      ci: { scopes: [run], expiresInDays: ${expiresInDays === null ? 'null' : expiresInDays} }
${policies}`;

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.close());

describe('a plan with every kind of finding', () => {
  beforeAll(() => w.config(config(null, false)));

  it('text: each finding with its level and place, then the refusal; exit 1', async () => {
    const run = await w.cli(['plan', w.dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Policies: 4 policies, 6 checks: 1 mandatory failed, 2 advisory warnings.');
    expect(run.stdout).toContain(
      '  ! advisory project.shop: owner-tag: the rule could not be evaluated: No such key: owner  (infra/main.yaml:3:3)',
    );
    expect(run.stdout).toContain('  ! advisory gateway.main: spend-limit: Every gateway should have a spend limit.  (infra/main.yaml:7:3)');
    expect(run.stdout).toContain(
      '  x mandatory gateway_token.main/ci: tokens-expire: Tokens must expire within 90 days.  (infra/main.yaml:13:7)',
    );
    expect(run.stdout).not.toContain('names-set');
    expect(run.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'Plan: 4 to add, 0 to change, 0 to replace, 0 to remove.',
      'Refused by policy: 1 mandatory finding; cplane apply will not perform this plan.',
    ]);
  });

  it('--json: the report in the plan, one finding per result that is not a pass', async () => {
    const run = await w.cli(['plan', w.dir, '--json']);
    expect(run.code).toBe(1);
    const plan = JSON.parse(run.stdout) as { policies: { policies: number; checked: number; digest: string; findings: unknown[] } };
    expect(plan.policies).toMatchObject({ policies: 4, checked: 6 });
    expect(plan.policies.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.policies.findings).toEqual([
      {
        policy: 'owner-tag',
        level: 'advisory',
        address: 'project.shop',
        kind: 'project',
        outcome: 'error',
        message: 'No such key: owner',
        at: { file: 'infra/main.yaml', line: 3, col: 3 },
      },
      {
        policy: 'spend-limit',
        level: 'advisory',
        address: 'gateway.main',
        kind: 'gateway',
        outcome: 'violated',
        message: 'Every gateway should have a spend limit.',
        at: { file: 'infra/main.yaml', line: 7, col: 3 },
      },
      {
        policy: 'tokens-expire',
        level: 'mandatory',
        address: 'gateway_token.main/ci',
        kind: 'gateway_token',
        outcome: 'violated',
        message: 'Tokens must expire within 90 days.',
        at: { file: 'infra/main.yaml', line: 13, col: 7 },
      },
    ]);
  });

  it('--markdown: the refusal first, then a table of findings', async () => {
    const run = await w.cli(['plan', w.dir, '--markdown']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('> [!CAUTION]\n> **Refused by policy: 1 mandatory finding; cplane apply will not perform this plan.**');
    expect(run.stdout).toContain('**Policies: 4 policies, 6 checks: 1 mandatory failed, 2 advisory warnings.**');
    expect(run.stdout).toContain(
      '| `!` | advisory project.shop: owner-tag: the rule could not be evaluated: No such key: owner | `infra/main.yaml:3:3` |',
    );
    expect(run.stdout).toContain(
      '| `!` | advisory gateway.main: spend-limit: Every gateway should have a spend limit. | `infra/main.yaml:7:3` |',
    );
    expect(run.stdout).toContain(
      '| `x` | mandatory gateway\\_token.main/ci: tokens-expire: Tokens must expire within 90 days. | `infra/main.yaml:13:7` |',
    );
  });

  it('--github: annotations at the resource, the report in the step summary, policy_failed in the outputs', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'cplane-gh-'));
    onTestFinished(() => rmSync(temp, { recursive: true, force: true }));
    const summary = join(temp, 'summary.md');
    const output = join(temp, 'output');
    writeFileSync(summary, '');
    writeFileSync(output, '');
    const run = await w.cli(['plan', 'infra', '--github'], { GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output, RUNNER_TEMP: temp });
    expect(run.code).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toEqual([
      '::warning file=infra/main.yaml,line=3,col=3,title=Policy owner-tag (advisory)::project.shop: owner-tag: the rule could not be evaluated: No such key: owner',
      '::warning file=infra/main.yaml,line=7,col=3,title=Policy spend-limit (advisory)::gateway.main: spend-limit: Every gateway should have a spend limit.',
      '::error file=infra/main.yaml,line=13,col=7,title=Policy tokens-expire (mandatory)::gateway_token.main/ci: tokens-expire: Tokens must expire within 90 days.',
    ]);
    expect(readFileSync(summary, 'utf8')).toContain(
      '| `x` | mandatory gateway\\_token.main/ci: tokens-expire: Tokens must expire within 90 days. | `infra/main.yaml:13:7` |',
    );
    expect(readFileSync(output, 'utf8')).toMatch(/^policy_failed<<ghadelimiter_[0-9a-f-]+\ntrue\n/m);
  });
});

describe('a plan that passes every policy', () => {
  beforeAll(() => w.config(config(30, true).replace('rule: "after.owner == \'platform\'"', 'rule: "!has(after.owner)"')));

  it('says so in every format, and exits 0 (2 with --detailed-exitcode: it has changes)', async () => {
    const text = await w.cli(['plan', w.dir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Policies: 4 policies, 6 checks: all passed.');
    expect(text.stdout).not.toContain('Refused by policy');
    const json = await w.cli(['plan', w.dir, '--json']);
    expect((JSON.parse(json.stdout) as { policies: { findings: unknown[]; checked: number } }).policies).toMatchObject({
      checked: 6,
      findings: [],
    });
    const markdown = await w.cli(['plan', w.dir, '--markdown']);
    expect(markdown.stdout).toContain('**Policies: 4 policies, 6 checks: all passed.**');
    expect(markdown.stdout).not.toContain('Policy finding');
    expect((await w.cli(['plan', w.dir, '--detailed-exitcode'])).code).toBe(2);
  });

  it('advisory findings alone warn but do not fail the plan', async () => {
    w.config(config(30, false));
    const run = await w.cli(['plan', w.dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Policies: 4 policies, 6 checks: 2 advisory warnings.');
  });
});
