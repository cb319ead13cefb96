/**
 * The simulated data plane: a deterministic generator of model requests through
 * a gateway. Each simulated request leaves what the real service would keep: a
 * gateway log entry with request and response bodies, a provider key-access
 * row, spend, and the token's last use. Seeded, so the same seed gives the same
 * traffic.
 */
import type { Prng } from './prng.js';
import type { Db, GatewayRow } from './store.js';

/** Price per 1k tokens in micro-dollars (input, output): invented but stable. */
const prices: Record<string, [number, number]> = { openai: [150, 600], anthropic: [300, 1500], mistral: [100, 300] };

export const formatUsd = (micros: number): string => (micros / 1_000_000).toFixed(6);

export interface TrafficOptions {
  count: number;
  /** Time of the last simulated request. */
  end: Date;
  /** The requests are spread evenly over this span before `end`. */
  spanMs: number;
  /** Token used by each request, drawn from this list (null: a request without token, e.g. the dashboard playground). */
  tokenIds: (string | null)[];
}

export function simulateTraffic(db: Db, gateway: GatewayRow, rng: Prng, options: TrafficOptions): void {
  const credentials = db.credentials.filter((c) => gateway.credential_ids.includes(c.credential_id));
  if (credentials.length === 0) return;
  for (let i = 0; i < options.count; i++) {
    const at = new Date(
      options.end.getTime() - Math.floor((options.spanMs * (options.count - 1 - i)) / Math.max(options.count, 1)),
    ).toISOString();
    const credential = rng.pick(credentials);
    const provider = db.providers.find((p) => p.provider_id === credential.provider_id)!;
    const model = rng.pick(provider.models);
    const tokenId = rng.pick(options.tokenIds);
    const roll = rng.next();
    const outcome = roll < 0.05 ? 'denied' : roll < 0.12 ? 'failed' : 'granted';
    const statusCode = outcome === 'granted' ? 200 : outcome === 'denied' ? 403 : rng.pick([429, 500, 502]);
    const inputTokens = outcome === 'granted' ? rng.int(20, 2000) : 0;
    const outputTokens = outcome === 'granted' ? rng.int(10, 800) : 0;
    const [inPrice, outPrice] = prices[provider.name] ?? [100, 100];
    const costMicros = Math.round((inputTokens * inPrice + outputTokens * outPrice) / 1000);
    const ticket = rng.int(1000, 9999);
    db.logs.push({
      log_id: rng.uuid(),
      account_id: gateway.account_id,
      gateway_id: gateway.gateway_id,
      project_id: gateway.project_id,
      token_id: tokenId,
      provider_id: provider.provider_id,
      credential_id: credential.credential_id,
      model,
      status: statusCode === 200 ? 'success' : 'error',
      status_code: statusCode,
      latency_ms: rng.int(80, 4000),
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      cost_usd: formatUsd(costMicros),
      cost_micros: costMicros,
      created_at: at,
      request_body: { model, messages: [{ role: 'user', content: `Summarise support ticket #${ticket}.` }] },
      response_body:
        statusCode === 200
          ? {
              id: `resp_${ticket}`,
              model,
              choices: [{ message: { role: 'assistant', content: `Ticket #${ticket}: customer asks for a refund.` } }],
            }
          : { error: { type: outcome === 'denied' ? 'permission_denied' : 'upstream_error', status: statusCode } },
    });
    db.keyAccess.push({
      access_id: rng.uuid(),
      account_id: gateway.account_id,
      gateway_id: gateway.gateway_id,
      outcome,
      reason: outcome === 'granted' ? 'token_authorised' : outcome === 'denied' ? 'model_not_allowed' : 'provider_error',
      provider_id: provider.provider_id,
      credential_id: credential.credential_id,
      token_id: tokenId,
      actor_ip: `10.0.${rng.int(0, 9)}.${rng.int(2, 250)}`,
      actor_user_agent: rng.pick(['openai-python/1.40.0', 'anthropic-sdk-typescript/0.27.0', 'curl/8.5.0']),
      assistant_session_id: rng.next() < 0.3 ? `sess_${rng.int(100000, 999999)}` : null,
      created_at: at,
    });
    const token = tokenId ? db.tokens.find((t) => t.token_id === tokenId) : undefined;
    if (token && (!token.last_used_at || token.last_used_at < at)) token.last_used_at = at;
  }
}

/** Usage a test sets down exactly (`RunningEmulator.addUsage`): so many requests through one gateway, costing so much in all. */
export interface UsageSeed {
  gatewayId: string;
  /** The gateway token the requests used; null or absent: none (the dashboard's playground). */
  tokenId?: string | null;
  model: string;
  /** When, in milliseconds before the emulator's now; default now. */
  ago?: number;
  requests: number;
  /** What the requests cost together, in US dollars as a decimal string (`"12.50"`): spread evenly, to the micro-dollar. */
  costUsd: string;
}

const microsOf = (usd: string): number => {
  const [whole = '0', fraction = ''] = usd.split('.');
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
};

/** Log rows for `seed` (successful requests at one instant), as the data plane would have left them. */
export function recordUsage(db: Db, rng: Prng, now: Date, seed: UsageSeed): void {
  const gateway = db.gateways.find((g) => g.gateway_id === seed.gatewayId);
  if (!gateway) throw new Error(`addUsage: no gateway ${seed.gatewayId}`);
  const credential = db.credentials.find((c) => gateway.credential_ids.includes(c.credential_id))!;
  const at = new Date(now.getTime() - (seed.ago ?? 0)).toISOString();
  const total = microsOf(seed.costUsd);
  for (let i = 0; i < seed.requests; i++) {
    // The first requests carry the remainder, so the sum is exact.
    const micros = Math.floor(total / seed.requests) + (i < total % seed.requests ? 1 : 0);
    db.logs.push({
      log_id: rng.uuid(),
      account_id: gateway.account_id,
      gateway_id: gateway.gateway_id,
      project_id: gateway.project_id,
      token_id: seed.tokenId ?? null,
      provider_id: credential.provider_id,
      credential_id: credential.credential_id,
      model: seed.model,
      status: 'success',
      status_code: 200,
      latency_ms: 100,
      input_tokens: 100,
      output_tokens: 50,
      cost_usd: formatUsd(micros),
      cost_micros: micros,
      created_at: at,
      request_body: { model: seed.model },
      response_body: { model: seed.model },
    });
  }
  db.logs.sort((a, b) => a.created_at.localeCompare(b.created_at));
}
