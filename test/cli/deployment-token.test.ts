// A deployment that chooses its own token (`token: NAME`, docs/deployments.md) connects with CPLANE_TOKEN_<NAME> only:
// never CPLANE_TOKEN, never --token; it goes where the runner bound that token (CPLANE_BASE_URL_<NAME>, else
// CPLANE_BASE_URL), and a baseUrl of the configuration's that differs is refused. Each refusal names the variable to set.
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import type { CommandContext } from '../../src/session/command-context.js';
import { connectionSettings, givenToken, tokenVariable } from '../../src/session/connection.js';

function context(values: CommandContext['values'], env: NodeJS.ProcessEnv, deployment?: CommandContext['deployment']): CommandContext {
  return {
    positionals: [],
    values,
    env,
    cwd: '/',
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    ...(deployment ? { deployment } : {}),
  };
}
const base = { CPLANE_BASE_URL: 'http://127.0.0.1:4010', CPLANE_TOKEN: 'sk-svc-pat-shared-token' };
const prod = { name: 'prod', tokenName: 'prod' };

it("reads the deployment's own variable, not CPLANE_TOKEN", () => {
  const ctx = context({}, { ...base, CPLANE_TOKEN_PROD: 'sk-svc-pat-prod-token' }, prod);
  expect(connectionSettings(ctx).token).toBe('sk-svc-pat-prod-token');
  expect(tokenVariable(ctx)).toBe('CPLANE_TOKEN_PROD');
  expect(givenToken(ctx)).toBe('sk-svc-pat-prod-token');
});

it("refuses to fall back to CPLANE_TOKEN when the deployment's variable is unset", () => {
  expect(() => connectionSettings(context({}, base, prod))).toThrow('No API token for the deployment prod: CPLANE_TOKEN_PROD is not set.');
});

it('refuses --token for a deployment with its own token', () => {
  expect(() =>
    connectionSettings(context({ token: 'sk-svc-pat-flag' }, { ...base, CPLANE_TOKEN_PROD: 'sk-svc-pat-prod-token' }, prod)),
  ).toThrow('--token cannot be used for the deployment prod: it chooses its own token (token: prod, read from CPLANE_TOKEN_PROD).');
});

it('sends a named token where CPLANE_BASE_URL_<NAME> binds it, else to CPLANE_BASE_URL', () => {
  const env = { ...base, CPLANE_TOKEN_PROD: 'sk-svc-pat-prod-token' };
  expect(connectionSettings(context({}, env, prod)).baseUrl).toBe('http://127.0.0.1:4010');
  const own = connectionSettings(context({}, { ...env, CPLANE_BASE_URL_PROD: 'https://prod.api.example' }, prod));
  expect(own).toMatchObject({ baseUrl: 'https://prod.api.example', token: 'sk-svc-pat-prod-token' });
  // The configuration's baseUrl only checks the binding: the same address (a trailing / aside) is fine.
  expect(connectionSettings(context({}, env, { ...prod, baseUrl: 'http://127.0.0.1:4010/' })).baseUrl).toBe('http://127.0.0.1:4010');
});

it("never moves a token to the configuration's baseUrl: CPLANE_TOKEN and a named token alike", () => {
  const env = { ...base, CPLANE_TOKEN_PROD: 'sk-svc-pat-prod-token' };
  expect(() => connectionSettings(context({}, env, { name: 'eu', baseUrl: 'https://attacker.example' }))).toThrow(
    'The deployment eu has baseUrl: https://attacker.example, but its token (CPLANE_TOKEN) is bound to http://127.0.0.1:4010 (CPLANE_BASE_URL). Nothing was sent.',
  );
  expect(() => connectionSettings(context({}, env, { ...prod, baseUrl: 'https://attacker.example' }))).toThrow(
    'but its token (CPLANE_TOKEN_PROD) is bound to http://127.0.0.1:4010 (CPLANE_BASE_URL)',
  );
  // --base-url is the runner's too: it binds CPLANE_TOKEN.
  expect(connectionSettings(context({ 'base-url': 'http://127.0.0.1:5000' }, base)).baseUrl).toBe('http://127.0.0.1:5000');
  const { CPLANE_BASE_URL: _unset, ...noAddress } = env;
  expect(() => connectionSettings(context({}, noAddress, { ...prod, baseUrl: 'https://prod.api.example' }))).toThrow(
    'No API address for the deployment prod: CPLANE_BASE_URL_PROD or CPLANE_BASE_URL is not set.',
  );
});
