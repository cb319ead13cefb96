/**
 * OpenTelemetry export of a gateway: one settings document per gateway, set
 * with PATCH /gateways/{id}/otel-export. Header values are write-only and
 * compared by fingerprint; a PATCH with `headers` replaces the whole header
 * set, so whenever one header changes all configured headers are sent.
 * Removing it from the configuration disables the export.
 */
import type { OtelExportT } from '../api/shapes.js';
import type { LifecycleConfig } from '../config/files/config-file.js';
import { resourceAddress, type Template } from '../plan-model/index.js';
import { dependsOnSchema, lifecycleSchema } from './schema-parts.js';
import { defineKind } from './define-kind.js';
import type { FromSchema } from './field-types.js';
import type { ReadFailure, View } from './types.js';
import { byCodeUnit, isRefusal, nullWhenNotFound, ref, sortedSet } from './view-diff.js';
import { writeSpec } from './write-spec.js';

// Its schema is written whole (its `lifecycle` names any `headers.<Name>`, which no list of fields can), and its
// types come from it and from `attributesOf`, as a kind's with `fields` come from those (field-types.ts).
const properties = {
  enabled: { description: 'Whether export is on. Default true.', type: 'boolean' },
  endpoint: { description: 'OTLP endpoint URL. Required when enabled.', type: ['string', 'null'], format: 'uri' },
  exportMetrics: { description: 'Export metrics. Default true.', type: 'boolean' },
  exportTraces: { description: 'Export traces. Default true.', type: 'boolean' },
  headers: {
    description: 'Headers sent with every export, by name; values are write-only secret sources.',
    type: 'object',
    propertyNames: { description: 'An HTTP header name.', type: 'string', pattern: '^[A-Za-z0-9-]{1,100}$' },
    additionalProperties: { $ref: '#/$defs/secretSource' },
  },
} as const;

/** An entry of this kind in a configuration file. */
export type OtelExportConfig = FromSchema<{ type: 'object'; properties: typeof properties }> & {
  lifecycle?: LifecycleConfig<keyof typeof properties | `headers.${string}`>;
  dependsOn?: string[];
};

/** The attributes: the defaults filled, and the headers' names (their values are secrets: `secrets`, keys `headers.<Name>`). */
function attributesOf(entry: OtelExportConfig, _local: string, gateway?: string) {
  const headerNames = Object.keys(entry.headers ?? {}).sort((a, b) => a.localeCompare(b));
  return {
    gateway: gateway!,
    enabled: entry.enabled ?? true,
    endpoint: entry.endpoint ?? null,
    exportMetrics: entry.exportMetrics ?? true,
    exportTraces: entry.exportTraces ?? true,
    headerNames,
  };
}
export type OtelExportAttributes = ReturnType<typeof attributesOf>;

/** The export settings of one gateway (the API's document does not name its gateway). */
export interface LiveOtelExport {
  gatewayId: string;
  export: OtelExportT;
}

const gatewayAddress = (attributes: OtelExportAttributes) => resourceAddress('gateway', attributes.gateway);
const switches = ['enabled', 'endpoint', 'exportMetrics', 'exportTraces'] as const;

function view(attributes: OtelExportAttributes): View {
  return {
    enabled: attributes.enabled,
    endpoint: attributes.endpoint,
    exportMetrics: attributes.exportMetrics,
    exportTraces: attributes.exportTraces,
    headerNames: sortedSet(attributes.headerNames),
  };
}

function unconfigured(live: OtelExportT): boolean {
  return !live.enabled && live.endpoint === null && live.headerNames.length === 0;
}

/** All configured headers as `$secret` placeholders, resolved at apply. */
function headersTemplate(attributes: OtelExportAttributes): Template {
  return Object.fromEntries(attributes.headerNames.map((name) => [name, { $secret: `headers.${name}` }]));
}

function liveView({ export: live }: LiveOtelExport): View {
  return {
    enabled: live.enabled,
    endpoint: live.endpoint,
    exportMetrics: live.exportMetrics,
    exportTraces: live.exportTraces,
    headerNames: sortedSet(live.headerNames),
  };
}

