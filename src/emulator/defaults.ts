/**
 * Values a new object starts with (gateway settings, OTel export, data-plane
 * endpoints) and the one-way fingerprint used for write-only values.
 */
import { createHash } from 'node:crypto';
import type { GatewaySettingsT } from '../api/shapes.js';
import type { OtelRow } from './store.js';

export function defaultGatewaySettings(): GatewaySettingsT {
  return {
    requestsPerMinute: null,
    tokensPerMinute: null,
    spendLimitUsd: null,
    window: 'day',
    guardrails: { blockPii: false, blockedTerms: [], maxInputTokens: null },
    cache: { enabled: false, ttlSeconds: 0 },
  };
}

export function defaultOtel(): OtelRow {
  return { enabled: false, endpoint: null, exportMetrics: false, exportTraces: false, headers: {}, updatedAt: null };
}

/** The four data-plane endpoint styles; the data plane itself is not emulated. */
export function gatewayEndpoints(slug: string): Record<string, string> {
  const base = `https://gateway.emulator.invalid/${slug}`;
  return { openai: `${base}/openai/v1`, anthropic: `${base}/anthropic`, azure: `${base}/azure`, gemini: `${base}/gemini/v1beta` };
}

export function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
