/**
 * Read-only lookups the providers need but never manage: the accounts a
 * token can reach and the AI vendors (the API's "providers"), found by name
 * or by id.
 */
import type { ApiClient } from '../api/client.js';
import type { AccountT, ProviderT } from '../api/shapes.js';

export async function listAccounts(client: ApiClient): Promise<AccountT[]> {
  return client.call('listAccounts', {});
}

export async function listVendors(client: ApiClient): Promise<ProviderT[]> {
  return client.call('listProviders', {});
}

/** Finds an AI vendor by id or by name (names compare without regard to case). */
export function findVendor(vendors: readonly ProviderT[], nameOrId: string): ProviderT | undefined {
  const lower = nameOrId.toLowerCase();
  return vendors.find((v) => v.provider_id === nameOrId) ?? vendors.find((v) => v.name.toLowerCase() === lower);
}
