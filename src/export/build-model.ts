/**
 * From the live objects of an account to the configuration that reproduces
 * them: account ids become references by local name, AI vendor ids become
 * vendor names, write-only values become `{ env: NAME }` placeholders, and
 * what cannot or should not be exported (archived, revoked, disabled) is left
 * out and counted. Pure: the same live account always gives the same model.
 */
import type { GatewayT, GatewayTokenT, ProjectT } from '../api/shapes.js';
import type { ResourceKind } from '../config/types.js';
import { childAddress, resourceAddress } from '../plan-model/index.js';
import { credentialProvider, gatewayProvider, gatewayTokenProvider, otelExportProvider, projectProvider, recordProvider, type CredentialConfig, type GatewayConfig, type LiveOtelExport, type OtelExportConfig, type ProjectConfig, type RecordConfig, type TokenConfig } from '../providers/index.js';
import { assignLocalNames, compare, upperSnake } from './local-names.js';
import type { AccountObjects } from './read-account.js';

const DAY_MS = 86_400_000;

/** A write-only value the folder refers to by environment variable. */
export interface Placeholder {
  env: string;
  /** For people: `the API key of credential openai-prod`. */
  what: string;
}

/** A token whose configuration cannot say everything about it. */
export interface TokenNote {
  address: string;
  note: string;
}

export interface ExportedProject {
  local: string;
  config: ProjectConfig;
  /** Gateways of the project by local name. */
  gateways: Record<string, GatewayConfig>;
}

/** The live object behind each address, for `--adopt`. */
export interface Adoption {
  address: string;
  kind: ResourceKind;
  live: unknown;
}

export interface SkipCounts {
  archivedProjects: number;
  archivedRecords: number;
  disabledGateways: number;
  gatewaysWithoutCredentials: number;
  revokedTokens: number;
  serviceAccountTokens: number;
}

export interface ExportModel {
  projects: ExportedProject[];
  credentials: Record<string, CredentialConfig>;
  placeholders: Placeholder[];
  tokenNotes: TokenNote[];
  adoptions: Adoption[];
  skipped: SkipCounts;
}

export interface BuildOptions {
  /** Export only the credentials the exported gateways use (set when --project narrows the export). */
  onlyUsedCredentials: boolean;
}

