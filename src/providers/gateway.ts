/**
 * Gateways: created with POST /gateways (then their settings), fields changed
 * with PATCH /gateways/{id}, attached credentials reconciled with attach and
 * detach, settings changed with the settings operation (only the keys the
 * configuration gives are managed), deleted when they leave the configuration
 * (which disables the gateway and revokes its tokens: the plan says so).
 */
import type { GatewayTokenT, GatewayT } from '../api/shapes.js';
import { didYouMean, type CompleteRequest } from '../config/index.js';
import { resourceAddress, type SpendLimit, type Template } from '../plan-model/index.js';
import { vendors } from './lookups.js';
import type { OtelExportConfig } from './otel-export.js';
import type { TokenConfig } from './gateway-token.js';
import { defineKind, LOCAL_NAME } from './define-kind.js';
import { pathsInside, type AttributesOf, type EntryOf, type Fields, type FromSchema } from './field-types.js';
import type { Known, Problem } from './types.js';
import { byCodeUnit, flatten, nullWhenNotFound, ref, sortedSet, unknownVendor } from './view-diff.js';
import { writeSpec } from './write-spec.js';

/** Fields PATCH /gateways/{id} takes under the same name as the configuration. */
const plainFields = ['name', 'slug', 'defaultModel'] as const;

const projectAddress = (attributes: GatewayAttributes) => resourceAddress('project', attributes.project);
const credentialAddress = (name: string) => resourceAddress('credential', name);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The default provider is the first attached credential's unless given; a given name must be one of theirs. */
function completeDefaultProvider({
  attributes,
  entry,
  attributesOf,
  report,
  owner,
}: CompleteRequest<GatewayAttributes, GatewayConfig>): void {
  const providers = attributes.credentials
    .map((c) => attributesOf('credential', c)?.provider)
    .filter((p): p is string => typeof p === 'string');
  const given = entry.defaultProvider;
  attributes.defaultProvider = given ?? providers[0] ?? '';
  if (given !== undefined && !UUID.test(given) && providers.length > 0 && !providers.some((p) => UUID.test(p) || p === given)) {
    report('defaultProvider', {
      code: 'default_provider_mismatch',
      summary: `defaultProvider "${given}" of ${owner} is not the provider of any attached credential${didYouMean(given, providers)}`,
      detail: `The attached credentials are for: ${[...new Set(providers)].join(', ')}. Attach a credential of that provider, or choose one of these.`,
      underline: given,
    });
  }
}

const GATEWAY_WINDOWS: readonly string[] = ['minute', 'hour', 'day', 'month'];

/** A gateway's limit from its settings: the window is the API's default (`day`) when none is given. */
function spendLimitOf(usd: unknown, window: unknown): SpendLimit | null {
  if (typeof usd !== 'string') return null;
  return { usd, window: typeof window === 'string' && GATEWAY_WINDOWS.includes(window) ? (window as SpendLimit['window']) : 'day' };
}

/** An AI vendor as its name, whether the configuration gave its name or its id. */
function vendorName(nameOrId: unknown, known: Known): unknown {
  return known.find(vendors, String(nameOrId))?.name ?? nameOrId;
}

/** The settings PATCH body for the changed top-level keys; nested groups are sent whole, merged over `base`. */
function settingsBody(wanted: GatewaySettingsConfig, changedKeys: string[]): Record<string, Template> {
  const body: Record<string, Template> = {};
  for (const [key, value] of Object.entries(wanted) as [keyof GatewaySettingsConfig, unknown][]) {
    // Groups (guardrails, cache) are sent with their configured members only: the API merges them.
    if (value === undefined || !changedKeys.some((k) => k === `settings.${key}` || k.startsWith(`settings.${key}.`))) continue;
    body[key] = value as Template;
  }
  return body;
}

const settingsSchema = {
  description: 'Gateway settings. Only the keys given are managed; the others keep their live values.',
  type: 'object',
  additionalProperties: false,
  properties: {
    requestsPerMinute: {
      description: 'Requests allowed per minute, 1 to 1000000, or null for no limit.',
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 1000000,
    },
    tokensPerMinute: {
      description: 'Model tokens allowed per minute, 1 to 100000000, or null for no limit.',
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 100000000,
    },
    spendLimitUsd: {
      description: 'Spend limit in US dollars per window, as a decimal string such as "100.00", or null.',
      type: ['string', 'null'],
      pattern: '^[0-9]+(\\.[0-9]{1,2})?$',
    },
    window: { description: 'Window of the spend limit.', enum: ['minute', 'hour', 'day', 'month'] },
    guardrails: {
      description: 'Content guardrails.',
      type: 'object',
      additionalProperties: false,
      properties: {
        blockPii: { description: 'Block requests that contain personal data.', type: 'boolean' },
        blockedTerms: {
          description: 'Terms that make a request be refused (at most 500).',
          type: 'array',
          maxItems: 500,
          items: { type: 'string', minLength: 1 },
        },
        maxInputTokens: { description: 'Largest accepted input in tokens, or null for no limit.', type: ['integer', 'null'], minimum: 1 },
      },
    },
    cache: {
      description: 'Response cache.',
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { description: 'Whether responses are cached.', type: 'boolean' },
        ttlSeconds: {
          description: 'Time to live of cached responses in seconds, 0 to 604800.',
          type: 'integer',
          minimum: 0,
          maximum: 604800,
        },
      },
    },
  },
} as const;
/** Gateway settings as written in configuration: only the given keys are managed. */
export type GatewaySettingsConfig = FromSchema<typeof settingsSchema>;
/** Paths inside a gateway's settings that `ignoreChanges` may name (as the plan shows them), from the settings' schema. */
const settingsPaths = pathsInside('settings', settingsSchema);
export type GatewaySettingsPath = (typeof settingsPaths)[number];

