// A deployment that names its own token (`token: { env: NAME }`, docs/deployments.md) connects with NAME only: never
// CPLANE_TOKEN, never --token; its own baseUrl wins over CPLANE_BASE_URL. Each refusal names the variable to set.
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
const prod = { name: 'prod', tokenEnv: 'PROD_TOKEN' };

it("reads the deployment's own variable, not CPLANE_TOKEN", () => {
  const ctx = context({}, { ...base, PROD_TOKEN: 'sk-svc-pat-prod-token' }, prod);
  expect(connectionSettings(ctx).token).toBe('sk-svc-pat-prod-token');
  expect(tokenVariable(ctx)).toBe('PROD_TOKEN');
  expect(givenToken(ctx)).toBe('sk-svc-pat-prod-token');
});

it("refuses to fall back to CPLANE_TOKEN when the deployment's variable is unset", () => {
  expect(() => connectionSettings(context({}, base, prod))).toThrow('No API token for the deployment prod: PROD_TOKEN is not set.');
});

it('refuses --token for a deployment with its own token', () => {
  expect(() => connectionSettings(context({ token: 'sk-svc-pat-flag' }, { ...base, PROD_TOKEN: 'sk-svc-pat-prod-token' }, prod))).toThrow(
    '--token cannot be used for the deployment prod: it names its own token (token: { env: PROD_TOKEN }).',
  );
});

it("uses the deployment's baseUrl over CPLANE_BASE_URL; a deployment without token: keeps CPLANE_TOKEN", () => {
  const settings = connectionSettings(context({}, base, { name: 'eu', baseUrl: 'https://eu.api.example' }));
  expect(settings).toMatchObject({ baseUrl: 'https://eu.api.example', token: 'sk-svc-pat-shared-token' });
});
