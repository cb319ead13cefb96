/**
 * `cplane export --group`: gateways that differ only by name (their name, slug and project; everything else,
 * settings, credentials, OTel export and tokens included, equal) are written once, as a `forEach` template
 * over their local names, in a file of their own, so that adopting an organisation gives one entry per kind
 * of team rather than one per team. A field the members share is written as it is; one that is each member's
 * local name with the same text around it is written around `${each.key}`; any other is `${each.value.FIELD}`
 * of the forEach map. The members' addresses become instances of the template (a gateway named payments
 * becomes TEMPLATE[payments], what is declared inside it with it), for `--adopt`. Pure, like the model.
 */
import { formatAddress, movedWithParent, resourceAddress } from '../plan-model/index.js';
import { exportedDefinitionOf, exportKinds } from '../providers/index.js';
import { compare } from './local-names.js';
import type { ExportedEntry, ExportedFile, ExportModel } from './build-model.js';

/**
 * A string made of a reference of export's own (a template's `${each...}`, a directory entry's `${var.NAME}`) between two texts from the account: the reference is
 * written as it is, the texts escaped like every string from the account (emit-yaml.ts).
 */
export class EachReference {
  constructor(
    readonly reference: string,
    readonly before = '',
    readonly after = '',
  ) {}
}

/** A template written: its address and how many gateways it stands for. */
export interface GatewayGroup {
  address: string;
  gateways: number;
}

/** The kind written as templates: the one whose export mapping says how (`template`), the gateway. */
const templated = exportKinds.map(exportedDefinitionOf).find((d) => d.export.template !== undefined)!;
const { template: TEMPLATE, file: FILE } = templated.export;
/** The field that names the entry its file goes with (a gateway's project, by local name). */
const PROJECT = FILE && 'with' in FILE ? FILE.with.attribute : '';
/** Fields that may differ between the members of a group: the project, and those that default to the local name. */
const NAMING: readonly string[] = [PROJECT, ...TEMPLATE!.localNameFields];

/** The smallest group written as a template: one gateway alone stays as it is. */
const MIN_GROUP = 2;

export function groupGateways(model: ExportModel): ExportModel & { groups: GatewayGroup[] } {
  const members = model.files.flatMap((f) => f.entries).filter((e) => e.kind === templated.kind);
  // An entry with comments or notes for people (a spend limit the language cannot say, a header to set) keeps them: it stays as it is.
  const bySignature = new Map<string, ExportedEntry[]>();
  for (const member of members.filter(withoutRemarks)) {
    const signature = JSON.stringify(sorted(withoutNaming(member.entry)));
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), member]);
  }
  const taken = new Set(members.map((m) => m.local));
  const files: ExportedFile[] = [];
  const renamed = new Map<string, string>();
  const groups: GatewayGroup[] = [];
  for (const group of [...bySignature.values()].filter((g) => g.length >= MIN_GROUP)) {
    const sortedGroup = [...group].sort((a, b) => compare(a.local, b.local));
    const keys = sortedGroup.map((m) => m.local);
    const template = freeName(templateName(keys), taken);
    taken.add(template);
    const address = resourceAddress(templated.kind, template);
    const entry: ExportedEntry = {
      kind: templated.kind,
      local: template,
      address,
      entry: templateEntry(sortedGroup),
      live: undefined,
      comments: [],
      notes: [],
      children: [],
    };
    files.push({
      name: `${templated.config.key}-${template}.yaml`,
      description: [
        `Gateways that differ only by name, written once (cplane export --group): ${address}[KEY] for each key of forEach,`,
        'with what is declared inside it. Add a key to add a gateway like them.',
      ],
      entries: [entry],
    });
    groups.push({ address, gateways: keys.length });
    for (const member of sortedGroup) {
      const instance = formatAddress({ modules: [], kind: templated.kind, segments: [{ name: template, key: member.local }] });
      // What is declared inside a member follows it (movedWithParent: its own segments after the parent's stay).
      for (const inside of flatten(member))
        renamed.set(inside.address, movedWithParent(inside.address, member.address, instance) ?? inside.address);
    }
  }
  const grouped = new Set(renamed.keys());
  return {
    ...model,
    files: [
      ...model.files.map((f) => ({ ...f, entries: f.entries.filter((e) => !grouped.has(e.address)) })),
      ...files.sort((a, b) => compare(a.name, b.name)),
    ],
    adoptions: model.adoptions.map((a) => ({ ...a, address: renamed.get(a.address) ?? a.address })),
    groups: groups.sort((a, b) => compare(a.address, b.address)),
  };
}

function withoutRemarks(entry: ExportedEntry): boolean {
  return entry.comments.length === 0 && entry.notes.length === 0 && entry.children.every(withoutRemarks);
}

function flatten(entry: ExportedEntry): ExportedEntry[] {
  return [entry, ...entry.children.flatMap(flatten)];
}

/** A gateway's field as applied: its name and slug are its local name when the entry leaves them out. */
function effective(member: ExportedEntry, field: string): string {
  const value = member.entry[field] as string | undefined;
  return field === PROJECT ? String(value) : (value ?? member.local);
}

function withoutNaming(entry: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([field]) => !NAMING.includes(field)));
}

/** The template: the members' common entry, with each naming field written once for all of them. */
function templateEntry(members: ExportedEntry[]): Record<string, unknown> {
  const entry: Record<string, unknown> = { ...withoutNaming(members[0]!.entry) };
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
  // With nothing but the keys to say, forEach is the list of keys.
  entry.forEach = [...perKey.values()].every((v) => Object.keys(v).length === 0) ? members.map((m) => m.local) : Object.fromEntries(perKey);
  return entry;
}

/** The text every member's field has around its own local name (`payments gateway`: after ` gateway`), if any. */
function aroundKey(members: ExportedEntry[], field: string): { before: string; after: string } | undefined {
  const first = members[0]!;
  const value = effective(first, field);
  const at = value.indexOf(first.local);
  if (at === -1) return undefined;
  const [before, after] = [value.slice(0, at), value.slice(at + first.local.length)];
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

/** A copy with every map's keys sorted, so that two equal entries give the same text. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort(compare)
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  return value;
}
