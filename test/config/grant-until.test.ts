/**
 * Grants that end: a reader entry may be `{ name, until, reason }` (Service Accounts, users and groups alike),
 * beside plain names. The grant's attributes carry `until` and `reason` (what policies see), the record's carry
 * the ends by reader; a bad `until` is its exact diagnostic at file:line:col.
 */
import { describe, expect, test } from 'vitest';
import { directoryYaml } from '../helpers/readers.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { load } from './helpers.js';

const dana = fixtures.users[0]!.id;
const platform = fixtures.groups[0]!.id;

const config = (grants: string) => `version: 1
projects:
  payments:
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants:
${grants}
${directoryYaml({ users: { dana }, groups: { platform } })}`;

describe('grants with until and reason', () => {
  test('each kind takes an entry with until and reason; plain names keep working', async () => {
    const result = await load({
      'main.yaml': config(`          serviceAccounts: [{ name: ci-deployer, until: "2026-12-01T18:00:00Z", reason: INC-123 }]
          users:
            - name: dana
              until: 2026-12-02T09:00:00+01:00
          groups: [platform]`),
    });
    expect(result.diagnostics).toEqual([]);
    const attributes = (address: string) => result.desired!.resources.find((r) => r.address === address)!.attributes;
    expect(attributes('service_account_grant.payments/stripe-key/ci-deployer')).toEqual({
      record: 'payments/stripe-key',
      reader: 'ci-deployer',
      until: '2026-12-01T18:00:00Z',
      reason: 'INC-123',
    });
    expect(attributes('user_share.payments/stripe-key/dana')).toEqual({
      record: 'payments/stripe-key',
      reader: 'dana',
      until: '2026-12-02T09:00:00+01:00',
    });
    expect(attributes('group_share.payments/stripe-key/platform')).toEqual({ record: 'payments/stripe-key', reader: 'platform' });
    expect(attributes('record.payments/stripe-key')).toMatchObject({
      grants: { serviceAccounts: ['ci-deployer'], users: ['dana'], groups: ['platform'] },
      grantsUntil: { 'serviceAccounts/ci-deployer': '2026-12-01T18:00:00Z', 'users/dana': '2026-12-02T09:00:00+01:00' },
    });
  });

  test('an until that is not a date-time', async () => {
    const result = await load({ 'main.yaml': config('          users: [{ name: dana, until: next tuesday }]') });
    expect(result.desired).toBeUndefined();
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ code: 'invalid_datetime', range: { file: 'main.yaml', line: 8, col: 40 } });
    expect(result.diagnostics[0]!.summary).toContain('is not a valid date-time: "next tuesday"');
  });

  test('a user entry must still name a user of the directory', async () => {
    const result = await load({ 'main.yaml': config('          users: [{ name: dna, until: "2026-12-01T18:00:00Z" }]') });
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ range: { file: 'main.yaml', line: 8, col: 27 } });
    expect(result.diagnostics[0]!.summary).toContain('"dna"');
  });
});
