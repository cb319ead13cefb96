// "A Service Account named here": the one helper every kind that names a Service Account calls. It finds
// the account's active Service Account by name or id, and otherwise says why not, with the closest names.
import { describe, expect, it } from 'vitest';
import type { ServiceAccountT } from '../../src/api/shapes.js';
import { resolveServiceAccount, serviceAccounts, type LookupResults } from '../../src/providers/index.js';
import { serviceAccountLabel } from '../../src/providers/service-accounts.js';
import type { Known } from '../../src/providers/types.js';
import { ids, known } from './fixtures.js';

const sa = (n: number, name: string, status: 'active' | 'inactive' = 'active', account = ids.account): ServiceAccountT => ({
  service_account_id: `0e000000-0000-4000-8000-00000000000${n}`,
  account_id: account,
  name,
  status,
  created_at: '2026-01-01T00:00:00.000Z',
  public_key: Buffer.alloc(32, n).toString('base64'),
  key_id: 'x25519:0000000000000000',
});
const listed = [
  sa(1, 'ci-deployer'),
  sa(2, 'legacy-bot', 'inactive'),
  sa(3, 'globex-bot', 'active', '0a000000-0000-4000-8000-000000000003'),
];

function withAccounts(read: readonly ServiceAccountT[] | undefined): Known {
  return known({}, new Map(read ? [[serviceAccounts, read]] : []) as LookupResults);
}

describe('resolveServiceAccount', () => {
  it('finds an active Service Account by name or by id', () => {
    expect(resolveServiceAccount(withAccounts(listed), 'ci-deployer').serviceAccount?.service_account_id).toBe(
      listed[0]!.service_account_id,
    );
    expect(resolveServiceAccount(withAccounts(listed), listed[0]!.service_account_id).serviceAccount?.name).toBe('ci-deployer');
  });

  it('says an unknown name is unknown, with the closest names, at the field it is given', () => {
    expect(resolveServiceAccount(withAccounts(listed), 'ci-deploy', 'serviceAccount').problem).toMatchObject({
      code: 'unknown_service_account',
      field: 'serviceAccount',
      summary: `no Service Account "ci-deploy" in account ${ids.account}; did you mean "ci-deployer"?`,
    });
  });

  it('refuses an inactive one, and one of another account', () => {
    expect(resolveServiceAccount(withAccounts(listed), 'legacy-bot').problem).toMatchObject({
      code: 'service_account_inactive',
      summary: 'the Service Account "legacy-bot" is inactive',
    });
    expect(resolveServiceAccount(withAccounts(listed), 'globex-bot').problem?.code).toBe('service_account_other_account');
  });

  it('does not call a name unknown when the list could not be read', () => {
    expect(resolveServiceAccount(withAccounts(undefined), 'ci-deployer').problem?.code).toBe('service_accounts_unreadable');
  });
});

describe('a name that more than one Service Account has (the API does not say names are unique)', () => {
  const other = '0a000000-0000-4000-8000-000000000003';

  it("means the account's own one when another account has the same name", () => {
    const both = [sa(3, 'ci-deployer', 'active', other), ...listed];
    expect(resolveServiceAccount(withAccounts(both), 'ci-deployer').serviceAccount?.service_account_id).toBe(listed[0]!.service_account_id);
    expect(serviceAccountLabel(withAccounts(both), listed[0]!.service_account_id)).toBe('ci-deployer');
  });

  it('is ambiguous when two of the account have it: a plan problem listing their ids, and export names each by id', () => {
    const twins = [...listed, sa(4, 'ci-deployer', 'inactive')];
    expect(resolveServiceAccount(withAccounts(twins), 'ci-deployer', 'serviceAccount').problem).toEqual({
      field: 'serviceAccount',
      code: 'ambiguous_service_account',
      summary: `2 Service Accounts of account ${ids.account} are named "ci-deployer"`,
      detail: `Name the one you mean by its id: ${listed[0]!.service_account_id} (active), ${twins[3]!.service_account_id} (inactive).`,
    });
    expect(resolveServiceAccount(withAccounts(twins), twins[3]!.service_account_id).problem?.code).toBe('service_account_inactive');
    expect(serviceAccountLabel(withAccounts(twins), listed[0]!.service_account_id)).toBe(listed[0]!.service_account_id);
    expect(serviceAccountLabel(withAccounts(twins), listed[1]!.service_account_id)).toBe('legacy-bot');
  });
});
