// The access report against the emulator, over real HTTP. A configuration grants two records (a Service Account
// whose grant ends in 3 days, a user, a group, a group's role on the project) and is applied; Dana reads one record
// with `cplane read`, ci-deployer the other (each read is a row of the record-access audit feed), and Dana is then
// removed from the first. Outside cplane, Dana gets a share of the second record and legacy-bot a grant made while
// it was active (then paused, a dashboard action the emulator takes from tests), and a record with a hostile name
// is created. The report flags each: unmanaged, may hold version N, inactive, unused (once the emulator's clock is
// moved 91 days, never slept), ending within 7 days and ended. Then the real CLI prints it in each format once.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { accessReport, readAccess } from '../../src/access/index.js';
import type { AccessReader, AccessReport } from '../../src/plan-model/index.js';
import { loadConfiguration } from '../../src/providers/index.js';
import { lyingProxy } from '../helpers/lying-proxy.js';
import { directoryYaml, placeOf, privateKeyOf, wrapperFor } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const [ciDeployer, legacyBot] = [fixtures.serviceAccounts[0]!, fixtures.serviceAccounts[1]!];
const dana = fixtures.users[2]!;
const [platform, auditors] = [fixtures.groups[0]!, fixtures.groups[1]!];
const readerRole = fixtures.roles.find((r) => r.name === 'reader')!.id;
const DAY = 86_400_000;
const HOSTILE = '=HYPERLINK("http://x")|\u001b[31mred,`*_[x]';

let w: World;
let until: string;
const ids: Record<string, string> = {};

const config = (danaOnDbPassword: boolean) => `version: 1
projects:
  shop:
    name: shop-access
    groupRoles: { auditors: reader }
    records:
      db-password:
        value: { generate: { length: 32 } }
        grants:
          serviceAccounts: [{ name: ci-deployer, until: "${until}", reason: INC-7 }]
${danaOnDbPassword ? '          users: [dana]\n' : ''}      api-key:
        value: { generate: { length: 32 } }
        grants:
          serviceAccounts: [ci-deployer]
          groups: [platform]
${directoryYaml({ users: { dana: dana.id }, groups: { platform: platform.id, auditors: auditors.id } })}  roles:
    reader: { id: ${readerRole} }
`;

/** Applies the configuration in-process (the CLI's entry, no subprocess): arrangement; the report runs the real CLI. */
async function applied(): Promise<void> {
  const run = await w.run(['apply', w.dir, '--auto-approve']);
  expect(run.code, run.stderr).toBe(0);
}

/** The report as the command computes it, in this process: the configuration, the state file and the account. */
async function report(unusedDays = 90): Promise<AccessReport> {
  const { desired } = await loadConfiguration(w.dir, { env: w.env, cwd: w.dir });
  const state = (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, never> }).resources;
  return accessReport({ desired: desired!, state, reads: await readAccess(w.client, acme), account: acme, unusedDays });
}

const readersOf = (r: AccessReport, project: string, name: string) =>
  r.records.find((x) => x.project === project && x.name === name)!.readers;
const reader = (readers: AccessReader[], name: string, via?: string) =>
  readers.find((x) => x.name === name && (via === undefined || x.via === via))!;
const codes = (x: AccessReader) => x.flags.map((f) => f.code);

