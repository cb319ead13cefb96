/**
 * The access report (`cplane access report`): who can read each record, and through which grant, derived from
 * three sources that each know part of it. The configuration says which readers should have a grant (and until
 * when) and which groups have a role on a project; the state says which record id an address names and when
 * cplane made a grant; the account says which grants exist (the records list's `grants` ids), which Service
 * Accounts are active, and, in the record-access audit feed, who read which record when and when each value
 * version was written. `readAccess` reads the account through the one reader of it (account/read-account.ts) and
 * the feed beside it (four lists, each read once);
 * `accessReport` is a plain function of what was read, and renders nothing.
 *
 * "May hold version N" comes from the audit feed: a data key is wrapped per reader, and a reader gets its wrapper
 * only by reading the record, which appends a `read` row naming it. So a reader with no grant now that read the
 * record after its current version was written holds that version's value; one that did not, does not.
 */
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { ResultOf } from '../api/operations.js';
import type { ProjectT, RecordMetaT, ServiceAccountT } from '../api/shapes.js';
import type { DesiredState } from '../config/types.js';
import {
  parentAddress,
  type AccessFlag,
  type AccessFlagCode,
  type AccessReader,
  type AccessReaderType,
  type AccessRecord,
  type AccessReport,
} from '../plan-model/index.js';
import { accessProfile, readAccount } from '../account/index.js';
import {
  accessKinds,
  definitionOf,
  findServiceAccount,
  serviceAccounts,
  valueKind,
  type AccessKind,
  type DataSource,
} from '../providers/index.js';
import type { ResourceState } from '../state/types.js';
import { relativeTime } from '../planner/stages/reissue.js';

const DAY_MS = 86_400_000;
const SOON_MS = 7 * DAY_MS;

/** The audit actions the report reads: reads, and the writes that make a new value version. */
const FEED_ACTIONS = ['read', 'create', 'version', 'rotate', 'rollback'];
const VALUE_WRITES = new Set(FEED_ACTIONS.slice(1));

type AuditRowT = ResultOf<'listRecordAccess'>[number];

/** What the report reads of the account. */
export interface AccessReads {
  records: RecordMetaT[];
  projects: ProjectT[];
  serviceAccounts: ServiceAccountT[];
  /** The record-access feed (reads and value writes), or undefined when the token may not read it. */
  audit: AuditRowT[] | undefined;
  /** The API's clock after the reads. */
  now: Date;
}

/**
 * Reads the account once, through the one reader of the account (account/) with the access profile: its records
 * (archived ones included, as the records kind lists them for a plan, with their grants' ids), projects and Service
 * Accounts; beside them, the record-access feed, which is no object of the account but the report's own subject.
 */
export async function readAccess(client: ApiClient, account: string): Promise<AccessReads> {
  const [read, audit] = await Promise.all([
    readAccount(client, { account, parallelism: 1, profile: accessProfile([valueKind, containerKind]) }),
    client
      .listAll('listRecordAccess', { query: { scopeType: 'account', actions: FEED_ACTIONS.join(',') } })
      // A role without the audit permission still gets the rest of the report, which says the feed was not read.
      .catch((error: unknown) => (error instanceof ApiError && error.status === 403 ? undefined : Promise.reject(error))),
  ]);
  const listed = <T>(kind: string) => (read.items[kind] ?? []) as T[];
  return {
    records: listed<RecordMetaT>(valueKind),
    projects: listed<ProjectT>(containerKind),
    serviceAccounts: (read.lookups.get(serviceAccounts as DataSource<unknown>) ?? []) as ServiceAccountT[],
    audit,
    now: client.serverNow(),
  };
}

export interface AccessReportInput {
  desired: Pick<DesiredState, 'resources' | 'directory'>;
  state: Readonly<Record<string, ResourceState>>;
  reads: AccessReads;
  account: string;
  unusedDays: number;
}

/** A reader the configuration lists for a record. */
interface Configured {
  kind: AccessKind;
  id: string;
  name: string;
  address: string;
  until?: string;
  reason?: string;
}

/**
 * The kinds that give access, as they declare it (`accessKinds`): to a record itself (its grants and shares, which
 * the records list shows), or to the object records live under (a project's group roles, which no operation reads).
 */
const toRecords = accessKinds.filter((a) => a.on === valueKind);
/** The kind records are declared inside (the project). */
const containerKind = definitionOf(valueKind).config.parent!.kind;
const toContainers = accessKinds.filter((a) => a.on === containerKind);
const TYPE_ORDER: AccessReaderType[] = ['service_account', 'user', 'group'];

