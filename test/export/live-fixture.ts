// A small live account, as the API would return it, for the tests of the pure export stages.
import type { CredentialT, GatewayT, GatewayTokenT, ProjectT, RecordMetaT } from '../../src/api/shapes.js';
import type { AccountObjects } from '../../src/export/read-account.js';
import { serviceAccounts, type LiveOtelExport } from '../../src/providers/index.js';

/** The live objects by kind (`objects`), also by name for the tests to change. */
export interface LiveFixture extends AccountObjects {
  projects: ProjectT[];
  records: RecordMetaT[];
  credentials: CredentialT[];
  gateways: GatewayT[];
  tokens: GatewayTokenT[];
  otelExports: LiveOtelExport[];
}

const t0 = '2026-01-01T00:00:00.000Z';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const ACCOUNT = uuid(1);
const OPENAI = uuid(2);
const ANTHROPIC = uuid(3);

const project = (n: number, name: string, extra: Partial<ProjectT> = {}) => ({
  project_id: uuid(n),
  account_id: ACCOUNT,
  name,
  description: '',
  is_active: true,
  archived: false,
  archived_at: null,
  created_at: t0,
  updated_at: t0,
  ...extra,
});
const record = (n: number, projectN: number, name: string, extra: Partial<RecordMetaT> = {}) => ({
  record_id: uuid(n),
  account_id: ACCOUNT,
  project_id: uuid(projectN),
  name,
  tags: [],
  secret_due_at: null,
  rotation_interval_days: null,
  format: 'text',
  owner_user_id: uuid(999),
  current_version: 1,
  archived: false,
  archived_at: null,
  created_at: t0,
  updated_at: t0,
  ...extra,
});
const settings = {
  requestsPerMinute: 600,
  tokensPerMinute: null,
  spendLimitUsd: '100.00',
  window: 'day' as const,
  guardrails: { blockPii: true, blockedTerms: ['ssn', 'password'], maxInputTokens: 8000 },
  cache: { enabled: true, ttlSeconds: 300 },
};
const token = (n: number, gatewayN: number, name: string, extra: Partial<GatewayTokenT> = {}) => ({
  token_id: uuid(n),
  gateway_id: uuid(gatewayN),
  name,
  token_prefix: `gwt_${n}`,
  scopes: ['run'],
  principal_type: 'user',
  owner_user_id: uuid(999),
  service_account_id: null,
  allowed_models: [],
  spend_limit: null,
  spend_window: null,
  rate_limit_per_min: null,
  created_at: t0,
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
  ...extra,
});

export function liveAccount(): LiveFixture {
  const live: Omit<LiveFixture, 'objects'> = {
    account: ACCOUNT,
    now: new Date(t0),
    // The Service Accounts the export names tokens' accounts by.
    lookups: new Map([
      [
        serviceAccounts,
        [
          {
            service_account_id: uuid(60),
            account_id: ACCOUNT,
            name: 'deploy-robot',
            status: 'active',
            created_at: t0,
            public_key: `${'A'.repeat(43)}=`,
            key_id: 'x25519:0000000000000000',
          },
        ],
      ],
    ]),
    vendors: [
      {
        provider_id: OPENAI,
        name: 'openai',
        display_name: 'OpenAI',
        default_base_url: 'https://api.openai.com/v1',
        models: ['gpt-4o-mini'],
      },
      {
        provider_id: ANTHROPIC,
        name: 'anthropic',
        display_name: 'Anthropic',
        default_base_url: 'https://api.anthropic.com',
        models: ['claude'],
      },
    ],
    projects: [
      project(10, 'Payments (EU)', { description: 'Payment services' }),
      project(11, 'search', { is_active: false }),
      project(12, 'old', { archived: true, archived_at: t0 }),
    ],
    records: [
      record(20, 10, 'stripe-key', { tags: ['payments', 'stripe'], secret_due_at: '2027-01-01T00:00:00.000Z', rotation_interval_days: 90 }),
      record(21, 10, 'Webhook Secret'),
      record(22, 10, 'gone', { archived: true, archived_at: t0 }),
      record(23, 12, 'in-archived-project'),
    ],
    credentials: [
      {
        credential_id: uuid(30),
        account_id: ACCOUNT,
        provider_id: OPENAI,
        label: 'OpenAI prod',
        base_url: 'https://api.openai.com/v1',
        status: 'active',
        created_at: t0,
        updated_at: t0,
        rotated_at: null,
      },
      {
        credential_id: uuid(31),
        account_id: ACCOUNT,
        provider_id: ANTHROPIC,
        label: 'claude',
        base_url: null,
        status: 'active',
        created_at: t0,
        updated_at: t0,
        rotated_at: null,
      },
    ],
    gateways: [
      {
        gateway_id: uuid(40),
        account_id: ACCOUNT,
        project_id: uuid(10),
        name: 'Payments gateway',
        slug: 'pay',
        default_provider_id: OPENAI,
        default_model: 'gpt-4o-mini',
        status: 'enabled',
        credential_ids: [uuid(31), uuid(30)],
        settings,
        endpoints: {},
        routing: { state: 'ok' },
        created_at: t0,
        updated_at: t0,
        disabled_at: null,
      },
      {
        gateway_id: uuid(41),
        account_id: ACCOUNT,
        project_id: uuid(10),
        name: 'old',
        slug: 'old',
        default_provider_id: OPENAI,
        default_model: 'gpt-4o-mini',
        status: 'disabled',
        credential_ids: [uuid(30)],
        settings,
        endpoints: {},
        routing: { state: 'ok' },
        created_at: t0,
        updated_at: t0,
        disabled_at: t0,
      },
    ],
    tokens: [
      token(50, 40, 'ci', {
        scopes: ['run', 'read_logs'],
        allowed_models: ['gpt-4o-mini'],
        rate_limit_per_min: 60,
        expires_at: '2026-01-31T00:00:00.000Z',
      }),
      token(51, 40, 'CI', { spend_limit: '5.00', spend_window: 'daily' }),
      token(52, 40, 'revoked', { revoked_at: t0 }),
      token(53, 40, 'robot', { principal_type: 'service_account', owner_user_id: null, service_account_id: uuid(60) }),
    ],
    otelExports: [
      {
        gatewayId: uuid(40),
        export: {
          enabled: true,
          endpoint: 'https://otel.example.com/v1',
          exportMetrics: true,
          exportTraces: false,
          headerNames: ['X-Api-Key', 'Authorization'],
          updatedAt: t0,
        },
      },
    ],
  };
  // A getter, so that a test may also replace a list (`live.projects = ...`).
  const fixture: LiveFixture = {
    ...live,
    get objects() {
      return {
        project: fixture.projects,
        record: fixture.records,
        credential: fixture.credentials,
        gateway: fixture.gateways,
        gateway_token: fixture.tokens,
        otel_export: fixture.otelExports,
      };
    },
  };
  return fixture;
}
