/**
 * Gateways: creation with credentials from the same account, slug rules,
 * attach/detach, settings (merged one level deep), OpenTelemetry export with
 * write-only header values, and delete = disable (tokens revoked, history kept).
 */
import type { GatewayT, GatewaySettingsT, OtelExportT } from '../../api/shapes.js';
import { newId, omit, owned, page, type Handlers } from '../handler-call.js';
import { defaultGatewaySettings, defaultOtel, fingerprint, gatewayEndpoints } from '../defaults.js';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import type { Db, GatewayRow } from '../store.js';
import { simulateTraffic } from '../traffic.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const gatewayView = (row: GatewayRow): GatewayT => structuredClone(omit(row, 'otel'));

const otelView = (otel: GatewayRow['otel']): OtelExportT => ({
  enabled: otel.enabled,
  endpoint: otel.endpoint,
  exportMetrics: otel.exportMetrics,
  exportTraces: otel.exportTraces,
  headerNames: Object.keys(otel.headers).sort(),
  updatedAt: otel.updatedAt,
});

export function findGateway(db: Db, id: string, accountId: string): GatewayRow {
  return owned(db.gateways, 'gateway_id', id, accountId, 'gateway_not_found');
}

export function enabledGateway(db: Db, id: string, accountId: string): GatewayRow {
  const gateway = findGateway(db, id, accountId);
  if (gateway.status === 'disabled') throw conflict('gateway_disabled');
  return gateway;
}

function checkSlug(db: Db, accountId: string, slug: string, exceptId?: string): void {
  if (!SLUG.test(slug))
    throw badRequest('invalid_slug', ['slug: lowercase letters, digits and "-", starting with a letter or digit, at most 63 characters']);
  const taken = db.gateways.some(
    (g) => g.account_id === accountId && g.status === 'enabled' && g.slug === slug && g.gateway_id !== exceptId,
  );
  if (taken) throw conflict('gateway_slug_exists');
}

/** A credential to attach: same account, known and active. */
function usableCredential(db: Db, accountId: string, id: string) {
  const credential = owned(db.credentials, 'credential_id', id, accountId, 'credential_not_found');
  if (credential.status === 'revoked') throw conflict('credential_revoked');
  return credential;
}

function checkDefaultProvider(db: Db, providerId: string, credentialIds: string[]): void {
  if (!db.providers.some((p) => p.provider_id === providerId)) throw notFound('provider_not_found');
  const served = db.credentials.some((c) => credentialIds.includes(c.credential_id) && c.provider_id === providerId);
  if (!served) throw badRequest('default_provider_without_credential', ['defaultProviderId: no attached credential is for this provider']);
}

function validUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export const gatewayHandlers = {
  listGateways: ({ db, accountId, query }) => {
    if (query.projectId) owned(db.projects, 'project_id', query.projectId, accountId, 'project_not_found');
    const rows = db.gateways.filter(
      (g) =>
        g.account_id === accountId &&
        (query.includeDisabled || g.status === 'enabled') &&
        (!query.projectId || g.project_id === query.projectId),
    );
    return page(rows, query).map(gatewayView);
  },

  getGateway: ({ db, accountId, params }) => gatewayView(findGateway(db, params.id!, accountId)),

  createGateway: ({ db, accountId, body, now, rng }) => {
    const project = owned(db.projects, 'project_id', body.projectId, accountId, 'project_not_found');
    if (project.archived) throw conflict('project_archived');
    checkSlug(db, accountId, body.slug);
    const credentialIds = [...new Set(body.credentialIds)];
    for (const id of credentialIds) usableCredential(db, accountId, id);
    checkDefaultProvider(db, body.defaultProviderId, credentialIds);
    const at = now.toISOString();
    const gateway: GatewayRow = {
      gateway_id: newId(),
      account_id: accountId,
      project_id: project.project_id,
      name: body.name,
      slug: body.slug,
      default_provider_id: body.defaultProviderId,
      default_model: body.defaultModel,
      status: 'enabled',
      credential_ids: credentialIds,
      settings: defaultGatewaySettings(),
      endpoints: gatewayEndpoints(body.slug),
      routing: { state: 'ready' },
      created_at: at,
      updated_at: at,
      disabled_at: null,
      otel: defaultOtel(),
    };
    db.gateways.push(gateway);
    // A little playground traffic, so a new gateway's logs, spend and key-access feeds have rows to read.
    simulateTraffic(db, gateway, rng, { count: 5, end: now, spanMs: 0, tokenIds: [null] });
    return gatewayView(gateway);
  },

  updateGateway: ({ db, accountId, params, body, now }) => {
    const gateway = enabledGateway(db, params.id!, accountId);
    if (body.slug !== undefined) checkSlug(db, accountId, body.slug, gateway.gateway_id);
    if (body.defaultProviderId !== undefined) checkDefaultProvider(db, body.defaultProviderId, gateway.credential_ids);
    if (body.name !== undefined) gateway.name = body.name;
    if (body.slug !== undefined) Object.assign(gateway, { slug: body.slug, endpoints: gatewayEndpoints(body.slug) });
    if (body.defaultProviderId !== undefined) gateway.default_provider_id = body.defaultProviderId;
    if (body.defaultModel !== undefined) gateway.default_model = body.defaultModel;
    gateway.updated_at = now.toISOString();
    return gatewayView(gateway);
  },

  deleteGateway: ({ db, accountId, params, now }) => {
    const gateway = enabledGateway(db, params.id!, accountId);
    const at = now.toISOString();
    Object.assign(gateway, { status: 'disabled', disabled_at: at, updated_at: at, routing: { state: 'disabled' } });
    for (const token of db.tokens) if (token.gateway_id === gateway.gateway_id && !token.revoked_at) token.revoked_at = at;
    return undefined;
  },

  attachGatewayCredential: ({ db, accountId, params, body, now }) => {
    const gateway = enabledGateway(db, params.id!, accountId);
    usableCredential(db, accountId, body.credentialId);
    if (gateway.credential_ids.includes(body.credentialId)) throw conflict('credential_already_attached');
    gateway.credential_ids.push(body.credentialId);
    gateway.updated_at = now.toISOString();
    return gatewayView(gateway);
  },

  detachGatewayCredential: ({ db, accountId, params, now }) => {
    const gateway = enabledGateway(db, params.id!, accountId);
    const credential = db.credentials.find((c) => c.credential_id === params.credentialId);
    if (!credential) throw notFound('credential_not_found');
    if (credential.account_id !== accountId) throw forbidden('not_authorized');
    if (!gateway.credential_ids.includes(credential.credential_id)) throw conflict('credential_not_attached');
    if (gateway.credential_ids.length === 1) throw conflict('last_credential');
    gateway.credential_ids = gateway.credential_ids.filter((id) => id !== credential.credential_id);
    gateway.updated_at = now.toISOString();
    return gatewayView(gateway);
  },

  updateGatewaySettings: ({ db, accountId, params, body, now }) => {
    const gateway = enabledGateway(db, params.id!, accountId);
    const current = gateway.settings;
    const next: GatewaySettingsT = {
      ...current,
      ...body,
      guardrails: { ...current.guardrails, ...body.guardrails },
      cache: { ...current.cache, ...body.cache },
    };
    gateway.settings = structuredClone(next);
    gateway.updated_at = now.toISOString();
    return structuredClone(next);
  },

  getOtelExport: ({ db, accountId, params }) => otelView(findGateway(db, params.id!, accountId).otel),

  updateOtelExport: ({ db, accountId, params, body, now }) => {
    const gateway = enabledGateway(db, params.id!, accountId);
    if (body.endpoint !== undefined && body.endpoint !== null && !validUrl(body.endpoint)) {
      throw badRequest('invalid_endpoint', ['endpoint: must be an http or https URL']);
    }
    const otel = gateway.otel;
    const endpoint = body.endpoint !== undefined ? body.endpoint : otel.endpoint;
    const enabled = body.enabled ?? otel.enabled;
    if (enabled && !endpoint) throw badRequest('endpoint_required', ['endpoint: required while export is enabled']);
    Object.assign(otel, {
      enabled,
      endpoint,
      exportMetrics: body.exportMetrics ?? otel.exportMetrics,
      exportTraces: body.exportTraces ?? otel.exportTraces,
      updatedAt: now.toISOString(),
    });
    // Header values are write-only: only a fingerprint is kept; a given `headers` replaces the whole set.
    if (body.headers !== undefined)
      otel.headers = Object.fromEntries(Object.entries(body.headers).map(([name, value]) => [name, fingerprint(value)]));
    return otelView(otel);
  },
} satisfies Partial<Handlers>;
