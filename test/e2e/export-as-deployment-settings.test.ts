// `export --as-deployment` gives the new deployment what the others have (issue 50 §3): a fleet of two deployments,
// each with its token, its wave (`after`), its group id and public key and its Service Account's pinned key id, adopts
// a third account made by hand. The export fills what it can vouch for (the token and wave by the others' pattern,
// the group's id from this account's shares, the values its objects give) and writes a `<fill in: …>` placeholder for
// the rest (the public key no operation returns, the pin the API offers but cannot vouch for), which its report names
// and validate refuses at its line. Filled in, the first apply adopts the account and the others' plans are unchanged.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { extraAccount } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { world, type World } from './helpers.js';

const tenant = [1, 2, 3].map(extraAccount);
const [a, b, c] = tenant.map((t) => t.id) as [string, string, string];
const groupKey = (n: number) => printableKeyPair(tenant[n]!.teamGroupId).publicKey;
const pin = (n: number) => printableKeyPair(tenant[n]!.serviceAccountId).keyId;
const tokens = { CPLANE_TOKEN_A: fixtures.tokens.admin, CPLANE_TOKEN_B: fixtures.tokens.admin, CPLANE_TOKEN_C: fixtures.tokens.admin };
const secrets = { DB_PASSWORD: 'as_deployment_settings_value_8812', ...tokens };

const RESOURCES = `directory:
  groups:
    team: { id: "\${var.team_group_id}", publicKey: "\${var.team_group_public_key}" }
  serviceAccounts:
    deployer: { keyId: "\${var.deployer_key_id}" }
projects:
  core:
    name: "core-\${var.env}"
    records:
      db:
        value: { env: DB_PASSWORD }
        grants: { groups: [team], serviceAccounts: [deployer] }
`;
const VARIABLES = `variables:
  env: { type: string }
  team_group_id: { description: Id of group team in the deployment's account }
  team_group_public_key: { description: Public key of group team }
  deployer_key_id: { description: Pinned key id of Service Account deployer }
`;
const variablesOf = (n: number, env: string) =>
  `{ env: ${env}, team_group_id: ${tenant[n]!.teamGroupId}, team_group_public_key: "${groupKey(n)}", deployer_key_id: "${pin(n)}" }`;
const FLEET = `version: 1
${VARIABLES}deployments:
  a:
    account: ${a}
    token: a
    variables: ${variablesOf(0, 'a')}
  b:
    account: ${b}
    after: [a]
    token: b
    variables: ${variablesOf(1, 'b')}
${RESOURCES}`;

let w: World;
let fleet: string;
const fleetMain = () => readFileSync(join(fleet, 'main.yaml'), 'utf8');
let exported: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  w = await world({ accounts: 3 });
  // Account c made by hand: applied from a folder of its own, whose state the fleet never sees.
  w.config(`version: 1\n${VARIABLES}${RESOURCES}`);
  const byHand = ['--var', 'env=c', '--var', `team_group_id=${tenant[2]!.teamGroupId}`, '--var', `team_group_public_key=${groupKey(2)}`];
  const made = await w.run(['apply', w.dir, '--auto-approve', '--account', c, ...byHand, '--var', `deployer_key_id=${pin(2)}`], secrets);
  expect(made.code, made.stdout + made.stderr).toBe(0);
  fleet = join(w.temp, 'fleet');
  mkdirSync(fleet);
  writeFileSync(join(fleet, 'main.yaml'), FLEET);
  expect((await w.run(['fmt', fleet])).code).toBe(0);
  const first = await w.run(['apply', '--all', fleet, '--auto-approve'], secrets);
  expect(first.code, first.stdout + first.stderr).toBe(0);
  exported = await w.cli(['export', '--account', c, '--as-deployment', 'c', fleet], secrets);
});
afterAll(() => w.close());

/** The lines the export added: the new entry, as fmt writes it. */
const keyPlaceholder = `"<fill in: the public key (X25519, base64) of group team (directory.groups.team) in this deployment's account: no operation returns it>"`;
const pinPlaceholder = `"<fill in: the key id of Service Account deployer in this deployment's account, as its dashboard shows it: the API offers ${pin(2)}, which cplane does not pin on the API's word>"`;
const ENTRY = `  c:
    account: ${c}
    variables:
      team_group_id: ${tenant[2]!.teamGroupId}
      team_group_public_key: ${keyPlaceholder}
      deployer_key_id: ${pinPlaceholder}
      env: c
    after: [a]
    token: c
`;

