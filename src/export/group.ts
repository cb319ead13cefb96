/**
 * `cplane export --group`: gateways that differ only by name (their name, slug and project; everything else,
 * settings, credentials, OTel export and tokens included, equal) are written once, as a `forEach` template
 * over their local names, so that adopting an organisation gives one entry per kind of team rather than one
 * per team. A field that is the same for every member is written as it is; one that is each member's local
 * name is `${each.key}`; any other is `${each.value.FIELD}` of the forEach map. The members' addresses
 * become instances of the template (a gateway named payments becomes TEMPLATE[payments], its tokens and OTel
 * export with it), for `--adopt`. Pure, like the model it rewrites.
 */
import type { GatewayConfig } from '../config/config-file.js';
import { movedWithParent, resourceAddress, formatAddress, kindOf } from '../plan-model/index.js';
import { gatewayProvider, gatewayTokenProvider, otelExportProvider, projectProvider } from '../providers/index.js';
import { compare } from './local-names.js';
import type { ExportModel } from './build-model.js';

/**
 * A string of the template made of a `${each...}` reference between two texts from the account: the reference is
 * written as it is, the texts escaped like every string from the account (emit-yaml.ts).
 */
export class EachReference {
  constructor(readonly reference: string, readonly before = '', readonly after = '') {}
}

/** A gateway template: its local name and its entry (with `forEach`). */
export interface GatewayGroup {
  template: string;
  entry: Record<string, unknown>;
  /** The members' local names, sorted: the keys of its forEach. */
  keys: string[];
}

/** The gateway's field that names its project (by local name). */
const PROJECT = gatewayProvider.config.references!.find((r) => r.kind === projectProvider.kind)!.attribute;
/** Fields that may differ between the members of a group: the project, and the two that default to the local name. */
const NAMING: readonly string[] = [PROJECT, 'name', 'slug'];
type Naming = string;

/** The smallest group written as a template: one gateway alone stays as it is. */
const MIN_GROUP = 2;

interface Member {
  local: string;
  config: GatewayConfig;
}

export function groupGateways(model: ExportModel): ExportModel & { groups: GatewayGroup[] } {
  const withNotes = new Set(model.tokenNotes.map((n) => n.address));
  const members: Member[] = model.projects.flatMap((p) => Object.entries(p.gateways).map(([local, config]) => ({ local, config })));
  // A gateway whose tokens carry a note (a spend limit the language cannot say) keeps its comments: it stays as it is.
  const declaredIn = (address: string, local: string) => movedWithParent(address, gatewayAddress(local), gatewayAddress(local)) !== undefined;
  const groupable = members.filter((m) => ![...withNotes].some((address) => declaredIn(address, m.local)));
  const bySignature = new Map<string, Member[]>();
  for (const member of groupable) {
    const signature = JSON.stringify(sorted(withoutNaming(member.config)));
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), member]);
  }
  const taken = new Set(members.map((m) => m.local));
  const groups: GatewayGroup[] = [];
  const renames: [string, string][] = [];
  for (const group of [...bySignature.values()].filter((g) => g.length >= MIN_GROUP)) {
    const keys = group.map((m) => m.local).sort(compare);
    const template = freeName(templateName(keys), taken);
    taken.add(template);
    groups.push({ template, keys, entry: templateEntry(group) });
    for (const key of keys) renames.push([gatewayAddress(key), formatAddress({ modules: [], kind: gatewayProvider.kind, segments: [{ name: template, key }] })]);
  }
  const grouped = new Set(groups.flatMap((g) => g.keys));
  const gatewayKinds = new Set<string>([gatewayProvider.kind, gatewayTokenProvider.kind, otelExportProvider.kind]);
  const renamed = (address: string) => {
    if (!gatewayKinds.has(kindOf(address) ?? '')) return address;
    for (const [from, to] of renames) {
      const moved = movedWithParent(address, from, to);
      if (moved !== undefined) return moved;
    }
    return address;
  };
  return {
    ...model,
    projects: model.projects.map((p) => ({ ...p, gateways: Object.fromEntries(Object.entries(p.gateways).filter(([local]) => !grouped.has(local))) })),
    adoptions: model.adoptions.map((a) => ({ ...a, address: renamed(a.address) })),
    groups: groups.sort((a, b) => compare(a.template, b.template)),
  };
}

const gatewayAddress = (local: string) => resourceAddress(gatewayProvider.kind, local);

/** A gateway's name and slug as applied: the local name when the configuration leaves them out. */
function effective(member: Member, field: Naming): string {
  const value = (member.config as unknown as Record<string, string | undefined>)[field];
  return field === PROJECT ? String(value) : (value ?? member.local);
}

function withoutNaming(config: GatewayConfig): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([field]) => !NAMING.includes(field)));
}

/** The template: the members' common configuration, with each naming field written once for all of them. */
function templateEntry(group: Member[]): Record<string, unknown> {
  const members = [...group].sort((a, b) => compare(a.local, b.local));
  const entry: Record<string, unknown> = { ...withoutNaming(members[0]!.config) };
  const perKey = new Map<string, Record<string, string>>(members.map((m) => [m.local, {}]));
  for (const field of NAMING) {
    const values = members.map((m) => effective(m, field));
    const around = field === PROJECT ? undefined : aroundKey(members, field);
    if (values.every((v) => v === values[0])) entry[field] = values[0];
    else if (around) entry[field] = new EachReference('${each.key}', around.before, around.after);
    else {
      entry[field] = new EachReference(`\${each.value.${field}}`);
      for (const m of members) perKey.get(m.local)![field] = effective(m, field);
    }
  }
  const values = [...perKey.values()];
  // With nothing but the keys to say, forEach is the list of keys.
  entry.forEach = values.every((v) => Object.keys(v).length === 0) ? members.map((m) => m.local) : Object.fromEntries(perKey);
  return entry;
}

/** The text every member's field has around its own local name (`payments gateway` -> after ` gateway`), if any. */
function aroundKey(members: Member[], field: Naming): { before: string; after: string } | undefined {
  const [first] = members;
  const at = effective(first!, field).indexOf(first!.local);
  if (at === -1) return undefined;
  const before = effective(first!, field).slice(0, at);
  const after = effective(first!, field).slice(at + first!.local.length);
  return members.every((m) => effective(m, field) === `${before}${m.local}${after}`) ? { before, after } : undefined;
}

/** A name for the template from the members' names: the dash-separated words they all end with (`payments-gw`, `search-gw` -> `gw`), or begin with. */
function templateName(keys: string[]): string {
  const words = keys.map((k) => k.split('-'));
  const common = (pick: (w: string[], i: number) => string | undefined) => {
    const out: string[] = [];
    for (let i = 0; ; i++) {
      const word = pick(words[0]!, i);
      if (word === undefined || words.some((w) => pick(w, i) !== word || w.length <= i + 1)) return out;
      out.push(word);
    }
  };
  const suffix = common((w, i) => w[w.length - 1 - i]).reverse();
  if (suffix.length > 0) return suffix.join('-');
  const prefix = common((w, i) => w[i]);
  return prefix.length > 0 ? prefix.join('-') : 'group';
}

function freeName(wanted: string, taken: ReadonlySet<string>): string {
  let name = wanted;
  for (let n = 2; taken.has(name); n++) name = `${wanted}-${n}`;
  return name;
}

/** A copy with every map's keys sorted, so that two equal configurations give the same text. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort(compare).map((k) => [k, sorted((value as Record<string, unknown>)[k])]));
  return value;
}
