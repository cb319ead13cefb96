// Export writes every string so that loading it gives back exactly the live value: `${` in a name or
// description is escaped as `$${`, so it is never interpolated (no `${env.CPLANE_TOKEN}` reaching a
// plan), and `$${z}` survives the round trip. A property test over seeded random strings, then the CLI.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfiguration } from '../../src/providers/index.js';
import { createPrng, type Prng } from '../../src/emulator/prng.js';
import { buildModel } from '../../src/export/build-model.js';
import { emitFiles } from '../../src/export/emit-yaml.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';
import { runCplane } from './cli.js';
import { liveAccount } from './live-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cplane-export-escape-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Pieces that stress interpolation and YAML quoting, and some ordinary text between them. */
const PIECES = [
  '${',
  '$${',
  '$$',
  '$',
  '{',
  '}',
  '${env.CPLANE_TOKEN}',
  '${var.account}',
  '$${z}',
  '"',
  "'",
  '\\',
  '\n',
  '\t',
  ': ',
  ' #',
  '- ',
  'é',
  '日本',
  '🚀',
  'ǅ',
  'a',
  'b',
  ' ',
  '&x',
  '*y',
  '!t',
  '%',
  '@',
  '|',
  '>',
];

function randomString(prng: Prng): string {
  const length = prng.int(1, 8);
  return Array.from({ length }, () => prng.pick(PIECES)).join('');
}

/** Exports the fixture account with project names and descriptions replaced, and loads the files back. */
async function roundTrip(texts: { name: string; description: string }[]) {
  const live = liveAccount();
  live.projects = live.projects.map((p, i) => ({ ...p, ...(texts[i] ?? {}) }));
  const folder = await mkdtemp(join(dir, 'round-'));
  for (const file of emitFiles(buildModel(live, { onlyUsedCredentials: false }), 'x.json'))
    await writeFile(join(folder, file.name), file.text);
  const { desired, diagnostics } = await loadConfiguration(folder, {
    variables: [{ name: 'account', value: 'acct' }],
    env: { CPLANE_TOKEN: 'sk-svc-pat-never-read' },
  });
  expect(diagnostics).toEqual([]);
  const projects = live.projects.filter((p) => !p.archived);
  const loaded = desired!.resources.filter((r) => r.kind === 'project').map((r) => r.attributes as { name: string; description: string });
  return {
    sent: projects.map((p) => ({ name: p.name, description: p.description })).sort(byName),
    loaded: loaded.map(({ name, description }) => ({ name, description })).sort(byName),
  };
}
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

describe('exported strings round-trip exactly', () => {
  it('keeps ${env.CPLANE_TOKEN} and $${z} as written', async () => {
    const { sent, loaded } = await roundTrip([{ name: 'x ${env.CPLANE_TOKEN} y', description: '$${z} and ${var.account}' }]);
    expect(loaded).toEqual(sent);
    expect(loaded.find((p) => p.name.startsWith('x '))).toEqual({
      name: 'x ${env.CPLANE_TOKEN} y',
      description: '$${z} and ${var.account}',
    });
  });

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`holds for 25 random names and descriptions (seed ${seed})`, async () => {
      const prng = createPrng(seed);
      for (let round = 0; round < 25; round++) {
        const texts = [0, 1].map(() => ({ name: randomString(prng), description: randomString(prng) }));
        const { sent, loaded } = await roundTrip(texts);
        expect({ texts, loaded }).toEqual({ texts, loaded: sent });
      }
    });
  }
});

describe('cplane export --adopt of names holding ${...}', () => {
  const emulator = withEmulator();
  const account = fixtures.accounts[0]!.id;
  let work: string;
  afterAll(async () => rm(work, { recursive: true, force: true }));

  it('exports, adopts and plans with no changes, never reading the environment variable', async () => {
    const api = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: account });
    await api.call('createProject', { body: { accountId: account, name: 'x ${env.CPLANE_TOKEN} y', description: '$${z}' } });
    await api.close();
    work = await mkdtemp(join(tmpdir(), 'cplane-export-adopt-'));
    const env = {
      CPLANE_BASE_URL: emulator().url,
      CPLANE_TOKEN: fixtures.tokens.admin,
      CPLANE_STATE_KEY: Buffer.alloc(32, 3).toString('base64'),
    };
    const exported = await runCplane(['export', '--account', account, '--out', 'out', '--adopt'], { cwd: work, env });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const plan = await runCplane(['plan', 'out', '--account', account], { cwd: work, env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).not.toContain(fixtures.tokens.admin);
  }, 60_000);
});