export const otelExportKind = defineKind<OtelExportAttributes, LiveOtelExport, OtelExportConfig>({
  kind: 'otel_export',
  parent: { kind: 'gateway', attribute: 'gateway', idField: 'gatewayId', removedWith: 'removed with' },
  config: {
    key: 'otelExport',
    single: true,
    noun: 'the OTel export of gateway',
    schema: {
      description: 'OpenTelemetry export of the gateway; addressed as otel_export.<gateway>.',
      type: 'object',
      additionalProperties: false,
      properties: {
        ...properties,
        lifecycle: lifecycleSchema('export', {
          description:
            "enabled, endpoint, exportMetrics, exportTraces, headers (every header value), or headers.<Name> (one header's value).",
          type: 'string',
          pattern: '^(enabled|endpoint|exportMetrics|exportTraces|headers|headers\\.[A-Za-z0-9-]+)$',
        }),
        dependsOn: dependsOnSchema,
      },
    },
    attributes: attributesOf,
    secrets: (entry) =>
      Object.fromEntries(
        Object.entries(entry.headers ?? {})
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, source]) => [`headers.${name}`, source]),
      ),
    complete({ attributes, report, owner }) {
      if (attributes.enabled && attributes.endpoint === null) {
        report('', {
          code: 'missing_key',
          summary: `Missing required key "endpoint" in ${owner}: an enabled export needs an endpoint`,
          detail: 'Add endpoint: https://..., or set enabled: false.',
        });
      }
    },
  },
  refreshOperations: ['getOtelExport'],
  writeOperations: ['updateOtelExport'],
  readOperation: 'getOtelExport',
  export: {
    noun: 'OTel export',
    // An export that was never set up (off, no endpoint, no headers) is left to the target account's default.
    skip: [{ when: (live) => unconfigured(live.export) }],
    entry({ live: { export: live }, local, placeholder, comment }) {
      const entry: OtelExportConfig = {
        enabled: live.enabled,
        endpoint: live.endpoint,
        exportMetrics: live.exportMetrics,
        exportTraces: live.exportTraces,
      };
      const names = [...live.headerNames].sort(byCodeUnit);
      if (names.length > 0) {
        entry.headers = Object.fromEntries(
          names.map((name) => [
            name,
            placeholder(['CPLANE_OTEL', local, name], `the ${name} header of the OTel export of gateway ${local}`),
          ]),
        );
        comment('headers', 'Header values cannot be exported: set these environment variables before `cplane apply`.');
      }
      return entry;
    },
  },
  removeAction: 'delete',
  writeOnly: ['headers.*'],

  async refresh({ client, parentIds, limiter }) {
    const failures: ReadFailure[] = [];
    const found = await Promise.all(
      parentIds.map((gatewayId) =>
        limiter.run(async (): Promise<LiveOtelExport | null> => {
          try {
            return { gatewayId, export: await client.call('getOtelExport', { path: { id: gatewayId } }) };
          } catch (error) {
            if (!isRefusal(error)) throw error;
            if (error.status !== 404)
              failures.push({
                operation: 'getOtelExport',
                reason: `${error.status} ${error.reason}`,
                requestId: error.requestId,
                parentId: gatewayId,
              });
            return null;
          }
        }),
      ),
    );
    return { items: found.filter((item): item is LiveOtelExport => item !== null), failures };
  },

  async read({ client, id }) {
    const found = await nullWhenNotFound(() => client.call('getOtelExport', { path: { id } }));
    return found === null ? null : { gatewayId: id, export: found };
  },

  identify: ({ live }) => ({
    id: live.gatewayId,
    parents: { gatewayId: live.gatewayId },
    // Every gateway has an export document; one never configured is not something to adopt, so its key matches nothing.
    key: unconfigured(live.export) ? `unconfigured:${live.gatewayId}` : live.gatewayId,
    status: 'live',
  }),
  naturalKey: ({ desired, known }) => known.idOf(gatewayAddress(desired.attributes)),
  view: ({ live }) => liveView(live),
  desiredView: ({ attributes }) => view(attributes),

  planCreate({ desired, known }) {
    const { attributes, address } = desired;
    const gateway = ref(known, gatewayAddress(attributes));
    const body: Record<string, Template> = {
      enabled: attributes.enabled,
      endpoint: attributes.endpoint,
      exportMetrics: attributes.exportMetrics,
      exportTraces: attributes.exportTraces,
    };
    if (attributes.headerNames.length > 0) body.headers = headersTemplate(attributes);
    const effects = { id: { $ref: gatewayAddress(attributes) }, parents: { gatewayId: gateway } };
    return { writes: [writeSpec('updateOtelExport', { path: { id: gateway }, body, effects }, `configure ${address}`)] };
  },

  planUpdate({ desired, id, changedKeys }) {
    const { attributes, address } = desired;
    const body: Record<string, Template> = {};
    for (const key of switches) if (changedKeys.includes(key)) body[key] = attributes[key];
    if (changedKeys.some((key) => key === 'headerNames' || key.startsWith('headers.'))) body.headers = headersTemplate(attributes);
    if (Object.keys(body).length === 0) return { writes: [] };
    return { writes: [writeSpec('updateOtelExport', { path: { id }, body }, `update ${address}`)] };
  },

  planDelete({ address, id }) {
    return {
      writes: [writeSpec('updateOtelExport', { path: { id }, body: { enabled: false }, effects: { forget: true } }, `disable ${address}`)],
    };
  },
});