export function buildModel(live: AccountObjects, options: BuildOptions): ExportModel {
  const skipped: SkipCounts = { archivedProjects: 0, archivedRecords: 0, disabledGateways: 0, gatewaysWithoutCredentials: 0, revokedTokens: 0, serviceAccountTokens: 0 };
  const adoptions: Adoption[] = [];
  const tokenNotes: TokenNote[] = [];
  const vendorName = (id: string) => live.vendors.find((p) => p.provider_id === id)?.name ?? id;

  const projects = live.projects.filter((p) => !p.archived);
  skipped.archivedProjects = live.projects.length - projects.length;
  const projectNames = assignLocalNames(projects.map((p) => ({ id: p.project_id, name: p.name })), projectProvider.config.noun);
  const liveCredentials = new Set(live.credentials.map((c) => c.credential_id));

  const gateways = live.gateways.filter((g) => g.status === 'enabled' && projectNames.has(g.project_id));
  skipped.disabledGateways = live.gateways.length - gateways.length;
  const exportable = gateways.filter((g) => g.credential_ids.some((id) => liveCredentials.has(id)));
  skipped.gatewaysWithoutCredentials = gateways.length - exportable.length;
  const gatewayNames = assignLocalNames(exportable.map((g) => ({ id: g.gateway_id, name: g.slug })), gatewayProvider.config.noun);

  const usedCredentials = new Set(exportable.flatMap((g) => g.credential_ids));
  const credentials = live.credentials.filter((c) => !options.onlyUsedCredentials || usedCredentials.has(c.credential_id));
  // Named among the exported credentials only, so one left out never takes the plain name of one written.
  const credentialNames = assignLocalNames(credentials.map((c) => ({ id: c.credential_id, name: c.label })), credentialProvider.config.noun);

  const envNames = new EnvNames();
  const credentialConfigs: Record<string, CredentialConfig> = {};
  for (const credential of sortByLocal(credentials, (c) => credentialNames.get(c.credential_id)!)) {
    const local = credentialNames.get(credential.credential_id)!;
    const config: CredentialConfig = {
      provider: vendorName(credential.provider_id),
      secret: { env: envNames.take(`CPLANE_SECRET_${upperSnake(local)}`, `the API key of credential ${local}`) },
    };
    if (credential.label !== local) config.label = credential.label;
    if (credential.base_url !== null) config.baseUrl = credential.base_url;
    credentialConfigs[local] = config;
    adoptions.push({ address: resourceAddress(credentialProvider.kind, local), kind: credentialProvider.kind, live: credential });
  }

  const exportedProjects: ExportedProject[] = [];
  for (const project of sortByLocal(projects, (p) => projectNames.get(p.project_id)!)) {
    const local = projectNames.get(project.project_id)!;
    const projectAddress = resourceAddress(projectProvider.kind, local);
    adoptions.push({ address: projectAddress, kind: projectProvider.kind, live: project });
    const config = projectConfig(project, local);

    const allRecords = live.records.filter((r) => r.project_id === project.project_id);
    const records = allRecords.filter((r) => !r.archived);
    skipped.archivedRecords += allRecords.length - records.length;
    const recordNames = assignLocalNames(records.map((r) => ({ id: r.record_id, name: r.name })), recordProvider.config.noun);
    if (records.length > 0) config.records = {};
    for (const record of sortByLocal(records, (r) => recordNames.get(r.record_id)!)) {
      const recordLocal = recordNames.get(record.record_id)!;
      const recordConfig: RecordConfig = { format: record.format, tags: [...record.tags] };
      if (record.name !== recordLocal) recordConfig.name = record.name;
      if (record.secret_due_at !== null) recordConfig.secretDueAt = record.secret_due_at;
      if (record.rotation_interval_days !== null) recordConfig.rotationIntervalDays = record.rotation_interval_days;
      config.records![recordLocal] = recordConfig;
      adoptions.push({ address: childAddress(projectAddress, recordProvider.kind, recordLocal), kind: recordProvider.kind, live: record });
    }

    const gatewayConfigs: Record<string, GatewayConfig> = {};
    const ofProject = exportable.filter((g) => g.project_id === project.project_id);
    for (const gateway of sortByLocal(ofProject, (g) => gatewayNames.get(g.gateway_id)!)) {
      const gatewayLocal = gatewayNames.get(gateway.gateway_id)!;
      const gatewayConfig = baseGatewayConfig(gateway, gatewayLocal, local, vendorName(gateway.default_provider_id), credentialNames);
      const gatewayAddress = resourceAddress(gatewayProvider.kind, gatewayLocal);
      adoptions.push({ address: gatewayAddress, kind: gatewayProvider.kind, live: gateway });

      const otel = live.otelExports.find((o) => o.gatewayId === gateway.gateway_id);
      if (otel && isConfigured(otel)) {
        gatewayConfig.otelExport = otelConfig(otel, gatewayLocal, envNames);
        adoptions.push({ address: childAddress(gatewayAddress, otelExportProvider.kind), kind: otelExportProvider.kind, live: otel });
      }

      const allTokens = live.tokens.filter((t) => t.gateway_id === gateway.gateway_id);
      const active = allTokens.filter((t) => t.revoked_at === null);
      skipped.revokedTokens += allTokens.length - active.length;
      const tokens = active.filter((t) => t.service_account_id === null);
      skipped.serviceAccountTokens += active.length - tokens.length;
      const tokenNames = assignLocalNames(tokens.map((t) => ({ id: t.token_id, name: t.name })), gatewayTokenProvider.config.noun);
      if (tokens.length > 0) gatewayConfig.tokens = {};
      for (const token of sortByLocal(tokens, (t) => tokenNames.get(t.token_id)!)) {
        const tokenLocal = tokenNames.get(token.token_id)!;
        const address = childAddress(gatewayAddress, gatewayTokenProvider.kind, tokenLocal);
        gatewayConfig.tokens![tokenLocal] = tokenConfig(token, tokenLocal);
        if (token.spend_limit !== null) {
          tokenNotes.push({ address, note: `spend limit ${token.spend_limit} per ${token.spend_window ?? 'window'} is not part of the configuration language and is not reproduced` });
        }
        adoptions.push({ address, kind: gatewayTokenProvider.kind, live: token });
      }
      gatewayConfigs[gatewayLocal] = gatewayConfig;
    }
    exportedProjects.push({ local, config, gateways: gatewayConfigs });
  }

  return { projects: exportedProjects, credentials: credentialConfigs, placeholders: envNames.all(), tokenNotes, adoptions, skipped };
}

