/**
 * Connection settings shared by every command that talks to the API (plan,
 * apply, destroy, export): the token and the address the runner bound it to
 * (config/blocks/token-binding.ts), from flags or the environment (flags win), and the number of requests in flight.
 * Missing settings are aborts that name the variable to set. The flags
 * themselves are declared in src/cli/flags.ts; the account is found by locateState.
 */
import { createClient, type ApiClient, type ClientEvent, type ClientOptions } from '../api/client.js';
import type { CommandContext } from './command-context.js';
import { AbortError } from '../errors.js';
import { registerSecret } from '../text/safe-text.js';
import { addressVariableOf, boundAddress, sameAddress, shownAddress, tokenVariableOf } from '../config/index.js';

export const DEFAULT_PARALLELISM = 10;

export interface ConnectionSettings {
  baseUrl: string;
  token: string;
  parallelism: number;
  /** CPLANE_REQUEST_TIMEOUT (seconds) as ms; undefined for the client's default. */
  timeoutMs?: number;
  /** CPLANE_MAX_RESPONSE_MB as bytes; undefined for the client's default. */
  maxResponseBytes?: number;
  allowInsecureHttp: boolean;
  /** CPLANE_RATE=fixed: send at --parallelism alone, without finding the token's request rate (for comparison). */
  fixedRate?: boolean;
}

/** A positive number from an environment variable, or undefined when it is not set. */
function positiveEnv(ctx: CommandContext, name: string): number | undefined {
  const text = ctx.env[name];
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new AbortError(`${name} must be a positive number, not "${text}".`);
  return n;
}

