/**
 * `cplane access offboard USER`: what taking one user's access away means, as data. The user reads a record
 * through a share of it (`grants.users`), through a group that has a share of it (`grants.groups`), or through a
 * group with a role on the record's project (`groupRoles`); the groups are those of `directory.groups` whose
 * `members` list the user (no operation lists a group's members). The plan is the configuration's own plan with
 * the user's shares taken out of it and every record the user could read given as `replace`: a value cplane
 * generates is rotated; one from a source cannot be made here, so it is listed for its owner, with the source.
 *
 * Taking the shares out of the desired state (never out of the files) makes the planner's own removal revoke
 * them, and the record's re-wraps leave the user out. The plan covers only those addresses (and what they need): a
 * change made by hand elsewhere, or an edit of the configuration, waits for the next plan. Apply recomputes the same plan from the saved plan's
 * `offboard.user` and `replace` (both under its MAC), so what it applies is what was reviewed.
 */
import { undeclaredInDirectory } from '../config/index.js';
import { AbortError } from '../errors.js';
import type { DesiredResource, DesiredState, SecretSource } from '../config/types.js';
import { parentAddress, type Offboarding, type OffboardedRecord, type Plan } from '../plan-model/index.js';
import { accessKinds, valueKind, type AccessKind, type RecordAttributes } from '../providers/index.js';
import type { StateData } from '../state/types.js';
import { makePlan } from '../planner/make-plan.js';
import { summarize } from '../planner/stages/summary.js';
import type { MakePlanInput } from '../planner/stage-inputs.js';

/** Why `user` cannot be offboarded from this configuration (not declared in `directory.users`, with the closest names), or undefined. */
export function unknownUserProblem(desired: DesiredState, user: string): { code: string; summary: string; detail: string } | undefined {
  const directory = desired.directory ?? { users: {}, groups: {}, roles: {}, serviceAccounts: {} };
  return Object.hasOwn(directory.users, user) ? undefined : undeclaredInDirectory('users', user, directory);
}

/** A resource of a kind that gives access, with the kind's declaration, the principal it names and the object it gives access to. */
interface Access {
  resource: DesiredResource;
  kind: AccessKind;
  name: string;
  object: string;
}

/** The configured resources that give access, from the kinds that declare it (`accessKinds`): no kind is named here. */
function accessesOf(desired: DesiredState, kinds: readonly AccessKind[]): Access[] {
  return desired.resources.flatMap((resource) =>
    kinds
      .filter((kind) => kind.kind === resource.kind)
      .flatMap((kind) => {
        const name = (resource.attributes as Record<string, unknown>)[kind.attribute];
        const object = parentAddress(resource.address, kind.on);
        return typeof name === 'string' && object !== undefined ? [{ resource, kind, name, object }] : [];
      }),
  );
}

/** The source of a record's value in words a person can act on; never the value. */
function sourceWords(source: SecretSource | undefined): string {
  if (source === undefined) return 'none in the configuration';
  if ('env' in source) return `env ${source.env}`;
  if ('file' in source) return `file ${source.file}`;
  if ('output' in source) return `delivered from ${source.output.address}`;
  return 'generated';
}

export interface OffboardingDesign {
  /** The configuration without the user's shares (and without the user in any record's `grants.users`). */
  desired: DesiredState;
  /** The records to rotate: generated values the user could read, in state. */
  replace: string[];
  offboard: Offboarding;
}

/**
 * What offboarding `user` changes in the desired state, and the account of it the plan carries. The user must be
 * declared. `kinds`: the kinds that give access (the registry's; a test adds one it does not list).
 */
