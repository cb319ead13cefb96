// The one conformance test every provider passes, against the emulator: create, read, diff shows nothing,
// update, diff shows nothing, remove, and read no longer finds a live object.
import { describe, expect, it } from 'vitest';
import type { ResourceKind } from '../../src/config/types.js';
import { emptyDirectory } from '../../src/config/index.js';
import { finder, lister, listVendors, definitionOf, serviceAccounts, vendors, type DataSource } from '../../src/providers/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import type { Known } from '../../src/providers/types.js';
import { harness, type Harness } from '../planner/harness.js';

const gatewayBase = (extra = '', name = 'Conformance') => `
projects:
  app: {}
credentials:
  key:
    provider: openai
    secret: { env: OPENAI_KEY }
gateways:
  gw:
    project: app
    name: ${name}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [key]
${extra}`;

interface Case {
  kind: ResourceKind;
  address: string;
  create: string;
  /** Absent for a kind that has nothing to change in place (a record grant exists or not). */
  update?: string;
  /** The account to work in, when not the harness's. */
  account?: string;
  remove: string;
  /** Whether a live object read after removal is gone in the kind's own terms (otherwise read returns null). */
  removed?: (live: never) => boolean;
}

const cases: Case[] = [
  { kind: 'project', address: 'project.solo', create: 'projects:\n  solo:\n    description: one\n', update: 'projects:\n  solo:\n    description: two\n', remove: '', removed: (live: { archived: boolean }) => live.archived },
  {
    kind: 'record',
    address: 'record.app/r',
    create: 'projects:\n  app:\n    records:\n      r:\n        tags: [a]\n        value: { env: STRIPE }\n',
    update: 'projects:\n  app:\n    records:\n      r:\n        tags: [b]\n        rotationIntervalDays: 30\n        value: { env: STRIPE }\n',
    remove: 'projects:\n  app: {}\n',
    removed: (live: { archived: boolean }) => live.archived,
  },
  {
    kind: 'credential',
    address: 'credential.key',
    create: 'credentials:\n  key:\n    provider: openai\n    secret: { env: OPENAI_KEY }\n',
    update: 'credentials:\n  key:\n    provider: openai\n    label: renamed\n    secret: { env: OPENAI_KEY }\n',
    remove: '',
  },
  { kind: 'gateway', address: 'gateway.gw', create: gatewayBase(), update: gatewayBase('', 'Renamed'), remove: 'projects:\n  app: {}\n', removed: (live: { status: string }) => live.status === 'disabled' },
  {
    kind: 'gateway_token',
    address: 'gateway_token.gw/t',
    create: gatewayBase('    tokens:\n      t:\n        scopes: [run]\n'),
    update: gatewayBase('    tokens:\n      t:\n        name: t-renamed\n        scopes: [run]\n'),
    remove: gatewayBase(),
    removed: (live: { revoked_at: string | null }) => live.revoked_at !== null,
  },
  {
    kind: 'otel_export',
    address: 'otel_export.gw',
    create: gatewayBase('    otelExport:\n      enabled: true\n      endpoint: https://otel.example.com\n      headers: { Authorization: { env: OTEL_AUTH } }\n'),
    update: gatewayBase('    otelExport:\n      enabled: true\n      endpoint: https://otel2.example.com\n      exportMetrics: true\n      headers: { Authorization: { env: OTEL_AUTH } }\n'),
    remove: gatewayBase(),
    // Every gateway has an export document: removing it means disabling it.
    removed: (live: { export: { enabled: boolean } }) => !live.export.enabled,
  },
  ...grantCases(),
  ownerCase(),
];

/** A record's owner: transferred to dana, then to rex; removed, it is forgotten and rex stays the owner. */
function ownerCase(): Case {
  const [rex, dana] = [fixtures.users[1]!, fixtures.users[2]!];
  const user = (u: typeof rex) => `{ id: ${u.id}, publicKey: "${printableKeyPair(u.id).publicKey}" }`;
  const record = (owner: string) => `projects:\n  app:\n    records:\n      r:\n        tags: [a]\n${owner}directory:\n  users:\n    dana: ${user(dana)}\n    rex: ${user(rex)}\n`;
  return {
    kind: 'record_owner', account: fixtures.accounts[0]!.id, address: 'record_owner.app/r',
    create: record('        owner: { user: dana }\n'), update: record('        owner: { user: rex }\n'), remove: record(''),
    removed: (live: { owner_user_id: string }) => live.owner_user_id === rex.id,
  };
}

