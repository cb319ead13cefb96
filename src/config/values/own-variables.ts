/**
 * cplane's own secret environment variables: the API token (and each deployment's, CPLANE_TOKEN_<NAME>), the state key and
 * passphrase, an application's reader credential (CPLANE_READER), and a
 * CPLANE_STATE address that holds a password. Configuration
 * may never read them through `${env.NAME}`, and every run registers their
 * values with the redactor, so no printed text shows them.
 */
import { registerSecret } from '../../text/safe-text.js';
import { passwordsInUrl, registerUrlPasswords } from '../../text/url-secrets.js';

export const OWN_SECRET_VARIABLES = ['CPLANE_TOKEN', 'CPLANE_STATE_KEY', 'CPLANE_PASSPHRASE', 'CPLANE_READER'] as const;

/** The deployments' tokens (`token: NAME` reads CPLANE_TOKEN_<NAME>: token-binding.ts) are cplane's own secrets too. */
const isDeploymentToken = (name: string): boolean => name.startsWith('CPLANE_TOKEN_');

/** Why `${env.NAME}` may not read this variable, or undefined when it may. */
export function ownSecretRule(name: string, env: NodeJS.ProcessEnv): string | undefined {
  if ((OWN_SECRET_VARIABLES as readonly string[]).includes(name) || isDeploymentToken(name))
    return `${name} is one of cplane's own secrets`;
  if (name === 'CPLANE_STATE' && passwordsInUrl(env.CPLANE_STATE ?? '').length > 0) return 'CPLANE_STATE holds a password';
  return undefined;
}

/** Registers the values of cplane's own secret variables (and a state URL's passwords) with the redactor. */
export function registerOwnSecrets(env: NodeJS.ProcessEnv): void {
  for (const name of OWN_SECRET_VARIABLES) registerSecret(env[name]);
  for (const name of Object.keys(env)) if (isDeploymentToken(name)) registerSecret(env[name]);
  registerUrlPasswords(env.CPLANE_STATE);
}
