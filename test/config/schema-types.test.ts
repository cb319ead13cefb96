/**
 * The published JSON Schema and the TypeScript types of the configuration agree: a sample typed with the
 * kinds' entry types (computed from their field declarations: src/providers/field-types.ts) that uses every key
 * validates in strict mode, and every property has a description (for editor completion). That the types follow
 * the fields is the compiler's to check (test/providers/field-types.test.ts).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect, test } from 'vitest';
import type { ConfigFile } from '../../src/config/files/config-file.js';
import type { CredentialConfig, GatewayConfig, ProjectConfig } from '../../src/providers/index.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const schema = JSON.parse(readFileSync('schema/config.schema.json', 'utf8')) as Record<string, unknown>;

function walk(node: unknown, visit: (properties: Record<string, Record<string, unknown>>, at: string) => void, at = '#'): void {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, visit, `${at}/${i}`));
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record.properties && typeof record.properties === 'object') visit(record.properties as Record<string, Record<string, unknown>>, at);
    for (const [key, child] of Object.entries(record)) walk(child, visit, `${at}/${key}`);
  }
}

test('every property has a description', () => {
  const undescribed: string[] = [];
  walk(schema, (properties, at) => {
    for (const [key, property] of Object.entries(properties)) {
      const defs = schema.$defs as Record<string, Record<string, unknown>>;
      const target = property.$ref ? defs[String(property.$ref).split('/').at(-1)!] : undefined;
      if (!property.description && !target?.description) undescribed.push(`${at}/${key}`);
    }
  });
  expect(undescribed).toEqual([]);
});

test('a typed sample that uses every key validates in strict mode', () => {
  // The kinds' keys are typed by their definitions; the rest of the file by ConfigFile.
  const sample: ConfigFile & {
    projects: Record<string, ProjectConfig>;
    credentials: Record<string, CredentialConfig>;
    gateways: Record<string, GatewayConfig>;
  } = {
    version: 1,
    account: 'acc',
    variables: { env: { description: 'd', type: 'string', default: 'x' } },
    projects: {
      p: {
        name: 'p',
        description: 'd',
        active: true,
        dependsOn: [],
        lifecycle: { preventDestroy: true, ignoreChanges: ['name'] },
        groupRoles: { platform: 'admin' },
        records: {
          r: {
            name: 'r',
            format: 'text',
            tags: ['t'],
            secretDueAt: '2027-01-01T00:00:00Z',
            rotationIntervalDays: 90,
            value: { generate: { length: 32 } },
            grants: {
              serviceAccounts: ['ci'],
              users: ['dana', { name: 'erin', until: '2027-01-01T00:00:00Z', reason: 'incident 12' }],
              groups: [],
            },
            rotateOnRevoke: true,
            owner: { user: 'dana' },
            lifecycle: { ignoreChanges: ['tags'] },
            dependsOn: ['project.p'],
          },
        },
      },
    },
    credentials: {
      c: {
        provider: 'openai',
        label: 'l',
        baseUrl: 'https://api.openai.com/v1',
        secret: { env: 'K' },
        lifecycle: { ignoreChanges: ['label'] },
      },
    },
    gateways: {
      g: {
        project: 'p',
        name: 'g',
        slug: 'g',
        defaultProvider: 'openai',
        defaultModel: 'm',
        credentials: ['c'],
        settings: {
          requestsPerMinute: 1,
          tokensPerMinute: null,
          spendLimitUsd: '1.00',
          window: 'hour',
          guardrails: { blockPii: true, blockedTerms: ['x'], maxInputTokens: 10 },
          cache: { enabled: true, ttlSeconds: 0 },
        },
        otelExport: {
          enabled: true,
          endpoint: 'https://o.example.com',
          exportMetrics: false,
          exportTraces: true,
          headers: { Authorization: { file: './h' } },
          lifecycle: { ignoreChanges: ['headers.Authorization', 'endpoint'] },
        },
        tokens: {
          t: {
            name: 't',
            scopes: ['run'],
            expiresInDays: 1,
            allowedModels: ['m'],
            rateLimitPerMin: 5,
            serviceAccount: 'ci',
            spendLimit: '25.00',
            spendWindow: 'weekly',
            renewBeforeDays: null,
            overlapHours: 2,
            deliverTo: { record: 'p/r' },
            lifecycle: { ignoreChanges: ['name', 'spendWindow'] },
          },
        },
        lifecycle: { preventDestroy: false, ignoreChanges: ['settings.requestsPerMinute', 'settings.cache.ttlSeconds'] },
        dependsOn: ['credential.c'],
      },
    },
    moved: [{ from: 'gateway.old', to: 'gateway.g' }],
    removed: [{ from: 'project.gone' }],
    import: [{ to: 'project.p', id: '7b0e8c9a-3c1e-4f4e-9a53-0f3c2f4d5e6a' }],
    modules: { m: { source: './modules/team', inputs: { team: 't', rpm: 1, on: true } } },
  };
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);
});