/** What the audit feed says per record: when its current value was written, and each actor's last read. */
interface RecordActivity {
  valueWrittenAt?: string;
  lastReads: Map<string, string>;
  /** Each actor's last read at or after the current value was written (the feed lists rows in creation order). */
  readsOfCurrent: Map<string, { type: string; at: string }>;
}

function activityOf(audit: readonly AuditRowT[]): Map<string, RecordActivity> {
  const byRecord = new Map<string, RecordActivity>();
  for (const row of audit) {
    if (!row.record_id) continue;
    let activity = byRecord.get(row.record_id);
    if (!activity) byRecord.set(row.record_id, (activity = { lastReads: new Map(), readsOfCurrent: new Map() }));
    if (VALUE_WRITES.has(row.action)) {
      // A new value: earlier reads were of an older version.
      if (!activity.valueWrittenAt || row.created_at >= activity.valueWrittenAt) {
        activity.valueWrittenAt = row.created_at;
        activity.readsOfCurrent.clear();
      }
    } else if (row.action === 'read') {
      activity.lastReads.set(row.actor_id, row.created_at);
      activity.readsOfCurrent.set(row.actor_id, { type: row.actor_type, at: row.created_at });
    }
  }
  return byRecord;
}

/** The id of the project at a configuration address: state's, else the live project of its name. */
function projectIds(
  desired: AccessReportInput['desired'],
  state: AccessReportInput['state'],
  reads: AccessReads,
): (address: string) => string | undefined {
  const names = new Map(
    desired.resources
      .filter((r) => r.kind === containerKind)
      .map((r) => [r.address, (r.attributes as { name?: string }).name ?? r.localName]),
  );
  const live = new Map(reads.projects.filter((p) => !p.archived).map((p) => [p.name, p.project_id]));
  return (address) => state[address]?.id ?? live.get(names.get(address) ?? '');
}

/** The configuration's address of each record id: state's id for the address, else the live record of its project and name. */
function recordAddresses(
  desired: AccessReportInput['desired'],
  state: AccessReportInput['state'],
  reads: AccessReads,
  projectIdOf: (project: string) => string | undefined,
): Map<string, string> {
  const byKey = new Map(reads.records.map((r) => [`${r.project_id}/${r.name}`, r.record_id]));
  const addresses = new Map<string, string>();
  for (const r of desired.resources) {
    if (r.kind !== valueKind) continue;
    const attributes = r.attributes as { name: string };
    const projectId = projectIdOf(parentAddress(r.address, containerKind) ?? '');
    const id = state[r.address]?.id ?? (projectId ? byKey.get(`${projectId}/${attributes.name}`) : undefined);
    if (id) addresses.set(id, r.address);
  }
  return addresses;
}

/** The principal's id: a Service Account's of the account, or a user's or group's of the directory. */
function principalId(
  desired: AccessReportInput['desired'],
  ours: readonly ServiceAccountT[],
  principal: AccessReaderType,
  name: string,
): string | undefined {
  if (principal === 'service_account') return findServiceAccount(ours, name)?.service_account_id;
  return desired.directory?.[principal === 'user' ? 'users' : 'groups']?.[name]?.id;
}

/** The configured resources of kinds in `kinds`, with their kind, the principal's name and the object they give access to. */
function accessesIn(desired: AccessReportInput['desired'], kinds: readonly AccessKind[]) {
  return desired.resources.flatMap((r) =>
    kinds
      .filter((k) => k.kind === r.kind)
      .flatMap((kind) => {
        const attributes = r.attributes as Record<string, unknown>;
        const name = attributes[kind.attribute];
        const object = parentAddress(r.address, kind.on);
        return typeof name === 'string' && object !== undefined ? [{ r, kind, name, object, attributes }] : [];
      }),
  );
}

/** The readers the configuration lists, by record address. */
function configuredReaders(desired: AccessReportInput['desired'], reads: AccessReads, account: string): Map<string, Configured[]> {
  const out = new Map<string, Configured[]>();
  const ours = reads.serviceAccounts.filter((s) => s.account_id === account);
  for (const { r, kind, name, object, attributes } of accessesIn(desired, toRecords)) {
    const id = principalId(desired, ours, kind.principal, name);
    if (!id) continue;
    const { until, reason } = attributes as { until?: string; reason?: string };
    const list = out.get(object) ?? [];
    list.push({
      kind,
      id,
      name,
      address: r.address,
      ...(until !== undefined ? { until } : {}),
      ...(reason !== undefined ? { reason } : {}),
    });
    out.set(object, list);
  }
  return out;
}