const fields = {
  project: {
    schema: { description: 'Local name of the project the gateway belongs to.', type: 'string', minLength: 1 },
    required: true,
    references: 'project',
    live: 'project_id',
    fromLive: (id, known) => known.nameOf('project', String(id)),
  },
  name: {
    schema: { description: 'Name of the gateway. Defaults to the local name.', type: 'string', minLength: 1, maxLength: 200 },
    default: LOCAL_NAME,
  },
  slug: {
    schema: {
      description: 'Slug of the gateway, used in its URLs. Defaults to the local name.',
      type: 'string',
      minLength: 1,
      maxLength: 100,
    },
    default: LOCAL_NAME,
  },
  defaultProvider: {
    schema: {
      description:
        'Provider name or id used by default; must be the provider of an attached credential. Defaults to the provider of the first credential.',
      type: 'string',
      minLength: 1,
    },
    // Completed from the credentials (completeDefaultProvider).
    default: '',
    live: 'default_provider_id',
    normalize: vendorName,
  },
  defaultModel: { schema: { description: 'Model used by default.', type: 'string', minLength: 1 }, required: true, live: 'default_model' },
  credentials: {
    schema: {
      description: 'Local names of the attached provider credentials (at least one).',
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
    },
    required: true,
    references: 'credential',
    live: 'credential_ids',
    fromLive: (ids, known) => (ids as string[]).map((id) => known.nameOf('credential', id)),
    normalize: (names) => sortedSet(names as string[]),
  },
  settings: { schema: settingsSchema, paths: settingsPaths },
} as const satisfies Fields;

/** An entry of this kind in a configuration file, with the kinds declared inside it. */
export type GatewayConfig = EntryOf<typeof fields, 'project'> & { otelExport?: OtelExportConfig; tokens?: Record<string, TokenConfig> };
export type GatewayAttributes = AttributesOf<typeof fields>;

