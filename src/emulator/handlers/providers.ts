/**
 * Providers and provider credentials. Secrets are write-only: only a
 * fingerprint is kept and no read returns them. A credential's base URL must be
 * https and must not point at loopback, private or link-local hosts.
 */
import { isIP } from 'node:net';
import type { CredentialT } from '../../api/shapes.js';
import { newId, omit, owned, page, type Handlers } from '../handler-call.js';
import { fingerprint } from '../defaults.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { CredentialRow, Db } from '../store.js';

export const credentialView = (row: CredentialRow): CredentialT => omit(row, 'secret_fingerprint');

function privateIpv4(host: string): boolean {
  const [a = 0, b = 0] = host.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

function privateIpv6(host: string): boolean {
  const h = host.toLowerCase();
  if (h === '::1' || h === '::') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (mapped) return privateIpv4(mapped[1]!);
  return /^f[cd]/.test(h) || /^fe[89ab]/.test(h);
}

/** Throws 400 `base_url_not_allowed` unless the URL is https to a public host. */
export function checkBaseUrl(value: string | null | undefined): void {
  if (value === null || value === undefined) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest('base_url_not_allowed', ['baseUrl: not a valid URL']);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const reasons: string[] = [];
  if (url.protocol !== 'https:') reasons.push('baseUrl: must use https');
  if (url.username || url.password) reasons.push('baseUrl: must not carry credentials');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal'))
    reasons.push('baseUrl: host is local');
  const ip = isIP(host);
  if ((ip === 4 && privateIpv4(host)) || (ip === 6 && privateIpv6(host)))
    reasons.push('baseUrl: host is a loopback, private or link-local address');
  if (reasons.length) throw badRequest('base_url_not_allowed', reasons);
}

function checkSecret(secret: string): void {
  // A real provider rejects a key it cannot use; the emulator's stand-in rule is a minimum length.
  if (secret.trim().length < 8) throw badRequest('provider_key_rejected', ['secret: the provider rejected this key']);
}

function findCredential(db: Db, id: string, accountId: string): CredentialRow {
  return owned(db.credentials, 'credential_id', id, accountId, 'credential_not_found');
}

function activeCredential(db: Db, id: string, accountId: string): CredentialRow {
  const credential = findCredential(db, id, accountId);
  if (credential.status === 'revoked') throw conflict('credential_revoked');
  return credential;
}

export const providerHandlers = {
  listProviders: ({ db }) => db.providers.map((p) => ({ ...p, models: [...p.models] })),

  listCredentials: ({ db, accountId, query }) =>
    page(
      db.credentials.filter((c) => c.account_id === accountId && (query.includeRevoked || c.status === 'active')),
      query,
    ).map(credentialView),

  createCredential: ({ db, accountId, body, now }) => {
    if (!db.providers.some((p) => p.provider_id === body.providerId)) throw notFound('provider_not_found');
    checkBaseUrl(body.baseUrl);
    checkSecret(body.secret);
    const at = now.toISOString();
    const row: CredentialRow = {
      credential_id: newId(),
      account_id: accountId,
      provider_id: body.providerId,
      label: body.label,
      base_url: body.baseUrl ?? null,
      status: 'active',
      created_at: at,
      updated_at: at,
      rotated_at: null,
      secret_fingerprint: fingerprint(body.secret),
    };
    db.credentials.push(row);
    return credentialView(row);
  },

  listCredentialModels: ({ db, accountId, params }) => {
    const credential = activeCredential(db, params.id!, accountId);
    const provider = db.providers.find((p) => p.provider_id === credential.provider_id);
    if (!provider) throw notFound('provider_not_found');
    return provider.models.map((model) => ({ model_id: model, provider_id: provider.provider_id }));
  },

  rotateCredential: ({ db, accountId, params, body, now }) => {
    const credential = activeCredential(db, params.id!, accountId);
    checkSecret(body.secret);
    const at = now.toISOString();
    Object.assign(credential, { secret_fingerprint: fingerprint(body.secret), rotated_at: at, updated_at: at });
    return credentialView(credential);
  },

  updateCredential: ({ db, accountId, params, body, now }) => {
    const credential = activeCredential(db, params.id!, accountId);
    checkBaseUrl(body.baseUrl);
    if (body.label !== undefined) credential.label = body.label;
    if (body.baseUrl !== undefined) credential.base_url = body.baseUrl;
    credential.updated_at = now.toISOString();
    return credentialView(credential);
  },

  deleteCredential: ({ db, accountId, params, now }) => {
    const credential = activeCredential(db, params.id!, accountId);
    Object.assign(credential, { status: 'revoked', updated_at: now.toISOString() });
    return credentialView(credential);
  },
} satisfies Partial<Handlers>;
