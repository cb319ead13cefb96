/**
 * Gateway tokens: the plaintext (`gwt_...`) exists only in the creation result;
 * afterwards only its first 8 characters (`token_prefix`) and a hash are kept.
 * Revoke keeps the row with `revoked_at`; delete removes it. Names are not unique.
 */
import { randomBytes } from 'node:crypto';
import type { GatewayTokenT } from '../../api/shapes.js';
import { newId, omit, page, userOf, type Handlers } from '../handler-call.js';
import { fingerprint } from '../defaults.js';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import type { Db, TokenRow } from '../store.js';
import { enabledGateway, findGateway } from './gateways.js';

const SCOPES = new Set(['run', 'read_logs']);
const SPEND_WINDOWS = new Set(['daily', 'weekly', 'monthly']);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const tokenView = (row: TokenRow): GatewayTokenT => structuredClone(omit(row, 'account_id', 'token_hash'));

function newPlaintext(): string {
  return `gwt_${Array.from(randomBytes(40), (b) => ALPHABET[b % ALPHABET.length]).join('')}`;
}

function findToken(db: Db, gatewayId: string, tokenId: string): TokenRow {
  const token = db.tokens.find((t) => t.token_id === tokenId);
  if (!token) throw notFound('token_not_found');
  const gateway = db.gateways.find((g) => g.gateway_id === gatewayId);
  if (token.account_id !== gateway?.account_id) throw forbidden('not_authorized');
  if (token.gateway_id !== gatewayId) throw notFound('token_not_found');
  return token;
}

export const tokenHandlers = {
  listGatewayTokens: ({ db, accountId, params, query }) => {
    const gateway = findGateway(db, params.id!, accountId);
    return page(
      db.tokens.filter((t) => t.gateway_id === gateway.gateway_id),
      query,
    ).map(tokenView);
  },

  createGatewayToken: ({ db, accountId, params, body, now, caller }) => {
    const gateway = enabledGateway(db, params.id!, accountId);
    const unknownScopes = body.scopes.filter((s) => !SCOPES.has(s));
    if (unknownScopes.length)
      throw badRequest(
        'invalid_token_scope',
        unknownScopes.map((s) => `scopes: unknown scope "${s}" (known: run, read_logs)`),
      );
    if (body.spendWindow && !SPEND_WINDOWS.has(body.spendWindow))
      throw badRequest('invalid_spend_window', ['spendWindow: one of daily, weekly, monthly']);
    if (body.spendWindow && !body.spendLimit) throw badRequest('spend_window_without_limit', ['spendWindow: only with a spendLimit']);
    let serviceAccountId: string | null = null;
    if (body.serviceAccountId !== undefined) {
      const sa = db.serviceAccounts.find((s) => s.service_account_id === body.serviceAccountId);
      if (!sa || sa.account_id !== accountId) throw forbidden('service_account_not_in_account');
      if (sa.status !== 'active') throw conflict('service_account_inactive');
      serviceAccountId = sa.service_account_id;
    }
    const plaintext = newPlaintext();
    const at = now.toISOString();
    const row: TokenRow = {
      token_id: newId(),
      gateway_id: gateway.gateway_id,
      account_id: accountId,
      name: body.name,
      token_prefix: plaintext.slice(0, 8),
      scopes: [...body.scopes],
      principal_type: serviceAccountId ? 'service_account' : 'user',
      owner_user_id: serviceAccountId ? null : userOf(caller),
      service_account_id: serviceAccountId,
      allowed_models: [...(body.allowedModels ?? [])],
      spend_limit: body.spendLimit ?? null,
      spend_window: body.spendLimit ? (body.spendWindow ?? 'daily') : (body.spendWindow ?? null),
      rate_limit_per_min: body.rateLimitPerMin ?? null,
      created_at: at,
      last_used_at: null,
      expires_at: body.expiresInDays ? new Date(now.getTime() + body.expiresInDays * 86_400_000).toISOString() : null,
      revoked_at: null,
      token_hash: fingerprint(plaintext),
    };
    db.tokens.push(row);
    return { ...tokenView(row), plaintext };
  },

  renameGatewayToken: ({ db, accountId, params, body }) => {
    const gateway = findGateway(db, params.id!, accountId);
    const token = findToken(db, gateway.gateway_id, params.tokenId!);
    if (token.revoked_at) throw conflict('token_revoked');
    token.name = body.name;
    return tokenView(token);
  },

  revokeGatewayToken: ({ db, accountId, params, now }) => {
    const gateway = findGateway(db, params.id!, accountId);
    const token = findToken(db, gateway.gateway_id, params.tokenId!);
    if (token.revoked_at) throw conflict('token_already_revoked');
    token.revoked_at = now.toISOString();
    return tokenView(token);
  },

  deleteGatewayToken: ({ db, accountId, params }) => {
    const gateway = findGateway(db, params.id!, accountId);
    const token = findToken(db, gateway.gateway_id, params.tokenId!);
    db.tokens.splice(db.tokens.indexOf(token), 1);
    return { token_id: token.token_id, deleted: true as const };
  },
} satisfies Partial<Handlers>;
