/**
 * The account's records, listed once per refresh for every kind observed through that list: the records
 * themselves and their grants (record-grant.ts), which the list shows as ids. The refresh hands every kind the
 * same `shared` lists (RefreshRequest), and a new one to the next refresh.
 */
import type { RecordMetaT } from '../api/shapes.js';
import type { RefreshRequest } from './types.js';

/** Every record of the account, archived ones included (all pages), read once per refresh. */
export function listRecordsOnce({ client, account, expected, shared }: RefreshRequest): Promise<RecordMetaT[]> {
  let found = shared.get('listRecords') as Promise<RecordMetaT[]> | undefined;
  if (!found) {
    // One account-wide list instead of one list per project: requests grow with pages, not with projects.
    found = client.listAll('listRecords', { query: { accountId: account, includeArchived: true } }, { expected: expected() });
    shared.set('listRecords', found);
  }
  return found;
}
