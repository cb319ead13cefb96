// A deployment chooses its token by name (`token: NAME` reads CPLANE_TOKEN_<NAME>), among those the runner bound to
// an address (config/blocks/token-binding.ts); it never names a variable, and its `baseUrl` must be where its token is
// bound. Every other form is an error at its file:line:col naming the deployment and the setting.
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/config/index.js';
import { load } from './helpers.js';

const A1 = '0a000000-0000-4000-8000-000000000001';
const A2 = '0a000000-0000-4000-8000-000000000002';
const config = (dev: string, prod = 'token: prod') =>
  `version: 1\ndeployments:\n  dev: { account: ${A1}, ${dev} }\n  prod: { account: ${A2}, ${prod} }\nprojects:\n  app: { description: app }\n`;
const runner = { CPLANE_BASE_URL: 'http://127.0.0.1:4010', CPLANE_TOKEN: 'sk-svc-pat-shared', CPLANE_TOKEN_PROD: 'sk-svc-pat-prod' };
const errorsOf = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.severity === 'error');
const found = (diagnostics: Diagnostic[]) =>
  diagnostics.map((d) => `${d.range?.file}:${d.range?.line}:${d.range?.col} ${d.code}: ${d.summary}`);

describe("a deployment's token", () => {
  it('takes a name: token: prod reads CPLANE_TOKEN_PROD; a baseUrl where the token is bound is fine', async () => {
    const { diagnostics, deployments } = await load(
      { 'main.yaml': config('token: dev, baseUrl: "http://127.0.0.1:4010/"') },
      { env: runner },
    );
    expect(diagnostics).toEqual([]);
    expect(deployments?.map((d) => [d.name, d.tokenName, d.baseUrl])).toEqual([
      ['dev', 'dev', 'http://127.0.0.1:4010/'],
      ['prod', 'prod', undefined],
    ]);
  });

  it('refuses the old form token: { env: NAME } for any variable, with the form that replaces it', async () => {
    for (const variable of ['CPLANE_STATE_KEY', 'GITHUB_TOKEN', 'CPLANE_TOKEN_PROD']) {
      const { diagnostics } = await load({ 'main.yaml': config(`token: { env: ${variable} }`) }, { env: runner });
      expect(found(diagnostics)).toEqual([
        `main.yaml:3:57 deployment_token_env: The deployment "dev" names the environment variable ${variable} as its token (token: { env: ... }): a configuration may not choose which variable is sent as a token, so nothing is sent for it`,
      ]);
      expect(diagnostics[0]!.detail).toBe(
        'Write token: dev, and set the token as CPLANE_TOKEN_DEV on the runner (a secret of its CI job, never of the repository); it is sent only to CPLANE_BASE_URL_DEV, or CPLANE_BASE_URL when that is unset (docs/deployments.md#one-credential-per-deployment).',
      );
    }
  });

  it('refuses a name that is not one', async () => {
    const { diagnostics } = await load({ 'main.yaml': config('token: "prod token"') }, { env: runner });
    expect(found(diagnostics)).toEqual([
      `main.yaml:3:57 deployment_token_name: The deployment "dev" has token: "prod token": a token's name is a letter, then letters, digits and '_' (at most 63)`,
    ]);
  });

  it("refuses a baseUrl its token is not bound to: CPLANE_TOKEN's, a named token's, and one bound nowhere", async () => {
    const attacker = 'baseUrl: "https://attacker.example"';
    const shared = await load({ 'main.yaml': config(attacker) }, { env: runner });
    expect(found(errorsOf(shared.diagnostics))).toEqual([
      'main.yaml:3:66 token_not_bound: The deployment "dev" has baseUrl: https://attacker.example, but the runner bound CPLANE_TOKEN to http://127.0.0.1:4010 (CPLANE_BASE_URL): a configuration cannot send a token anywhere else, so nothing is sent for dev',
    ]);
    const named = await load({ 'main.yaml': config('token: dev', `token: prod, ${attacker}`) }, { env: runner });
    expect(found(named.diagnostics)).toEqual([
      'main.yaml:4:80 token_not_bound: The deployment "prod" has baseUrl: https://attacker.example, but the runner bound CPLANE_TOKEN_PROD to http://127.0.0.1:4010 (CPLANE_BASE_URL): a configuration cannot send a token anywhere else, so nothing is sent for prod',
    ]);
    expect(named.diagnostics[0]!.detail).toBe(
      'Leave baseUrl out (the deployment goes where its token is bound), or bind the token to that address on the runner: set CPLANE_BASE_URL_PROD.',
    );
    // The runner's own binding wins, and --base-url binds CPLANE_TOKEN as CPLANE_BASE_URL does.
    const bound = await load(
      { 'main.yaml': config('token: dev', `token: prod, ${attacker}`) },
      {
        env: { ...runner, CPLANE_BASE_URL_PROD: 'https://attacker.example' },
      },
    );
    expect(bound.diagnostics).toEqual([]);
    const flagged = await load({ 'main.yaml': config(attacker) }, { env: runner, baseUrl: 'http://127.0.0.1:5000' });
    expect(errorsOf(flagged.diagnostics).map((d) => d.summary)).toEqual([
      'The deployment "dev" has baseUrl: https://attacker.example, but the runner bound CPLANE_TOKEN to http://127.0.0.1:5000 (--base-url): a configuration cannot send a token anywhere else, so nothing is sent for dev',
    ]);
    const { CPLANE_BASE_URL: _unset, ...noAddress } = runner;
    const nowhere = await load({ 'main.yaml': config('token: dev', `token: prod, ${attacker}`) }, { env: noAddress });
    expect(nowhere.diagnostics.map((d) => d.summary)).toEqual([
      'The deployment "prod" has baseUrl: https://attacker.example, but the runner bound CPLANE_TOKEN_PROD to no address (CPLANE_BASE_URL_PROD or CPLANE_BASE_URL is not set): a configuration cannot send a token anywhere else, so nothing is sent for prod',
    ]);
    // A token the runner does not hold is not sent anywhere: nothing to refuse until it connects.
    expect((await load({ 'main.yaml': config(`token: dev, ${attacker}`) }, { env: noAddress })).diagnostics).toEqual([]);
  });

  it('may not be read through ${env.CPLANE_TOKEN_NAME}', async () => {
    const { diagnostics } = await load(
      {
        'main.yaml': `version: 1\ndeployments:\n  dev: { account: ${A1}, token: dev }\nprojects:\n  app: { description: "\${env.CPLANE_TOKEN_DEV}" }\n`,
      },
      { env: { ...runner, CPLANE_TOKEN_DEV: 'sk-svc-pat-dev' } },
    );
    expect(diagnostics.map((d) => d.summary).join('\n')).toContain("CPLANE_TOKEN_DEV is one of cplane's own secrets");
  });
  it('warns where a deployment falls back to CPLANE_TOKEN while another chooses a token of its own', async () => {
    const { diagnostics } = await load({ 'main.yaml': config('workspace: default') }, { env: runner });
    expect(found(diagnostics)).toEqual([
      'main.yaml:3:3 deployment_token_fallback: The deployment "dev" chooses no token, so it uses CPLANE_TOKEN, while "prod" chooses CPLANE_TOKEN_PROD',
    ]);
    expect(diagnostics[0]!.severity).toBe('warning');
    expect(diagnostics[0]!.detail).toBe(
      'Give it a token of its own (`token: dev` reads CPLANE_TOKEN_DEV; docs/deployments.md), or leave it so if CPLANE_TOKEN is meant for its account too.',
    );
    // A fleet that shares CPLANE_TOKEN throughout is said nothing.
    const shared = await load({ 'main.yaml': config('workspace: default', 'workspace: default') }, { env: runner });
    expect(shared.diagnostics).toEqual([]);
  });
});
