/**
 * What every state backend with address locks does (docs/state.md, "Locks"), through the store: applies holding
 * disjoint addresses write at once and lose nothing; a run holding the whole state and one holding addresses
 * exclude each other, naming the holder.
 */
import { expect, it } from 'vitest';
import { openState, StateLockedError, type OpenStateOptions } from '../../src/state/index.js';
import { AddressesLockedError } from '../../src/state/errors.js';
import { resource } from './helpers.js';

/** `options()`: where a fresh test's state is (the same for every call of one test). */
export function addressLockConformance(options: () => OpenStateOptions): void {
  const open = (extra: Partial<OpenStateOptions>) => openState({ ...options(), ...extra });

  async function seeded() {
    const store = await open({ lock: true });
    await store.update((draft) => void (draft.resources['project.seed'] = resource('project', 'prj_seed')));
    await store.close();
  }

  it('two writers holding disjoint addresses interleave their writes; every write is kept, at consecutive serials', async () => {
    await seeded();
    const a = await open({ lock: true, addresses: ['project.a0', 'project.a1', 'project.a2'] });
    const b = await open({ lock: true, addresses: ['project.b0', 'project.b1', 'project.b2'] });
    for (let i = 0; i < 3; i++) {
      await a.update((draft) => void (draft.resources[`project.a${i}`] = resource('project', `prj_a${i}`)));
      await b.update((draft) => void (draft.resources[`project.b${i}`] = resource('project', `prj_b${i}`)));
    }
    // Each saw the other's writes as it caught up.
    expect(Object.keys(a.data.resources).sort()).toEqual([
      'project.a0',
      'project.a1',
      'project.a2',
      'project.b0',
      'project.b1',
      'project.seed',
    ]);
    await a.close();
    await b.close();
    const reader = await open({ lock: false });
    expect(Object.keys(reader.data.resources).sort()).toEqual([
      'project.a0',
      'project.a1',
      'project.a2',
      'project.b0',
      'project.b1',
      'project.b2',
      'project.seed',
    ]);
    expect(reader.data.serial).toBe(1 + 6);
    await reader.close();
  });

  it('a writer of the whole state is refused while addresses are held, and an apply while the whole state is held, naming the holder', async () => {
    await seeded();
    const apply = await open({ lock: true, addresses: ['project.seed'], command: 'cplane apply pr.plan.json' });
    const whole = await open({ lock: true, command: 'cplane state rm project.seed' }).catch((error: unknown) => error);
    expect(whole).toBeInstanceOf(AddressesLockedError);
    expect((whole as Error).message).toContain('project.seed by pid');
    expect((whole as Error).message).toContain('`cplane apply pr.plan.json`');
    const same = await open({ lock: true, addresses: ['project.seed', 'project.other'] }).catch((error: unknown) => error);
    expect(same).toBeInstanceOf(AddressesLockedError);
    expect((same as AddressesLockedError).held.map((h) => h.addresses)).toEqual([['project.seed']]);
    await apply.close();

    const holder = await open({ lock: true, command: 'cplane state mv project.a project.b' });
    const refused = await open({ lock: true, addresses: ['project.other'] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StateLockedError);
    expect((refused as Error).message).toContain('`cplane state mv project.a project.b`');
    await holder.close();
    const after = await open({ lock: true, addresses: ['project.other'] });
    await after.close();
  });
}
