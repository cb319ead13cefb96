// The leak scan of access as code, with the state in PostgreSQL: a record granted to a Service Account and
// shared with a user and a group, applied from a saved plan, then given a new value that is wrapped again for
// all three. No value and no private key appears in any output, the plan file or any row of the state's tables,
// and the readers still read the value, so the scan looks where the secrets really went.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from '../../../src/api/index.js';
import { fixtures } from '../../../src/emulator/fixtures.js';
import { withDatabase } from '../../helpers/postgres.js';
import { directoryYaml, privateKeyOf } from '../../helpers/readers.js';
import { dumpSchema } from '../../state/postgres/helpers.js';
import { runCli, world, type CliResult, type World } from '../helpers.js';

const database = withDatabase();
const acme = fixtures.accounts[0]!.id;
const [ciDeployer, dana, platform] = [fixtures.serviceAccounts[0]!, fixtures.users[2]!, fixtures.groups[0]!];
const FIRST = 'leak_scan_value_first_3391';
const SECOND = 'leak_scan_value_second_6620';

let w: World;
let stateUrl: string;
const outputs: string[] = [];

async function cli(args: string[], value: string): Promise<CliResult> {
  const run = await w.cli(args, { CPLANE_ACCOUNT: acme, CPLANE_STATE: stateUrl, API_KEY: value });
  outputs.push(run.stdout, run.stderr);
  return run;
}

beforeAll(async () => {
  w = await world();
  const url = new URL(database().url);
  url.searchParams.set('schema', 'access');
  stateUrl = url.toString();
  w.config(`version: 1
projects:
  shop:
    name: shop-leak-scan
    records:
      api-key:
        value: { env: API_KEY }
        grants:
          serviceAccounts: [ci-deployer]
          users: [dana]
          groups: [platform]
${directoryYaml({ users: { dana: dana.id }, groups: { platform: platform.id } })}`);
});
afterAll(async () => w?.close());

it('leaks no value and no private key into output, the plan file or the state tables', { timeout: 120_000 }, async () => {
  const planFile = join(w.dir, 'grants.plan');
  expect((await cli(['plan', w.dir, '--out', planFile], FIRST)).code).toBe(0);
  const first = await cli(['apply', planFile, '--auto-approve'], FIRST);
  expect(first.stderr).toBe('');
  expect((await cli(['apply', w.dir, '--auto-approve'], SECOND)).code).toBe(0);

  const admin = createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: acme });
  const recordId = (await admin.listAll('listRecords', {})).find((r) => r.name === 'api-key')!.record_id;
  await admin.close();
  const read = await runCli(
    ['read', '--record-id', recordId],
    {
      ...w.env,
      CPLANE_ACCOUNT: acme,
      CPLANE_TOKEN: fixtures.tokens.serviceAccount,
      CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
      CPLANE_WRITER_KEY: w.writerKey,
    },
    w.dir,
  );
  expect(read.stdout).toBe(`${SECOND}\n`);

  const stored = [readFileSync(planFile, 'utf8'), await dumpSchema(stateUrl, 'access')];
  expect(stored[1]).toContain('service_account_grant.shop/api-key/ci-deployer');
  const secrets = [FIRST, SECOND, w.env.CPLANE_STATE_KEY!, ...[ciDeployer.id, dana.id, platform.id].map(privateKeyOf)];
  for (const text of [...outputs, ...stored]) for (const secret of secrets) expect(text).not.toContain(secret);
});