beforeAll(async () => {
  w = await world({ account: acme });
  until = new Date(w.emulator.now().getTime() + 3 * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
  w.config(config(true));
  await applied();
  const records = await w.client.listAll('listRecords', {});
  for (const name of ['db-password', 'api-key']) ids[name] = records.find((r) => r.name === name)!.record_id;
  // Dana reads db-password (her token, her key), ci-deployer reads api-key: rows of the audit feed.
  const keyFile = join(w.temp, 'dana.key');
  writeFileSync(keyFile, privateKeyOf(dana.id), { mode: 0o600 });
  const danaRead = await w.cliAs(fixtures.tokens.recordOwner, ['read', '--record-id', ids['db-password']!, '--key-file', keyFile]);
  expect(danaRead.code, danaRead.stderr).toBe(0);
  const saRead = await w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', ids['api-key']!], {
    CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
  });
  expect(saRead.code, saRead.stderr).toBe(0);
  // Dana leaves db-password: her share is revoked, and the value (version 1) is not rotated.
  w.config(config(false));
  await applied();
  // Outside cplane: a share to Dana, and a grant to legacy-bot made while it was active, then paused.
  const place = await placeOf(w.client, ids['api-key']!, acme);
  await w.client.call('shareRecordWithUser', {
    path: { id: ids['api-key']! },
    body: { userId: dana.id, wrappedDek: wrapperFor(place, dana.id) },
  });
  w.emulator.setServiceAccountStatus(legacyBot.id, 'active');
  await w.client.call('grantServiceAccount', {
    path: { id: legacyBot.id },
    body: { recordId: ids['api-key']!, wrappedDek: wrapperFor(place, legacyBot.id) },
  });
  w.emulator.setServiceAccountStatus(legacyBot.id, 'inactive');
  const project = (await w.client.call('listProjects', {})).find((p) => p.name === 'shop-access')!;
  await w.client.call('createRecord', { body: { projectId: project.project_id, name: HOSTILE } });
}, 120_000);
afterAll(async () => w.close());

describe('the access report', () => {
  it("lists each record's readers with the grant they read through, and flags what the account has that the configuration does not", async () => {
    const r = await report();
    const apiKey = readersOf(r, 'shop-access', 'api-key');
    expect(apiKey.map((x) => [x.type, x.name, x.via, x.live])).toEqual([
      ['service_account', 'ci-deployer', 'service-account-grant', true],
      ['service_account', 'legacy-bot', 'service-account-grant', true],
      ['user', 'dana', 'user-share', true],
      ['group', 'auditors', 'project-group-role', null],
      ['group', 'platform', 'group-share', true],
    ]);
    expect(reader(apiKey, 'ci-deployer').address).toBe('service_account_grant.shop/api-key/ci-deployer');
    expect(codes(reader(apiKey, 'ci-deployer'))).toEqual([]);
    expect(reader(apiKey, 'ci-deployer').lastRead).toEqual(expect.any(String));
    expect(codes(reader(apiKey, 'dana'))).toEqual(['unmanaged']);
    expect(reader(apiKey, 'auditors')).toMatchObject({ role: 'reader', address: 'project_group_role.shop/auditors', flags: [] });
    expect(r.records.find((x) => x.name === 'api-key')).toMatchObject({ address: 'record.shop/api-key', currentVersion: 1 });
  });

  it('flags an inactive Service Account that holds a grant', async () => {
    const legacy = reader(readersOf(await report(), 'shop-access', 'api-key'), 'legacy-bot');
    expect(legacy.status).toBe('inactive');
    expect(legacy.flags).toEqual([{ code: 'unmanaged' }, { code: 'inactive', status: 'inactive' }]);
  });

  it('flags a reader removed since the value was written that read it: may hold version N', async () => {
    const r = await report();
    const dbPassword = readersOf(r, 'shop-access', 'db-password');
    const former = reader(dbPassword, 'dana', 'former');
    expect(former).toMatchObject({ type: 'user', id: dana.id, live: false });
    expect(former.flags).toEqual([{ code: 'may-hold-version', version: 1, readAt: former.lastRead }]);
    // The emulator's fixtures: ci-deployer read database-password after its version 2 was written, and holds no grant.
    const seeded = reader(readersOf(r, 'payments', 'database-password'), ciDeployer.name, 'former');
    expect(seeded.flags).toEqual([expect.objectContaining({ code: 'may-hold-version', version: 2 })]);
    // A reader that never read the current value is not listed (Ada owns the records: she reads with cplane's wrapper).
    expect(dbPassword.filter((x) => x.via === 'former').map((x) => x.name)).toEqual(['dana']);
  });

  it('flags a grant that ends within 7 days on the API clock, and one that has ended once the clock passes it', async () => {
    const ending = reader(readersOf(await report(), 'shop-access', 'db-password'), 'ci-deployer');
    expect(ending).toMatchObject({ until: new Date(until).toISOString(), reason: 'INC-7' });
    expect(ending.flags).toEqual([{ code: 'ends-soon', until: new Date(until).toISOString(), left: 'in 3 days' }]);
    w.emulator.moveClock('4d');
    try {
      const ended = reader(readersOf(await report(), 'shop-access', 'db-password'), 'ci-deployer');
      expect(ended.flags).toEqual([{ code: 'ended', until: new Date(until).toISOString() }]);
    } finally {
      w.emulator.moveClock('-4d');
    }
  });

  it("flags grants not read for --unused-days days, from the audit feed, once the emulator's clock moves past them", async () => {
    const now = await report();
    expect(now.flagged.unused).toBe(0);
    w.emulator.moveClock('91d');
    try {
      const later = readersOf(await report(90), 'shop-access', 'api-key');
      const read = reader(later, 'ci-deployer');
      expect(read.flags).toEqual([{ code: 'unused', days: 90, lastRead: read.lastRead }]);
      expect(reader(later, 'legacy-bot').flags).toContainEqual({ code: 'unused', days: 90, lastRead: null });
      expect(reader(later, 'dana').flags).toContainEqual({ code: 'unused', days: 90, lastRead: null });
      // The feed names the member who read, never the group: groups are not flagged.
      expect(codes(reader(later, 'platform'))).toEqual([]);
      // A longer window: ci-deployer's read 91 days ago counts.
      expect(codes(reader(readersOf(await report(100), 'shop-access', 'api-key'), 'ci-deployer'))).toEqual([]);
    } finally {
      w.emulator.moveClock('-91d');
    }
  });
});