function projectConfig(project: ProjectT, local: string): ProjectConfig {
  const config: ProjectConfig = {};
  if (project.name !== local) config.name = project.name;
  if (project.description !== '') config.description = project.description;
  if (!project.is_active) config.active = false;
  return config;
}

function baseGatewayConfig(gateway: GatewayT, local: string, project: string, defaultProvider: string, credentialNames: Map<string, string>): GatewayConfig {
  const credentials = gateway.credential_ids
    .map((id) => credentialNames.get(id))
    .filter((name): name is string => name !== undefined)
    .sort(compare);
  const config: GatewayConfig = {
    project,
    defaultProvider,
    defaultModel: gateway.default_model,
    credentials,
    settings: structuredClone(gateway.settings),
  };
  if (gateway.name !== local) config.name = gateway.name;
  if (gateway.slug !== local) config.slug = gateway.slug;
  return config;
}

/** An export that was never set up (off, no endpoint, no headers) is left to the target account's default. */
function isConfigured({ export: otel }: LiveOtelExport): boolean {
  return otel.enabled || otel.endpoint !== null || otel.headerNames.length > 0;
}

function otelConfig({ export: otel }: LiveOtelExport, gateway: string, envNames: EnvNames): OtelExportConfig {
  const config: OtelExportConfig = {
    enabled: otel.enabled,
    endpoint: otel.endpoint,
    exportMetrics: otel.exportMetrics,
    exportTraces: otel.exportTraces,
  };
  const names = [...otel.headerNames].sort(compare);
  if (names.length > 0) {
    config.headers = Object.fromEntries(
      names.map((name) => [name, { env: envNames.take(`CPLANE_OTEL_${upperSnake(gateway)}_${upperSnake(name)}`, `the ${name} header of the OTel export of gateway ${gateway}`) }]),
    );
  }
  return config;
}

function tokenConfig(token: GatewayTokenT, local: string): TokenConfig {
  const config: TokenConfig = { scopes: [...token.scopes] };
  if (token.name !== local) config.name = token.name;
  const days = expiresInDays(token);
  if (days !== null) config.expiresInDays = days;
  if (token.allowed_models.length > 0) config.allowedModels = [...token.allowed_models];
  if (token.rate_limit_per_min !== null) config.rateLimitPerMin = token.rate_limit_per_min;
  return config;
}

/** The token's lifetime as it was created (expires_at - created_at), in whole days within the API's bounds. */
export function expiresInDays(token: Pick<GatewayTokenT, 'created_at' | 'expires_at'>): number | null {
  if (token.expires_at === null) return null;
  const days = Math.round((Date.parse(token.expires_at) - Date.parse(token.created_at)) / DAY_MS);
  return Math.min(Math.max(days, 1), 3650);
}

function sortByLocal<T>(items: T[], local: (item: T) => string): T[] {
  return [...items].sort((a, b) => compare(local(a), local(b)));
}

/** Environment variable names for placeholders, unique in the folder (a clash gets `_2`, `_3`, ... in the order taken). */
class EnvNames {
  private readonly taken = new Map<string, Placeholder>();

  take(wanted: string, what: string): string {
    let env = wanted;
    for (let n = 2; this.taken.has(env); n++) env = `${wanted}_${n}`;
    this.taken.set(env, { env, what });
    return env;
  }

  all(): Placeholder[] {
    return [...this.taken.values()].sort((a, b) => compare(a.env, b.env));
  }
}
