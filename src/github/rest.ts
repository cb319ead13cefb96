/**
 * The GitHub REST API as the action's scripts call it: one JSON request at a
 * time, with the token in the Authorization header, redirects refused, and a
 * failed answer turned into an error naming the method, the path and the status.
 */

export type GithubCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Calls relative to `${apiUrl}/repos/${repository}`. */
export function githubRepository(apiUrl: string, repository: string, token: string): GithubCall {
  const base = `${apiUrl.replace(/\/+$/, '')}/repos/${repository}`;
  return async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
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
    if (!response.ok) throw new Error(`${method} /repos/${repository}${path} answered ${response.status} ${(await response.text()).slice(0, 300)}`);
    return response.status === 204 ? undefined : response.json();
  };
}
