// The conformance case of every kind, keyed by kind: test/providers/conformance.test.ts runs one for each kind of
// the registry and fails, naming the kind, when a kind has none. A kind added since keeps its case in its own
// file, test/kinds/<kind>.ts (test/helpers/kind-cases.ts), merged in here. A case walks the kind's life against the
// emulator (create, the changes, remove), and between them the writes its steps send must be exactly the
// kind's `writeOperations`: a change is there to send an operation no other step sends.
import type { ResourceKind } from '../../src/config/types.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import type { Action } from '../../src/plan-model/index.js';
import { kindCases } from '../helpers/kind-cases.js';
import { directoryYaml, placeOf, wrapperFor } from '../helpers/readers.js';
import type { Harness } from '../planner/harness.js';

/** A change of configuration after the create: planned as `action` of the case's address, applied, then read back with no difference. */
export interface Change {
  /** The configuration (`main.yaml` after `version` and `account`). */
  config: string;
  /** The address's step in the plan; `update` when not given. */
  action?: Action;
  /** Addresses the plan is asked to replace (`--replace`). */
  replace?: string[];
  /** Done with the API before planning, given the remote id of the case's address (a grant made outside cplane). */
  arrange?(h: Harness, id: string): Promise<void>;
}

export interface ConformanceCase {
  /** The address of the kind the case follows. */
  address: string;
  /** The account to work in, when not the harness's (Acme Staging). */
  account?: string;
  create: string;
  changes?: Change[];
  /** The configuration without the address: planned as the kind's `removeAction`. */
  remove: string;
  /** Whether a live object read after removal is gone in the kind's own terms (otherwise read returns null). */
  removed?: (live: never) => boolean;
}

const acme = fixtures.accounts[0]!.id;
const [ada, dana] = [fixtures.users[0]!, fixtures.users[2]!];
const [platform, auditors] = [fixtures.groups[0]!, fixtures.groups[1]!];
const ciDeployer = fixtures.serviceAccounts[0]!;
const role = (name: string) => fixtures.roles.find((r) => r.name === name)!.id;

const gatewayBase = (extra = '', gateway = '    name: Conformance\n    credentials: [key]\n') => `
projects:
  app: {}
credentials:
  key:
    provider: openai
    secret: { env: OPENAI_KEY }
  key2:
    provider: openai
    label: second
    secret: { env: OPENAI_KEY_2 }
gateways:
  gw:
    project: app
    defaultProvider: openai
    defaultModel: gpt-4o-mini
${gateway}${extra}`;

/** A record in Acme, where the fixture readers are, with its `value` and `grants` as given. */
const acmeRecord = (value: string, grants: string, tags = '[a]') => `projects:
  app:
    records:
      r:
        tags: ${tags}
        value: ${value}
${grants}${directoryYaml({ users: { dana: dana.id }, groups: { platform: platform.id } })}`;
const allReaders = `        grants:
          serviceAccounts: [ci-deployer]
          users: [dana]
          groups: [platform]
`;
const noReaders = `        grants:
          serviceAccounts: []
          users: []
          groups: []
`;
const generated = '{ generate: { length: 32 } }';
/** A record with a value, granted to one reader of each kind: the fixtures of account 1 (Acme). */
const grantCase = (kind: ResourceKind, reader: string, section: string): ConformanceCase => ({
  account: acme,
  address: `${kind}.app/r/${reader}`,
  create: acmeRecord('{ env: STRIPE }', `        grants:\n          ${section}: [${reader}]\n`),
  remove: acmeRecord('{ env: STRIPE }', `        grants:\n          ${section}: []\n`),
});

/** A project's group role, given with the directory's group and roles. */
const groupRole = (roleName: string | undefined) => `projects:
  app:${roleName ? `\n    groupRoles: { platform: ${roleName} }` : ' {}'}
directory:
  groups: { platform: { id: ${platform.id}, publicKey: "${printableKeyPair(platform.id).publicKey}" } }
  roles: { admin: { id: ${role('admin')} }, reader: { id: ${role('reader')} } }
`;

