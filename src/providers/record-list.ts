/**
 * The account's records, listed once per refresh for every kind observed through that list: the records
 * themselves and their grants (record-grant.ts), which the list shows as ids. Refresh hands every kind the
 * same Limiter for one refresh and a new one for the next, so the Limiter is what "one refresh" is keyed on.
 */
import type { Limiter } from '../api/limiter.js';
import type { RecordMetaT } from '../api/shapes.js';
import type { RefreshRequest } from './types.js';

const listed = new WeakMap<Limiter, Promise<RecordMetaT[]>>();

/** Every record of the account, archived ones included (all pages), read once per refresh. */
export function listRecordsOnce({ client, account, expected, limiter }: RefreshRequest): Promise<RecordMetaT[]> {
  let found = listed.get(limiter);
  if (!found) {
    // One account-wide list instead of one list per project: requests grow with pages, not with projects.
    found = client.listAll('listRecords', { query: { accountId: account, includeArchived: true } }, { expected: expected() });
    listed.set(limiter, found);
  }
  return found;
}
