// A project's groupRoles: apply gives the directory's group `platform` the role `admin` with one POST and says,
// in words, that its members' keys still wait for a client to seal them. No operation reads a role back, so the
// next plan has nothing to do and says the role is not verifiable from the API; changing the role is a new
// POST; leaving the configuration forgets it, with no API write, and the plan names the dashboard.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { acme, world, type World } from './helpers.js';

const platform = fixtures.groups.find((g) => g.name === 'platform')!;
const role = (name: string) => fixtures.roles.find((r) => r.name === name)!.id;

const directory = `directory:
  groups:
    platform: { id: ${platform.id}, publicKey: "${printableKeyPair(platform.id).publicKey}" }
  roles:
    admin: { id: ${role('admin')} }
    reader: { id: ${role('reader')} }
`;
const withRole = (name: string | undefined) => `projects:
  payments:
    description: Payments${name ? `\n    groupRoles: { platform: ${name} }` : ''}
${directory}`;

const ADDRESS = 'project_group_role.payments/platform';
let w: World;
const posts = () => w.emulator.stats().byOperation.grantProjectGroupRole;
const inState = () => (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, unknown> }).resources[ADDRESS];

// Each test arranges its own world: the roles given before the step under test are applied in-process (the CLI's
// entry, no subprocess); the step under test runs the real CLI.
beforeEach(async () => {
  w = await world({ account: acme });
});
afterEach(async () => w.close());

/** Applies the configuration with each role in turn, in-process: the story so far. */
async function appliedInTurn(...roles: string[]): Promise<void> {
  for (const name of roles) {
    w.config(withRole(name));
    const run = await w.run(['apply', w.dir, '--auto-approve']);
    expect(run.code, run.stderr).toBe(0);
  }
}

describe('a group role on a project', () => {
  it('is given with one POST, and apply says what its members still wait for', async () => {
    w.config(withRole('admin'));
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(posts()).toBe(1);
    // platform has two members, new to the project: the emulator queues a rekey and marks the project key pending for both.
    expect(applied.stdout).toContain(
      "group platform: the project key is not yet sealed for 2 of its members (material pending): they can read the project's records once a client that holds the project key seals it for them (cplane holds no such key)",
    );
    expect(applied.stdout).toContain(
      'group platform: keys for 2 of its members are queued for re-sealing (rekey queued): they can read once a client that holds the keys re-seals them',
    );
    expect(inState()).toBeDefined();
  });

  it('plans no change afterwards, labelled not verifiable from the API', async () => {
    await appliedInTurn('admin');
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(`~ ${ADDRESS}: not verifiable from the API`);
    expect(plan.stdout).toContain(
      'No changes. Your infrastructure matches the configuration as far as the plan shows it (1 notice listed above).',
    );
    const json = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as { steps: unknown[]; notices: unknown[] };
    expect(json.steps).toEqual([]);
    expect(json.notices).toMatchObject([{ code: 'not_verifiable', severity: 'info', address: ADDRESS, kind: 'project_group_role' }]);
    expect(posts()).toBe(1);
  });

  it('is given again, with a new POST, when the role changes', async () => {
    await appliedInTurn('admin');
    w.config(withRole('reader'));
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stdout).toContain(`# ${ADDRESS} will be updated in place`);
    expect(plan.stdout).toContain('~ role = "admin" -> "reader"');
    expect(plan.stdout).toContain('a new POST gives the group the role reader in place of admin');
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(posts()).toBe(2);
  });

  it('is forgotten when it leaves the configuration: no API write, and the plan names the dashboard', async () => {
    await appliedInTurn('admin', 'reader');
    w.config(withRole(undefined));
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stdout).toContain(`# ${ADDRESS} will no longer be managed (not in configuration)`);
    expect(plan.stdout).toContain(
      "the API has no operation that removes a group's role: cplane forgets it, and group platform keeps the role reader on the project until someone removes it in the dashboard",
    );
    expect(plan.stdout).toContain('0 to remove, 1 to forget.');
    const writes = w.emulator.stats().writes;
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(w.emulator.stats().writes).toBe(writes);
    expect(inState()).toBeUndefined();
    const again = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });
});

describe('an apply killed after the role was given', () => {
  it('says what the members wait for when the next apply resends the POST', async () => {
    w.config(`projects:
  billing:
    description: Billing
    groupRoles: { platform: admin }
${directory}`);
    const killed = await w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_TEST_KILL_AFTER_OPERATION: 'grantProjectGroupRole' });
    expect(killed.signal).toBe('SIGKILL');
    const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(
      /project_group_role\.billing\/platform: resent pending grantProjectGroupRole with its saved key: done; group platform: the project key is not yet sealed for 2 of its members \(material pending\)/,
    );
  });
});

describe('a group or role the directory does not declare', () => {
  it('is a configuration error at the group role, with the closest name', async () => {
    w.config(withRole('admn'));
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /main\.yaml:4:29: error: Unknown role "admn": it is not declared in directory\.roles; did you mean "admin"\?/,
    );
  });

  it("an unknown group is an error at the group's name", async () => {
    w.config(withRole('admin').replace('{ platform: admin }', '{ platfrom: admin }'));
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /main\.yaml:4:19: error: Unknown group "platfrom": it is not declared in directory\.groups; did you mean "platform"\?/,
    );
  });
});
