/**
 * Gateway tokens: a name change is a rename; any other change (scopes,
 * allowed models, rate limit, expiry) cannot be made in place, so the token is
 * replaced: the new one is created first (its one-time plaintext sealed into
 * state), then the old one is revoked. Removed tokens are revoked. Its
 * `expires_at` is reported (identify), so the planner replaces it once expired.
 */
import type { GatewayTokenT } from '../api/shapes.js';
import type { GatewayTokenAttributes } from '../config/types.js';
import type { LifecycleConfig } from '../config/config-file.js';
import { resourceAddress, type FieldChange, type Template } from '../plan-model/index.js';
import { dependsOnSchema, lifecycleSchema } from './schema-parts.js';
import type { ReadFailure, ResourceProvider, View } from './types.js';
import { diffViews, isRefusal, nullWhenNotFound, ref, sortedSet } from './view-diff.js';
import { writeSpec } from './write-spec.js';

/** An entry of this kind in a configuration file, as `schema` below describes it. */
export interface TokenConfig {
  name?: string;
  scopes: string[];
  expiresInDays?: number | null;
  allowedModels?: string[];
  rateLimitPerMin?: number | null;
  lifecycle?: LifecycleConfig<'name' | 'scopes' | 'expiresInDays' | 'allowedModels' | 'rateLimitPerMin'>;
  dependsOn?: string[];
}

/** Changing any of these needs a new token. */
const replaceOn = new Set(['scopes', 'allowedModels', 'rateLimitPerMin', 'expiresInDays']);

const gatewayAddress = (attributes: GatewayTokenAttributes) => resourceAddress('gateway', attributes.gateway);

function view(attributes: GatewayTokenAttributes): View {
  return {
    name: attributes.name,
    scopes: sortedSet(attributes.scopes),
    allowedModels: sortedSet(attributes.allowedModels),
    rateLimitPerMin: attributes.rateLimitPerMin,
    expiresInDays: attributes.expiresInDays,
  };
}

/**
 * The live token shows only `expires_at`, so `expiresInDays` is compared with the value cplane last applied;
 * a token cplane never applied is compared by whether it expires at all.
 */
function expiryChange(attributes: GatewayTokenAttributes, live: GatewayTokenT, applied: Record<string, unknown> | undefined): FieldChange | undefined {
  if (applied && 'expiresInDays' in applied) {
    const before = applied.expiresInDays ?? null;
    return before === attributes.expiresInDays ? undefined : { path: 'expiresInDays', before, after: attributes.expiresInDays };
  }
  if ((live.expires_at === null) === (attributes.expiresInDays === null)) return undefined;
  return { path: 'expiresInDays', before: live.expires_at === null ? null : `expires ${live.expires_at}`, after: attributes.expiresInDays };
}

function liveView(live: GatewayTokenT): View {
  return {
    name: live.name,
    scopes: sortedSet(live.scopes),
    allowedModels: sortedSet(live.allowed_models),
    rateLimitPerMin: live.rate_limit_per_min,
  };
}

const DAY_MS = 86_400_000;

/** The token's lifetime as it was created (expires_at - created_at), in whole days within the API's bounds. */
export function expiresInDays(token: Pick<GatewayTokenT, 'created_at' | 'expires_at'>): number | null {
  if (token.expires_at === null) return null;
  const days = Math.round((Date.parse(token.expires_at) - Date.parse(token.created_at)) / DAY_MS);
  return Math.min(Math.max(days, 1), 3650);
}

