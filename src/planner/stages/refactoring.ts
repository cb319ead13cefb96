/**
 * The refactoring stage (after Terraform's `moved`, `removed` and `import` blocks): resolved against state
 * before anything is diffed, as a plain function of data. It returns the state as the later stages must see
 * it: moved entries under their new addresses (what lives under a moved object moves with it, as the
 * definitions' `within` relations say), removed entries gone. The plan records each rename on the step of the
 * new address, and each removed address as a `forget` step, so that apply does the same to the real state
 * without a single API write.
 */
import type { RefactoringBlocks, SourceRange } from '../../config/types.js';
import { kindOf, localPart, movedWithParent, type PlanStep } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { ResourceState, StateData } from '../../state/types.js';
import { problemAt, type PlanProblem } from '../problems.js';
import { makeStep } from '../steps.js';
import { suggestedCommand } from '../../text/escape-for.js';

export interface RefactoringInput {
  blocks: RefactoringBlocks | undefined;
  state: StateData['resources'];
}

export interface Refactoring {
  /** State as the later stages see it. */
  state: StateData['resources'];
  /** New address -> the address state records it under. */
  movedFrom: Map<string, string>;
  /** Addresses that stay but name a moved parent by its local name: their inputs as they read after the move. */
  rewritten: Map<string, Record<string, unknown>>;
  /** Addresses cplane stops managing, with why (a removed block, or its parent's). */
  forgotten: { address: string; kind: ResourceState['kind']; reason: string }[];
  /** Configured address -> the remote id its `import` block names (only for addresses not yet in state). */
  imports: Map<string, { id: string; source: SourceRange }>;
  problems: PlanProblem[];
}

type Referrer = { address: string; attribute: string | undefined };

/**
 * For each object state holds (by `kind id`), the entries whose `parents` name it (a project's records and gateways,
 * a record's grants, a gateway's tokens), with the attribute that names it: made once for a whole walk down the tree.
 */
function referrersIn(state: StateData['resources']): (address: string) => Referrer[] {
  const byParent = new Map<string, Referrer[]>();
  for (const [address, candidate] of Object.entries(state)) {
    const { parentIds, parentAttributes, within } = definitionOf(candidate.kind).relations;
    for (const [idField, id] of Object.entries(candidate.parents ?? {})) {
      const key = `${parentIds?.[idField]} ${id}`;
      const referrer = { address, attribute: parentAttributes?.[idField] ?? (within?.idField === idField ? within.attribute : undefined) };
      const list = byParent.get(key);
      if (list) list.push(referrer);
      else byParent.set(key, [referrer]);
    }
  }
  for (const list of byParent.values()) list.sort((a, b) => (a.address < b.address ? -1 : 1));
  return (address) => {
    const entry = state[address];
    return entry ? (byParent.get(`${entry.kind} ${entry.id}`) ?? []) : [];
  };
}

/**
 * What lives under `address` in state and is declared inside it, at every depth (a project's records, and their
 * grants, shares and owner): its address follows the parent's, see `movedWithParent`.
 */
export function childrenInState(state: StateData['resources'], address: string, referrersOf = referrersIn(state)): string[] {
  const direct = referrersOf(address)
    .map((r) => r.address)
    .filter((child) => childDestination(child, address, address) !== undefined);
  return direct.flatMap((child) => [child, ...childrenInState(state, child, referrersOf)]);
}

/**
 * Where a child goes when its parent moves from `from` to `to`: its local name is its parent's
 * or starts with it (a token under its gateway); the part after it stays.
 * Undefined when the child's name does not follow its parent's (it keeps its address).
 */
export function childDestination(child: string, from: string, to: string): string | undefined {
  return movedWithParent(child, from, to);
}

