/**
 * Gateway logs, usage logs with stored bodies, spend, metrics and provider
 * key-access rows, all read from what the traffic generator recorded. Bodies are
 * returned only with `usage:read-bodies`.
 */
import type { KeyAccessRowT, LogEntryT } from '../../api/shapes.js';
import { omit, owned, page, type Handlers } from '../handler-call.js';
import { badRequest, notFound } from '../errors.js';
import { formatUsd } from '../traffic.js';
import type { Db, KeyAccessRowStored, LogRow } from '../store.js';
import { isUuid } from '../validate.js';
import { findGateway } from './gateways.js';

const logView = (row: LogRow): LogEntryT => omit(row, 'account_id', 'cost_micros', 'request_body', 'response_body');
const keyAccessView = (row: KeyAccessRowStored): KeyAccessRowT => omit(row, 'account_id', 'gateway_id');

function statusFilter(status: string | undefined): (log: LogRow) => boolean {
  if (status === undefined) return () => true;
  if (status !== 'success' && status !== 'error') throw badRequest('invalid_filter', ['status: one of success, error']);
  return (log) => log.status === status;
}

/** A project id given as a filter: a uuid of a project in the caller's account. */
function projectFilter(db: Db, accountId: string, projectId: string | undefined): string | undefined {
  if (projectId === undefined) return undefined;
  if (!isUuid(projectId)) throw badRequest('invalid_filter', ['projectId: must be a uuid']);
  return owned(db.projects, 'project_id', projectId, accountId, 'project_not_found').project_id;
}

function parseSince(since: string | undefined, now: Date, defaultDays: number): Date {
  if (since === undefined) return new Date(now.getTime() - defaultDays * 86_400_000);
  const at = Date.parse(since);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(since) || Number.isNaN(at))
    throw badRequest('invalid_date', ['since: must be a date-time, e.g. 2026-01-31T00:00:00Z']);
  return new Date(at);
}

interface MetricsRow {
  start: number;
  group: { gateway_id?: string; token_id?: string | null; model?: string };
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  micros: number;
}

const GROUPS = ['gateway', 'token', 'model'] as const;

/** `groupBy`: a comma list of gateway, token, model (each bucket then has one row per group). */
function groupByOf(groupBy: string | undefined): Set<string> {
  const groups = new Set((groupBy ?? '').split(',').filter((g) => g !== ''));
  const unknown = [...groups].filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0) throw badRequest('invalid_filter', [`groupBy: a comma list of ${GROUPS.join(', ')}`]);
  return groups;
}

function findLog(db: Db, accountId: string, logId: string): LogRow {
  return owned(db.logs, 'log_id', logId, accountId, 'log_not_found');
}

