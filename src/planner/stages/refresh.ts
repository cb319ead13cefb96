/**
 * Refresh: a plan reads the live account through the one reader (account/read-account.ts) with its profile
 * (account/profiles.ts `planProfile`): the kinds its configuration or state has, the children of the parents in
 * state alongside the account-wide lists and those of parents it adopts next, and what it could not read recorded
 * in the plan instead of stopping it.
 */
import type { ApiClient } from '../../api/client.js';
import { planProfile, startReadingAccount, type AccountRead, type AccountReading } from '../../account/index.js';
import type { DesiredState } from '../../config/types.js';
import type { StateData } from '../../state/types.js';
import { readClocks } from './clocks.js';

/** What refresh read: the live objects per kind, the data sources, and what could not be read. */
export type LiveSnapshot = AccountRead;

export interface RefreshInput {
  client: ApiClient;
  account: string;
  desired: DesiredState | undefined;
  state: StateData;
  parallelism: number;
}

/** The refresh under way: make-plan.ts plans the addresses of each kind read in full while the other reads are in flight. */
export function startRefreshing(input: RefreshInput): AccountReading {
  const { client, account, desired, state, parallelism } = input;
  const profile = planProfile({ account, desired, state, clocks: () => readClocks(client.serverNow(), new Date()) });
  return startReadingAccount(client, { account, parallelism, profile });
}
