/**
 * Gateway tokens: a name change is a rename; any other change (scopes,
 * allowed models, rate limit, expiry, the Service Account it is issued to, its
 * spend limit and window) cannot be made in place, so the token is replaced:
 * the new one is created first (its one-time plaintext sealed into state),
 * then the old one is revoked. Removed tokens are revoked. Its
 * `expires_at` is reported (identify), so the planner replaces it once expired,
 * or renews it `renewBeforeDays` ahead (the old one kept for `overlapHours`). With `deliverTo`, each new
 * plaintext becomes the named record's value (the loader gives the record the source, the record's own step
 * writes it), and a replaced token is revoked only after that delivery (planner/stages/deliveries.ts).
 */
import type { GatewayTokenT } from '../api/shapes.js';
import { resourceAddress, type FieldChange, type SpendLimit, type Template } from '../plan-model/index.js';
import { serviceAccounts } from './lookups.js';
import { defineKind, LOCAL_NAME, NOT_READ } from './define-kind.js';
import type { AttributesOf, EntryOf, Fields } from './field-types.js';
import { resolveServiceAccount, serviceAccountLabel } from './service-accounts.js';
import type { Known, ReadFailure } from './types.js';
import { isRefusal, nullWhenNotFound, ref, sortedSet } from './view-diff.js';
import { writeSpec } from './write-spec.js';

/** A local name, as the schema's `localName` (an instance of a forEach is NAME[KEY]). */
const LOCAL_NAME_PATTERN = '[A-Za-z0-9][A-Za-z0-9_-]{0,99}(\\[[^\\[\\]/]{1,100}\\])?';

/** The token's windows in the plan's terms; a limit without a window counts daily (docs/api-assumptions.md). */
const TOKEN_WINDOWS: Record<string, SpendLimit['window']> = { daily: 'day', weekly: 'week', monthly: 'month' };

const gatewayAddress = (attributes: GatewayTokenAttributes) => resourceAddress('gateway', attributes.gateway);

/**
 * The live token shows only `expires_at`, so `expiresInDays` is compared with the value cplane last applied;
 * a token cplane never applied is compared by whether it expires at all.
 */
function expiryChange(
  attributes: GatewayTokenAttributes,
  live: GatewayTokenT,
  applied: Record<string, unknown> | undefined,
): FieldChange | undefined {
  if (applied && 'expiresInDays' in applied) {
    const before = applied.expiresInDays ?? null;
    return before === attributes.expiresInDays ? undefined : { path: 'expiresInDays', before, after: attributes.expiresInDays };
  }
  if ((live.expires_at === null) === (attributes.expiresInDays === null)) return undefined;
  return { path: 'expiresInDays', before: live.expires_at === null ? null : `expires ${live.expires_at}`, after: attributes.expiresInDays };
}

/**
 * The Service Account a live token is issued to, by name; not read (not compared) when the Service Accounts could
 * not be read (a Service Account's token may not list them), which the plan reports as unreadable.
 */
function serviceAccountOf(id: unknown, known: Known): unknown {
  if (id === null) return null;
  return known.list(serviceAccounts) === undefined ? NOT_READ : serviceAccountLabel(known, String(id));
}

const DAY_MS = 86_400_000;

/** The token's lifetime as it was created (expires_at - created_at), in whole days within the API's bounds. */
export function expiresInDays(token: Pick<GatewayTokenT, 'created_at' | 'expires_at'>): number | null {
  if (token.expires_at === null) return null;
  const days = Math.round((Date.parse(token.expires_at) - Date.parse(token.created_at)) / DAY_MS);
  return Math.min(Math.max(days, 1), 3650);
}

/**
 * Whether `newer` is a renewal of `older`, as the API shows it (export reads no state): an active token of the
 * same name on the same gateway, created later (or at the same time with a greater id) and expiring no sooner.
 */
function renews(newer: GatewayTokenT, older: GatewayTokenT): boolean {
  if (newer.token_id === older.token_id || newer.revoked_at !== null || newer.name !== older.name || newer.gateway_id !== older.gateway_id)
    return false;
  const created = Date.parse(newer.created_at) - Date.parse(older.created_at);
  if (created < 0 || (created === 0 && newer.token_id < older.token_id)) return false;
  if (older.expires_at === null) return newer.expires_at === null;
  return newer.expires_at === null || Date.parse(newer.expires_at) >= Date.parse(older.expires_at);
}