export const gatewayTokenProvider = {
  kind: 'gateway_token',
  config: {
    kind: 'gateway_token',
    key: 'tokens',
    parent: { kind: 'gateway', attribute: 'gateway' },
    noun: 'token',
    schema: {
      description: 'A gateway token for data-plane traffic; addressed as gateway_token.<gateway>/<name>.',
      type: 'object',
      additionalProperties: false,
      required: ['scopes'],
      properties: {
        name: { description: 'Display name of the token. Defaults to the local name.', type: 'string', minLength: 1, maxLength: 100 },
        scopes: {
          description: 'Scopes of the token, e.g. run, read_logs.',
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: { type: 'string', minLength: 1 },
        },
        expiresInDays: {
          description: 'Days until the token expires, 1 to 3650, or null for never. Set at creation.',
          type: ['integer', 'null'],
          minimum: 1,
          maximum: 3650,
        },
        allowedModels: { description: 'Models the token may use; empty for all.', type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } },
        rateLimitPerMin: { description: 'Requests per minute, 1 to 1000000, or null for no limit.', type: ['integer', 'null'], minimum: 1, maximum: 1000000 },
        lifecycle: lifecycleSchema('token', { enum: ['name', 'scopes', 'expiresInDays', 'allowedModels', 'rateLimitPerMin'] }),
        dependsOn: dependsOnSchema,
      },
    },
    mapDescription: 'Tokens of the gateway by local name.',
    attributes: (entry, local, gateway) => ({
      gateway: gateway!, name: entry.name ?? local, scopes: [...entry.scopes], expiresInDays: entry.expiresInDays ?? null,
      allowedModels: [...(entry.allowedModels ?? [])], rateLimitPerMin: entry.rateLimitPerMin ?? null,
    }),
  },
  relations: {
    parentIds: { gatewayId: 'gateway' },
    within: { idField: 'gatewayId', attribute: 'gateway', removedWith: 'revoked by deleting' },
    outputs: { tokenPrefix: 'token_prefix', expiresAt: 'expires_at' },
    revealable: 'plaintext',
    goneAs: 'revoked',
  },
  refreshOperations: ['listGatewayTokens'],
  writeOperations: ['createGatewayToken', 'renameGatewayToken', 'revokeGatewayToken'],
  readOperation: 'listGatewayTokens',
  export: {
    name: (live) => live.name,
    skip: [
      { when: (live) => live.revoked_at !== null, count: { key: 'revokedTokens', one: 'revoked token' } },
      { when: (live) => live.service_account_id !== null, count: { key: 'serviceAccountTokens', one: 'Service Account token' } },
    ],
    entry({ live, local, note }) {
      const entry: TokenConfig = { scopes: [...live.scopes] };
      if (live.name !== local) entry.name = live.name;
      const days = expiresInDays(live);
      if (days !== null) entry.expiresInDays = days;
      if (live.allowed_models.length > 0) entry.allowedModels = [...live.allowed_models];
      if (live.rate_limit_per_min !== null) entry.rateLimitPerMin = live.rate_limit_per_min;
      if (live.spend_limit !== null) note(`spend limit ${live.spend_limit} per ${live.spend_window ?? 'window'} is not part of the configuration language and is not reproduced`);
      return entry;
    },
    holderComment: [
      'Token plaintext cannot be exported: `cplane apply` creates new tokens and seals their',
      'plaintext in the state. expiresInDays is the lifetime each token was created with.',
    ].join('\n'),
  },
  removeAction: 'revoke',

  async refresh({ client, parentIds, limiter, expected }) {
    const failures: ReadFailure[] = [];
    const pages = await Promise.all(
      parentIds.map((id) =>
        limiter.run(async () => {
          try {
            return await client.listAll('listGatewayTokens', { path: { id } }, { expected: expected(id) });
          } catch (error) {
            if (!isRefusal(error)) throw error;
            if (error.status !== 404) failures.push({ operation: 'listGatewayTokens', reason: `${error.status} ${error.reason}`, requestId: error.requestId, parentId: id });
            return [];
          }
        }),
      ),
    );
    return { items: pages.flat(), failures };
  },

  async read({ client, id, parents }) {
    const gatewayId = parents?.gatewayId;
    if (!gatewayId) return null;
    const tokens = await nullWhenNotFound(() => client.listAll('listGatewayTokens', { path: { id: gatewayId } }));
    return tokens?.find((t) => t.token_id === id) ?? null;
  },

  identify: ({ live }) => ({
    id: live.token_id,
    parents: { gatewayId: live.gateway_id },
    key: `${live.gateway_id}/${live.name}`,
    status: live.revoked_at ? 'gone' : 'live',
    ...(live.expires_at ? { expiresAt: live.expires_at } : {}),
  }),

  naturalKey({ desired, lookups }) {
    const gatewayId = lookups.idOf(gatewayAddress(desired.attributes));
    return gatewayId === undefined ? undefined : `${gatewayId}/${desired.attributes.name}`;
  },

  references: ({ attributes }) => [gatewayAddress(attributes)],

  view: ({ live }) => liveView(live),

  desiredView: ({ attributes }) => view(attributes),

  diff({ desired, live, state }) {
    const ignore = desired.lifecycle.ignoreChanges;
    const { expiresInDays: _, ...wanted } = view(desired.attributes);
    const changes = diffViews(wanted, liveView(live), ignore);
    const expiry = ignore.includes('expiresInDays') ? undefined : expiryChange(desired.attributes, live, state?.inputs);
    if (expiry) changes.push(expiry);
    for (const change of changes) if (replaceOn.has(change.path)) change.forcesReplace = true;
    return { changes, changedKeys: changes.map((c) => c.path), replaceKeys: changes.filter((c) => c.forcesReplace).map((c) => c.path) };
  },

  planCreate({ desired, lookups }) {
    const { attributes } = desired;
    const gateway = ref(lookups, gatewayAddress(attributes));
    const body: Record<string, Template> = {
      name: attributes.name,
      scopes: attributes.scopes,
      expiresInDays: attributes.expiresInDays,
      allowedModels: attributes.allowedModels,
      rateLimitPerMin: attributes.rateLimitPerMin,
    };
    const effects = { id: { result: 'token_id' }, parents: { gatewayId: gateway }, seal: { name: 'plaintext', result: 'plaintext' }, outputs: { tokenPrefix: 'token_prefix', expiresAt: 'expires_at' } };
    return { writes: [writeSpec('createGatewayToken', { path: { id: gateway }, body, effects }, `create token ${attributes.name}`)] };
  },

  planUpdate({ desired, live, id, changedKeys }) {
    if (!changedKeys.includes('name')) return { writes: [] };
    const path = { id: live.gateway_id, tokenId: id };
    return { writes: [writeSpec('renameGatewayToken', { path, body: { name: desired.attributes.name } }, `rename token ${live.name} to ${desired.attributes.name}`)] };
  },

  planDelete({ address, id, parents }) {
    const path = { id: parents?.gatewayId ?? '', tokenId: id };
    return { writes: [writeSpec('revokeGatewayToken', { path, effects: { forget: true } }, `revoke ${address}`)] };
  },
} satisfies ResourceProvider<GatewayTokenAttributes, GatewayTokenT, TokenConfig>;
