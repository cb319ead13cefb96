/**
 * What in a connection URL is secret, read from the text itself rather than
 * from a URL parser: a password with a raw `/`, `?` or `@` (common in
 * `openssl rand -base64` output) makes a URL that `new URL` refuses, or reads
 * with the password as the port or the path, and such a URL is shown in the
 * very error that says so. Both functions lean to hiding too much:
 *
 * - the user-info part is everything between `://` and the LAST `@`, and its
 *   password everything after the user's first `:`;
 * - `password=` and `sslpassword=` parameters (any case) end only at `&`.
 *
 * `maskUrl` is the form of a URL that may be printed; `urlWithoutPasswords` the form that is recorded and compared;
 * `passwordsInUrl` gives the values to register with the redactor, so a URL
 * that reaches a message some other way is redacted there too.
 */

import { registerSecret } from './safe-text.js';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const PASSWORD_PARAM = /([?&;\s]|^)((?:ssl)?password)=([^&]*)/gi;
const MASK = '***';

/** The URL with every password (user-info part, `password=` and `sslpassword=`) replaced by `***`: to print it. */
export function maskUrl(url: string): string {
  return hidePasswords(url, MASK);
}

/**
 * The URL with every password left out (`user@host`, `password=`): to record it (a saved plan's state location)
 * and to compare it with a URL given later, which is compared the same way.
 */
export function urlWithoutPasswords(url: string): string {
  return hidePasswords(url, '');
}

/** The one reading of a URL's passwords, for both forms: parameters first, so an `@` inside one does not end the user-info. */
function hidePasswords(url: string, replacement: string): string {
  const hidden = url.replace(PASSWORD_PARAM, (_, before: string, name: string) => `${before}${name}=${replacement}`);
  const scheme = SCHEME.exec(hidden)?.[0];
  if (scheme === undefined) return hidden;
  const at = hidden.lastIndexOf('@');
  if (at < scheme.length) return hidden;
  const userInfo = hidden.slice(scheme.length, at);
  const colon = userInfo.indexOf(':');
  if (colon < 0) return hidden;
  const user = userInfo.slice(0, colon);
  return `${scheme}${replacement === '' ? user : `${user}:${replacement}`}${hidden.slice(at)}`;
}

/** Every password in the URL, as written and decoded (percent-decoding, and `+` as a space in a parameter). */
export function passwordsInUrl(url: string): string[] {
  const raw: string[] = [];
  for (const match of url.matchAll(PASSWORD_PARAM)) {
    const value = match[3] ?? '';
    raw.push(value, value.replace(/\+/g, ' '));
  }
  // The user-info part is looked for once the parameters are masked, so an `@` inside one does not end it.
  const rest = url.replace(PASSWORD_PARAM, (_, before: string, name: string) => `${before}${name}=${MASK}`);
  const scheme = SCHEME.exec(rest)?.[0];
  const at = rest.lastIndexOf('@');
  if (scheme !== undefined && at > scheme.length) {
    const userInfo = rest.slice(scheme.length, at);
    const colon = userInfo.indexOf(':');
    if (colon >= 0) raw.push(userInfo.slice(colon + 1));
  }
  const forms = new Set<string>();
  for (const value of raw) {
    if (value === '') continue;
    forms.add(value);
    const decoded = percentDecoded(value);
    forms.add(decoded);
    forms.add(encodeURIComponent(decoded));
  }
  return [...forms];
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray `%`: decode what can be decoded, one escape at a time.
    return text.replace(/%[0-9a-f]{2}/gi, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
  }
}

/** Registers every password of a state URL (--state, CPLANE_STATE or `state: { url }`), in every form it is written in. */
export function registerUrlPasswords(url: string | undefined): void {
  for (const password of passwordsInUrl(url ?? '')) registerSecret(password);
}
