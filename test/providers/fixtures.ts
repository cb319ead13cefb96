// Builders of desired resources, live objects and known for the provider unit tests.
import type { GatewayT, ProviderT } from '../../src/api/shapes.js';
import type { DesiredResource, ResourceKind, SecretSource } from '../../src/config/types.js';
import { knownOf, vendors, type LookupResults } from '../../src/providers/index.js';
import type { CreateRequest, Known } from '../../src/providers/types.js';

export const ids = {
  account: '00000000-0000-4000-8000-000000000001',
  project: '00000000-0000-4000-8000-000000000002',
  openai: '00000000-0000-4000-8000-000000000003',
  credA: '00000000-0000-4000-8000-000000000004',
  credB: '00000000-0000-4000-8000-000000000005',
  gateway: '00000000-0000-4000-8000-000000000006',
};

export const openai: ProviderT = {
  provider_id: ids.openai,
  name: 'openai',
  display_name: 'OpenAI',
  default_base_url: 'https://api.openai.com/v1',
  models: ['gpt-4o-mini'],
};

/** The attributes of a kind's definition, as its `planCreate` takes them. */
type AttributesOf<P> = P extends { planCreate(req: CreateRequest<infer A>): unknown } ? A : never;

export function desired<P extends { readonly kind: ResourceKind; planCreate(req: never): unknown }>(
  definition: P,
  address: string,
  attributes: AttributesOf<P>,
  extra: { secrets?: Record<string, SecretSource>; ignoreChanges?: string[]; preventDestroy?: boolean } = {},
): DesiredResource<AttributesOf<P>> {
  const { kind } = definition;
  return {
    kind,
    address,
    localName: address.slice(address.lastIndexOf('/') + 1).replace(/^[a-z_]+\./, ''),
    attributes,
    secrets: extra.secrets ?? {},
    lifecycle: { preventDestroy: extra.preventDestroy ?? false, ignoreChanges: extra.ignoreChanges ?? [] },
    dependsOn: [],
    source: { file: 'main.yaml', line: 3, col: 3 },
  };
}

/** Known where the given addresses have ids and everything else is new; the AI vendors read unless `lookups` says what was. */
export function known(known: Record<string, string>, lookups: LookupResults = new Map([[vendors, [openai]]])): Known {
  const owners = new Map(Object.entries(known).map(([address, id]) => [id, address.slice(address.indexOf('.') + 1)]));
  const now = new Date();
  return knownOf({
    account: ids.account,
    lookups,
    clocks: { api: now, forEnds: now },
    idOf: (address) => known[address],
    nameOf: (_kind, id) => owners.get(id) ?? id,
  });
}

export function liveGateway(overrides: Partial<GatewayT> = {}): GatewayT {
  return {
    gateway_id: ids.gateway,
    account_id: ids.account,
    project_id: ids.project,
    name: 'Prod',
    slug: 'prod',
    default_provider_id: ids.openai,
    default_model: 'gpt-4o-mini',
    status: 'enabled',
    credential_ids: [ids.credA],
    settings: {
      requestsPerMinute: 60,
      tokensPerMinute: null,
      spendLimitUsd: null,
      window: 'minute',
      guardrails: { blockPii: false, blockedTerms: ['x'], maxInputTokens: null },
      cache: { enabled: false, ttlSeconds: 300 },
    },
    endpoints: {},
    routing: { state: 'ok' },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    disabled_at: null,
    ...overrides,
  };
}