/**
 * The renames one move makes in state: the object itself and what is declared inside it, at every depth (each
 * child moves with its parent as its kind's parent relation says, and its own children with it), each with its entry
 * as it reads afterwards (fingerprints keep the address they were made for, since they cannot be made again without
 * the secret). Every entry that names a moved object by its local name (a token's gateway, a gateway's project, a
 * share's record) names the new one; an entry that keeps its address appears with `from` equal to `to`.
 */
export function renamesOf(state: StateData['resources'], from: string, to: string): { from: string; to: string; entry: ResourceState }[] {
  const entry = state[from];
  if (!entry) return [];
  return [
    { from, to, entry: { ...entry, fingerprintAddress: entry.fingerprintAddress ?? from } },
    ...renamesUnder(state, referrersIn(state), from, to),
  ];
}

/** The renames of what refers to the object moved from `from` to `to`: its children move, and their children with them. */
function renamesUnder(
  state: StateData['resources'],
  referrersOf: (address: string) => Referrer[],
  from: string,
  to: string,
): { from: string; to: string; entry: ResourceState }[] {
  const out: { from: string; to: string; entry: ResourceState }[] = [];
  for (const { address, attribute } of referrersOf(from)) {
    const other = state[address]!;
    const renamesParent = attribute !== undefined && other.inputs[attribute] === localPart(from);
    const inputs = renamesParent ? { ...other.inputs, [attribute]: localPart(to) } : other.inputs;
    const destination = childDestination(address, from, to);
    if (destination)
      out.push(
        { from: address, to: destination, entry: { ...other, inputs, fingerprintAddress: other.fingerprintAddress ?? address } },
        ...renamesUnder(state, referrersOf, address, destination),
      );
    else if (renamesParent) out.push({ from: address, to: address, entry: { ...other, inputs } });
  }
  return out;
}

/**
 * Entries that name a moved object by its local name in a reference (a gateway's `credentials`) name the new one,
 * as a child names its moved parent: the live object, read back through the new name, is not a change made
 * outside cplane.
 */
function renameReferences(out: Refactoring): void {
  const renamed = new Map<string, string>();
  for (const [to, from] of out.movedFrom) renamed.set(`${kindOf(from)} ${localPart(from)}`, localPart(to));
  if (renamed.size === 0) return;
  for (const [address, entry] of Object.entries(out.state)) {
    let inputs = entry.inputs;
    for (const rule of definitionOf(entry.kind).config.references ?? []) {
      if (!('kind' in rule)) continue;
      const value = inputs[rule.attribute];
      const rename = (name: unknown) => (typeof name === 'string' ? (renamed.get(`${rule.kind} ${name}`) ?? name) : name);
      const next = Array.isArray(value) ? value.map(rename) : rename(value);
      if (JSON.stringify(next) !== JSON.stringify(value)) inputs = { ...inputs, [rule.attribute]: next };
    }
    if (inputs === entry.inputs) continue;
    out.state[address] = { ...entry, inputs };
    if (!out.movedFrom.has(address)) out.rewritten.set(address, inputs);
  }
}

