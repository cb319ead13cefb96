// A pull request is untrusted input (issue 47, item 1): no text it can change decides which secret is sent as a token,
// or where. Its configuration names the state key, another deployment's token and GITHUB_TOKEN as tokens, points
// deployments at a server of its own (a listener on 127.0.0.1 standing in for the attacker's), and moves the shared
// CPLANE_TOKEN there with a bare baseUrl. The real CLI, as a PR's CI job runs it with every secret of the runner set:
// `validate` and `plan --all --github` exit 1 naming each deployment and setting at file:line:col, and the listener
// receives no request at all. The runner's own binding (CPLANE_BASE_URL_<NAME>) is what moves a token.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

interface Listener {
  url: string;
  requests: { url: string; headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** The attacker's server: it records every request it is sent, and answers none usefully. */
async function listener(): Promise<Listener> {
  const requests: Listener['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let w: World;
let attacker: Listener;
let env: NodeJS.ProcessEnv;
const GITHUB_TOKEN = 'ghs_pullrequestjobtoken0123456789abcdef';
const PROD_TOKEN = 'sk-svc-pat-prod-only-token-0123456789abcdef';

beforeEach(async () => {
  w = await world({ accounts: 5 });
  attacker = await listener();
  const github = join(w.temp, 'github');
  mkdirSync(github);
  writeFileSync(join(github, 'output'), '');
  writeFileSync(join(github, 'summary.md'), '');
  // What docs/ci.md's PR job holds: the shared token and address, the state key, prod's own token, GITHUB_TOKEN.
  env = {
    CPLANE_TOKEN_PROD: PROD_TOKEN,
    GITHUB_TOKEN,
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: join(github, 'output'),
    GITHUB_STEP_SUMMARY: join(github, 'summary.md'),
    RUNNER_TEMP: github,
    CPLANE_ACCOUNT: '',
  };
});
afterEach(async () => {
  await attacker.close();
  await w.close();
});

/** The pull request's configuration: each deployment a way to send a secret of the runner to the attacker. */
const pullRequest = () => `version: 1
deployments:
  dev:     { account: ${extraAccount(1).id}, token: { env: CPLANE_STATE_KEY }, baseUrl: "${attacker.url}" }
  staging: { account: ${extraAccount(2).id}, token: { env: CPLANE_TOKEN_PROD }, baseUrl: "${attacker.url}" }
  ci:      { account: ${extraAccount(3).id}, token: { env: GITHUB_TOKEN }, baseUrl: "${attacker.url}" }
  prod:    { account: ${extraAccount(4).id}, token: prod, baseUrl: "${attacker.url}/v1" }
  shared:  { account: ${extraAccount(5).id}, baseUrl: "${attacker.url}" }
projects:
  app: { description: app }
`;

const secrets = () => [w.env.CPLANE_STATE_KEY!, w.env.CPLANE_TOKEN!, PROD_TOKEN, GITHUB_TOKEN];

it('validate and plan --all --github refuse every deployment, naming it and its setting; the attacker receives nothing', async () => {
  w.config(pullRequest());
  const expected = [
    /infra\/main\.yaml:3:\d+: error: The deployment "dev" names the environment variable CPLANE_STATE_KEY as its token \(token: \{ env: \.\.\. \}\)/,
    /infra\/main\.yaml:4:\d+: error: The deployment "staging" names the environment variable CPLANE_TOKEN_PROD as its token/,
    /infra\/main\.yaml:5:\d+: error: The deployment "ci" names the environment variable GITHUB_TOKEN as its token/,
    new RegExp(
      `infra/main\\.yaml:6:\\d+: error: The deployment "prod" has baseUrl: ${attacker.url}/v1, but the runner bound CPLANE_TOKEN_PROD to ${w.emulator.url} \\(CPLANE_BASE_URL\\)`,
    ),
    new RegExp(
      `infra/main\\.yaml:7:\\d+: error: The deployment "shared" has baseUrl: ${attacker.url}, but the runner bound CPLANE_TOKEN to ${w.emulator.url} \\(CPLANE_BASE_URL\\)`,
    ),
  ];

  const validated = await w.cli(['validate', 'infra'], env);
  expect(validated.code).toBe(1);
  for (const line of expected) expect(validated.stdout + validated.stderr).toMatch(line);

  const planned = await w.cli(['plan', 'infra', '--all', '--github'], env);
  expect(planned.code).toBe(1);
  for (const line of expected) expect(planned.stderr).toMatch(line);
  // The annotations put each on the pull request's diff, at its line.
  expect(planned.stdout + planned.stderr).toMatch(/::error file=infra\/main\.yaml,line=6,col=\d+.*The deployment "prod" has baseUrl/);

  // One deployment at a time is refused the same way.
  for (const name of ['dev', 'prod', 'shared']) {
    const one = await w.cli(['plan', 'infra', '--deployment', name], env);
    expect(one.code, name).toBe(1);
  }

  expect(attacker.requests).toEqual([]);
  const printed = w.outputs.join('\n') + readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8') + readFileSync(env.GITHUB_OUTPUT!, 'utf8');
  for (const secret of secrets()) expect(printed).not.toContain(secret);
});

it("the runner's binding moves a token, and the configuration's baseUrl only checks it", async () => {
  // The operator binds prod's token to prod's address (here the emulator, under another spelling: a trailing /).
  w.config(`version: 1
deployments:
  prod: { account: ${extraAccount(4).id}, token: prod, baseUrl: "${w.emulator.url}/" }
projects:
  app: { description: app }
`);
  const bound = { ...env, CPLANE_TOKEN_PROD: fixtures.tokens.admin, CPLANE_BASE_URL_PROD: w.emulator.url, CPLANE_BASE_URL: attacker.url };
  const planned = await w.cli(['plan', 'infra', '--deployment', 'prod', '--detailed-exitcode'], bound);
  expect(planned.stderr).toBe('');
  expect(planned.code).toBe(2);
  expect(planned.stdout).toContain('+ description = "app"');
  // Bound to the attacker's address by the runner alone (CPLANE_BASE_URL), prod's baseUrl refuses it.
  const { CPLANE_BASE_URL_PROD: _own, ...unbound } = bound;
  const refused = await w.cli(['plan', 'infra', '--deployment', 'prod'], unbound);
  expect(refused.code).toBe(1);
  expect(refused.stdout + refused.stderr).toContain(`but the runner bound CPLANE_TOKEN_PROD to ${attacker.url} (CPLANE_BASE_URL)`);
  expect(attacker.requests).toEqual([]);
});