/** Who has access to each project id through it (a group's role: the configuration's `groupRoles`, which no operation reads back). */
function containerAccess(
  desired: AccessReportInput['desired'],
  reads: AccessReads,
  account: string,
  projectIdOf: (address: string) => string | undefined,
) {
  const out = new Map<string, { kind: AccessKind; id: string; name: string; role?: string; address: string }[]>();
  const ours = reads.serviceAccounts.filter((s) => s.account_id === account);
  for (const { r, kind, name, object, attributes } of accessesIn(desired, toContainers)) {
    const projectId = projectIdOf(object);
    const id = principalId(desired, ours, kind.principal, name);
    if (!projectId || !id) continue;
    const role = kind.role === undefined ? undefined : String(attributes[kind.role]);
    out.set(projectId, [...(out.get(projectId) ?? []), { kind, id, name, ...(role !== undefined ? { role } : {}), address: r.address }]);
  }
  return out;
}

/** What the report reads for every record: the times, the readers the configuration lists, and names by id. */
interface ReportContext {
  now: number;
  unusedSince: number;
  unusedDays: number;
  audited: boolean;
  state: AccessReportInput['state'];
  activity: Map<string, RecordActivity>;
  addresses: ReturnType<typeof recordAddresses>;
  configured: Map<string, Configured[]>;
  roles: ReturnType<typeof containerAccess>;
  serviceAccounts: Map<string, ServiceAccountT>;
  projectNames: Map<string, string>;
  nameOf: (principal: AccessReaderType, id: string) => string;
}

function reportContext(input: AccessReportInput): ReportContext {
  const { desired, state, reads, account, unusedDays } = input;
  const now = reads.now.getTime();
  const projectIdOf = projectIds(desired, state, reads);
  const serviceAccounts = new Map(reads.serviceAccounts.map((s) => [s.service_account_id, s]));
  const directoryNames = (section: 'users' | 'groups') =>
    new Map(Object.entries(desired.directory?.[section] ?? {}).map(([name, p]) => [p.id, name]));
  const names = { users: directoryNames('users'), groups: directoryNames('groups') };
  return {
    now,
    unusedSince: now - unusedDays * DAY_MS,
    unusedDays,
    audited: reads.audit !== undefined,
    state,
    activity: reads.audit ? activityOf(reads.audit) : new Map<string, RecordActivity>(),
    addresses: recordAddresses(desired, state, reads, projectIdOf),
    configured: configuredReaders(desired, reads, account),
    roles: containerAccess(desired, reads, account, projectIdOf),
    serviceAccounts,
    projectNames: new Map(reads.projects.map((p) => [p.project_id, p.name])),
    nameOf: (principal, id) =>
      (principal === 'service_account' ? serviceAccounts.get(id)?.name : names[principal === 'user' ? 'users' : 'groups'].get(id)) ?? id,
  };
}

/** The report: every live record of the account (archived ones aside), in project and name order. */
export function accessReport(input: AccessReportInput): AccessReport {
  const context = reportContext(input);
  const records = input.reads.records.filter((live) => !live.archived).map((live) => recordReport(context, live));
  records.sort((a, b) => compare(a.project, b.project) || compare(a.name, b.name) || compare(a.recordId, b.recordId));
  const flagged = Object.fromEntries(FLAG_CODES.map((code) => [code, 0])) as Record<AccessFlagCode, number>;
  let readerCount = 0;
  for (const record of records) {
    readerCount += record.readers.length;
    for (const reader of record.readers) for (const flag of reader.flags) flagged[flag.code]++;
  }
  const { account, unusedDays, reads } = input;
  return { account, now: reads.now.toISOString(), unusedDays, auditRead: reads.audit !== undefined, records, readerCount, flagged };
}

type LiveRecord = AccessReportInput['reads']['records'][number];

/** One record with its readers: those granted (live or configured), those through a role, and former readers. */
function recordReport(context: ReportContext, live: LiveRecord): AccessRecord {
  const address = context.addresses.get(live.record_id);
  const holders = new Set<string>();
  const readers = [
    ...grantedReaders(context, live, address, holders),
    ...roleReaders(context, live),
    ...formerReaders(context, live, holders),
  ];
  readers.sort((a, b) => TYPE_ORDER.indexOf(a.type) - TYPE_ORDER.indexOf(b.type) || compare(a.name, b.name) || compare(a.via, b.via));
  return {
    recordId: live.record_id,
    projectId: live.project_id,
    project: context.projectNames.get(live.project_id) ?? live.project_id,
    name: live.name,
    ...(address ? { address } : {}),
    currentVersion: live.current_version,
    readers,
  };
}

