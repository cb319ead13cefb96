/**
 * cplane's own secret environment variables: the API token, the state key and
 * passphrase, and a CPLANE_STATE address that holds a password. Configuration
 * may never read them through `${env.NAME}`, and every run registers their
 * values with the redactor, so no printed text shows them.
 */
import { registerSecret } from '../text/safe-text.js';

export const OWN_SECRET_VARIABLES = ['CPLANE_TOKEN', 'CPLANE_STATE_KEY', 'CPLANE_PASSPHRASE'] as const;

/** The password of a URL (e.g. postgres://user:pw@host/db), or undefined. */
function urlPassword(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const password = new URL(text).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}

/** Why `${env.NAME}` may not read this variable, or undefined when it may. */
export function ownSecretRule(name: string, env: NodeJS.ProcessEnv): string | undefined {
  if ((OWN_SECRET_VARIABLES as readonly string[]).includes(name)) return `${name} is one of cplane's own secrets`;
  if (name === 'CPLANE_STATE' && urlPassword(env.CPLANE_STATE) !== undefined) return 'CPLANE_STATE holds a password';
  return undefined;
}

/** Registers the values of cplane's own secret variables (and a state URL's password) with the redactor. */
export function registerOwnSecrets(env: NodeJS.ProcessEnv): void {
  for (const name of OWN_SECRET_VARIABLES) registerSecret(env[name]);
  const password = urlPassword(env.CPLANE_STATE);
  if (password !== undefined) {
    registerSecret(password);
    registerSecret(env.CPLANE_STATE);
  }
}
