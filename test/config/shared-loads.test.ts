/**
 * SharedLoads (`cplane test`'s loads, one per run): the files parsed once serve every load, each load rewrites its
 * own copy (a forEach over one run's values never shows in the next), and a file whose bytes changed is parsed again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { SharedLoads } from '../../src/config/index.js';
import { loadConfiguration } from '../../src/providers/index.js';
import { coreAndOpenai, teamGateways } from '../helpers/config-yaml.js';
import { writeConfig } from './helpers.js';

const config = `version: 1
variables:
  teams: { type: list, default: [a] }
  env: { type: string, default: dev }
${coreAndOpenai('l')}${teamGateways('${var.teams}', { name: '"${var.env}-${each.key}"' })}`;

const addresses = (resources: { address: string }[] | undefined) =>
  resources?.map((r) => r.address).filter((a) => a.startsWith('gateway.'));

test('loads sharing the parsed files give what loads of their own give, each with its own values', async () => {
  const dir = writeConfig({ 'main.yaml': config });
  const shared = new SharedLoads();
  const env = { OPENAI_API_KEY: 'sk-test' };
  const runs = [
    { teams: ['x', 'y'], env: 'prod' },
    { teams: ['z'], env: 'stage' },
    { teams: ['x', 'y'], env: 'prod' },
  ];
  for (const savedVariables of runs) {
    const alone = await loadConfiguration(dir, { env, cwd: dir, savedVariables });
    const sharing = await loadConfiguration(dir, { env, cwd: dir, savedVariables, shared });
    expect(sharing.diagnostics).toEqual(alone.diagnostics);
    expect(sharing.desired).toEqual(alone.desired);
    expect(addresses(sharing.desired?.resources)).toEqual(savedVariables.teams.map((t) => `gateway.team[${t}]`));
    expect(sharing.desired?.resources.find((r) => r.address === `gateway.team[${savedVariables.teams[0]}]`)?.attributes.name).toBe(
      `${savedVariables.env}-${savedVariables.teams[0]}`,
    );
  }
});

test('a file changed between two loads is parsed again, and its problems point at its new text', async () => {
  const dir = writeConfig({ 'main.yaml': config });
  const shared = new SharedLoads();
  const env = { OPENAI_API_KEY: 'sk-test' };
  expect((await loadConfiguration(dir, { env, cwd: dir, shared })).diagnostics).toEqual([]);
  writeFileSync(join(dir, 'main.yaml'), `${config}    bogus: 1\n`);
  const changed = await loadConfiguration(dir, { env, cwd: dir, shared });
  expect(changed.desired).toBeUndefined();
  expect(changed.diagnostics.map((d) => [d.code, d.range?.line])).toEqual([['unknown_key', config.split('\n').length]]);
});
