// A stand-in for the GitHub REST API that `cplane apply --from-comment` reads, on 127.0.0.1: a collaborator's
// permission, one pull request (head commit, author, state), its reviews, its head commit's check runs and combined
// status; and the comments it receives. A test sets `pr`, `permissions`, `reviews`, `checkRuns` and `status`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Review {
  user: { login: string };
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED';
  commit_id: string;
}

export interface PullRequestApi {
  url: string;
  repository: string;
  pr: { number: number; head: { sha: string }; user: { login: string }; state: 'open' | 'closed' };
  /** login -> `permission` as GitHub answers it (admin, write, read, none). */
  permissions: Record<string, string>;
  reviews: Review[];
  checkRuns: { name: string; status: string; conclusion: string | null }[];
  status: { state: string; total_count: number };
  comments: { body: string }[];
  requests: string[];
  close(): Promise<void>;
}

export async function pullRequestApi(repository: string, number: number, head: string, author: string): Promise<PullRequestApi> {
  const api = {
    repository,
    pr: { number, head: { sha: head }, user: { login: author }, state: 'open' as const },
    permissions: {} as Record<string, string>,
    reviews: [] as Review[],
    checkRuns: [] as PullRequestApi['checkRuns'],
    status: { state: 'pending', total_count: 0 },
    comments: [] as { body: string }[],
    requests: [] as string[],
  };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      api.requests.push(`${req.method} ${url.pathname}`);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== 'Bearer gh-test-token') return send(401, { message: 'Bad credentials' });
      const path = url.pathname.replace(`/repos/${repository}`, '');
      const page = Number(url.searchParams.get('page') ?? '1');
      const paged = <T>(items: T[]) => (page === 1 ? items : []);
      const permission = /^\/collaborators\/([^/]+)\/permission$/.exec(path);
      if (permission) return send(200, { permission: api.permissions[decodeURIComponent(permission[1]!)] ?? 'none' });
      if (path === `/pulls/${number}`) return send(200, api.pr);
      if (path === `/pulls/${number}/reviews`) return send(200, paged(api.reviews));
      if (path === `/commits/${api.pr.head.sha}/check-runs`)
        return send(200, { total_count: api.checkRuns.length, check_runs: paged(api.checkRuns) });
      if (path === `/commits/${api.pr.head.sha}/status`) return send(200, api.status);
      if (req.method === 'POST' && path === `/issues/${number}/comments`) {
        api.comments.push(JSON.parse(text) as { body: string });
        return send(201, { id: api.comments.length });
      }
      send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(api, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