export function designOffboarding(
  desired: DesiredState,
  user: string,
  state: StateData['resources'],
  kinds: readonly AccessKind[] = accessKinds,
): OffboardingDesign {
  const directory = desired.directory!;
  const groups = Object.entries(directory.groups)
    .filter(([, g]) => g.members?.some((m) => m.user === user))
    .map(([name]) => name);
  const inGroup = new Set(groups);
  const accesses = accessesOf(desired, kinds);
  const shares = accesses.filter((a) => a.kind.principal === 'user' && a.name === user);
  const ways = new Map<string, string[]>();
  // The records access to `object` reaches: the record itself, or every record declared inside it (a project's).
  const recordsOf = (object: string, on: string) =>
    on === valueKind
      ? [object]
      : desired.resources.filter((r) => r.kind === valueKind && parentAddress(r.address, on) === object).map((r) => r.address);
  const via = (a: Access, how: string) => {
    for (const record of recordsOf(a.object, a.kind.on)) ways.set(record, [...(ways.get(record) ?? []), how]);
  };
  // Access to a record is a share; to what holds records, a role (or plain access) on it.
  const onWhat = (a: Access) => {
    const role = a.kind.role === undefined ? undefined : (a.resource.attributes as Record<string, unknown>)[a.kind.role];
    return `${role === undefined ? 'access' : `role ${String(role)}`} on ${a.object}`;
  };
  for (const share of shares) via(share, share.kind.on === valueKind ? 'share' : onWhat(share));
  for (const a of accesses.filter((a) => a.kind.principal === 'group' && inGroup.has(a.name)))
    via(a, a.kind.on === valueKind ? `group ${a.name}` : `group ${a.name} (${onWhat(a)})`);

  const records: OffboardedRecord[] = [];
  const replace: string[] = [];
  for (const r of desired.resources) {
    const how = ways.get(r.address);
    // A record never applied holds no value anyone read.
    if (r.kind !== valueKind || how === undefined || state[r.address] === undefined) continue;
    const source = r.secrets.value;
    if (source !== undefined && 'generate' in source) {
      records.push({ address: r.address, via: how, value: 'rotated' });
      replace.push(r.address);
    } else {
      records.push({ address: r.address, via: how, value: 'owner', source: sourceWords(source) });
    }
  }

  const shareAddresses = new Set(shares.map((s) => s.resource.address));
  const resources = desired.resources
    .filter((r) => !shareAddresses.has(r.address))
    .map((r) => (r.kind === valueKind ? withoutReader(r, user) : r));
  const lines = [
    ...shares.map(({ resource: s, kind, object }) => ({ ...s.source, what: `${s.address}: ${user} in ${kind.key} of ${object}` })),
    ...groups.flatMap((g) =>
      (directory.groups[g]!.members ?? [])
        .filter((m) => m.user === user)
        .map((m) => ({ ...m.source, what: `${user} in directory.groups.${g}.members` })),
    ),
    ...(directory.users[user]!.source
      ? [{ ...directory.users[user]!.source, what: `directory.users.${user}, once nothing else names the user` }]
      : []),
  ].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col);
  return {
    desired: { ...desired, resources },
    replace,
    offboard: {
      user,
      userId: directory.users[user]!.id,
      revoked: [...shareAddresses].filter((address) => state[address] !== undefined),
      records,
      groups,
      lines,
    },
  };
}

/** A record's attributes without `user` among its readers (nor its `until`): the record's step then re-wraps for the others only. */
function withoutReader(r: DesiredResource, user: string): DesiredResource {
  const record = r.attributes as unknown as RecordAttributes;
  const users = record.grants?.users;
  if (!users?.includes(user)) return r;
  const attributes: RecordAttributes = { ...record, grants: { ...record.grants, users: users.filter((u) => u !== user) } };
  if (attributes.grantsUntil?.[`users/${user}`] !== undefined) {
    const { [`users/${user}`]: _ended, ...rest } = attributes.grantsUntil;
    if (Object.keys(rest).length > 0) attributes.grantsUntil = rest;
    else delete attributes.grantsUntil;
  }
  return { ...r, attributes: attributes as unknown as DesiredResource['attributes'] };
}

/**
 * The plan that offboards `user`: the configuration's plan with the user's shares revoked and the generated
 * values the user could read rotated, its steps saying why. `cplane access offboard` makes it, and apply makes it
 * again for a saved one (from `offboard.user`, under the plan's MAC) to compare with. The input's `replace`,
 * `rewrap` and `mode` are not used: the offboarding decides what is replaced, in a normal plan.
 */
export async function makeOffboardingPlan(input: MakePlanInput, user: string): Promise<Plan> {
  const problem = unknownUserProblem(input.desired, user);
  if (problem) throw new AbortError(`${problem.summary.replace(/[^?.]$/, '$&.')} Nothing was planned.`, problem.detail);
  const design = designOffboarding(input.desired, user, input.state.data.resources);
  // Only the offboarding: its revocations and the records the user could read (and what they need). Drift and other
  // edits of the configuration are left to the next plan, so a review of an offboarding reviews only that.
  const scope = [...design.offboard.revoked, ...design.offboard.records.map((r) => r.address)];
  const plan = await makePlan({
    ...input,
    mode: 'normal',
    rewrap: false,
    desired: design.desired,
    replace: design.replace,
    targets: scope,
    exclude: [],
  });
  const scoped = scope.length > 0 ? plan : { ...plan, steps: [], drift: [], summary: summarize([]) };
  return { ...annotated(scoped, design), targets: [], offboard: design.offboard };
}

/** The plan's steps saying that they offboard the user: the revocations' reason, and the rotations' note. */
function annotated(plan: Plan, design: OffboardingDesign): Plan {
  const why = `offboarding ${design.offboard.user}`;
  const revoked = new Set(design.offboard.revoked);
  const rotated = new Set(design.replace);
  const steps = plan.steps.map((step) => {
    if (revoked.has(step.address)) return { ...step, reason: why };
    if (!rotated.has(step.address)) return step;
    return {
      ...step,
      changes: step.changes.map((c) => (c.path === 'value' ? { ...c, note: [`rotate: ${why}`, c.note].filter(Boolean).join('; ') } : c)),
    };
  });
  return { ...plan, steps };
}