export function resolveRefactoring({ blocks, state }: RefactoringInput): Refactoring {
  const out: Refactoring = {
    // A copy only when a block changes it: copying 10,000 entries to change none was a part of every plan.
    state: blocks && (blocks.moved.length > 0 || blocks.removed.length > 0) ? { ...state } : state,
    movedFrom: new Map(),
    rewritten: new Map(),
    forgotten: [],
    imports: new Map(),
    problems: [],
  };
  if (!blocks) return out;

  // Moves: each address in state follows its chain (a -> b -> c) to its end; the config loader refused cycles.
  const next = new Map(blocks.moved.map((m) => [m.from, m]));
  for (const move of blocks.moved) {
    if (!(move.from in state)) continue; // already applied, or never in this state
    let to = move.to;
    for (let hop = next.get(to); hop !== undefined && hop.from !== move.from; hop = next.get(to)) to = hop.to;
    // On the state as the moves before left it: a referrer they moved (a module's gateway naming a moved project)
    // is renamed where it now is, not brought back at its old address.
    for (const rename of renamesOf(out.state, move.from, to)) {
      if (rename.from === rename.to) {
        out.state[rename.to] = rename.entry;
        out.rewritten.set(rename.to, rename.entry.inputs);
        continue;
      }
      if (rename.to in out.state) {
        out.problems.push(
          problemAt(rename.to, move.source, {
            code: 'moved_target_exists',
            summary: `moved: cannot move ${rename.from} here, the state already has ${rename.to}`,
            detail: `Remove one of them from the state first (\`${suggestedCommand(['state', 'rm', rename.to])}\`), or delete the moved block.`,
          }),
        );
        continue;
      }
      delete out.state[rename.from];
      out.state[rename.to] = rename.entry;
      out.movedFrom.set(rename.to, rename.from);
    }
  }

  renameReferences(out);

  for (const { from, source } of blocks.removed) {
    const address = from;
    if (!(address in out.state)) continue; // already forgotten
    const children = childrenInState(out.state, address);
    for (const [forgotten, reason] of [
      [address, `removed block at ${source.file}:${source.line}`] as const,
      ...children.map((c) => [c, `removed with ${address}`] as const),
    ]) {
      out.forgotten.push({ address: forgotten, kind: out.state[forgotten]!.kind, reason });
      delete out.state[forgotten];
    }
  }

  for (const { to, id, source } of blocks.imports) {
    const entry = out.state[to];
    // The block may stay after the import was applied: the same object at the same address is nothing to do.
    if (entry?.id === id) continue;
    if (entry) {
      out.problems.push(
        problemAt(to, source, {
          code: 'import_already_managed',
          summary: `import: ${to} is already in state (id ${entry.id}), so it cannot import ${id}`,
          detail: `Delete the import block, or run \`${suggestedCommand(['state', 'rm', to])}\` first if the state is wrong.`,
        }),
      );
      continue;
    }
    out.imports.set(to, { id, source });
  }
  return out;
}

/** One `forget` step per address a removed block stops managing: it leaves state, its object is not touched. */
export function forgetSteps(refactoring: Refactoring): PlanStep[] {
  return refactoring.forgotten.map(({ address, kind, reason }) =>
    makeStep({ address, kind, action: 'forget', reason, changes: [], writes: [], forget: true, causes: ['configuration'] }),
  );
}

/**
 * Each rename goes on the step of its new address (apply renames the state entry before that step's writes);
 * an address with nothing else to do gets a `move` step of its own, which records the entry's new inputs.
 * Returns new steps; the input is left as it was.
 */
export function withMoves(steps: PlanStep[], refactoring: Refactoring, state: StateData['resources']): PlanStep[] {
  // A rename is a change of the configuration, whatever else the step does.
  const out = steps.map((s) =>
    refactoring.movedFrom.has(s.address)
      ? {
          ...s,
          moved: { from: refactoring.movedFrom.get(s.address)! },
          causes: [...new Set([...(s.causes ?? []), 'configuration' as const])],
          class: 'change' as const,
        }
      : s,
  );
  const stepped = new Set(out.map((s) => s.address));
  for (const [to, from] of refactoring.movedFrom) {
    if (stepped.has(to)) continue;
    const entry = state[to]!;
    out.push({
      ...makeStep({
        address: to,
        kind: entry.kind,
        action: 'move',
        changes: [],
        writes: [],
        inputs: entry.inputs,
        causes: ['configuration'],
      }),
      moved: { from },
    });
  }
  // An address that stays but named a moved parent: apply records its inputs with the new name (no write).
  for (const [address, inputs] of refactoring.rewritten) {
    if (!stepped.has(address) && !refactoring.movedFrom.has(address))
      out.push(
        makeStep({ address, kind: state[address]!.kind, action: 'no-op', changes: [], writes: [], inputs, causes: ['configuration'] }),
      );
  }
  return out;
}
