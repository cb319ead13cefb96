/**
 * `cplane state list|show|rm|mv`: look at and repair the state without
 * touching remote objects. The state is found as for every command
 * (locateState in ../workspace.ts).
 */
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { definitionOf } from '../../providers/index.js';
import { renamesOf } from '../../planner/stages/refactoring.js';
import { kindOf } from '../../plan-model/index.js';
import { renamedEntry, StateError } from '../../state/index.js';
import type { ResourceState, StateStore } from '../../state/index.js';
import { openStateFor } from '../../session/workspace.js';
import { suggestedCommand } from '../../text/escape-for.js';

/** Splits positionals into the required ones (`names`) and the optional trailing [dir]. */
export function takePositionals(ctx: CommandContext, names: string[], usage: string): { args: string[]; dir: string | undefined } {
  if (ctx.positionals.length < names.length || ctx.positionals.length > names.length + 1) {
    const expected = names.length ? names.join(' and ') : 'no arguments';
    throw new AbortError(
      `Expected ${expected} (and an optional [dir]); got ${ctx.positionals.length} argument(s).`,
      `Usage: cplane ${usage}`,
    );
  }
  return { args: ctx.positionals.slice(0, names.length), dir: ctx.positionals[names.length] };
}

function mustFind(store: StateStore, address: string): ResourceState {
  const found = store.data.resources[address];
  if (!found) {
    throw new StateError(
      'STATE_ADDRESS_UNKNOWN',
      `${address} is not in the state ${store.path}.`,
      'Run `cplane state list` to see the addresses it holds.',
    );
  }
  return found;
}

function refusePendingWrites(store: StateStore, address: string): void {
  const pending = store.data.journal.filter((entry) => entry.address === address).length;
  if (pending > 0) {
    throw new StateError(
      'STATE_JOURNAL_PENDING',
      `${address} has ${pending} write(s) in the journal from an interrupted apply.`,
      'Run `cplane apply` again to finish them first.',
    );
  }
}

/** A `state` sub-command: its required positionals (then an optional [dir]) and what it does with the open state. */
function stateCommand(spec: {
  word: string;
  args: string[];
  /** Take the state's write lock (the sub-commands that change it). */
  lock: boolean;
  body: (ctx: CommandContext, store: StateStore, args: string[]) => Promise<void> | void;
}): CommandModule {
  const usage = ['state', spec.word, ...spec.args, '[dir] [options]'].join(' ');
  return {
    async run(ctx) {
      const { args, dir } = takePositionals(ctx, spec.args, usage);
      const store = await openStateFor(ctx, dir, { lock: spec.lock, command: ['state', spec.word, ...args].join(' ') });
      try {
        await spec.body(ctx, store, args);
      } finally {
        await store.close();
      }
      return 0;
    },
  };
}

export const stateListCommand = stateCommand({
  word: 'list',
  args: [],
  lock: false,
  body(ctx, store) {
    const rows = Object.entries(store.data.resources).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (rows.length === 0) {
      ctx.stdout.write(`The state ${store.path} holds no resources.\n`);
      return;
    }
    const width = Math.max(...rows.map(([address]) => address.length));
    const kindWidth = Math.max(...rows.map(([, r]) => r.kind.length));
    for (const [address, r] of rows) ctx.stdout.write(`${address.padEnd(width)}  ${r.kind.padEnd(kindWidth)}  ${r.id}\n`);
  },
});

function describeResource(address: string, r: ResourceState, store: StateStore): string[] {
  const lines = [`address:  ${address}`, `kind:     ${r.kind}`, `id:       ${r.id}`];
  const parents = Object.entries(r.parents ?? {});
  if (parents.length) lines.push(`parents:  ${parents.map(([k, v]) => `${k}=${v}`).join(', ')}`);
  lines.push(`created:  ${r.createdAt}`, `updated:  ${r.updatedAt}`);
  const inputs = Object.entries(r.inputs);
  lines.push(inputs.length ? 'inputs:' : 'inputs:   (none)', ...inputs.map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`));
  const fingerprinted = Object.keys(r.fingerprints).sort();
  if (fingerprinted.length) lines.push('write-only values:', ...fingerprinted.map((field) => `  ${field}: (sensitive, fingerprinted)`));
  const sealed = Object.keys(r.sealed ?? {}).sort();
  if (sealed.length) {
    const revealable = definitionOf(r.kind).relations.revealable;
    const reveal = (name: string) => (name === revealable ? `; \`${suggestedCommand(['output', address, '--reveal'])}\` shows it` : '');
    lines.push('sealed secrets:', ...sealed.map((name) => `  ${name}: (sensitive, sealed${reveal(name)})`));
  }
  return [...lines, ...pendingLines(address, store)];
}