describe('export --as-deployment: the settings the new deployment needs', () => {
  it('fills the token and wave by pattern, the group id from the shares and env from the objects, and a placeholder for the key and the pin', () => {
    expect(exported.code, exported.stderr).toBe(0);
    // After b, the last deployment (fmt put `deployments:` last), in fmt's form.
    expect(fleetMain().endsWith(`    after: [a]\n    token: b\n${ENTRY}`)).toBe(true);
    expect(exported.stdout).toContain(`Added deployment c (account ${c}) to fleet/main.yaml.`);
    expect(exported.stdout).toContain(
      '  after: ["a"] (from the same wave (2) as b, the last: it applies after the others; change it to apply earlier)',
    );
    expect(exported.stdout).toContain('  token: c (from the pattern of a (token: a), b (token: b): the runner gives it as CPLANE_TOKEN_C)');
    expect(exported.stdout).toContain(
      `  variables.team_group_id: ${tenant[2]!.teamGroupId} (from this account's shares: projects.core.records.db is shared with it)`,
    );
    expect(exported.stdout).toContain("Its variables read off this account's objects: env: c");
    expect(exported.stdout).toContain(
      `Next: fill in what is listed below, then \`cplane validate ${fleet}\` and \`cplane plan --deployment c ${fleet}\`.`,
    );
  });

  it("names each placeholder, one line each, at the file:line:col validate's error gives", async () => {
    const lines = fleetMain().split('\n');
    const at = (text: string) => {
      const line = lines.findIndex((l) => l.includes(text));
      return `fleet/main.yaml:${line + 1}:${lines[line]!.indexOf(text) + 2}`;
    };
    expect(exported.stderr).toBe(
      '2 settings of deployment c are left to fill (a "<fill in: ...>" placeholder in the file, refused by validate, plan and apply until replaced):\n' +
        `  ${at(keyPlaceholder)} deployments.c.variables.team_group_public_key: ${keyPlaceholder.slice(11, -2)}\n` +
        `  ${at(pinPlaceholder)} deployments.c.variables.deployer_key_id: ${pinPlaceholder.slice(11, -2)}\n`,
    );
    const validated = await w.cli(['validate', fleet], secrets);
    expect(validated.code).toBe(1);
    expect(validated.stderr).toContain(
      `${at(keyPlaceholder)}: error: deployments.c.variables.team_group_public_key is still the placeholder \`cplane export --as-deployment\` wrote: give the public key (X25519, base64) of group team`,
    );
    expect(validated.stderr).toContain(`${at(pinPlaceholder)}: error: deployments.c.variables.deployer_key_id is still the placeholder`);
    expect(validated.stderr).toContain('2 errors found.');
    // The others are not held up by c's placeholders: plan --all plans them, and c's row says what stops it.
    const planAll = await w.cli(['plan', '--all', fleet], secrets);
    expect(planAll.code).toBe(1);
    expect(planAll.stdout).toMatch(/\na +Tenant 1 .* no changes\n/);
    expect(planAll.stdout).toMatch(/\nb +Tenant 2 .* no changes\n/);
    // c's section has the two placeholders and nothing they cause (no unset variable, no key id of the wrong form).
    expect(planAll.stdout).toMatch(/\nc +0a0\S+ .* error: The configuration in \S+ has 2 errors:\n/);
    expect(planAll.stdout).toContain(
      `${at(keyPlaceholder)}: error: deployments.c.variables.team_group_public_key is still the placeholder`,
    );
    expect(planAll.stdout).toContain(`${at(pinPlaceholder)}: error: deployments.c.variables.deployer_key_id is still the placeholder`);
  });

  it('--json lists what was filled and what is left to fill', async () => {
    const again = join(w.temp, 'again');
    mkdirSync(again);
    writeFileSync(join(again, 'main.yaml'), FLEET);
    const run = await w.cli(['export', '--account', c, '--as-deployment', 'c', again, '--json'], secrets);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      deployment: string;
      filled: { key: string; value: unknown }[];
      toFill: { key: string; placeholder: boolean; line: number; col: number; what: string }[];
    };
    expect(report.deployment).toBe('c');
    expect(report.filled.map((f) => [f.key, f.value])).toEqual([
      ['after', ['a']],
      ['token', 'c'],
      ['variables.team_group_id', tenant[2]!.teamGroupId],
      ['variables.env', 'c'],
    ]);
    expect(report.toFill.map((o) => [o.key, o.placeholder])).toEqual([
      ['variables.team_group_public_key', true],
      ['variables.deployer_key_id', true],
    ]);
    expect(report.toFill[1]!.what).toContain(`the API offers ${pin(2)}, which cplane does not pin on the API's word`);
  });

  it('filled in, validates, and the first apply of c adopts the account while the plans of a and b stay unchanged', async () => {
    writeFileSync(
      join(fleet, 'main.yaml'),
      fleetMain()
        .replace(keyPlaceholder, `"${groupKey(2)}"`)
        .replace(pinPlaceholder, `"${pin(2)}"`),
    );
    const validated = await w.cli(['validate', fleet], secrets);
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stderr).toBe('');
    const applied = await w.cli(['apply', '--deployment', 'c', fleet, '--auto-approve'], secrets);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Deployments: all 1 applied (c).');
    const plans = await w.cli(['plan', '--all', fleet, '--detailed-exitcode'], secrets);
    expect(plans.code, plans.stdout + plans.stderr).toBe(0);
    expect(plans.stdout).toContain('Deployments: 3 planned, 0 with changes, 3 without.');
    const waves = await w.cli(['deployments', fleet], secrets);
    expect(waves.stdout).toMatch(/\n2 +c +\S+ +default +a\n/);
  });
});