/** The readers of each kind that grants a record: live grants and configured ones. Adds the live holders to `holders`. */
function grantedReaders(context: ReportContext, live: LiveRecord, address: string | undefined, holders: Set<string>): AccessReader[] {
  const wanted = (address && context.configured.get(address)) || [];
  const readers: AccessReader[] = [];
  for (const kind of toRecords) {
    const liveIds = kind.holders?.(live) ?? [];
    const listed = wanted.filter((c) => c.kind === kind);
    for (const id of new Set([...liveIds, ...listed.map((c) => c.id)])) {
      const entry = listed.find((c) => c.id === id);
      const isLive = liveIds.includes(id);
      if (isLive) holders.add(id);
      const account = kind.principal === 'service_account' ? context.serviceAccounts.get(id) : undefined;
      // The feed names the member who read, never the group: a group's use cannot be told.
      const lastRead =
        kind.principal === 'group' || !context.audited ? undefined : (context.activity.get(live.record_id)?.lastReads.get(id) ?? null);
      readers.push({
        type: kind.principal,
        id,
        name: entry?.name ?? context.nameOf(kind.principal, id),
        via: kind.via,
        ...(entry ? { address: entry.address } : {}),
        live: isLive,
        ...(account ? { status: account.status } : {}),
        ...(lastRead !== undefined ? { lastRead } : {}),
        ...(entry?.until !== undefined ? { until: new Date(entry.until).toISOString() } : {}),
        ...(entry?.reason !== undefined ? { reason: entry.reason } : {}),
        flags: grantFlags(context, live, { entry, isLive, account, lastRead }),
      });
    }
  }
  return readers;
}

/** What a person should know of one grant: unmanaged, not granted, inactive, unused, ending or ended. */
function grantFlags(
  context: ReportContext,
  live: LiveRecord,
  grant: { entry: Configured | undefined; isLive: boolean; account: ServiceAccountT | undefined; lastRead: string | null | undefined },
): AccessFlag[] {
  const { entry, isLive, account, lastRead } = grant;
  const flags: AccessFlag[] = [];
  const endsIn = entry?.until === undefined ? undefined : Date.parse(entry.until) - context.now;
  if (!entry) flags.push({ code: 'unmanaged' });
  // An ended grant is not granted again: only its end is said.
  if (entry && !isLive && !(endsIn !== undefined && endsIn <= 0)) flags.push({ code: 'not-granted' });
  if (isLive && account && account.status !== 'active') flags.push({ code: 'inactive', status: account.status });
  // When cplane made the grant (state), else no earlier than the record was made: a grant younger than the
  // window is not called unused.
  const grantedAt = (entry ? context.state[entry.address]?.createdAt : undefined) ?? live.created_at;
  const grantedLongAgo = Date.parse(grantedAt) <= context.unusedSince;
  if (isLive && lastRead !== undefined && (lastRead === null || Date.parse(lastRead) < context.unusedSince) && grantedLongAgo)
    flags.push({ code: 'unused', days: context.unusedDays, lastRead });
  if (entry?.until !== undefined && endsIn !== undefined) {
    if (endsIn <= 0) flags.push({ code: 'ended', until: new Date(entry.until).toISOString() });
    else if (endsIn <= SOON_MS) flags.push({ code: 'ends-soon', until: new Date(entry.until).toISOString(), left: relativeTime(endsIn) });
  }
  return flags;
}

/** Who reads the record through a role on its project (the configuration's `groupRoles`; not read back). */
function roleReaders(context: ReportContext, live: LiveRecord): AccessReader[] {
  return (context.roles.get(live.project_id) ?? []).map((holder) => ({
    type: holder.kind.principal,
    id: holder.id,
    name: holder.name,
    via: holder.kind.via,
    address: holder.address,
    ...(holder.role !== undefined ? { role: holder.role } : {}),
    live: null,
    flags: [],
  }));
}

/** Whoever read the current version and holds no grant now (the owner reads with cplane's own wrapper). */
function formerReaders(context: ReportContext, live: LiveRecord, holders: ReadonlySet<string>): AccessReader[] {
  if (live.current_version === null) return [];
  const readers: AccessReader[] = [];
  for (const [actor, read] of context.activity.get(live.record_id)?.readsOfCurrent ?? []) {
    if (holders.has(actor) || actor === live.owner_user_id) continue;
    const type: AccessReaderType = read.type === 'service_account' ? 'service_account' : 'user';
    const account = type === 'service_account' ? context.serviceAccounts.get(actor) : undefined;
    readers.push({
      type,
      id: actor,
      name: context.nameOf(type, actor),
      via: 'former',
      live: false,
      ...(account ? { status: account.status } : {}),
      lastRead: read.at,
      flags: [{ code: 'may-hold-version', version: live.current_version, readAt: read.at }],
    });
  }
  return readers;
}

const FLAG_CODES: AccessFlagCode[] = ['unmanaged', 'not-granted', 'may-hold-version', 'inactive', 'unused', 'ends-soon', 'ended'];

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