function pendingLines(address: string, store: StateStore): string[] {
  const pending = store.data.journal.filter((entry) => entry.address === address);
  if (pending.length === 0) return [];
  return [
    'pending writes:',
    ...pending.map((entry) => `  ${entry.operation} (Idempotency-Key ${entry.idempotencyKey}, since ${entry.createdAt})`),
  ];
}

/** An address whose first write was saved but whose answer was never recorded (an interrupted apply). */
function describeJournalOnly(address: string, store: StateStore): string[] | undefined {
  const pending = pendingLines(address, store);
  if (pending.length === 0) return undefined;
  return [
    `address:  ${address}`,
    'recorded: not yet: the object may or may not exist; `cplane apply` resends these writes and records it',
    ...pending,
  ];
}

export const stateShowCommand = stateCommand({
  word: 'show',
  args: ['ADDRESS'],
  lock: false,
  body(ctx, store, args) {
    const [address] = args as [string];
    const lines = store.data.resources[address]
      ? describeResource(address, store.data.resources[address], store)
      : (describeJournalOnly(address, store) ?? describeResource(address, mustFind(store, address), store));
    ctx.stdout.write(`${lines.join('\n')}\n`);
  },
});

export const stateRmCommand = stateCommand({
  word: 'rm',
  args: ['ADDRESS'],
  lock: true,
  async body(ctx, store, args) {
    const [address] = args as [string];
    const { kind, id } = mustFind(store, address);
    refusePendingWrites(store, address);
    await store.update((draft) => {
      delete draft.resources[address];
    });
    ctx.stdout.write(`Removed ${address} from the state. The remote ${kind} ${id} was not touched.\n`);
  },
});

export const stateMvCommand = stateCommand({
  word: 'mv',
  args: ['FROM', 'TO'],
  lock: true,
  async body(ctx, store, args) {
    const [from, to] = args as [string, string];
    const moving = mustFind(store, from);
    if (store.data.resources[to]) {
      throw new StateError(
        'STATE_ADDRESS_EXISTS',
        `${to} is already in the state; nothing was moved.`,
        `Remove it first with \`${suggestedCommand(['state', 'rm', to])}\` if it is stale.`,
      );
    }
    if (kindOf(to) !== moving.kind) {
      throw new StateError(
        'STATE_KIND_MISMATCH',
        `${from} is a ${moving.kind}, so its new address must be ${moving.kind}.NAME (got ${to}).`,
        'An address can be renamed but never change kind.',
      );
    }
    // What lives under the object (a gateway's tokens and OTel export) moves with it.
    const renames = renamesOf(store.data.resources, from, to);
    for (const rename of renames) {
      refusePendingWrites(store, rename.from);
      if (rename.from !== from && rename.from !== rename.to && store.data.resources[rename.to]) {
        throw new StateError(
          'STATE_ADDRESS_EXISTS',
          `${rename.to} is already in the state; nothing was moved.`,
          `Remove it first with \`${suggestedCommand(['state', 'rm', rename.to])}\` if it is stale.`,
        );
      }
    }
    await store.update((draft) => {
      for (const rename of renames) {
        delete draft.resources[rename.from];
        draft.resources[rename.to] =
          rename.from === rename.to ? rename.entry : renamedEntry(store.crypto, rename.entry, rename.from, rename.to);
      }
    });
    ctx.stdout.write(`Moved ${from} to ${to} (remote ${moving.kind} ${moving.id} unchanged).\n`);
    for (const child of renames.slice(1)) if (child.from !== child.to) ctx.stdout.write(`Moved ${child.from} to ${child.to} with it.\n`);
  },
});