// Names come from the account, which a person outside the review may have written: what export writes and prints of
// them is quoted and escaped, and text that would read as a reference becomes a placeholder, never an interpolation.
describe('export --as-deployment: a hostile name from the account', () => {
  const hostile = 'x: &y *z # **b** [l](u) `t` \u001b[31mred\u001b[0m "q"';
  it('is quoted in the file and escaped in the report, and `${` in it is a placeholder', async () => {
    const h = await world({ accounts: 2 });
    try {
      const [one, two] = [extraAccount(1).id, extraAccount(2).id];
      // Made by hand in account two: a project name with YAML, Markdown and ANSI specials, a description with `${`.
      h.config(
        `version: 1\nprojects:\n  p: { name: ${JSON.stringify(`payments-${hostile}`)}, description: "$\${env.CPLANE_TOKEN} in us" }\n`,
      );
      expect((await h.run(['apply', h.dir, '--auto-approve', '--account', two])).code).toBe(0);
      const dir = join(h.temp, 'fleet');
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'main.yaml'),
        `version: 1
variables:
  env: { type: string }
  team: { type: string }
deployments:
  one: { account: ${one}, variables: { env: one, team: t } }
projects:
  p: { name: "payments-\${var.env}", description: "\${var.team} in us" }
`,
      );
      const run = await h.cli(['export', '--account', two, '--as-deployment', 'two', dir]);
      expect(run.code, run.stderr).toBe(0);
      const text = readFileSync(join(dir, 'main.yaml'), 'utf8');
      expect(text).not.toContain('\u001b');
      expect(text).toContain(`      env: "x: &y *z # **b** [l](u) \`t\` \\e[31mred\\e[0m \\"q\\""\n`);
      const written = (parse(text) as { deployments: Record<string, { variables: Record<string, string> }> }).deployments.two!.variables;
      expect(written.env).toBe(hostile);
      expect(written.team).toBe(
        '<fill in: the value of variable team for this deployment: its account\'s objects give text with "$" then "{", which a deployment\'s values may not hold>',
      );
      expect(run.stdout).not.toContain('\u001b');
      expect(run.stdout).toContain('Its variables read off this account\'s objects: env: x: &y *z # **b** [l](u) `t` \\e[31mred\\e[0m "q"');
      expect(run.stderr).toContain('deployments.two.variables.team: the value of variable team for this deployment: its account');
      const validated = await h.cli(['validate', dir]);
      expect(validated.stderr).toContain('error: deployments.two.variables.team is still the placeholder');
      expect(validated.stderr).not.toContain('deployment_interpolation');
      expect(validated.stderr).toContain('1 error found.');
    } finally {
      await h.close();
    }
  });
});
