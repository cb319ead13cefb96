/**
 * Data sources (after Terraform's): objects cplane reads but never manages, looked up by name or id while
 * planning. A kind declares the sources it uses (`lookups` of its definition); refresh reads each declared
 * source once, and the kind definitions find objects in it through `Known.find`: the AI vendors (the API's
 * "providers") and the account's Service Accounts by name (see service-accounts.ts for the checks a
 * reference to one gets). Also the accounts a token can reach.
 */
import type { ApiClient } from '../api/client.js';
import type { OperationName } from '../api/operations.js';
import type { AccountT, ProviderT, ServiceAccountT } from '../api/shapes.js';

export interface DataSource<T> {
  /** For people and for the plan's unreadable list: `AI vendors`. */
  readonly name: string;
  /** The operation `read` sends. */
  readonly operation: OperationName;
  read(client: ApiClient): Promise<T[]>;
  find(items: readonly T[], nameOrId: string): T | undefined;
}

/** What refresh read of each declared data source. */
export type LookupResults = ReadonlyMap<DataSource<unknown>, readonly unknown[]>;

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

/** The AI vendors a credential or a gateway names (`provider: openai`). */
export const vendors: DataSource<ProviderT> = { name: 'AI vendors', operation: 'listProviders', read: listVendors, find: findVendor };

/** Finds a Service Account by id or by its name as `GET /service-accounts` lists it (names compare exactly). */
export function findServiceAccount(accounts: readonly ServiceAccountT[], nameOrId: string): ServiceAccountT | undefined {
  return accounts.find((s) => s.service_account_id === nameOrId) ?? accounts.find((s) => s.name === nameOrId);
}

/** The account's Service Accounts (`GET /service-accounts`), which grants and tokens name. */
export const serviceAccounts: DataSource<ServiceAccountT> = {
  name: 'Service Accounts',
  operation: 'listServiceAccounts',
  read: (client) => client.call('listServiceAccounts', {}),
  find: findServiceAccount,
};

/** `Known.find` over what was read: an object of `source` by name or id, or undefined. */
export function finder(results: LookupResults): <T>(source: DataSource<T>, nameOrId: string) => T | undefined {
  return <T>(source: DataSource<T>, nameOrId: string) =>
    source.find((results.get(source as DataSource<unknown>) ?? []) as readonly T[], nameOrId);
}

/** `Known.list` over what was read: every object of `source`, or undefined when it was not read. */
export function lister(results: LookupResults): <T>(source: DataSource<T>) => readonly T[] | undefined {
  return <T>(source: DataSource<T>) => results.get(source as DataSource<unknown>) as readonly T[] | undefined;
}
