/**
 * Reads every page of a list, asking for the pages it expects all at once.
 * The API pages by offset with no total, so a plain walk waits one round trip
 * per page; when state says roughly how many objects there are, those pages
 * are requested together (the client bounds how many are in flight), and the
 * walk continues one page at a time only past the last full page.
 */
import { MAX_PAGE_SIZE, type ApiClient, type ItemOf, type PaginatedOperation } from '../api/client.js';
import type { RequestOf } from '../api/operations.js';

export async function listPages<K extends PaginatedOperation>(client: ApiClient, operation: K, request: RequestOf<K>, expected: number): Promise<ItemOf<K>[]> {
  const req = request as { path?: Record<string, string>; query?: Record<string, unknown> };
  const page = async (index: number): Promise<ItemOf<K>[]> => {
    const response = await client.send(operation, { path: req.path, query: { ...req.query, limit: MAX_PAGE_SIZE, offset: index * MAX_PAGE_SIZE } });
    return response.data as unknown as ItemOf<K>[];
  };
  // One more object than expected still fits: a page that comes back full means there may be more.
  const first = Math.max(1, Math.ceil((expected + 1) / MAX_PAGE_SIZE));
  const pages = await Promise.all(Array.from({ length: first }, (_, i) => page(i)));
  for (let next = first; (pages.at(-1)?.length ?? 0) === MAX_PAGE_SIZE; next++) pages.push(await page(next));
  return pages.flat();
}