describe('cplane access report, as a user runs it', () => {
  it('prints aligned text with a hostile record name escaped, and exits 2 when a reader is flagged', async () => {
    const run = await w.cli(['access', 'report', w.dir]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).toContain('shop-access/=HYPERLINK("http://x")|\\e[31mred,`*_[x]  not in the configuration  no value');
    const lines = run.stdout.split('\n');
    expect(lines).toContain('shop-access/api-key  record.shop/api-key  version 1');
    // The columns line up: each reader row has its name and its path at the same offsets.
    const ci = lines.find((l) => l.startsWith('  Service Account  ci-deployer'))!;
    const danaRow = lines.find((l) => l.startsWith('  user             dana'))!;
    expect(ci.indexOf('grant')).toBeGreaterThan(0);
    expect(danaRow).toMatch(/^ {2}user {13}dana {8,}share +unmanaged \(not in the configuration\)/);
    expect(run.stdout).toMatch(/user +dana +no grant now +may hold version 1 \(read \d{4}-\d\d-\d\d \d\d:\d\d UTC\): rotate the value/);
    expect(run.stdout).toMatch(/Service Account +legacy-bot +grant +unmanaged \(not in the configuration\); Service Account inactive/);
    expect(run.stdout).toMatch(/Service Account +ci-deployer +grant +ends in 3 days \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(run.stdout).toMatch(/group +auditors +project role reader \(not verifiable\)/);
    expect(run.stdout).toMatch(/Flagged: 2 unmanaged, 3 may hold a version, 1 inactive Service Account, 1 ending within 7 days\.\n$/);
  });

  it('prints JSON that the published schema accepts', async () => {
    const run = await w.cli(['access', 'report', w.dir, '--format', 'json', '--unused-days', '30']);
    expect(run.code, run.stderr).toBe(2);
    const json = JSON.parse(run.stdout) as AccessReport & { formatVersion: number };
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(
      JSON.parse(readFileSync(new URL('../../schema/access-report.schema.json', import.meta.url), 'utf8')) as object,
    );
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    expect(json).toMatchObject({
      formatVersion: 1,
      account: acme,
      unusedDays: 30,
      auditRead: true,
      readerCount: 11,
      flagged: { unmanaged: 2, 'may-hold-version': 3, inactive: 1, 'ends-soon': 1 },
    });
  });

  it('prints CSV with RFC 4180 quoting, a formula-looking cell made inert', async () => {
    const run = await w.cli(['access', 'report', w.dir, '--format', 'csv']);
    expect(run.code, run.stderr).toBe(2);
    const rows = run.stdout.split('\r\n');
    expect(rows[0]).toBe(
      'project,record,record_id,address,version,reader_type,reader,reader_id,through,role,live,status,last_read,until,reason,flags',
    );
    expect(rows.at(-1)).toBe('');
    // The record name starts with `=`: prefixed with ', its quotes doubled, quoted for its comma and quotes.
    expect(run.stdout).toContain(`shop-access,"'=HYPERLINK(""http://x"")|\\e[31mred,\`*_[x]",`);
    expect(rows).toContainEqual(
      expect.stringMatching(
        /^shop-access,api-key,[0-9a-f-]{36},record\.shop\/api-key,1,service_account,legacy-bot,[0-9a-f-]{36},service-account-grant,,true,inactive,,,,unmanaged \(not in the configuration\); Service Account inactive$/,
      ),
    );
  });

  it('prints Markdown with the hostile name escaped in its table', async () => {
    const run = await w.cli(['access', 'report', w.dir, '--format', 'markdown']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).not.toContain('\u001b');
    // A code span longer than the backtick in the name, and the `|` escaped, so the row keeps its cells.
    expect(run.stdout).toContain(
      '| ``shop-access/=HYPERLINK("http://x")\\|\\e[31mred,`*_[x]`` | no value | auditors | group | project role reader (not verifiable) |  |',
    );
    expect(run.stdout).toMatch(
      /\| `shop-access\/db-password` \| version 1 \| dana \| user \| no grant now \| may hold version 1 \(read [^|]+\): rotate the value \|/,
    );
  });

  it('refuses an unknown --format with the formats it takes, before reading anything', async () => {
    const run = await w.cli(['access', 'report', w.dir, '--format', 'xml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'Error: --format must be one of text, json, csv, markdown (got "xml").\nLeave --format out for aligned text.\n',
    );
  });
});

describe('a lying API server', () => {
  /** The API's answer with ci-deployer hidden from api-key's grants and a Service Account it never had added to db-password's. */
  function lied(json: unknown): unknown {
    if (Array.isArray(json)) return json.map(lied);
    if (json === null || typeof json !== 'object') return json;
    const copy = Object.fromEntries(Object.entries(json).map(([key, value]) => [key, lied(value)])) as {
      record_id?: string;
      grants?: { service_account_ids: string[] };
    };
    if (copy.grants && copy.record_id === ids['api-key'])
      copy.grants = { ...copy.grants, service_account_ids: copy.grants.service_account_ids.filter((id) => id !== ciDeployer.id) };
    if (copy.grants && copy.record_id === ids['db-password'])
      copy.grants = { ...copy.grants, service_account_ids: [...copy.grants.service_account_ids, INVENTED] };
    return copy;
  }
  const INVENTED = '0e000000-0000-4000-8000-00000000dead';

  it('cannot hide a grant the configuration lists, nor add one unseen: each is flagged', async () => {
    const proxy = await lyingProxy(w.emulator.url, (request, answer) =>
      request.method === 'GET' && request.path.startsWith('/v1/records') ? lied(answer.json) : undefined,
    );
    try {
      const run = await w.cli(['access', 'report', w.dir, '--format', 'json'], { CPLANE_BASE_URL: proxy.url });
      expect(run.code, run.stderr).toBe(2);
      const lies = JSON.parse(run.stdout) as AccessReport;
      // The grant it hid is one the configuration lists: still a row, said not granted.
      expect(reader(readersOf(lies, 'shop-access', 'api-key'), 'ci-deployer', 'service-account-grant')).toMatchObject({
        live: false,
        flags: [{ code: 'not-granted' }],
      });
      // The grant it made up is not in the configuration: a row by its id (no such Service Account), said unmanaged.
      expect(reader(readersOf(lies, 'shop-access', 'db-password'), INVENTED)).toMatchObject({
        id: INVENTED,
        live: true,
        flags: [{ code: 'unmanaged' }],
      });
    } finally {
      await proxy.close();
    }
  });
});

describe('a grant the configuration lists and the account does not have', () => {
  it('is flagged not granted yet, and its reader, who read the current version, may still hold it', async () => {
    await w.client.call('revokeRecordServiceAccount', { path: { id: ids['api-key']! }, body: { serviceAccountId: ciDeployer.id } });
    const apiKey = readersOf(await report(), 'shop-access', 'api-key');
    expect(reader(apiKey, 'ci-deployer', 'service-account-grant')).toMatchObject({ live: false, flags: [{ code: 'not-granted' }] });
    expect(codes(reader(apiKey, 'ci-deployer', 'former'))).toEqual(['may-hold-version']);
  });
});
