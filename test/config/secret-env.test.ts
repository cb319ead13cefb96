/**
 * `${env.NAME}` in an ordinary field cannot read a secret: not cplane's own
 * variables, not a state URL with a password, not a variable the configuration
 * uses as a secret source. Each refusal names the rule and the place.
 */
import { expect, test } from 'vitest';
import { formatDiagnostic } from '../../src/config/index.js';
import { load } from './helpers.js';

const ENV = {
  CPLANE_TOKEN: 'sk-svc-pat-the-admin-token',
  CPLANE_STATE_KEY: 'c3RhdGUta2V5LXN0YXRlLWtleQ==',
  CPLANE_PASSPHRASE: 'correct horse battery staple',
  CPLANE_STATE: 'postgres://cplane:hunter22@db.internal/state',
  OPENAI_API_KEY: 'sk-openai-provider-secret',
  TEAM: 'payments',
};

test("cplane's own secrets are refused, with the rule and file:line:col", async () => {
  const { desired, diagnostics } = await load(
    {
      'main.yaml':
        'projects:\n  p:\n    description: "${env.CPLANE_TOKEN} ${env.CPLANE_STATE_KEY}"\n    name: "x-${env.CPLANE_PASSPHRASE}-${env.CPLANE_STATE}"\n',
    },
    { env: ENV },
  );
  expect(desired).toBeUndefined();
  expect(diagnostics.map((d) => [d.code, `${d.range?.file}:${d.range?.line}:${d.range?.col}`, d.summary])).toEqual([
    [
      'secret_env_interpolated',
      'main.yaml:3:19',
      "${env.CPLANE_TOKEN} would put a secret into an ordinary field: CPLANE_TOKEN is one of cplane's own secrets",
    ],
    [
      'secret_env_interpolated',
      'main.yaml:3:39',
      "${env.CPLANE_STATE_KEY} would put a secret into an ordinary field: CPLANE_STATE_KEY is one of cplane's own secrets",
    ],
    [
      'secret_env_interpolated',
      'main.yaml:4:14',
      "${env.CPLANE_PASSPHRASE} would put a secret into an ordinary field: CPLANE_PASSPHRASE is one of cplane's own secrets",
    ],
    [
      'secret_env_interpolated',
      'main.yaml:4:39',
      '${env.CPLANE_STATE} would put a secret into an ordinary field: CPLANE_STATE holds a password',
    ],
  ]);
  const text = diagnostics.map((d) => formatDiagnostic(d, { color: false })).join('\n');
  for (const secret of [ENV.CPLANE_TOKEN, ENV.CPLANE_STATE_KEY, ENV.CPLANE_PASSPHRASE, 'hunter22']) expect(text).not.toContain(secret);
});

test('a variable used as a secret source elsewhere is refused in an ordinary field; others are read', async () => {
  const config = `projects:
  p:
    description: "team \${env.TEAM} key \${env.OPENAI_API_KEY}"
credentials:
  openai:
    provider: openai
    secret: { env: OPENAI_API_KEY }
`;
  const { diagnostics } = await load({ 'main.yaml': config }, { env: ENV });
  expect(diagnostics.map((d) => [d.code, `${d.range?.line}:${d.range?.col}`, d.summary])).toEqual([
    [
      'secret_env_interpolated',
      '3:40',
      '${env.OPENAI_API_KEY} would put a secret into an ordinary field: OPENAI_API_KEY is used as a secret source in this configuration',
    ],
  ]);
});

test('a state address without a password may be read', async () => {
  const { desired } = await load(
    { 'main.yaml': 'projects:\n  p:\n    description: "${env.CPLANE_STATE}"\n' },
    { env: { CPLANE_STATE: 'postgres://db.internal/state' } },
  );
  expect(desired!.resources[0]!.attributes).toMatchObject({ description: 'postgres://db.internal/state' });
});