/** A configured list as a set, on both sides. */
const asSet = (values: unknown) => sortedSet(values as string[]);

/** The windows a token's spend limit counts in. */
const tokenWindows = ['daily', 'weekly', 'monthly'] as const;
type TokenWindow = (typeof tokenWindows)[number];

// Changing any field but the name needs a new token (`replace`). A callback's entry is typed in its body: its
// signature cannot name the type these fields make.
const fields = {
  name: {
    schema: { description: 'Display name of the token. Defaults to the local name.', type: 'string', minLength: 1, maxLength: 100 },
    default: LOCAL_NAME,
  },
  scopes: {
    schema: {
      description: 'Scopes of the token, e.g. run, read_logs.',
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
    },
    required: true,
    replace: true,
    normalize: asSet,
  },
  expiresInDays: {
    schema: {
      description: 'Days until the token expires, 1 to 3650, or null for never. Set at creation.',
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 3650,
    },
    // The live token shows only `expires_at`: compared in `diff` (expiryChange).
    default: null,
    replace: true,
    observed: false,
  },
  allowedModels: {
    schema: {
      description: 'Models the token may use; empty for all.',
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
    },
    default: [],
    replace: true,
    live: 'allowed_models',
    normalize: asSet,
  },
  rateLimitPerMin: {
    schema: {
      description: 'Requests per minute, 1 to 1000000, or null for no limit.',
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 1000000,
    },
    default: null,
    replace: true,
    live: 'rate_limit_per_min',
  },
  serviceAccount: {
    schema: {
      description:
        'Issue the token to this Service Account (its name as GET /service-accounts lists it): it must be active and of the account. Set at creation.',
      type: ['string', 'null'],
      minLength: 1,
    },
    // Absent in what older versions applied: not compared then (drift reads only the keys applied).
    default: null,
    replace: true,
    live: 'service_account_id',
    fromLive: serviceAccountOf,
  },
  spendLimit: {
    schema: {
      description: 'Spend limit as a decimal string, e.g. "25.00" (at most 2 decimals), or null for none. Set at creation.',
      type: ['string', 'null'],
      pattern: '^[0-9]+(\\.[0-9]{1,2})?$',
    },
    default: null,
    replace: true,
    live: 'spend_limit',
  },
  spendWindow: {
    schema: {
      description: 'Window the spend limit counts in; daily when a spendLimit is given without one. Set at creation.',
      enum: [...tokenWindows, null],
    },
    // The API counts a spend limit given without a window daily: said here, so the plan compares like with like.
    attribute: (entry): TokenWindow | null => {
      const given = entry as TokenConfig;
      return given.spendWindow ?? (given.spendLimit ? 'daily' : null);
    },
    replace: true,
    live: 'spend_window',
  },
  // Shared with `defaults.tokens` (the hand-written part of the configuration schema). Only a token that renews
  // carries the renewal settings, so every other token's attributes stay as they were.
  renewBeforeDays: {
    schema: { $ref: '#/$defs/renewBeforeDays' },
    inView: false,
    attribute: (entry): number | undefined => (entry as TokenConfig).renewBeforeDays ?? undefined,
  },
  overlapHours: {
    schema: { $ref: '#/$defs/overlapHours' },
    inView: false,
    attribute(entry): number | undefined {
      const given = entry as TokenConfig;
      return given.renewBeforeDays != null ? (given.overlapHours ?? 24) : undefined;
    },
  },
  deliverTo: {
    schema: {
      description:
        "Write the token's plaintext, at every creation, renewal and re-issue, as a new value version of this record (declared in this configuration, without a value of its own), before the old token is revoked: its readers read the token with `cplane read`.",
      type: 'object',
      additionalProperties: false,
      required: ['record'],
      properties: {
        record: {
          description: 'The record as PROJECT/RECORD (local names, of this module in a module).',
          type: 'string',
          pattern: `^${LOCAL_NAME_PATTERN}/${LOCAL_NAME_PATTERN}$`,
        },
      },
    },
    inView: false,
    attribute: (entry): string | undefined => (entry as TokenConfig).deliverTo?.record,
  },
} as const satisfies Fields;

/** An entry of this kind in a configuration file. */
export type TokenConfig = EntryOf<typeof fields>;
export type GatewayTokenAttributes = AttributesOf<typeof fields, 'gateway'>;

