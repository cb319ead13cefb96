/**
 * The GitHub REST API as the action's scripts call it: one JSON request at a
 * time, with the token in the Authorization header, redirects refused, and a
 * failed answer turned into an error naming the method, the path and the status.
 */

export type GithubCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Calls relative to the API's root (`/user`). */
export function githubApi(apiUrl: string, token: string): GithubCall {
  const root = apiUrl.replace(/\/+$/, '');
  return async (method, path, body) => {
    const response = await fetch(`${root}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'error',
    });
    const text = await boundedText(response);
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status} ${text.slice(0, 300)}`);
    return response.status === 204 ? undefined : (JSON.parse(text) as unknown);
  };
}

/** The most of one answer read: GitHub's answers are untrusted, and a page of 100 items is far below this. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

async function boundedText(response: Response): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).byteLength;
    // Leaving the loop by throwing cancels the rest of the body.
    if (size > MAX_ANSWER_BYTES) throw new Error(`${response.url} answered more than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Calls relative to `${apiUrl}/repos/${repository}`. */
export function githubRepository(apiUrl: string, repository: string, token: string): GithubCall {
  const call = githubApi(apiUrl, token);
  return (method, path, body) => call(method, `/repos/${repository}${path}`, body);
}

/** The logins whose comments and issues are cplane's: the Actions bot, and the token's own user when it may read `/user`. */
export async function ourAuthors(apiUrl: string, token: string): Promise<Set<string>> {
  const authors = new Set([ACTIONS_BOT]);
  // A GITHUB_TOKEN is refused here (403): then only the Actions bot writes ours.
  const me = await githubApi(apiUrl, token)('GET', '/user').catch(() => undefined);
  const login = (me as { login?: unknown } | undefined)?.login;
  if (typeof login === 'string') authors.add(login);
  return authors;
}

/** The author of comments and issues made with a workflow's GITHUB_TOKEN. */
export const ACTIONS_BOT = 'github-actions[bot]';