export const usageHandlers = {
  listGatewayLogs: ({ db, accountId, params, query }) => {
    const gateway = findGateway(db, params.id!, accountId);
    const byStatus = statusFilter(query.status);
    const rows = db.logs.filter(
      (l) => l.gateway_id === gateway.gateway_id && byStatus(l) && (query.model === undefined || l.model === query.model),
    );
    return page(rows, query).map(logView);
  },

  getGatewayLog: ({ db, accountId, params, can }) => {
    const gateway = findGateway(db, params.id!, accountId);
    const log = findLog(db, accountId, params.logId!);
    if (log.gateway_id !== gateway.gateway_id) throw notFound('log_not_found');
    return can('usage:read-bodies') ? { ...logView(log), request_body: log.request_body, response_body: log.response_body } : logView(log);
  },

  listGatewayKeyAccess: ({ db, accountId, params, query }) => {
    const gateway = findGateway(db, params.id!, accountId);
    if (query.outcome !== undefined && !['granted', 'denied', 'failed'].includes(query.outcome)) {
      throw badRequest('invalid_outcome', ['outcome: one of granted, denied, failed']);
    }
    const rows = db.keyAccess.filter(
      (r) => r.gateway_id === gateway.gateway_id && (query.outcome === undefined || r.outcome === query.outcome),
    );
    return { rows: page(rows, query).map(keyAccessView), total: rows.length };
  },

  listUsageLogs: ({ db, accountId, query }) => {
    const projectId = projectFilter(db, accountId, query.projectId);
    if (query.gatewayId) findGateway(db, query.gatewayId, accountId);
    const byStatus = statusFilter(query.status);
    const rows = db.logs.filter(
      (l) =>
        l.account_id === accountId &&
        (!projectId || l.project_id === projectId) &&
        (!query.gatewayId || l.gateway_id === query.gatewayId) &&
        byStatus(l),
    );
    return page(rows, query).map(logView);
  },

  getUsageLog: ({ db, accountId, params, query }) => {
    const projectId = projectFilter(db, accountId, query.projectId);
    const log = findLog(db, accountId, params.logId!);
    if (projectId && log.project_id !== projectId) throw notFound('log_not_found');
    return { request_body: structuredClone(log.request_body), response_body: structuredClone(log.response_body) };
  },

  getUsageSpend: ({ db, accountId, query, now }) => {
    const projectId = projectFilter(db, accountId, query.projectId);
    if (!projectId) throw badRequest('project_id_required', ['projectId: required']);
    const since = parseSince(query.since, now, 30);
    const sinceIso = since.toISOString();
    const gateways = db.gateways.filter((g) => g.project_id === projectId);
    const byGateway = gateways.map((g) => {
      const logs = db.logs.filter((l) => l.gateway_id === g.gateway_id && l.created_at >= sinceIso);
      return { gateway_id: g.gateway_id, requests: logs.length, micros: logs.reduce((sum, l) => sum + l.cost_micros, 0) };
    });
    return {
      project_id: projectId,
      since: sinceIso,
      total_usd: formatUsd(byGateway.reduce((sum, g) => sum + g.micros, 0)),
      by_gateway: byGateway.map((g) => ({ gateway_id: g.gateway_id, requests: g.requests, cost_usd: formatUsd(g.micros) })),
    };
  },

  getUsageMetrics: ({ db, accountId, query, now }) => {
    const projectId = projectFilter(db, accountId, query.projectId);
    const gatewayId = query.gatewayId === undefined ? undefined : findGateway(db, query.gatewayId, accountId).gateway_id;
    const bucket = query.bucket ?? 'day';
    if (bucket !== 'day' && bucket !== 'hour') throw badRequest('invalid_bucket', ['bucket: one of day, hour']);
    const groups = groupByOf(query.groupBy);
    const sinceIso = parseSince(query.since, now, 7).toISOString();
    const size = bucket === 'day' ? 86_400_000 : 3_600_000;
    const buckets = new Map<string, MetricsRow>();
    for (const log of db.logs) {
      if (
        log.account_id !== accountId ||
        (projectId && log.project_id !== projectId) ||
        (gatewayId && log.gateway_id !== gatewayId) ||
        log.created_at < sinceIso
      )
        continue;
      const start = Math.floor(Date.parse(log.created_at) / size) * size;
      const group = {
        ...(groups.has('gateway') ? { gateway_id: log.gateway_id } : {}),
        ...(groups.has('token') ? { token_id: log.token_id } : {}),
        ...(groups.has('model') ? { model: log.model } : {}),
      };
      const key = JSON.stringify([start, group]);
      const b = buckets.get(key) ?? { start, group, requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, micros: 0 };
      b.requests++;
      if (log.status === 'error') b.errors++;
      b.input_tokens += log.input_tokens;
      b.output_tokens += log.output_tokens;
      b.micros += log.cost_micros;
      buckets.set(key, b);
    }
    return [...buckets.values()]
      .sort((a, b) => a.start - b.start)
      .map((b) => ({
        bucket_start: new Date(b.start).toISOString(),
        ...b.group,
        requests: b.requests,
        errors: b.errors,
        input_tokens: b.input_tokens,
        output_tokens: b.output_tokens,
        cost_usd: formatUsd(b.micros),
      }));
  },
} satisfies Partial<Handlers>;