export const gatewayKind = defineKind<GatewayAttributes, GatewayT, GatewayConfig>({
  kind: 'gateway',
  parent: { kind: 'project', attribute: 'project', idField: 'projectId', inEntry: true },
  description: 'An AI gateway of a project, with its credentials, settings, OTel export and tokens.',
  fields,
  lifecycle: 'gateway',
  config: {
    key: 'gateways',
    noun: 'gateway',
    mapDescription: 'AI gateways by local name; each is addressed as gateway.<name>.',
    complete: completeDefaultProvider,
  },
  lookups: [vendors],
  refreshOperations: ['listGateways'],
  writeOperations: [
    'createGateway',
    'updateGateway',
    'updateGatewaySettings',
    'attachGatewayCredential',
    'detachGatewayCredential',
    'deleteGateway',
  ],
  readOperation: 'getGateway',
  export: {
    name: (live) => live.slug,
    skip: [
      {
        when: (live, account) => live.status !== 'enabled' || !account.exported('project', live.project_id),
        count: { key: 'disabledGateways', one: 'disabled gateway' },
      },
      {
        when: (live, account) => !live.credential_ids.some((id) => account.listed('credential', id)),
        count: {
          key: 'gatewaysWithoutCredentials',
          one: 'gateway without an active credential',
          many: 'gateways without an active credential',
        },
      },
    ],
    refersTo: (live) => [{ kind: 'credential', ids: live.credential_ids }],
    entry({ live, local, nameOf, vendorName }) {
      const credentials = live.credential_ids
        .map((id) => nameOf('credential', id))
        .filter((name): name is string => name !== undefined)
        .sort(byCodeUnit);
      const entry: GatewayConfig = {
        project: nameOf('project', live.project_id) ?? live.project_id,
        defaultProvider: vendorName(live.default_provider_id),
        defaultModel: live.default_model,
        credentials,
        settings: structuredClone(live.settings),
      };
      if (live.name !== local) entry.name = live.name;
      if (live.slug !== local) entry.slug = live.slug;
      return entry;
    },
    file: { with: { attribute: 'project', kind: 'project' } },
    template: { localNameFields: ['name', 'slug'] },
  },
  removeAction: 'delete',
  spend: {
    paths: ['settings.spendLimitUsd', 'settings.window', 'settings.requestsPerMinute'],
    limit: (view) => spendLimitOf(view['settings.spendLimitUsd'], view['settings.window']),
  },
  models: { named: (attributes) => [{ field: 'defaultModel', models: [attributes.defaultModel] }], through: 'credentials' },

  async refresh({ client, expected }) {
    // Disabled gateways are listed too, so one deleted outside cplane is seen as deleted, not as unreadable.
    return { items: await client.listAll('listGateways', { query: { includeDisabled: true } }, { expected: expected() }), failures: [] };
  },

  read: ({ client, id }) => nullWhenNotFound(() => client.call('getGateway', { path: { id } })),

  identify: ({ live }) => ({
    id: live.gateway_id,
    parents: { projectId: live.project_id },
    key: live.slug,
    status: live.status === 'disabled' ? 'gone' : 'live',
  }),

  naturalKey: ({ desired }) => desired.attributes.slug,
  diff(_req, derived) {
    const facts = derived();
    const problems = facts.changes.some((c) => c.path === 'project')
      ? [
          {
            code: 'immovable_gateway',
            summary: 'a gateway cannot be moved to another project',
            detail: 'Add a gateway under a new name in that project.',
          },
        ]
      : [];
    return { ...facts, problems };
  },

  planCreate({ desired, known }) {
    const { attributes, address } = desired;
    const vendor = known.find(vendors, attributes.defaultProvider);
    if (!vendor) return { writes: [], problems: [unknownVendor(attributes.defaultProvider)] };
    const project = ref(known, projectAddress(attributes));
    const body = {
      projectId: project,
      name: attributes.name,
      slug: attributes.slug,
      defaultProviderId: vendor.provider_id,
      defaultModel: attributes.defaultModel,
      credentialIds: attributes.credentials.map((name) => ref(known, credentialAddress(name))),
    };
    const writes = [
      writeSpec(
        'createGateway',
        { body, effects: { id: { result: 'gateway_id' }, parents: { projectId: project } } },
        `create gateway ${attributes.slug}`,
      ),
    ];
    if (attributes.settings && Object.keys(attributes.settings).length > 0) {
      const all = Object.keys(flatten('settings', attributes.settings));
      const settings = settingsBody(attributes.settings, all);
      writes.push(
        writeSpec(
          'updateGatewaySettings',
          { path: { id: { $ref: address } }, body: settings },
          `set the settings of gateway ${attributes.slug}`,
        ),
      );
    }
    return { writes };
  },

  planUpdate({ desired, live, id, changedKeys, known }) {
    const { attributes } = desired;
    const writes = [];
    const problems: Problem[] = [];
    const body: Record<string, Template> = {};
    for (const key of plainFields) {
      if (changedKeys.includes(key)) body[key] = attributes[key];
    }
    if (changedKeys.includes('defaultProvider')) {
      const vendor = known.find(vendors, attributes.defaultProvider);
      if (vendor) body.defaultProviderId = vendor.provider_id;
      else problems.push(unknownVendor(attributes.defaultProvider));
    }
    if (Object.keys(body).length > 0) writes.push(writeSpec('updateGateway', { path: { id }, body }, `update gateway ${attributes.slug}`));

    if (changedKeys.includes('credentials')) {
      // Attach before detach, so the gateway never has no credential between the two.
      const wantedIds = new Set<string>();
      for (const name of attributes.credentials) {
        const credentialId = ref(known, credentialAddress(name));
        if (typeof credentialId === 'string') wantedIds.add(credentialId);
        if (typeof credentialId !== 'string' || !live.credential_ids.includes(credentialId)) {
          writes.push(
            writeSpec(
              'attachGatewayCredential',
              { path: { id }, body: { credentialId } },
              `attach credential ${name} to gateway ${attributes.slug}`,
            ),
          );
        }
      }
      for (const credentialId of live.credential_ids) {
        if (wantedIds.has(credentialId)) continue;
        const name = known.nameOf('credential', credentialId);
        writes.push(
          writeSpec('detachGatewayCredential', { path: { id, credentialId } }, `detach credential ${name} from gateway ${attributes.slug}`),
        );
      }
    }

    if (attributes.settings && changedKeys.some((k) => k.startsWith('settings.'))) {
      const settings = settingsBody(attributes.settings, changedKeys);
      writes.push(
        writeSpec('updateGatewaySettings', { path: { id }, body: settings }, `update the settings of gateway ${attributes.slug}`),
      );
    }
    return { writes, problems };
  },

  planDelete({ address, id, children }) {
    const n = ((children.gateway_token ?? []) as GatewayTokenT[]).filter((t) => !t.revoked_at).length;
    return {
      writes: [writeSpec('deleteGateway', { path: { id }, effects: { forget: true } }, `delete ${address}`)],
      notes: [`deleting the gateway disables it and revokes its ${n} active token${n === 1 ? '' : 's'}`],
    };
  },
});
