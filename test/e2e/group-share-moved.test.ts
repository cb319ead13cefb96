// A directory entry renamed (`platform` becomes `ops`, the same group id) with a `moved` block for its share: the
// share is the same grant, so the move is the only step, and neither that plan nor any later one, nor `drift`,
// reports it as changed outside cplane (the reader is the grant's identity, which a name does not change).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { directoryYaml } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const platform = fixtures.groups[0]!;
let w: World;

const config = (group: string, moved = '') =>
  w.config(`version: 1
projects:
  shop:
    name: shop-moved-share
    records:
      db-password:
        value: { generate: { length: 32 } }
        grants:
          groups: [${group}]
${directoryYaml({ groups: { [group]: platform.id } })}${moved}`);

beforeEach(async () => {
  w = await world({ account: acme });
  config('platform');
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
});
afterEach(async () => w.close());

it('a moved group share is a move and nothing else, then no drift on later plans or in drift', async () => {
  config('ops', 'moved:\n  - from: group_share.shop/db-password/platform\n    to: group_share.shop/db-password/ops\n');
  const plan = await w.cli(['plan', w.dir]);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('group_share.shop/db-password/ops');
  expect(plan.stdout).not.toContain('changed outside cplane');
  const applied = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);

  const later = await w.cli(['plan', w.dir, '--detailed-exitcode']);
  expect(later.stdout).not.toContain('changed outside cplane');
  expect(later.stdout).toContain('No changes.');
  expect(later.code).toBe(exitCodes.ok);
  const drift = await w.cli(['drift', w.dir]);
  expect(drift.stdout).toContain('No drift');
  expect(drift.code).toBe(exitCodes.ok);
});
