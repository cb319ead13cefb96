/**
 * Connection settings shared by every command that talks to the API (plan,
 * apply, destroy, export): the API address, the token and the account, from
 * flags or the environment (flags win), and the number of requests in flight.
 * Missing settings are aborts that name the variable to set. The flags
 * themselves are declared in flags.ts; the account is found by locateState.
 */
import { createClient, type ApiClient, type ClientEvent } from '../api/client.js';
import type { CommandContext } from './command.js';
import { AbortError } from './errors.js';

export const DEFAULT_PARALLELISM = 10;

export interface ConnectionSettings {
  baseUrl: string;
  token: string;
  parallelism: number;
}

const flag = (ctx: CommandContext, name: string): string | undefined => {
  const value = ctx.values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

export function parseParallelism(value: unknown): number {
  if (value === undefined) return DEFAULT_PARALLELISM;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < 1 || n > 256) {
    throw new AbortError(`--parallelism must be a whole number from 1 to 256, not "${String(value)}".`);
  }
  return n;
}

export function connectionSettings(ctx: CommandContext): ConnectionSettings {
  const baseUrl = flag(ctx, 'base-url') ?? ctx.env.CPLANE_BASE_URL;
  if (!baseUrl) {
    throw new AbortError('No API address: CPLANE_BASE_URL is not set.', 'Set CPLANE_BASE_URL (e.g. http://127.0.0.1:4010 for `cplane emulator`) or pass --base-url.');
  }
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http');
  } catch {
    throw new AbortError(`The API address "${baseUrl}" is not an http(s) URL.`, 'Set CPLANE_BASE_URL to the API address, e.g. https://api.example.com.');
  }
  const fromFlag = flag(ctx, 'token');
  if (fromFlag) ctx.stderr.write('Warning: --token puts the token in the process list and shell history; prefer setting CPLANE_TOKEN.\n');
  const token = fromFlag ?? ctx.env.CPLANE_TOKEN;
  if (!token) throw new AbortError('No API token: CPLANE_TOKEN is not set.', 'Set CPLANE_TOKEN to a personal access token (sk-svc-pat-...) or a Service Account token (sk-svc-sa-...).');
  if (/\s/.test(token)) throw new AbortError('The API token contains white space.', 'Check CPLANE_TOKEN: copy the token again without spaces or line breaks.');
  return { baseUrl, token, parallelism: parseParallelism(ctx.values.parallelism) };
}

export function connect(
  ctx: CommandContext,
  options: { account?: string; onEvent?: (event: ClientEvent) => void; settings?: ConnectionSettings } = {},
): ApiClient {
  const settings = options.settings ?? connectionSettings(ctx);
  return createClient({
    baseUrl: settings.baseUrl,
    token: settings.token,
    concurrency: settings.parallelism,
    ...(options.account ? { accountId: options.account } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
}
