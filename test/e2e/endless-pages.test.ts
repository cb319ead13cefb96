// A hostile server must not make a command run or grow without end (issue 47, docs/security.md "Bounds"): a lying
// proxy that answers every page of the project list with a full page of new projects, or with pages of 5 MB, stops
// the real CLI at the client's list bounds (src/api/client.ts DEFAULT_LIST_LIMITS) with one error naming the
// operation, and nothing is written. The bound is asserted on what the proxy served, never on wall-clock time.
import { afterEach, expect, test } from 'vitest';
import { lyingProxy, type LyingProxy, type ProxiedRequest } from '../helpers/lying-proxy.js';
import { world, type World } from './helpers.js';

let w: World;
let proxy: LyingProxy;
afterEach(async () => {
  await proxy?.close();
  await w?.close();
});

const config = (projects: string[]) => `version: 1
projects:
${projects.map((p) => `  ${p}: { description: ${p} }`).join('\n')}
`;

/** What the proxy served: list pages, bytes of them, and every request that was not a read. */
interface Served {
  pages: number;
  bytes: number;
  writes: string[];
}

/** The proxy's lie: every page of GET /v1/projects is full (`limit` projects, made from the first real one), padded by `pad` bytes each. */
async function endlessProjects(pad = 0): Promise<Served> {
  w = await world();
  w.config(config(['core']));
  expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
  const served: Served = { pages: 0, bytes: 0, writes: [] };
  // The real project, as the first page gives it: the model of every made-up one.
  let template: Record<string, unknown> | undefined;
  proxy = await lyingProxy(w.emulator.url, (request: ProxiedRequest, answer) => {
    if (request.method !== 'GET') served.writes.push(`${request.method} ${request.path}`);
    if (request.method !== 'GET' || request.path !== '/v1/projects') return undefined;
    const query = new URLSearchParams(request.query);
    const [limit, offset] = [Number(query.get('limit')), Number(query.get('offset'))];
    const envelope = answer.json as { ok: true; data: Record<string, unknown>[] };
    template ??= envelope.data[0]!;
    const data = Array.from({ length: limit }, (_, i) => ({
      ...template,
      project_id: `00000000-0000-4000-8000-${String(offset + i).padStart(12, '0')}`,
      name: `fake-${offset + i}`,
      ...(pad ? { description: 'x'.repeat(pad) } : {}),
    }));
    served.pages++;
    served.bytes += Buffer.byteLength(JSON.stringify({ ...envelope, data }));
    return { ...envelope, data };
  });
  return served;
}

test('a server that always answers the project list with a full page stops `plan` with one error naming the operation', async () => {
  const served = await endlessProjects();
  const plan = await w.cli(['plan', w.dir], { CPLANE_BASE_URL: proxy.url });
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain(
    'listProjects: the API kept answering this list past 100000 objects, far more than any real account holds; reading stopped and nothing was written. ' +
      'Check CPLANE_BASE_URL: the server may be broken or not the control-plane API.',
  );
  expect(plan.stderr.match(/listProjects:/g)).toHaveLength(1);
  // 100,000 objects are 500 full pages of 200: the walk stopped at the first page past them.
  expect(served.pages).toBeGreaterThanOrEqual(501);
  expect(served.pages).toBeLessThanOrEqual(510);
  expect(served.writes).toEqual([]);
});

test('pages of 5 MB stop `apply` at the first page, before anything is written', async () => {
  const served = await endlessProjects(25_000);
  w.config(config(['core', 'extra']));
  const apply = await w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_BASE_URL: proxy.url });
  expect(apply.code).toBe(1);
  expect(apply.stderr).toContain(
    'listProjects: the API answer is larger than 4 MiB, the limit for one answer; no more of it was read. If the answer is expected to be this large, raise CPLANE_MAX_RESPONSE_MB.',
  );
  expect(served.pages).toBe(1);
  expect(served.bytes).toBeGreaterThan(5_000_000);
  expect(served.writes).toEqual([]);
  expect((await w.client.listAll('listProjects', {})).map((p) => p.name)).not.toContain('extra');
});
