/**
 * Which API token goes to which address (docs/security.md, "What a pull request can and cannot make cplane do").
 * The runner binds each token to an address outside the repository, as Terraform binds `TF_TOKEN_<host>` to its
 * host; the configuration only chooses among the tokens so bound, by name, and never names a variable:
 *
 * - `CPLANE_TOKEN` is sent only to `--base-url`, else `CPLANE_BASE_URL`;
 * - `CPLANE_TOKEN_<NAME>` (a deployment's `token: NAME`, NAME upper-cased) only to `CPLANE_BASE_URL_<NAME>`, else
 *   to `--base-url` / `CPLANE_BASE_URL`.
 *
 * A deployment's `baseUrl` chooses nothing: it must be the address its token is bound to, or the deployment is refused.
 */

/** A token's name as `token:` gives it: a letter, then letters, digits and `_`. */
export const TOKEN_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** The environment variable that holds the token a deployment's `token: NAME` chooses (CPLANE_TOKEN without one). */
export const tokenVariableOf = (name: string | undefined): string =>
  name === undefined ? 'CPLANE_TOKEN' : `CPLANE_TOKEN_${name.toUpperCase()}`;

/** The environment variable that binds a named token to its own address (CPLANE_BASE_URL without a name). */
export const addressVariableOf = (name: string | undefined): string =>
  name === undefined ? 'CPLANE_BASE_URL' : `CPLANE_BASE_URL_${name.toUpperCase()}`;

/** The address a token is bound to, and where the binding comes from (a variable, or the --base-url flag). */
export interface BoundAddress {
  url?: string;
  from: string;
}

/** Where the runner sends the token `name` (undefined: CPLANE_TOKEN); `baseUrlFlag` is the command's --base-url. */
export function boundAddress(env: NodeJS.ProcessEnv, name: string | undefined, baseUrlFlag: string | undefined): BoundAddress {
  const own = name === undefined ? undefined : addressVariableOf(name);
  if (own && env[own]) return { url: env[own], from: own };
  if (baseUrlFlag) return { url: baseUrlFlag, from: '--base-url' };
  return env.CPLANE_BASE_URL
    ? { url: env.CPLANE_BASE_URL, from: 'CPLANE_BASE_URL' }
    : { from: own ? `${own} or CPLANE_BASE_URL` : 'CPLANE_BASE_URL' };
}

/** Whether two API addresses are the same: scheme, host, port and path (a trailing `/` aside); false when either is not a URL. */
export function sameAddress(a: string, b: string): boolean {
  const key = (text: string): string | undefined => {
    try {
      const url = new URL(text);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return undefined;
    }
  };
  const [ka, kb] = [key(a), key(b)];
  return ka !== undefined && ka === kb;
}

/** An address as it may be printed: scheme, host, port and path, never a user or password it may carry. */
export function shownAddress(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
