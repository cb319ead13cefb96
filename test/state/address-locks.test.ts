// Address locks of a file state: the shared conformance (address-locks-conformance.ts), and a forged record beside
// the state, which is refused or escaped, never obeyed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, type OpenStateOptions } from '../../src/state/index.js';
import { makeSandbox, newKey, type Sandbox } from './helpers.js';
import { addressLockConformance } from './address-locks-conformance.js';

let box: Sandbox;
let key: string;
beforeEach(() => {
  box = makeSandbox();
  key = newKey();
});
afterEach(() => box.cleanup());

const options = (): OpenStateOptions => ({
  configDir: box.configDir,
  account: 'acc_1',
  statePath: join(box.root, 'state', 'state.json'),
  env: { ...box.env, CPLANE_STATE_KEY: key },
  command: 'cplane apply',
  lock: true,
});

describe('address locks of a file state', () => {
  addressLockConformance(options);

  it('a record of address locks written by hand is escaped where it is named, and a damaged one is refused', async () => {
    mkdirSync(join(box.root, 'state'));
    const record = join(box.root, 'state', 'state.json.address-locks.json');
    const holder = { id: 'x\u001b[2J', pid: process.pid, host: 'h\nError: FAKE', time: 't', command: 'cplane apply' };
    writeFileSync(record, JSON.stringify({ holds: [{ holder, addresses: ['project.a\nError: FAKE'] }] }));
    const refused = await openState({ ...options(), addresses: ['project.a\nError: FAKE'] }).catch((error: unknown) => error);
    expect((refused as Error).message).not.toContain('\nError: FAKE');
    expect((refused as Error).message).not.toContain('\u001b');

    writeFileSync(record, '{"holds": [{"holder": 1}]}');
    const damaged = await openState({ ...options(), addresses: ['project.a'] }).catch((error: unknown) => error);
    expect((damaged as { code?: string }).code).toBe('STATE_LOCK_UNREADABLE');
  });
});
