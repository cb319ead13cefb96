// A record's owner: `owner: { user: dana }` plans one transfer, apply makes the emulator's record owned by dana,
// and the next plan has nothing to do; a name directory.users does not declare is a configuration error at it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { acme, world, type World } from './helpers.js';

const dana = fixtures.users.find((u) => u.email.startsWith('dana'))!;
const withOwner = (project: string, user: string) => `projects:
  ${project}:
    records:
      stripe-key:
        owner: { user: ${user} }
directory:
  users:
    dana: { id: ${dana.id}, publicKey: "${printableKeyPair(dana.id).publicKey}" }
`;

let w: World;
beforeAll(async () => {
  w = await world({ account: acme });
});
afterAll(async () => w.close());

describe('a record owner', () => {
  it("is transferred by apply, seen on the emulator's record, and then plans no change", async () => {
    w.config(withOwner('vault', 'dana'));
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stdout).toContain(
      '# record_owner.vault/stripe-key will be created\n  +   record_owner "vault/stripe-key"\n      + user = "dana"',
    );
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const records = await w.client.listAll('listRecords', { query: { accountId: acme } });
    expect(records.find((r) => r.name === 'stripe-key')?.owner_user_id).toBe(dana.id);
    expect(w.emulator.stats().byOperation.transferRecordOwnership).toBe(1);
    expect((await w.cli(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
  });

  it('naming a user directory.users does not declare is an error at the name, with the closest one', async () => {
    w.config(withOwner('billing', 'dnaa'));
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'infra/main.yaml:5:24: error: Unknown user "dnaa": it is not declared in directory.users; did you mean "dana"?',
    );
  });
});