/** A record with a value, granted to one reader of each kind: the fixtures of account 1 (Acme). */
function grantCases(): Case[] {
  const acme = fixtures.accounts[0]!.id;
  const [dana, platform] = [fixtures.users[2]!, fixtures.groups[0]!];
  const record = (grants: string) => `projects:
  app:
    records:
      r:
        value: { env: STRIPE }
${grants}directory:
  users:
    dana: { id: ${dana.id}, publicKey: "${printableKeyPair(dana.id).publicKey}" }
  groups:
    platform: { id: ${platform.id}, publicKey: "${printableKeyPair(platform.id).publicKey}" }
`;
  return [
    ['service_account_grant', 'ci-deployer', 'serviceAccounts'],
    ['user_share', 'dana', 'users'],
    ['group_share', 'platform', 'groups'],
  ].map(([kind, reader, section]) => ({
    kind: kind!,
    account: acme,
    address: `${kind}.app/r/${reader}`,
    create: record(`        grants:
          ${section}: [${reader}]
`),
    remove: record(`        grants:
          ${section}: []
`),
  }));
}

async function lookupsOf(h: Harness): Promise<Known> {
  const all = new Map<DataSource<unknown>, unknown[]>([[vendors, await listVendors(h.client)], [serviceAccounts, await serviceAccounts.read(h.client)]]);
  const resources = h.state.data.resources;
  return {
    account: h.state.data.account,
    now: h.client.serverNow(),
    find: finder(all),
    list: lister(all),
    directory: (await h.desired()).directory ?? emptyDirectory(),
    idOf: (address) => resources[address]?.id,
    nameOf: (kind, id) => {
      const address = Object.keys(resources).find((a) => resources[a]!.kind === kind && resources[a]!.id === id);
      return address ? address.slice(address.indexOf('.') + 1) : id;
    },
  };
}

async function readAndDiff(h: Harness, c: Case) {
  const provider = definitionOf(c.kind);
  if (provider.observation === 'state') throw new Error(`${c.kind} is known only from state: it has no read to conform`);
  const entry = h.state.data.resources[c.address]!;
  const live = await provider.read({ client: h.client, account: h.state.data.account, id: entry.id, ...(entry.parents ? { parents: entry.parents } : {}) });
  expect(live).not.toBeNull();
  const desired = (await h.desired()).resources.find((r) => r.address === c.address)!;
  const facts = provider.diff({ desired, live, state: entry, known: await lookupsOf(h), changedSecrets: [] });
  return { provider, entry, facts };
}

describe.each(cases)('provider conformance: $kind', (c) => {
  it('creates, reads, shows no difference, updates, shows no difference, removes', async () => {
    const h = await harness(c.account ? { account: c.account } : {});
    try {
      h.config(c.create);
      await h.converge();
      expect((await readAndDiff(h, c)).facts.changes).toEqual([]);

      if (c.update !== undefined) {
        h.config(c.update);
        const update = await h.plan();
        expect(update.steps.find((s) => s.address === c.address)?.action).toBe('update');
        await h.converge();
      }
      const { provider, entry, facts } = await readAndDiff(h, c);
      expect(facts.changes).toEqual([]);

      h.config(c.remove);
      const removal = await h.plan();
      expect(removal.steps.find((s) => s.address === c.address)?.action).toBe(provider.removeAction);
      await h.converge();
      expect(h.state.data.resources[c.address]).toBeUndefined();
      const after = await provider.read({ client: h.client, account: h.state.data.account, id: entry.id, ...(entry.parents ? { parents: entry.parents } : {}) });
      if (c.removed) expect(after !== null && c.removed(after as never)).toBe(true);
      else expect(after).toBeNull();
      expect((await h.plan()).steps).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
