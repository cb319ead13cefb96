/**
 * "A Service Account named here": what any kind that names one (a record grant, a gateway token issued to
 * one) calls to turn the name in its configuration into the live Service Account, or into a plan problem
 * that points at the name's file:line:col with the closest names suggested. A kind that calls it declares
 * `lookups: [serviceAccounts]`, so refresh reads `GET /service-accounts` once for all of them.
 */
import type { ServiceAccountT } from '../api/shapes.js';
import { didYouMean } from '../config/index.js';
import { serviceAccounts } from './lookups.js';
import type { Known, Problem } from './types.js';

export type ServiceAccountFound =
  { serviceAccount: ServiceAccountT; problem?: undefined } | { serviceAccount?: undefined; problem: Problem };

/** What naming a Service Account needs of what the planner knows: the account and the Service Accounts read. */
export type AccountLookups = Pick<Known, 'account' | 'find' | 'list'>;

/**
 * The Service Accounts `nameOrId` may name: the one with that id; else those of this account with that name
 * (the API does not say names are unique); else another account's of that name (refused by the caller).
 */
function candidates(all: readonly ServiceAccountT[], account: string, nameOrId: string): ServiceAccountT[] {
  const byId = all.find((s) => s.service_account_id === nameOrId);
  if (byId) return [byId];
  const named = all.filter((s) => s.name === nameOrId);
  const ours = named.filter((s) => s.account_id === account);
  return ours.length > 0 ? ours : named.slice(0, 1);
}

/**
 * How configuration names the live Service Account `id`: its name when that names it alone (no other Service
 * Account of the account has it), else its id; the id too when the Service Accounts were not read or lack it.
 */
export function serviceAccountLabel(known: AccountLookups, id: string): string {
  const found = known.find(serviceAccounts, id);
  if (!found) return id;
  const only = candidates(known.list(serviceAccounts) ?? [found], known.account, found.name);
  return only.length === 1 && only[0] === found ? found.name : id;
}

/**
 * The active Service Account of this account named `nameOrId` (a name as the API lists it, or an id), or why
 * it cannot be used: unknown (with suggestions), of another account, or inactive. `field` is the entry's
 * field that holds the name (`serviceAccount`), so the problem points at its value; leave it out when the
 * whole entry is the name (a grant in `grants.serviceAccounts`).
 */
export function resolveServiceAccount(known: AccountLookups, nameOrId: string, field?: string): ServiceAccountFound {
  const at = field === undefined ? {} : { field };
  const all = known.list(serviceAccounts);
  if (all === undefined) {
    return {
      problem: {
        ...at,
        code: 'service_accounts_unreadable',
        summary: `the Service Account "${nameOrId}" cannot be checked: the account's Service Accounts could not be read`,
        detail:
          "Plan with a token that may list Service Accounts (GET /service-accounts needs a person's token with service-accounts:read).",
      },
    };
  }
  const matches = candidates(all, known.account, nameOrId);
  if (matches.length > 1) {
    return {
      problem: {
        ...at,
        code: 'ambiguous_service_account',
        summary: `${matches.length} Service Accounts of account ${known.account} are named "${nameOrId}"`,
        detail: `Name the one you mean by its id: ${matches.map((s) => `${s.service_account_id} (${s.status})`).join(', ')}.`,
      },
    };
  }
  const found = matches[0];
  if (!found) {
    const names = all.filter((s) => s.account_id === known.account).map((s) => s.name);
    return {
      problem: {
        ...at,
        code: 'unknown_service_account',
        summary: `no Service Account "${nameOrId}" in account ${known.account}${didYouMean(nameOrId, names)}`,
        detail: names.length
          ? `Its Service Accounts: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', ...' : ''}. Names are as GET /service-accounts lists them.`
          : 'The account has no Service Account; create one in the dashboard.',
      },
    };
  }
  if (found.account_id !== known.account) {
    return {
      problem: {
        ...at,
        code: 'service_account_other_account',
        summary: `the Service Account "${nameOrId}" belongs to account ${found.account_id}, not to ${known.account}`,
        detail: 'Name a Service Account of the account this configuration is applied to.',
      },
    };
  }
  if (found.status !== 'active') {
    return {
      problem: {
        ...at,
        code: 'service_account_inactive',
        summary: `the Service Account "${found.name}" is inactive`,
        detail: 'An inactive Service Account cannot read or use anything: activate it in the dashboard, or name another one.',
      },
    };
  }
  return { serviceAccount: found };
}
