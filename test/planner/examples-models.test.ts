// The examples name only models their credentials serve, as the emulator lists them (GET /providers): each
// example's model checks pass. (Its credentials are not created here, so each is checked against its vendor.)
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { checkModels, modelChecks } from '../../src/planner/index.js';
import { knownOf, listVendors, loadConfiguration, vendors } from '../../src/providers/index.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';

const emulator = withEmulator();
const ACCOUNT = fixtures.accounts[1]!.id;

const examples: [string, Parameters<typeof loadConfiguration>[1]][] = [
  ['quickstart', { variables: [{ name: 'account', value: ACCOUNT }], env: {} }],
  ['multi-env (prod)', { variables: [{ file: 'examples/multi-env/vars/prod.yaml' }], env: {} }],
  ['teams', { variables: [{ name: 'account', value: ACCOUNT }], env: {} }],
  ['teams (more teams)', { variables: [{ name: 'account', value: ACCOUNT }, { file: 'examples/teams/vars/more-teams.yaml' }], env: {} }],
];

describe('the examples name models that exist', () => {
  it.each(examples)('%s', async (name, options) => {
    const { desired } = await loadConfiguration(`examples/${name.split(' ')[0]}`, options);
    expect(desired).toBeDefined();
    const client = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: ACCOUNT });
    try {
      const found = new Map([[vendors, await listVendors(client)]]);
      const known = knownOf({ account: ACCOUNT, lookups: found, clocks: { api: new Date(), forEnds: new Date() } });
      const byAddress = new Map(desired!.resources.map((r) => [r.address, r]));
      const checks = modelChecks(desired!.resources, byAddress, {});
      expect(checks.length).toBeGreaterThan(0);
      expect(await checkModels(checks, client, known, byAddress, 4)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
