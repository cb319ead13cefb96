// The one conformance test every kind of the registry passes, against the emulator: create, read, diff shows
// nothing, each change, diff shows nothing, remove, and read no longer finds a live object (a kind known only
// from state: state no longer holds it). The cases are in conformance-cases.ts, keyed by kind, and test/kinds/; a kind without
// one fails here by name. The writes of every step are the kind's to send (`writeOperations`, which the
// journal check that refuses a pending write of another kind relies on), and over its case each kind sends
// every operation it declares: the list is derived from what the kinds do, not from their source.
import { describe, expect, it } from 'vitest';
import { operationNames } from '../../src/api/operations.js';
import type { ResourceKind } from '../../src/config/types.js';
import type { Plan } from '../../src/plan-model/index.js';
import {
  kindOrder,
  knownOf,
  listVendors,
  definitionOf,
  serviceAccounts,
  vendors,
  type DataSource,
  type RecordedObject,
} from '../../src/providers/index.js';
import type { Known } from '../../src/providers/types.js';
import type { ResourceState } from '../../src/state/types.js';
import { harness, type Harness } from '../planner/harness.js';
import { conformanceCases, type ConformanceCase } from './conformance-cases.js';

async function lookupsOf(h: Harness): Promise<Known> {
  const all = new Map<DataSource<unknown>, unknown[]>([
    [vendors, await listVendors(h.client)],
    [serviceAccounts, await serviceAccounts.read(h.client)],
  ]);
  const resources = h.state.data.resources;
  return knownOf({
    account: h.state.data.account,
    lookups: all,
    clocks: { api: h.client.serverNow(), forEnds: h.client.serverNow() },
    directory: (await h.desired()).directory,
    idOf: (address) => resources[address]?.id,
    nameOf: (kind, id) => {
      const address = Object.keys(resources).find((a) => resources[a]!.kind === kind && resources[a]!.id === id);
      return address ? address.slice(address.indexOf('.') + 1) : id;
    },
  });
}

/** The live object of a state entry: read through the API, or for a kind known only from state, what state recorded. */
async function liveOf(h: Harness, kind: ResourceKind, entry: ResourceState): Promise<unknown> {
  const provider = definitionOf(kind);
  if (provider.observation === 'state')
    return { id: entry.id, ...(entry.parents ? { parents: entry.parents } : {}), inputs: entry.inputs } satisfies RecordedObject;
  return provider.read({
    client: h.client,
    account: h.state.data.account,
    id: entry.id,
    ...(entry.parents ? { parents: entry.parents } : {}),
  });
}

async function readAndDiff(h: Harness, kind: ResourceKind, c: ConformanceCase) {
  const provider = definitionOf(kind);
  const entry = h.state.data.resources[c.address]!;
  expect(entry, `${c.address} in state`).toBeDefined();
  const live = await liveOf(h, kind, entry);
  expect(live).not.toBeNull();
  const desired = (await h.desired()).resources.find((r) => r.address === c.address)!;
  const facts = provider.diff({ desired, live, state: entry, known: await lookupsOf(h), changedSecrets: [] });
  return { entry, facts };
}

/** The operations each kind's steps of `plan` send, checking each is one its kind declares. */
function sentBy(plan: Plan, sent: Map<ResourceKind, Set<string>>): void {
  for (const step of plan.steps) {
    const declared = definitionOf(step.kind).writeOperations;
    for (const { operation } of step.writes) {
      expect(
        declared,
        `${step.address} (${step.action}) sends ${operation}, which writeOperations of ${step.kind} does not declare`,
      ).toContain(operation);
      sent.set(step.kind, (sent.get(step.kind) ?? new Set()).add(operation));
    }
  }
}

it('every conformance case is of a kind of the registry', () => {
  for (const kind of Object.keys(conformanceCases))
    expect(kindOrder, `conformance case for "${kind}", which is not a registered kind`).toContain(kind);
});

describe.each([...kindOrder])('kind %s', (kind) => {
  it('declares in writeOperations only operations of src/api/operations.ts', () => {
    const declared = definitionOf(kind).writeOperations;
    expect(declared.length, `${kind} declares no write operation`).toBeGreaterThan(0);
    for (const operation of declared) expect(operationNames, `writeOperations of ${kind}`).toContain(operation);
  });

  it('conforms: creates, reads, shows no difference, changes, shows no difference, removes; sending exactly its writeOperations', async () => {
    const c = conformanceCases[kind];
    if (!c) expect.fail(`kind "${kind}" has no conformance case: add its cases in test/kinds/ (test/kinds/README.md)`);
    expect(c.address.startsWith(`${kind}.`), `the case of ${kind} follows ${c.address}`).toBe(true);
    const provider = definitionOf(kind);
    const sent = new Map<ResourceKind, Set<string>>();
    const h = await harness(c.account ? { account: c.account } : {});
    try {
      h.config(c.create);
      const create = await h.plan();
      expect(create.steps.find((s) => s.address === c.address)?.action).toBe('create');
      sentBy(create, sent);
      expect((await h.apply(create)).failed).toEqual([]);
      expect((await readAndDiff(h, kind, c)).facts.changes).toEqual([]);

      for (const [i, change] of (c.changes ?? []).entries()) {
        await change.arrange?.(h, h.state.data.resources[c.address]!.id);
        h.config(change.config);
        const plan = await h.plan(change.replace ? { replace: change.replace } : {});
        expect(plan.steps.find((s) => s.address === c.address)?.action, `change ${i + 1} of ${kind}`).toBe(change.action ?? 'update');
        sentBy(plan, sent);
        expect((await h.apply(plan)).failed).toEqual([]);
        expect((await readAndDiff(h, kind, c)).facts.changes, `after change ${i + 1} of ${kind}`).toEqual([]);
      }
      const { entry } = await readAndDiff(h, kind, c);

      h.config(c.remove);
      const removal = await h.plan();
      expect(removal.steps.find((s) => s.address === c.address)?.action).toBe(provider.removeAction);
      sentBy(removal, sent);
      expect((await h.apply(removal)).failed).toEqual([]);
      expect(h.state.data.resources[c.address]).toBeUndefined();
      if (provider.observation !== 'state') {
        const after = await liveOf(h, kind, entry);
        if (c.removed) expect(after !== null && c.removed(after as never)).toBe(true);
        else expect(after).toBeNull();
      }
      expect((await h.plan()).steps).toEqual([]);

      const declared = [...provider.writeOperations].sort();
      const walked = [...(sent.get(kind) ?? [])].sort();
      const unsent = declared.filter((operation) => !walked.includes(operation));
      expect(
        walked,
        `writeOperations of ${kind} declares ${unsent.join(', ')}, which its conformance case never sends: add a change that sends it to its conformance case, or take it out of writeOperations`,
      ).toEqual(declared);
    } finally {
      await h.close();
    }
  });
});
