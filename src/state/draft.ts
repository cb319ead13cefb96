/**
 * A draft of the state that records what a change touched, so an update costs
 * what it changed: reading `draft.resources[a]` copies only that entry, writes
 * and deletes go to an overlay, and `changes()` lists the entries that really
 * differ. The journal (a handful of in-flight writes) is copied whole. The
 * state itself is changed only by `applyChanges`, after the changes are stored.
 */
import { isDeepStrictEqual } from 'node:util';
import type { StateChange } from './backend.js';
import type { JournalEntry, ResourceState, StateData } from './types.js';

export interface TrackedDraft {
  draft: StateData;
  /** The changes made to the draft, removals of journal entries first. */
  changes(): StateChange[];
}

const REMOVED = Symbol('removed');
type Slot = ResourceState | typeof REMOVED;

export function trackDraft(base: StateData): TrackedDraft {
  const touched = new Map<string, Slot>();
  const edits: DraftEdits = { touched, replaced: undefined, journal: undefined };
  const overlay = resourceOverlay(base.resources, touched);
  const draft: StateData = {
    version: base.version,
    account: base.account,
    lineage: base.lineage,
    serial: base.serial,
    get resources() {
      return edits.replaced ?? overlay;
    },
    set resources(value) {
      // A whole new map (state mv, export adoption): compared entry by entry below.
      edits.replaced = { ...value };
      touched.clear();
    },
    get journal() {
      edits.journal ??= [...base.journal];
      return edits.journal;
    },
    set journal(value) {
      edits.journal = value;
    },
  };
  return { draft, changes: () => changesOf(base, draft, edits) };
}

/** What a draft changed so far: the entries read or written (`touched`), or a whole new map, and the journal once read. */
interface DraftEdits {
  touched: Map<string, Slot>;
  replaced: Record<string, ResourceState> | undefined;
  journal: JournalEntry[] | undefined;
}

/** The resources as the draft sees them: the state's entries, copied on first read, under the draft's own writes. */
function resourceOverlay(resources: Record<string, ResourceState>, touched: Map<string, Slot>): Record<string, ResourceState> {
  return new Proxy(resources, {
    get(target, key, receiver) {
      if (typeof key !== 'string') return Reflect.get(target, key, receiver) as unknown;
      const slot = touched.get(key);
      if (slot !== undefined) return slot === REMOVED ? undefined : slot;
      if (!Object.hasOwn(target, key)) return undefined;
      // The caller may change the entry in place: give it a copy and compare at the end.
      const copy = structuredClone(target[key]!);
      touched.set(key, copy);
      return copy;
    },
    set(_target, key, value) {
      if (typeof key !== 'string') return false;
      touched.set(key, value as ResourceState);
      return true;
    },
    deleteProperty(_target, key) {
      if (typeof key === 'string') touched.set(key, REMOVED);
      return true;
    },
    has(target, key) {
      if (typeof key !== 'string') return Reflect.has(target, key);
      const slot = touched.get(key);
      return slot !== undefined ? slot !== REMOVED : Object.hasOwn(target, key);
    },
    ownKeys(target) {
      const keys = new Set(Reflect.ownKeys(target));
      for (const [key, slot] of touched) {
        if (slot === REMOVED) keys.delete(key);
        else keys.add(key);
      }
      return [...keys];
    },
    getOwnPropertyDescriptor(target, key) {
      if (typeof key !== 'string') return Reflect.getOwnPropertyDescriptor(target, key);
      const slot = touched.get(key);
      if (slot === REMOVED || (slot === undefined && !Object.hasOwn(target, key))) return undefined;
      return { value: slot ?? target[key], writable: true, enumerable: true, configurable: true };
    },
  });
}

/** The changes a draft made, removals of journal entries first; only entries that really differ. */
function changesOf(base: StateData, draft: StateData, edits: DraftEdits): StateChange[] {
  if (draft.account !== base.account || draft.lineage !== base.lineage || draft.version !== base.version) {
    throw new Error('a state update may not change account, lineage or version');
  }
  const out: StateChange[] = edits.journal ? journalChanges(base.journal, edits.journal) : [];
  const slots: Iterable<[string, Slot]> = edits.replaced ? slotsOfReplacement(base.resources, edits.replaced) : edits.touched;
  for (const [address, slot] of slots) {
    const old = base.resources[address];
    if (slot === REMOVED) {
      if (old) out.push({ type: 'resource-removed', address });
    } else if (!isDeepStrictEqual(old, slot)) {
      out.push({ type: 'resource', address, resource: slot });
    }
  }
  return out;
}

function journalChanges(before: readonly JournalEntry[], after: readonly JournalEntry[]): StateChange[] {
  const out: StateChange[] = [];
  const kept = new Set(after.map((e) => e.id));
  for (const entry of before) if (!kept.has(entry.id)) out.push({ type: 'journal-removed', id: entry.id });
  const old = new Map(before.map((e) => [e.id, e]));
  for (const entry of after) {
    const was = old.get(entry.id);
    if (was !== entry && !isDeepStrictEqual(was, entry)) out.push({ type: 'journal', entry });
  }
  return out;
}

function* slotsOfReplacement(before: Record<string, ResourceState>, after: Record<string, ResourceState>): Generator<[string, Slot]> {
  for (const address of Object.keys(before)) if (!Object.hasOwn(after, address)) yield [address, REMOVED];
  for (const [address, resource] of Object.entries(after)) yield [address, resource];
}

/**
 * Applies changes to the state in place (the state object is long-lived; only
 * its entries change) and returns the function that undoes them.
 */
export function applyChanges(data: StateData, changes: readonly StateChange[]): () => void {
  const undo: (() => void)[] = [];
  for (const change of changes) {
    switch (change.type) {
      case 'resource':
      case 'resource-removed': {
        const { address } = change;
        const had = Object.hasOwn(data.resources, address);
        const old = data.resources[address];
        undo.push(() => {
          if (had) data.resources[address] = old!;
          else delete data.resources[address];
        });
        if (change.type === 'resource') data.resources[address] = change.resource;
        else delete data.resources[address];
        break;
      }
      case 'journal':
      case 'journal-removed': {
        const journal = data.journal;
        undo.push(() => (data.journal = journal));
        if (change.type === 'journal-removed') {
          data.journal = journal.filter((e) => e.id !== change.id);
        } else {
          const at = journal.findIndex((e) => e.id === change.entry.id);
          data.journal = at >= 0 ? journal.map((e, i) => (i === at ? change.entry : e)) : [...journal, change.entry];
        }
        break;
      }
    }
  }
  return () => {
    for (const step of undo.reverse()) step();
  };
}
