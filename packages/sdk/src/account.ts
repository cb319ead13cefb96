/**
 * The account to read in when the caller names none. A Service Account belongs to one account, and account
 * discovery (`GET /accounts`) is human-only (spec, Authentication 5): its requests go without `x-account-id`
 * and the API takes its own account (docs/api-assumptions.md); the account the value was written in is then
 * the one its authenticated wrapper names. A personal access token lists its accounts: one is taken, several
 * are refused by name, since which one is meant is not for the SDK to guess.
 */
import type { Account, ReaderClient } from './client.js';
import { AccountError, clean } from './errors.js';

/** Each client's discovered account, asked once. */
const discovered = new WeakMap<ReaderClient, Promise<string>>();

/** The account of a human token (its only one), or undefined for a Service Account (the API knows its own). */
export async function discoverAccount(client: ReaderClient): Promise<string | undefined> {
  if (client.identity === 'service_account') return undefined;
  let found = discovered.get(client);
  if (!found) {
    found = client.call('listAccounts', {}).then(onlyAccount);
    discovered.set(client, found);
    found.catch(() => discovered.delete(client));
  }
  return found;
}

function onlyAccount(accounts: readonly Account[]): string {
  if (accounts.length === 1) return accounts[0]!.account_id;
  if (accounts.length === 0) throw new AccountError('ACCOUNT_NONE', 'The token can act in no account: ask an admin of the account that holds the record to add its user or Service Account.');
  const named = accounts.slice(0, 10).map((a) => `${clean(a.name)} (${clean(a.account_id)})`).join(', ');
  throw new AccountError(
    'ACCOUNT_AMBIGUOUS',
    `The token can act in ${accounts.length} accounts (${named}${accounts.length > 10 ? ', …' : ''}), so which one holds the record is not known: give accountId.`,
  );
}
