// diffViews: the changes between two views, in the order of their paths whatever the order the views were built in.
import { describe, expect, it } from 'vitest';
import { diffViews, inPathOrder } from '../../src/providers/view-diff.js';

describe('diffViews', () => {
  it('lists the changed paths sorted as sort() orders them, skipping ignored and equal ones', () => {
    const desired = { 'z.b': 1, name: 'n', Tags: ['a'], 'a.x': true, 'settings.window': 'day', é: 'e', same: 's' };
    const live = { 'z.b': 2, name: 'm', Tags: ['b'], 'a.x': false, 'settings.window': 'week', é: 'f', same: 's' };
    const changes = diffViews(desired, live, ['settings']);
    expect(changes.map((c) => c.path)).toEqual(['Tags', 'a.x', 'name', 'z.b', 'é']);
    expect(changes[0]).toEqual({ path: 'Tags', before: ['b'], after: ['a'] });
  });

  it('gives none for equal views, and one change as it is', () => {
    expect(diffViews({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, [])).toEqual([]);
    expect(inPathOrder([{ path: 'b', before: 1, after: 2 }])).toEqual([{ path: 'b', before: 1, after: 2 }]);
  });
});