/** The client's options for these settings: the one place a command's client is configured. */
export function clientOptionsOf(settings: ConnectionSettings, account?: string): ClientOptions {
  return {
    baseUrl: settings.baseUrl,
    token: settings.token,
    concurrency: settings.parallelism,
    allowInsecureHttp: settings.allowInsecureHttp,
    ...(settings.fixedRate ? { adaptiveRate: false } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.maxResponseBytes !== undefined ? { maxResponseBytes: settings.maxResponseBytes } : {}),
    ...(account ? { accountId: account } : {}),
  };
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

/** The environment variable the token is read from: CPLANE_TOKEN_<NAME> for a deployment's `token: NAME`, else CPLANE_TOKEN. */
export const tokenVariable = (ctx: CommandContext): string => tokenVariableOf(ctx.deployment?.tokenName);

/** The token as given, before any check (empty when none is): what a command looks at before it sends anything. */
export const givenToken = (ctx: CommandContext): string => String(ctx.values.token ?? ctx.env[tokenVariable(ctx)] ?? '');

/**
 * The token: --token, else CPLANE_TOKEN; for a deployment that chooses its own (`token: NAME`, docs/deployments.md),
 * CPLANE_TOKEN_<NAME> only: a job holding one deployment's token runs that deployment, and a shared token never reaches another's account.
 */
function tokenOf(ctx: CommandContext): string {
  const own = ctx.deployment?.tokenName;
  const fromFlag = flag(ctx, 'token');
  if (own !== undefined) {
    const variable = tokenVariableOf(own);
    if (fromFlag)
      throw new AbortError(
        `--token cannot be used for the deployment ${ctx.deployment!.name}: it chooses its own token (token: ${own}, read from ${variable}).`,
        `Leave --token out and set ${variable}.`,
      );
    const token = ctx.env[variable];
    if (!token)
      throw new AbortError(
        `No API token for the deployment ${ctx.deployment!.name}: ${variable} is not set.`,
        `Set ${variable} to the token of its account (its deployments: entry says token: ${own}); CPLANE_TOKEN is not used for it.`,
      );
    return token;
  }
  if (fromFlag) ctx.stderr.write('Warning: --token puts the token in the process list and shell history; prefer setting CPLANE_TOKEN.\n');
  const token = fromFlag ?? ctx.env.CPLANE_TOKEN;
  if (!token)
    throw new AbortError(
      'No API token: CPLANE_TOKEN is not set.',
      'Set CPLANE_TOKEN to a personal access token (sk-svc-pat-...) or a Service Account token (sk-svc-sa-...).',
    );
  return token;
}

/**
 * Where the token goes: the address the runner bound it to (config/blocks/token-binding.ts), never one the configuration
 * names. A deployment's `baseUrl` is only checked against it (loading the configuration already refused a mismatch:
 * this is the last guard before anything is sent).
 */
function boundBaseUrl(ctx: CommandContext): string {
  const deployment = ctx.deployment;
  const bound = boundAddress(ctx.env, deployment?.tokenName, flag(ctx, 'base-url'));
  if (!bound.url) {
    throw new AbortError(
      deployment?.tokenName !== undefined
        ? `No API address for the deployment ${deployment.name}: ${bound.from} is not set.`
        : 'No API address: CPLANE_BASE_URL is not set.',
      deployment?.tokenName !== undefined
        ? `Set ${addressVariableOf(deployment.tokenName)} (or CPLANE_BASE_URL) to the address its token is for: the configuration's baseUrl never says where a token goes.`
        : 'Set CPLANE_BASE_URL (e.g. http://127.0.0.1:4010 for `cplane emulator`) or pass --base-url.',
    );
  }
  if (deployment?.baseUrl !== undefined && !sameAddress(deployment.baseUrl, bound.url)) {
    throw new AbortError(
      `The deployment ${deployment.name} has baseUrl: ${shownAddress(deployment.baseUrl)}, but its token (${tokenVariable(ctx)}) is bound to ${shownAddress(bound.url)} (${bound.from}). Nothing was sent.`,
      'A configuration cannot send a token elsewhere: leave baseUrl out, or bind the token to that address on the runner (docs/deployments.md#one-credential-per-deployment).',
    );
  }
  return bound.url;
}

export function connectionSettings(ctx: CommandContext): ConnectionSettings {
  const baseUrl = boundBaseUrl(ctx);
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http');
  } catch {
    throw new AbortError(
      `The API address "${baseUrl}" is not an http(s) URL.`,
      'Set CPLANE_BASE_URL to the API address, e.g. https://api.example.com.',
    );
  }
  const token = tokenOf(ctx);
  registerSecret(token);
  if (/\s/.test(token))
    throw new AbortError(
      'The API token contains white space.',
      `Check ${tokenVariable(ctx)}: copy the token again without spaces or line breaks.`,
    );
  const timeoutSeconds = positiveEnv(ctx, 'CPLANE_REQUEST_TIMEOUT');
  const maxResponseMb = positiveEnv(ctx, 'CPLANE_MAX_RESPONSE_MB');
  return {
    baseUrl,
    token,
    parallelism: parseParallelism(ctx.values.parallelism),
    ...(timeoutSeconds !== undefined ? { timeoutMs: Math.round(timeoutSeconds * 1000) } : {}),
    ...(maxResponseMb !== undefined ? { maxResponseBytes: Math.round(maxResponseMb * 1024 * 1024) } : {}),
    allowInsecureHttp: ctx.values['allow-insecure-http'] === true || ['1', 'true'].includes(ctx.env.CPLANE_ALLOW_INSECURE_HTTP ?? ''),
    ...(ctx.env.CPLANE_RATE === 'fixed' ? { fixedRate: true } : {}),
  };
}

export function connect(
  ctx: CommandContext,
  options: { account?: string; onEvent?: (event: ClientEvent) => void; settings?: ConnectionSettings } = {},
): ApiClient {
  const settings = options.settings ?? connectionSettings(ctx);
  const shared = ctx.deployment?.sharedLimiter;
  return createClient({
    ...clientOptionsOf(settings, options.account),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(shared ? { sharedLimiter: shared } : {}),
  });
}
