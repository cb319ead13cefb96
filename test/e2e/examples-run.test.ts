// Every example runs against the emulator as its own comments say (`cplane emulator`, with `--accounts 3` for
// multi-env's fleet): planned with the CLI a user runs, each in a copy of its folder so no state lands in the repository.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acme, world, type World } from './helpers.js';

let w: World;
const example = (name: string) => {
  const dir = join(w.temp, name);
  cpSync(join(import.meta.dirname, '../../examples', name), dir, { recursive: true });
  return dir;
};
// What the examples' secret sources read: quickstart's demo.env, and a fake database URL for multi-env.
const secrets = {
  ...Object.fromEntries(
    readFileSync(join(import.meta.dirname, '../../examples/quickstart/demo.env'), 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ),
  DATABASE_URL: 'postgres://app:fake-0000000000000000@db.example.com/app',
  VENDOR_API_KEY: 'sk-fake-vendor-0000000000000000',
};

beforeAll(async () => {
  w = await world({ accounts: 3 });
});
afterAll(async () => w.close());

it('quickstart and teams plan in a fixture account', async () => {
  for (const name of ['quickstart', 'teams']) {
    const done = await w.cli(['plan', example(name), '--var', `account=${acme}`], { ...secrets, CPLANE_ACCOUNT: acme });
    expect(done.stderr, name).toBe('');
    expect(done.code, name).toBe(0);
  }
});

it("multi-env's three deployments are accounts the emulator serves (--accounts 3): plan --all plans each", async () => {
  const done = await w.cli(['plan', '--all', example('multi-env')], secrets);
  expect(done.stderr).toBe('');
  expect(done.code).toBe(0);
  for (const deployment of ['staging', 'prod-eu', 'prod-us'])
    expect(done.stdout).toMatch(new RegExp(`^${deployment} +Tenant \\d .* changes$`, 'm'));
});
