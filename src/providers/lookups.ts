/**
 * Read-only lookups the providers need but never manage: the accounts a
 * token can reach and the AI providers, found by name or by id.
 */
import type { ApiClient } from '../api/client.js';
import type { AccountT, ProviderT } from '../api/shapes.js';

export async function listAccounts(client: ApiClient): Promise<AccountT[]> {
  return client.call('listAccounts', {});
}

export async function listProviders(client: ApiClient): Promise<ProviderT[]> {
  return client.call('listProviders', {});
}

/** Finds a provider by id or by name (names compare without regard to case). */
export function findProvider(providers: readonly ProviderT[], nameOrId: string): ProviderT | undefined {
  const lower = nameOrId.toLowerCase();
  return providers.find((p) => p.provider_id === nameOrId) ?? providers.find((p) => p.name.toLowerCase() === lower);
}
