// Group commit in the store: changes that arrive while one is stored share the next group; each caller resumes only once its change is stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, readStateFile, type StateStore } from '../../src/state/index.js';
import { account, env } from '../applier/helpers.js';

let dir: string;
let state: StateStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cplane-group-'));
  state = await openState({ configDir: dir, account, env, command: 'test', lock: true });
});
afterEach(async () => {
  await state.close();
  rmSync(dir, { recursive: true, force: true });
});

const resource = (id: string) => ({
  kind: 'project' as const,
  id,
  inputs: {},
  fingerprints: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('group commit of state updates', () => {
  it('saves concurrent changes together, and each is on disk when its caller resumes', async () => {
    const store = state;
    const serialBefore = state.data.serial;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store
          .update((draft) => {
            draft.resources[`project.p${i}`] = resource(`id-${i}`);
          })
          .then(async () => {
            expect((await readStateFile(state.path))!.resources[`project.p${i}`]!.id).toBe(`id-${i}`);
          }),
      ),
    );
    expect(Object.keys(state.data.resources)).toHaveLength(20);
    // The 20 changes made in one turn of the event loop share one save.
    expect(state.data.serial - serialBefore).toBe(1);
  });

  it('rejects only the change that failed; the others in its save are kept', async () => {
    const store = state;
    const results = await Promise.allSettled([
      store.update((draft) => {
        draft.resources['project.a'] = resource('a');
      }),
      store.update(() => {
        throw new Error('no id in the answer');
      }),
      store.update((draft) => {
        draft.resources['project.b'] = resource('b');
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(Object.keys(state.data.resources).sort()).toEqual(['project.a', 'project.b']);
  });
});
