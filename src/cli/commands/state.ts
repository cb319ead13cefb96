/**
 * `cplane state list|show|rm|mv`: look at and repair the state without
 * touching remote objects. Also the flags every state-reading command shares
 * (`[dir]`, `--account`, `--state`) and how they open the state.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command, CommandContext, OptionSpec } from '../command.js';
import { AbortError } from '../errors.js';
import { providerFor } from '../../providers/index.js';
import { renamesOf } from '../../planner/refactoring.js';
import { openState, renamedEntry, StateError } from '../../state/index.js';
import type { ResourceState, StateStore } from '../../state/index.js';

export const stateOptions: OptionSpec = {
  account: { type: 'string' },
  state: { type: 'string' },
};

export const stateHelp = [
  '[dir]           configuration folder (default: the current folder)',
  '--account ID    account whose state to use (default: $CPLANE_ACCOUNT, else the one state under <dir>/.cplane/)',
  '--state PATH    state file to use instead of <dir>/.cplane/<account>/state.json',
];

/**
 * The configuration folder, account and state file the shared flags name. `--state PATH` is taken relative to
 * the current folder, as users expect (openState alone would take it relative to [dir]).
 */
export function stateLocation(ctx: CommandContext, dir: string | undefined): { configDir: string; account?: string; statePath?: string } {
  const configDir = resolve(ctx.cwd, dir ?? '.');
  if (dir !== undefined && !statSync(configDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AbortError(`The configuration folder ${configDir} does not exist.`, 'Give an existing folder as [dir], or leave it out to use the current one.');
  }
  const flag = ctx.values.state as string | undefined;
  const account = (ctx.values.account as string | undefined) ?? (ctx.env.CPLANE_ACCOUNT || undefined);
  return {
    configDir,
    account: account ?? (flag === undefined ? onlyStateAccount(configDir) : undefined),
    statePath: flag === undefined ? undefined : resolve(ctx.cwd, flag),
  };
}

/**
 * Without --account: the account of the one state kept under `<dir>/.cplane/`, as a folder used with one
 * account usually has. With several, the user must choose (the error lists them); with none, openState says so.
 */
function onlyStateAccount(configDir: string): string | undefined {
  const folder = join(configDir, '.cplane');
  const accounts = (statSync(folder, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(folder, { withFileTypes: true }) : [])
    .filter((entry) => entry.isDirectory() && statSync(join(folder, entry.name, 'state.json'), { throwIfNoEntry: false })?.isFile())
    .map((entry) => entry.name)
    .sort();
  if (accounts.length > 1) {
    throw new AbortError(`${folder} holds the states of ${accounts.length} accounts: ${accounts.join(', ')}.`, 'Choose one with --account ID or CPLANE_ACCOUNT.');
  }
  return accounts[0];
}

/** Opens the state named by the shared flags; `dir` is the configuration folder positional, if given. */
export function openStateFor(ctx: CommandContext, dir: string | undefined, options: { lock: boolean; command: string }): Promise<StateStore> {
  return openState({ ...stateLocation(ctx, dir), env: ctx.env, command: options.command, lock: options.lock, mustExist: true });
}

/** Splits positionals into the required ones (`names`) and the optional trailing [dir]. */
function takePositionals(ctx: CommandContext, names: string[], usage: string): { args: string[]; dir: string | undefined } {
  if (ctx.positionals.length < names.length || ctx.positionals.length > names.length + 1) {
    const expected = names.length ? names.join(' and ') : 'no arguments';
    throw new AbortError(`Expected ${expected} (and an optional [dir]); got ${ctx.positionals.length} argument(s).`, `Usage: cplane ${usage}`);
  }
  return { args: ctx.positionals.slice(0, names.length), dir: ctx.positionals[names.length] };
}

function mustFind(store: StateStore, address: string): ResourceState {
  const found = store.data.resources[address];
  if (!found) {
    throw new StateError('STATE_ADDRESS_UNKNOWN', `${address} is not in the state ${store.path}.`, 'Run `cplane state list` to see the addresses it holds.');
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
  summary: string;
  /** Take the state's write lock (the sub-commands that change it). */
  lock: boolean;
  body: (ctx: CommandContext, store: StateStore, args: string[]) => Promise<void> | void;
}): Command {
  const usage = ['state', spec.word, ...spec.args, '[dir] [--account ID] [--state PATH]'].join(' ');
  return {
    name: ['state', spec.word],
    summary: spec.summary,
    usage,
    help: stateHelp,
    options: stateOptions,
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

const stateListCommand = stateCommand({
  word: 'list',
  args: [],
  summary: 'List the addresses in the state, with their kind and remote id',
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
    const revealable = providerFor(r.kind).relations.revealable;
    const reveal = (name: string) => (name === revealable ? `; \`cplane output ${address} --reveal\` shows it` : '');
    lines.push('sealed secrets:', ...sealed.map((name) => `  ${name}: (sensitive, sealed${reveal(name)})`));
  }
  const pending = store.data.journal.filter((entry) => entry.address === address);
  if (pending.length) lines.push('pending writes:', ...pending.map((entry) => `  ${entry.operation} (Idempotency-Key ${entry.idempotencyKey}, since ${entry.createdAt})`));
  return lines;
}

const stateShowCommand = stateCommand({
  word: 'show',
  args: ['ADDRESS'],
  summary: 'Show what the state holds for one address (never a secret)',
  lock: false,
  body(ctx, store, args) {
    const [address] = args as [string];
    ctx.stdout.write(`${describeResource(address, mustFind(store, address), store).join('\n')}\n`);
  },
});

const stateRmCommand = stateCommand({
  word: 'rm',
  args: ['ADDRESS'],
  summary: 'Forget an address: cplane stops managing it; the remote object is not touched',
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

const stateMvCommand = stateCommand({
  word: 'mv',
  args: ['FROM', 'TO'],
  summary: 'Rename an address in the state, keeping its remote object',
  lock: true,
  async body(ctx, store, args) {
    const [from, to] = args as [string, string];
    const moving = mustFind(store, from);
    if (store.data.resources[to]) {
      throw new StateError('STATE_ADDRESS_EXISTS', `${to} is already in the state; nothing was moved.`, `Remove it first with \`cplane state rm ${to}\` if it is stale.`);
    }
    const toKind = to.split('.')[0];
    if (toKind !== moving.kind || !to.slice(toKind.length + 1)) {
      throw new StateError('STATE_KIND_MISMATCH', `${from} is a ${moving.kind}, so its new address must be ${moving.kind}.NAME (got ${to}).`, 'An address can be renamed but never change kind.');
    }
    // What lives under the object (a gateway's tokens and OTel export) moves with it.
    const renames = renamesOf(store.data.resources, from, to);
    for (const rename of renames) {
      refusePendingWrites(store, rename.from);
      if (rename.from !== from && rename.from !== rename.to && store.data.resources[rename.to]) {
        throw new StateError('STATE_ADDRESS_EXISTS', `${rename.to} is already in the state; nothing was moved.`, `Remove it first with \`cplane state rm ${rename.to}\` if it is stale.`);
      }
    }
    await store.update((draft) => {
      for (const rename of renames) {
        delete draft.resources[rename.from];
        draft.resources[rename.to] = rename.from === rename.to ? rename.entry : renamedEntry(store, rename.entry, rename.from, rename.to);
      }
    });
    ctx.stdout.write(`Moved ${from} to ${to} (remote ${moving.kind} ${moving.id} unchanged).\n`);
    for (const child of renames.slice(1)) if (child.from !== child.to) ctx.stdout.write(`Moved ${child.from} to ${child.to} with it.\n`);
  },
});

export const stateCommands: Command[] = [stateListCommand, stateShowCommand, stateRmCommand, stateMvCommand];
