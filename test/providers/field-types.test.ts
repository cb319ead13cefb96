/**
 * A kind's entry and attribute types are computed from its field declarations (src/providers/field-types.ts):
 * `npm run typecheck` compiles this file, so each `@ts-expect-error` below is a wrong use of a field that must
 * fail to compile (the directive itself fails when the line compiles), and each `expectTypeOf` pins a type the
 * fields make. Vitest runs the file too, for the runtime half: the attributes the loader builds have those types.
 */
import { describe, expect, expectTypeOf, test } from 'vitest';
import type { SecretSource } from '../../src/config/types.js';
import { pathsInside, type FromSchema, type PathsInside } from '../../src/providers/field-types.js';
import {
  credentialKind,
  gatewayTokenKind,
  projectKind,
  recordKind,
  type CredentialAttributes,
  type CredentialConfig,
  type GatewayAttributes,
  type GatewayConfig,
  type GatewaySettingsConfig,
  type GatewaySettingsPath,
  type GatewayTokenAttributes,
  type OtelExportAttributes,
  type OtelExportConfig,
  type ProjectAttributes,
  type ProjectConfig,
  type RecordAttributes,
  type RecordConfig,
  type TokenConfig,
} from '../../src/providers/index.js';

describe('FromSchema', () => {
  test('reads the keywords kinds use', () => {
    expectTypeOf<FromSchema<{ type: 'string' }>>().toEqualTypeOf<string>();
    expectTypeOf<FromSchema<{ type: readonly ['integer', 'null'] }>>().toEqualTypeOf<number | null>();
    expectTypeOf<FromSchema<{ enum: readonly ['a', 'b', null] }>>().toEqualTypeOf<'a' | 'b' | null>();
    expectTypeOf<FromSchema<{ type: 'array'; items: { type: 'boolean' } }>>().toEqualTypeOf<boolean[]>();
    expectTypeOf<
      FromSchema<{ type: 'object'; required: readonly ['a']; properties: { a: { type: 'string' }; b: { type: 'integer' } } }>
    >().toEqualTypeOf<{ a: string; b?: number }>();
    expectTypeOf<FromSchema<{ type: 'object'; additionalProperties: { $ref: '#/$defs/secretSource' } }>>().toEqualTypeOf<
      Record<string, SecretSource>
    >();
    expectTypeOf<FromSchema<{ if: { type: 'string' }; then: { type: 'string' }; else: { type: 'integer' } }>>().toEqualTypeOf<
      string | number
    >();
    // A `$ref` to a definition the types do not know cannot be used by mistake.
    expectTypeOf<FromSchema<{ $ref: '#/$defs/noSuchDefinition' }>>().toBeNever();
  });
});

describe('paths inside an object field', () => {
  test('each path before the paths inside it, at run time and as a type', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'object', properties: { c: { type: 'boolean' } } } },
    } as const;
    expect(pathsInside('x', schema)).toEqual(['x.a', 'x.b', 'x.b.c']);
    expectTypeOf<PathsInside<'x', typeof schema>>().toEqualTypeOf<'x.a' | 'x.b' | 'x.b.c'>();
    expectTypeOf<GatewaySettingsPath>().toEqualTypeOf<
      | 'settings.requestsPerMinute'
      | 'settings.tokensPerMinute'
      | 'settings.spendLimitUsd'
      | 'settings.window'
      | 'settings.guardrails'
      | 'settings.guardrails.blockPii'
      | 'settings.guardrails.blockedTerms'
      | 'settings.guardrails.maxInputTokens'
      | 'settings.cache'
      | 'settings.cache.enabled'
      | 'settings.cache.ttlSeconds'
    >();
  });
});

