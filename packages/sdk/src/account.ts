/**
 * The account to read in, and the one a reader expects its value's wrapper to name. A personal access token lists
 * its accounts: one is taken, several are refused by name, since which one is meant is not for the SDK to guess.
 * A Service Account belongs to one account, but account discovery (`GET /accounts`) is human-only (spec,
 * Authentication 5), so only the application can say which: without it, any account's wrapper by a trusted writer
 * would be accepted, and one writer key would serve every deployment (`expectedAccount`).
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

/**
 * The account whose values a reader accepts: `accountId` (the caller's, or a reader manifest's), else the
 * client's, else a human token's only account. A Service Account token with none is refused (ACCOUNT_REQUIRED):
 * the API would read in its own account without saying which, and a wrapper for another account could not be told apart.
 */
export async function expectedAccount(client: ReaderClient, accountId: string | undefined): Promise<string> {
  const account = accountId ?? client.accountId ?? (await discoverAccount(client));
  if (account) return account;
  throw new AccountError(
    'ACCOUNT_REQUIRED',
    'A Service Account token reads only with the account it expects its values in, and none was given: give accountId, the id of the account the record is in (the owner of the configuration knows it), so a value written for another account is refused.',
  );
}

function onlyAccount(accounts: readonly Account[]): string {
  if (accounts.length === 1) return accounts[0]!.account_id;
  if (accounts.length === 0)
    throw new AccountError(
      'ACCOUNT_NONE',
      'The token can act in no account: ask an admin of the account that holds the record to add its user or Service Account.',
    );
  const named = accounts
    .slice(0, 10)
    .map((a) => `${clean(a.name)} (${clean(a.account_id)})`)
    .join(', ');
  throw new AccountError(
    'ACCOUNT_AMBIGUOUS',
    `The token can act in ${accounts.length} accounts (${named}${accounts.length > 10 ? ', …' : ''}), so which one holds the record is not known: give accountId.`,
  );
}
