// record_owner against the emulator, in-process: an owner adopted as it is sends nothing; one changed outside
// cplane is transferred back; `owner:` removed is forgotten (ownership cannot be given back), and so is the
// owner of a record that leaves the configuration.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { harness, type Harness } from '../planner/harness.js';

const [ada, rex, dana] = fixtures.users;
const user = (u: typeof ada) => `{ id: ${u!.id}, publicKey: "${printableKeyPair(u!.id).publicKey}" }`;
const config = (records: string) =>
  `projects:\n  app:\n    records:\n${records}directory:\n  users:\n    ada: ${user(ada)}\n    dana: ${user(dana)}\n    rex: ${user(rex)}\n`;
const owned = (name: string) => config(`      r:\n        tags: [a]\n        owner: { user: ${name} }\n`);
const ADDRESS = 'record_owner.app/r';

let h: Harness;
beforeEach(async () => {
  h = await harness({ account: fixtures.accounts[0]!.id });
});
afterEach(async () => h.close());

const ownerId = async () => (await h.client.call('getRecord', { path: { id: h.state.data.resources['record.app/r']!.id } })).owner_user_id;

describe('record_owner', () => {
  it('adopts the owner a record already has without a transfer', async () => {
    h.config(config('      r:\n        tags: [a]\n'));
    await h.converge();
    h.config(owned('ada'));
    const plan = await h.plan();
    expect(plan.steps.find((s) => s.address === ADDRESS)).toMatchObject({ action: 'import', writes: [] });
    await h.converge();
    expect(await ownerId()).toBe(ada!.id);
    expect(h.emulator.stats().byOperation.transferRecordOwnership ?? 0).toBe(0);
  });

  it('transfers back an owner changed outside cplane', async () => {
    h.config(owned('dana'));
    await h.converge();
    const recordId = h.state.data.resources['record.app/r']!.id;
    await h.client.call('transferRecordOwnership', { path: { id: recordId }, body: { userId: rex!.id } });
    const plan = await h.plan();
    const step = plan.steps.find((s) => s.address === ADDRESS)!;
    expect(step.action).toBe('update');
    expect(step.changes).toEqual([{ path: 'user', before: 'rex', after: 'dana' }]);
    expect(step.writes.map((w) => [w.operation, w.body])).toEqual([['transferRecordOwnership', { userId: dana!.id }]]);
    await h.converge();
    expect(await ownerId()).toBe(dana!.id);
  });

  it('forgets a removed owner with no write, saying ownership cannot be given back', async () => {
    h.config(owned('dana'));
    await h.converge();
    h.config(config('      r:\n        tags: [a]\n'));
    const plan = await h.plan();
    const step = plan.steps.find((s) => s.address === ADDRESS)!;
    expect(step).toMatchObject({ action: 'forget', writes: [] });
    expect(step.notes).toEqual([
      `ownership cannot be given back: cplane forgets ${ADDRESS}, and the record keeps its owner until someone transfers it`,
    ]);
    await h.converge();
    expect(h.state.data.resources[ADDRESS]).toBeUndefined();
    expect(await ownerId()).toBe(dana!.id);
  });

  it('is forgotten with its record when the record leaves the configuration', async () => {
    h.config(owned('dana'));
    await h.converge();
    h.config(config('      {}\n'));
    const step = (await h.plan()).steps.find((s) => s.address === ADDRESS)!;
    expect(step).toMatchObject({ action: 'forget', writes: [], reason: 'forgotten with record.app/r' });
  });
});