export const conformanceCases: Readonly<Partial<Record<ResourceKind, ConformanceCase>>> = {
  project: {
    address: 'project.solo',
    create: 'projects:\n  solo:\n    description: one\n',
    changes: [{ config: 'projects:\n  solo:\n    description: two\n' }],
    remove: '',
    removed: (live: { archived: boolean }) => live.archived,
  },
  credential: {
    address: 'credential.key',
    create: 'credentials:\n  key:\n    provider: openai\n    secret: { env: OPENAI_KEY }\n',
    changes: [
      { config: 'credentials:\n  key:\n    provider: openai\n    label: renamed\n    secret: { env: OPENAI_KEY }\n' },
      // Another value: the secret is rotated in place.
      { config: 'credentials:\n  key:\n    provider: openai\n    label: renamed\n    secret: { env: OPENAI_KEY_2 }\n', action: 'rotate' },
    ],
    remove: '',
  },
  record: {
    account: acme,
    address: 'record.app/r',
    create: acmeRecord(generated, allReaders),
    changes: [
      // Metadata, and a new generated value wrapped again for each reader that keeps its grant.
      { config: acmeRecord(generated, allReaders, '[b]'), replace: ['record.app/r'], action: 'rotate' },
      // The readers leave the lists (their own addresses revoke them) as the tags change.
      { config: acmeRecord(generated, noReaders, '[c]') },
      // Grants made outside cplane to readers the (authoritative) lists leave out: the record's step revokes them.
      {
        config: acmeRecord(generated, noReaders, '[c]'),
        async arrange(h, id) {
          const place = await placeOf(h.client, id);
          await h.client.call('grantServiceAccount', {
            path: { id: ciDeployer.id },
            body: { recordId: id, wrappedDek: wrapperFor(place, ciDeployer.id) },
          });
          await h.client.call('shareRecordWithUser', { path: { id }, body: { userId: ada.id, wrappedDek: wrapperFor(place, ada.id) } });
          await h.client.call('shareRecordWithGroup', {
            path: { id },
            body: { groupId: auditors.id, wrappedDek: wrapperFor(place, auditors.id) },
          });
        },
      },
    ],
    remove: 'projects:\n  app: {}\n',
    removed: (live: { archived: boolean }) => live.archived,
  },
  gateway: {
    address: 'gateway.gw',
    create: gatewayBase(),
    changes: [
      { config: gatewayBase('', '    name: Renamed\n    credentials: [key, key2]\n    settings: { requestsPerMinute: 600 }\n') },
      { config: gatewayBase('', '    name: Renamed\n    credentials: [key2]\n    settings: { requestsPerMinute: 600 }\n') },
    ],
    remove: 'projects:\n  app: {}\n',
    removed: (live: { status: string }) => live.status === 'disabled',
  },
  gateway_token: {
    address: 'gateway_token.gw/t',
    create: gatewayBase('    tokens:\n      t:\n        scopes: [run]\n'),
    changes: [{ config: gatewayBase('    tokens:\n      t:\n        name: t-renamed\n        scopes: [run]\n') }],
    remove: gatewayBase(),
    removed: (live: { revoked_at: string | null }) => live.revoked_at !== null,
  },
  otel_export: {
    address: 'otel_export.gw',
    create: gatewayBase(
      '    otelExport:\n      enabled: true\n      endpoint: https://otel.example.com\n      headers: { Authorization: { env: OTEL_AUTH } }\n',
    ),
    changes: [
      {
        config: gatewayBase(
          '    otelExport:\n      enabled: true\n      endpoint: https://otel2.example.com\n      exportMetrics: true\n      headers: { Authorization: { env: OTEL_AUTH } }\n',
        ),
      },
    ],
    remove: gatewayBase(),
    // Every gateway has an export document: removing it means disabling it.
    removed: (live: { export: { enabled: boolean } }) => !live.export.enabled,
  },
  project_group_role: {
    account: acme,
    address: 'project_group_role.app/platform',
    create: groupRole('admin'),
    // A changed role is a new POST.
    changes: [{ config: groupRole('reader') }],
    remove: groupRole(undefined),
  },
  service_account_grant: grantCase('service_account_grant', 'ci-deployer', 'serviceAccounts'),
  user_share: grantCase('user_share', 'dana', 'users'),
  group_share: grantCase('group_share', 'platform', 'groups'),
  ...Object.fromEntries(kindCases.map((k) => [k.kind, k.conformance])),
};