export const gatewayTokenKind = defineKind<GatewayTokenAttributes, GatewayTokenT, TokenConfig>({
  kind: 'gateway_token',
  parent: { kind: 'gateway', attribute: 'gateway', idField: 'gatewayId', removedWith: 'revoked by deleting' },
  description: 'A gateway token for data-plane traffic; addressed as gateway_token.<gateway>/<name>.',
  fields,
  viewOrder: ['name', 'scopes', 'allowedModels', 'rateLimitPerMin', 'expiresInDays', 'serviceAccount', 'spendLimit', 'spendWindow'],
  lifecycle: 'token',
  config: {
    key: 'tokens',
    noun: 'token',
    mapDescription: 'Tokens of the gateway by local name.',
    delivery: (attributes) =>
      attributes.deliverTo === undefined
        ? undefined
        : { at: ['deliverTo', 'record'], kind: 'record', localName: attributes.deliverTo, field: 'value', output: 'plaintext' },
    complete({ attributes, report, owner }) {
      const { renewBeforeDays, expiresInDays } = attributes;
      if (attributes.spendWindow !== null && attributes.spendLimit === null) {
        report('spendWindow', {
          code: 'spend_window_without_limit',
          summary: `spendWindow (${attributes.spendWindow}) of ${owner} has no spendLimit to count`,
          detail: 'Add spendLimit: "25.00" (the amount the window allows), or remove spendWindow.',
        });
      }
      // A window as long as the token's life would renew it on every apply.
      if (renewBeforeDays != null && expiresInDays !== null && renewBeforeDays >= expiresInDays) {
        report('renewBeforeDays', {
          code: 'renewal_window_too_long',
          summary: `renewBeforeDays (${renewBeforeDays}) of ${owner} must be less than its expiresInDays (${expiresInDays})`,
          detail:
            'Otherwise the token is renewed on every apply. Lower renewBeforeDays (here or in defaults.tokens), or raise expiresInDays.',
        });
      }
    },
  },
  relations: {
    outputs: { tokenPrefix: 'token_prefix', expiresAt: 'expires_at' },
    revealable: 'plaintext',
    createdAt: 'created_at',
    goneAs: 'revoked',
  },
  // Only a token issued to a Service Account needs GET /service-accounts (human-only): others never send it.
  lookupsFor: (attributes) => (attributes.serviceAccount ? [serviceAccounts] : []),
  refreshOperations: ['listGatewayTokens'],
  writeOperations: ['createGatewayToken', 'renameGatewayToken', 'revokeGatewayToken'],
  readOperation: 'listGatewayTokens',
  export: {
    name: (live) => live.name,
    skip: [
      { when: (live) => live.revoked_at !== null, count: { key: 'revokedTokens', one: 'revoked token' } },
      // During a renewal's overlap the gateway has the old token and its renewal, of the same name: the
      // folder declares the token once (the renewal), never the old one as a permanent token of its own.
      {
        when: (live, account) => (account.objects('gateway_token') as GatewayTokenT[]).some((other) => renews(other, live)),
        count: {
          key: 'supersededTokens',
          one: 'token superseded by a renewal, left out',
          many: 'tokens superseded by a renewal, left out',
        },
      },
    ],
    lookups: [serviceAccounts],
    entry({ live, local, known }) {
      const entry: TokenConfig = { scopes: [...live.scopes] };
      if (live.name !== local) entry.name = live.name;
      const days = expiresInDays(live);
      if (days !== null) entry.expiresInDays = days;
      if (live.allowed_models.length > 0) entry.allowedModels = [...live.allowed_models];
      if (live.rate_limit_per_min !== null) entry.rateLimitPerMin = live.rate_limit_per_min;
      // By name, so the folder applies to another account: one without that Service Account is a plan problem there.
      if (live.service_account_id !== null) entry.serviceAccount = serviceAccountLabel(known, live.service_account_id);
      if (live.spend_limit !== null) entry.spendLimit = live.spend_limit;
      if (live.spend_window !== null) entry.spendWindow = live.spend_window as NonNullable<TokenConfig['spendWindow']>;
      return entry;
    },
    holderComment: [
      'Token plaintext cannot be exported: `cplane apply` creates new tokens and seals their',
      'plaintext in the state. expiresInDays is the lifetime each token was created with.',
    ].join('\n'),
  },
  removeAction: 'revoke',
  spend: {
    paths: ['spendLimit', 'spendWindow', 'allowedModels', 'rateLimitPerMin'],
    limit: (view) =>
      typeof view.spendLimit === 'string' ? { usd: view.spendLimit, window: TOKEN_WINDOWS[String(view.spendWindow)] ?? 'day' } : null,
    allowedModels: (view) => (Array.isArray(view.allowedModels) ? (view.allowedModels as string[]) : []),
    // Only `run` sends model requests: a `read_logs` token reads, and spends nothing.
    spends: (view) => !Array.isArray(view.scopes) || view.scopes.includes('run'),
  },
  models: { named: (attributes) => [{ field: 'allowedModels', models: attributes.allowedModels }] },

  async refresh({ client, parentIds, limiter, expected }) {
    const failures: ReadFailure[] = [];
    const pages = await Promise.all(
      parentIds.map((id) =>
        limiter.run(async () => {
          try {
            return await client.listAll('listGatewayTokens', { path: { id } }, { expected: expected(id) });
          } catch (error) {
            if (!isRefusal(error)) throw error;
            if (error.status !== 404)
              failures.push({
                operation: 'listGatewayTokens',
                reason: `${error.status} ${error.reason}`,
                requestId: error.requestId,
                parentId: id,
              });
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

  naturalKey({ desired, known }) {
    const gatewayId = known.idOf(gatewayAddress(desired.attributes));
    return gatewayId === undefined ? undefined : `${gatewayId}/${desired.attributes.name}`;
  },

  diff({ desired, live, state, known }, derived) {
    const facts = derived();
    const { serviceAccount } = desired.attributes;
    // Not compared when the Service Accounts could not be read; the configuration names one by name or by id: the same account is no change.
    const same = () =>
      serviceAccountOf(live.service_account_id, known) === NOT_READ ||
      (serviceAccount !== null &&
        resolveServiceAccount(known, serviceAccount).serviceAccount?.service_account_id === live.service_account_id);
    const changes = facts.changes.filter((c) => c.path !== 'serviceAccount' || !same());
    const expiry = desired.lifecycle.ignoreChanges.includes('expiresInDays')
      ? undefined
      : expiryChange(desired.attributes, live, state?.inputs);
    return { ...facts, changes: expiry ? [...changes, expiry] : changes };
  },

  planCreate({ desired, known }) {
    const { attributes } = desired;
    const gateway = ref(known, gatewayAddress(attributes));
    const body: Record<string, Template> = {
      name: attributes.name,
      scopes: attributes.scopes,
      expiresInDays: attributes.expiresInDays,
      allowedModels: attributes.allowedModels,
      rateLimitPerMin: attributes.rateLimitPerMin,
      ...(attributes.spendLimit !== null ? { spendLimit: attributes.spendLimit } : {}),
      ...(attributes.spendWindow !== null ? { spendWindow: attributes.spendWindow } : {}),
    };
    if (attributes.serviceAccount !== null) {
      const found = resolveServiceAccount(known, attributes.serviceAccount, 'serviceAccount');
      if (found.problem) return { writes: [], problems: [found.problem] };
      body.serviceAccountId = found.serviceAccount.service_account_id;
    }
    // The answer must be about the token asked for: another gateway's token recorded as this one would leave the new one unmanaged.
    const effects = {
      id: { result: 'token_id' },
      parents: { gatewayId: gateway },
      seal: { name: 'plaintext', result: 'plaintext' },
      outputs: { tokenPrefix: 'token_prefix', expiresAt: 'expires_at' },
      echoes: { gateway_id: { path: 'id' }, name: { body: 'name' } },
    };
    return { writes: [writeSpec('createGatewayToken', { path: { id: gateway }, body, effects }, `create token ${attributes.name}`)] };
  },

  planUpdate({ desired, live, id, changedKeys }) {
    if (!changedKeys.includes('name')) return { writes: [] };
    const path = { id: live.gateway_id, tokenId: id };
    return {
      writes: [
        writeSpec(
          'renameGatewayToken',
          { path, body: { name: desired.attributes.name } },
          `rename token ${live.name} to ${desired.attributes.name}`,
        ),
      ],
    };
  },

  renewal: ({ attributes }) =>
    attributes.renewBeforeDays == null
      ? undefined
      : { beforeDays: attributes.renewBeforeDays, overlapHours: attributes.overlapHours ?? 24, createdAt: 'created_at' },

  planDelete({ address, id, parents }) {
    const path = { id: parents?.gatewayId ?? '', tokenId: id };
    return { writes: [writeSpec('revokeGatewayToken', { path, effects: { forget: true } }, `revoke ${address}`)] };
  },
});
