/**
 * Usage of the gateways a plan's spend touches: one `GET /usage/metrics` per gateway (daily buckets grouped by
 * token and model, from the start of the earliest window the plan needs), turned into plain figures: spend and
 * requests of the last 7 and 30 UTC days, per gateway, per token and per token and model, and what was spent
 * since the start of the current day, week (Monday) and month. Nothing here decides; spend.ts does.
 */
import type { ApiClient } from '../api/client.js';
import { IdentityRefusedError } from '../api/errors.js';
import { Limiter } from '../api/limiter.js';
import type { MetricsBucketT } from '../api/shapes.js';
import { routes } from '../api/routes.js';
import type { SpendWindow, UsageFigures } from '../plan-model/index.js';
import { isRefusal } from '../providers/view-diff.js';
import { microsOf, usdOfMicros } from './money.js';

const DAY_MS = 86_400_000;

/** Where each period the figures need starts (UTC midnight), for a plan made at `now`. */
export function periodStarts(now: Date) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const week = today - ((now.getUTCDay() + 6) % 7) * DAY_MS;
  const month = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const last7 = today - 6 * DAY_MS;
  const last30 = today - 29 * DAY_MS;
  return { day: today, week, month, last7, last30, since: Math.min(last30, month) };
}

type Starts = ReturnType<typeof periodStarts>;

/** Spend (micro-dollars) and requests over one stretch of days. */
interface Tally {
  micros: bigint;
  requests: number;
}

const tally = (): Tally => ({ micros: 0n, requests: 0 });

/** The figures of one gateway or one token. */
export class UsageOf {
  readonly last7 = tally();
  readonly last30 = tally();
  /** Micro-dollars since the start of the current day, week, month. */
  readonly inWindow = { day: 0n, week: 0n, month: 0n };

  add(start: number, micros: bigint, requests: number, at: Starts): void {
    for (const [from, into] of [
      [at.last7, this.last7],
      [at.last30, this.last30],
    ] as const) {
      if (start < from) continue;
      into.micros += micros;
      into.requests += requests;
    }
    if (start >= at.day) this.inWindow.day += micros;
    if (start >= at.week) this.inWindow.week += micros;
    if (start >= at.month) this.inWindow.month += micros;
  }

  /** Spent in the window of a limit now running; undefined for a window shorter than the daily buckets tell. */
  spentInWindow(window: SpendWindow): bigint | undefined {
    return window === 'minute' || window === 'hour' ? undefined : this.inWindow[window];
  }

  figures(window?: SpendWindow): UsageFigures {
    const inWindow = window === undefined ? undefined : this.spentInWindow(window);
    return {
      spend7d: usdOfMicros(this.last7.micros),
      requests7d: this.last7.requests,
      spend30d: usdOfMicros(this.last30.micros),
      requests30d: this.last30.requests,
      ...(inWindow !== undefined ? { spendInWindow: usdOfMicros(inWindow) } : {}),
    };
  }
}

/** What one gateway's usage read gave. */
export interface GatewayUsage {
  gateway: UsageOf;
  /** By token id (requests without a token are the gateway's only). */
  tokens: Map<string, UsageOf>;
  /** Requests of the last 7 days by token id, then model. */
  models7d: Map<string, Map<string, number>>;
}

export function gatewayUsage(rows: readonly MetricsBucketT[], now: Date): GatewayUsage {
  const at = periodStarts(now);
  const usage: GatewayUsage = { gateway: new UsageOf(), tokens: new Map(), models7d: new Map() };
  for (const row of rows) {
    const start = Date.parse(row.bucket_start);
    const micros = microsOf(row.cost_usd);
    usage.gateway.add(start, micros, row.requests, at);
    if (!row.token_id) continue;
    let token = usage.tokens.get(row.token_id);
    if (!token) usage.tokens.set(row.token_id, (token = new UsageOf()));
    token.add(start, micros, row.requests, at);
    if (start >= at.last7 && row.model !== undefined) {
      let models = usage.models7d.get(row.token_id);
      if (!models) usage.models7d.set(row.token_id, (models = new Map()));
      models.set(row.model, (models.get(row.model) ?? 0) + row.requests);
    }
  }
  return usage;
}

export interface UsageRead {
  byGateway: Map<string, GatewayUsage>;
  /** Why usage could not be read (the first refusal); the plan says "spend not read" and goes on. */
  notRead?: string;
  /** Requests sent. */
  reads: number;
}

/**
 * Reads the usage of each gateway id once, `parallelism` at a time. A token that may not read usage (a Service
 * Account: human-only, never sent; a role without `usage:read`: 403) leaves the figures out, never the plan.
 */
export async function readUsage(client: ApiClient, gatewayIds: readonly string[], now: Date, parallelism: number): Promise<UsageRead> {
  const out: UsageRead = { byGateway: new Map(), reads: 0 };
  if (gatewayIds.length === 0) return out;
  const route = routes.getUsageMetrics;
  if (client.identity === 'service_account' && route.identity === 'H') {
    return {
      ...out,
      notRead: `${route.method} ${route.path} is human-only: a Service Account token cannot read usage; no request was sent`,
    };
  }
  const since = new Date(periodStarts(now).since).toISOString();
  const limiter = new Limiter(Math.max(1, parallelism));
  await Promise.all(
    gatewayIds.map((gatewayId) =>
      limiter.run(async () => {
        if (out.notRead) return;
        out.reads++;
        try {
          const rows = await client.call('getUsageMetrics', { query: { gatewayId, since, bucket: 'day', groupBy: 'token,model' } });
          out.byGateway.set(gatewayId, gatewayUsage(rows, now));
        } catch (error) {
          if (error instanceof IdentityRefusedError) out.notRead ??= 'human-only operation: a Service Account token cannot read usage';
          else if (isRefusal(error))
            out.notRead ??= `${route.method} ${route.path}: ${error.status} ${error.reason}${error.requestId ? ` (request id ${error.requestId})` : ''}`;
          else throw error;
        }
      }),
    ),
  );
  // Figures for only some gateways would be misread as complete: all or none.
  if (out.notRead) out.byGateway.clear();
  return out;
}