describe('entry types', () => {
  test('a field is optional unless required, and typed by its schema', () => {
    expectTypeOf<ProjectConfig['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CredentialConfig['provider']>().toEqualTypeOf<string>();
    expectTypeOf<CredentialConfig['secret']>().toEqualTypeOf<SecretSource>();
    expectTypeOf<TokenConfig['spendWindow']>().toEqualTypeOf<'daily' | 'weekly' | 'monthly' | null | undefined>();
    expectTypeOf<OtelExportConfig['headers']>().toEqualTypeOf<Record<string, SecretSource> | undefined>();
    expectTypeOf<GatewaySettingsConfig['window']>().toEqualTypeOf<'minute' | 'hour' | 'day' | 'month' | undefined>();
    expectTypeOf<NonNullable<RecordConfig['grants']>['users']>().toEqualTypeOf<
      (string | { name: string; until?: string; reason?: string })[] | undefined
    >();
  });

  test('a wrong field use fails to compile', () => {
    // @ts-expect-error a required field left out
    const noSecret: CredentialConfig = { provider: 'openai' };
    // @ts-expect-error a key no field declares
    const unknownKey: ProjectConfig = { title: 'x' };
    // @ts-expect-error a value of the wrong type
    const wrongType: ProjectConfig = { active: 'yes' };
    // @ts-expect-error a value outside the field's enum
    const wrongWindow: TokenConfig = { scopes: ['run'], spendWindow: 'yearly' };
    // @ts-expect-error a nested key the settings schema does not declare
    const wrongSetting: GatewaySettingsConfig = { cache: { size: 1 } };
    // @ts-expect-error ignoreChanges names only a field shown in the plan (renewBeforeDays is not)
    const notIgnorable: TokenConfig = { scopes: ['run'], lifecycle: { ignoreChanges: ['renewBeforeDays'] } };
    // @ts-expect-error an OTel export's ignoreChanges names its fields and headers.<Name> only
    const otelPath: OtelExportConfig = { lifecycle: { ignoreChanges: ['headerz.Authorization'] } };
    // @ts-expect-error ignoreChanges never names the gateway's project (it moves only with the object)
    const parentIgnored: GatewayConfig = { project: 'p', defaultModel: 'm', credentials: ['c'], lifecycle: { ignoreChanges: ['project'] } };
    const settingsPath: GatewayConfig = {
      project: 'p',
      defaultModel: 'm',
      credentials: ['c'],
      lifecycle: { ignoreChanges: ['settings.cache.ttlSeconds'] },
    };
    expect([noSecret, unknownKey, wrongType, wrongWindow, wrongSetting, notIgnorable, otelPath, parentIgnored, settingsPath]).toHaveLength(
      9,
    );
  });
});

describe('attribute types', () => {
  test('a field with a default or required is always present; a write-only one never is', () => {
    expectTypeOf<ProjectAttributes>().toEqualTypeOf<{ name: string; description: string; active: boolean }>();
    expectTypeOf<CredentialAttributes>().toEqualTypeOf<{ provider: string; label: string; baseUrl: string | null }>();
    expectTypeOf<OtelExportAttributes>().toEqualTypeOf<{
      gateway: string;
      enabled: boolean;
      endpoint: string | null;
      exportMetrics: boolean;
      exportTraces: boolean;
      headerNames: string[];
    }>();
    expectTypeOf<GatewayAttributes['defaultProvider']>().toEqualTypeOf<string>();
    expectTypeOf<GatewayAttributes['settings']>().toEqualTypeOf<GatewaySettingsConfig | undefined>();
  });

  test('the parent, computed attributes and what a field carries', () => {
    expectTypeOf<RecordAttributes['project']>().toEqualTypeOf<string>();
    expectTypeOf<RecordAttributes['tags']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<RecordAttributes['grants']>().toEqualTypeOf<
      Partial<Record<'serviceAccounts' | 'users' | 'groups', string[]>> | undefined
    >();
    expectTypeOf<RecordAttributes['grantsUntil']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<GatewayTokenAttributes['gateway']>().toEqualTypeOf<string>();
    expectTypeOf<GatewayTokenAttributes['spendWindow']>().toEqualTypeOf<'daily' | 'weekly' | 'monthly' | null>();
    expectTypeOf<GatewayTokenAttributes['deliverTo']>().toEqualTypeOf<string | undefined>();
    // @ts-expect-error a record's value is write-only: never an attribute
    expectTypeOf<RecordAttributes['value']>().toBeUnknown();
  });

  test('the attributes a kind builds from an entry are those types at run time', () => {
    const project: ProjectAttributes = projectKind.config.attributes({}, 'payments');
    expect(project).toEqual({ name: 'payments', description: '', active: true });
    const credential: CredentialAttributes = credentialKind.config.attributes({ provider: 'openai', secret: { env: 'K' } }, 'main');
    expect(credential).toEqual({ provider: 'openai', label: 'main', baseUrl: null });
    const record: RecordAttributes = recordKind.config.attributes(
      { grants: { users: ['dana', { name: 'erin', until: '2027-01-01T00:00:00Z' }] } },
      'key',
      'payments',
    );
    expect(record).toEqual({
      project: 'payments',
      name: 'key',
      grants: { users: ['dana', 'erin'] },
      grantsUntil: { 'users/erin': '2027-01-01T00:00:00Z' },
    });
    const token: GatewayTokenAttributes = gatewayTokenKind.config.attributes(
      { scopes: ['run'], spendLimit: '5.00', deliverTo: { record: 'p/r' } },
      't',
      'main',
    );
    expect(token).toMatchObject({ gateway: 'main', name: 't', spendWindow: 'daily', deliverTo: 'p/r' });
  });
});
