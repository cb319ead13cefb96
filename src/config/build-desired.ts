/**
 * From validated, interpolated files to desired resources, reading the kinds'
 * configuration blocks (kind-block.ts) rather than naming kinds: defaults filled,
 * addresses made, implied dependency edges added, and everything that spans
 * files checked: duplicate addresses, references by local name, each kind's own
 * checks (`complete`), explicit `dependsOn` targets and dependency cycles.
 */
import { dirname, resolve } from 'node:path';
import { findCycles } from '../graph/index.js';
import { diagnosticAt, type DiagnosticSink } from './diagnostics.js';
import { positionIn, textStart, type SourceFile } from './files/source-file.js';
import { didYouMean } from '../text/suggest.js';
import { emptyDirectory, undeclaredInDirectory } from './blocks/directory.js';
import { childAddress, isInstanceAddress, localPart, modulesOf, nameInModule, resourceAddress } from '../plan-model/address.js';
import type { ConfigFile, LifecycleConfig } from './files/config-file.js';
import { VALUE, type Entry, type KindBlock, type Touch } from './blocks/kind-block.js';
import { collectDefaults, withDefaults } from './blocks/defaults.js';
import type { Attributes, DesiredResource, Directory, Lifecycle, ResourceKind, SecretSource, SourceRange } from './types.js';

export interface LoadedFile {
  file: SourceFile;
  config: ConfigFile;
  /** For a module's file: the module calls it is read for (`['payments']`), which prefix its addresses. */
  modules?: string[];
}

interface Declared {
  resource: DesiredResource;
  block: KindBlock;
  entry: Entry;
  file: SourceFile;
  /** Offset of the entry's key (its name, or the block's key for a `single` block): where its diagnostics point. */
  at: number;
  /** Offset of the entry's value: for an entry that is one value (`platform: admin`), where a problem of that value points. */
  valueAt: number;
  /** Explicit `dependsOn` entries, for positions in cycle and reference errors. */
  explicit: string[];
}

function lifecycleOf(config: LifecycleConfig<string> | undefined): Lifecycle {
  return { preventDestroy: config?.preventDestroy ?? false, ignoreChanges: [...(config?.ignoreChanges ?? [])] };
}

function secretOf(source: SecretSource, file: SourceFile): SecretSource {
  if ('file' in source) return { file: resolve(dirname(file.path), source.file) };
  if ('generate' in source) return { generate: { length: source.generate.length } };
  if ('env' in source) return { env: source.env };
  return source;
}

/**
 * Positions come from the nodes (source-file.ts `nodes`), never from a path looked up afterwards: a field
 * without a position of its own (a default) points at the entry that holds it.
 */
function valueOffset(file: SourceFile, container: unknown, key: string | number, fallback: number): number {
  const at = positionIn(file, container, key)?.value[0];
  return at === undefined ? fallback : textStart(file, at);
}

function rangeAt(file: SourceFile, offset: number) {
  const { line, col } = file.lines.linePos(offset);
  return { file: file.display, line, col };
}

/** The value at a dotted path of an entry (`grants.serviceAccounts`), or undefined. */
function valueAtPath(entry: Entry, path: string): unknown {
  let node: unknown = entry;
  for (const part of path.split('.'))
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

/** Where each field's value of an entry is, for problems found later about one value (a Service Account named in it). */
function fieldRangesOf(file: SourceFile, entry: Entry): Record<string, SourceRange> {
  const out: Record<string, SourceRange> = {};
  // The entry's positions looked up once, not once a field (positionIn): this runs for every declared resource.
  const positions = file.nodes.get(entry);
  if (!positions) return out;
  for (const key of Object.keys(entry)) {
    const position = positions.get(key);
    if (position) out[key] = rangeAt(file, position.value[0]);
  }
  return out;
}

export function buildDesired(
  files: LoadedFile[],
  kinds: readonly KindBlock[],
  sink: DiagnosticSink,
  directory: Directory = emptyDirectory(),
): DesiredResource[] {
  const declarations = new Declarations(kinds, collectDefaults(files, sink), sink);
  // Kinds that refer to no other kind are declared first, file by file; then those that do.
  const topLevel = kinds.filter((k) => !k.parent);
  for (const pass of [topLevel.filter((k) => !k.references?.length), topLevel.filter((k) => k.references?.length)]) {
    for (const { file, config, modules = [] } of files) {
      for (const block of pass) {
        const entries = (config as unknown as Record<string, Record<string, Entry> | undefined>)[block.key] ?? {};
        for (const name of Object.keys(entries))
          declarations.declare(block, resourceAddress(block.kind, nameInModule(modules, name)), name, undefined, file, entries, name, 0);
      }
    }
  }
  const { declared } = declarations;
  // References and checks that span files run once every resource of every file is declared.
  checkReferences(declared, directory, sink);
  wireDeliveries(declared, sink);
  checkPrincipals(declared, sink);
  checkExplicitDependencies(declared, sink);
  checkCycles(declared, sink);
  return [...declared.values()].map((d) => d.resource);
}

/** The resources declared so far, by address, and the steps that declare an entry and what it holds. */
class Declarations {
  readonly declared = new Map<string, Declared>();
  // Looked up once per kind, not once per entry: a configuration of 10,000 records declares 60,000 entries.
  private readonly childrenOf = new Map<string, KindBlock[]>();

  constructor(
    private readonly kinds: readonly KindBlock[],
    private readonly defaults: ReturnType<typeof collectDefaults>,
    private readonly sink: DiagnosticSink,
  ) {}

  /**
   * Declaration order decides which of two duplicates is "first" and the order of suggestions: within an
   * entry, the one-per-parent children come before the maps of children.
   */
  private childBlocks(kind: string): KindBlock[] {
    let children = this.childrenOf.get(kind);
    if (!children)
      this.childrenOf.set(
        kind,
        (children = [
          ...this.kinds.filter((b) => b.parent?.kind === kind && b.single),
          ...this.kinds.filter((b) => b.parent?.kind === kind && !b.single),
        ]),
      );
    return children;
  }

  /** Declares one resource, unless its address is taken (then says where it was declared first). */
  private add(
    block: KindBlock,
    address: string,
    localName: string,
    parentName: string | undefined,
    file: SourceFile,
    at: number,
    valueAt: number,
    entry: Entry,
    implied: string[],
  ): boolean {
    const earlier = this.declared.get(address);
    if (earlier) {
      const first = rangeAt(earlier.file, earlier.at);
      this.sink.push(
        diagnosticAt(file, at, {
          code: 'duplicate_address',
          summary: `Duplicate address ${address}: declared in ${first.file}:${first.line}:${first.col} and again here`,
          detail: 'Each resource may be declared once across all files of the configuration; rename or remove one of them.',
          end: at + localName.length,
        }),
      );
      return false;
    }
    const attributes = block.attributes(withDefaults(this.defaults, block.key, entry), localName, parentName);
    const explicit = entry.dependsOn as string[] | undefined;
    const resource: DesiredResource = {
      kind: block.kind,
      address,
      localName,
      attributes: attributes as Attributes,
      secrets: secretsOf(block, entry, file),
      lifecycle: lifecycleOf(entry.lifecycle as LifecycleConfig<string> | undefined),
      dependsOn: needsOf(block, attributes, implied, explicit),
      source: rangeAt(file, at),
      fieldRanges: fieldRangesOf(file, entry),
    };
    this.declared.set(address, { resource, block, entry, file, at, valueAt, explicit: explicit ?? [] });
    return true;
  }

  /** An entry and, when it was declared, what is declared inside it. `container[key]` is the entry: its position is kept on the container's node. */
  declare(
    block: KindBlock,
    address: string,
    localName: string,
    parent: { address: string; name: string } | undefined,
    file: SourceFile,
    container: object,
    key: string,
    fallback: number,
  ): void {
    const entry = (container as Record<string, Entry>)[key]!;
    const position = positionIn(file, container, key);
    const at = position?.key ?? position?.value[0] ?? fallback;
    if (!this.add(block, address, localName, parent?.name, file, at, position?.value[0] ?? at, entry, parent ? [parent.address] : []))
      return;
    // A child gets its parent's local part (`payments/stripe-key` for a record), which names the parent's address.
    const here = { address, name: localPart(address) };
    for (const child of this.childBlocks(block.kind)) {
      if (child.list) {
        const names = valueAtPath(entry, child.key);
        if (Array.isArray(names))
          names.forEach((item, i) => {
            const name = listedName(item);
            this.declareListed(child, childAddress(address, child.kind, name), name, here, file, names, i, at);
          });
        continue;
      }
      const value = entry[child.key] as Entry | Record<string, Entry> | undefined;
      if (value === undefined) continue;
      if (child.single) this.declare(child, childAddress(address, child.kind), localName, here, file, entry, child.key, at);
      else
        for (const name of Object.keys(value))
          this.declare(child, childAddress(address, child.kind, name), name, here, file, value, name, at);
    }
  }

  /**
   * A name of a list (`grants.serviceAccounts`), declared as an entry `{ name }` at the name's place; an item
   * written as an object (`{ name: dana, until: ... }`) is the entry itself, so its fields keep their positions.
   */
  private declareListed(
    block: KindBlock,
    address: string,
    name: string,
    parent: { address: string; name: string },
    file: SourceFile,
    list: unknown[],
    index: number,
    fallback: number,
  ): void {
    const at = positionIn(file, list, index)?.value[0] ?? fallback;
    const item = list[index];
    const entry = item !== null && typeof item === 'object' ? (item as Entry) : { name };
    this.add(block, address, name, parent.name, file, at, at, entry, [parent.address]);
  }
}

/**
 * The entry's secret sources. A source that a variable without a value decides (`value: ${var.m}` of a `type: map`,
 * in validate) is still the reference's text: there is nothing to resolve until the variable has a value.
 */
function secretsOf(block: KindBlock, entry: Entry, file: SourceFile): Record<string, SecretSource> {
  const sources = block.secrets?.(entry);
  const known = Object.entries(sources ?? {}).filter(([, source]) => typeof source === 'object' && source !== null);
  return Object.fromEntries(known.map(([field, source]) => [field, secretOf(source, file)]));
}

/** What a resource depends on: implied (its parent), the resources its attributes name, its explicit `dependsOn`. */
function needsOf(block: KindBlock, attributes: object, implied: string[], explicit: string[] | undefined): string[] {
  // One set, in order and without repeats, rather than arrays spread into it: this runs for every declared resource.
  const needs = new Set(implied);
  for (const rule of block.references ?? []) {
    if (!('kind' in rule)) continue;
    for (const name of [attributes[rule.attribute as keyof typeof attributes]].flat()) needs.add(resourceAddress(rule.kind, String(name)));
  }
  for (const address of explicit ?? []) needs.add(address);
  return [...needs];
}

/** Every declared entry's references (to resources, to the directory's names) and its kind's own checks (`complete`). */
function checkReferences(declared: Map<string, Declared>, directory: Directory, sink: DiagnosticSink): void {
  // Names as references write them: with the module prefixes of the resource they name.
  const names = (kind: ResourceKind) =>
    [...declared.values()].filter((d) => d.resource.kind === kind).map((d) => localPart(d.resource.address));
  for (const d of [...declared.values()]) {
    const { resource, block, entry, file, at, valueAt } = d;
    // An instance of a forEach is named by its address, which says which key it is (KIND.NAME[KEY], e.g. team[search] of the gateways).
    const owner = isInstanceAddress(resource.address) ? resource.address : `${block.noun} "${resource.localName}"`;
    for (const rule of block.references ?? []) checkReferenceRule(d, rule, owner, { declared, directory, names }, sink);
    block.complete?.({
      attributes: resource.attributes,
      entry,
      owner,
      directory,
      attributesOf: (kind, localName) => declared.get(resourceAddress(kind, localName))?.resource.attributes,
      report: (field, { underline, ...diagnostic }) => {
        const offset = field === '' ? at : field === VALUE ? valueAt : valueOffset(file, entry, field, at);
        sink.push(diagnosticAt(file, offset, { ...diagnostic, end: underline === undefined ? undefined : offset + underline.length }));
      },
    });
  }
}

type ReferenceRule = NonNullable<KindBlock['references']>[number];

/** The names one reference rule of an entry gives, each checked against what is declared (or the directory). */
function checkReferenceRule(
  { resource, entry, file, at }: Declared,
  rule: ReferenceRule,
  owner: string,
  known: { declared: Map<string, Declared>; directory: Directory; names: (kind: ResourceKind) => string[] },
  sink: DiagnosticSink,
): void {
  // A name the entry leaves out may come from the field's default (the attribute of the same name): what the
  // resource needs is checked whoever wrote it. A default has no place of its own: the entry's name is underlined.
  const written = entry[rule.attribute] !== undefined;
  const value = written ? entry[rule.attribute] : (resource.attributes as Record<string, unknown>)[rule.attribute];
  const fieldAt = written ? valueOffset(file, entry, rule.attribute, at) : at;
  const listed: [string, number][] = Array.isArray(value)
    ? value.map((name, i) => [String(name), written ? valueOffset(file, value, i, fieldAt) : at])
    : typeof value === 'string'
      ? [[value, fieldAt]]
      : [];
  const end = (offset: number, name: string) => (written ? offset + name.length : at + resource.localName.length);
  const byDefault = written ? '' : ` (the default of ${rule.attribute})`;
  if (!('kind' in rule)) {
    for (const [name, offset] of listed) {
      if (Object.hasOwn(known.directory[rule.directory], name)) continue;
      const undeclared = undeclaredInDirectory(rule.directory, name, known.directory);
      sink.push(diagnosticAt(file, offset, { ...undeclared, summary: `${undeclared.summary}${byDefault}`, end: end(offset, name) }));
    }
    return;
  }
  const { kind } = rule;
  for (const [name, offset] of listed) {
    if (known.declared.has(resourceAddress(kind, name))) continue;
    const declaredNames = known.names(kind);
    sink.push(
      diagnosticAt(file, offset, {
        code: 'unknown_reference',
        summary: `Unknown ${kind} "${name}" in ${owner}${byDefault}${didYouMean(name, declaredNames)}`,
        detail: [
          declaredNames.length
            ? `Declared ${kind}s: ${declaredNames.slice(0, 10).join(', ')}${declaredNames.length > 10 ? ', ...' : ''}.`
            : `No ${kind} is declared in this configuration.`,
          // In a module, a plain name is the module's own: the caller's resources come through inputs (modules.ts).
          ...(file.within
            ? [
                `A module names the caller's resources only through its inputs: write \${var.NAME} here and give NAME in the module call's inputs.`,
              ]
            : []),
        ].join('\n'),
        end: end(offset, name),
      }),
    );
  }
}

/**
 * The principals the kinds declare they touch (kind-block.ts `Touch`): a configuration that removes a principal
 * and also grants it access or creates it would have both done on every apply, one undoing the other (a role given
 * to a group another entry deletes fails once the group is gone, and is proposed again forever). Each such use is
 * refused where it is written, naming the removal.
 */
function checkPrincipals(declared: Map<string, Declared>, sink: DiagnosticSink): void {
  const nameOf = (d: Declared, touch: Touch) => (d.resource.attributes as Record<string, unknown>)[touch.attribute];
  const removals = new Map<string, { d: Declared; touch: Touch }>();
  for (const d of declared.values()) {
    for (const touch of d.block.touches ?? [])
      if (touch.as === 'removes') removals.set(`${touch.principal} ${String(nameOf(d, touch))}`, { d, touch });
  }
  if (removals.size === 0) return;
  for (const d of declared.values()) {
    for (const touch of d.block.touches ?? []) {
      const name = nameOf(d, touch);
      if (touch.as === 'removes' || typeof name !== 'string') continue;
      const removal = removals.get(`${touch.principal} ${name}`);
      if (!removal) continue;
      const there = rangeAt(removal.d.file, valueOffset(removal.d.file, removal.d.entry, removal.touch.attribute, removal.d.at));
      const offset = valueOffset(d.file, d.entry, touch.attribute, d.at);
      sink.push(
        diagnosticAt(d.file, offset, {
          code: 'principal_removed',
          summary: `${d.resource.address} ${touch.as === 'grants' ? 'gives' : 'creates'} ${touch.principal} ${name}${touch.as === 'grants' ? ' access' : ''}, which ${removal.d.resource.address} deletes (${there.file}:${there.line}:${there.col})`,
          detail: `Both would be applied on every run. Remove this entry, or the deletion of ${touch.principal} ${name}.`,
          end: offset + name.length,
        }),
      );
    }
  }
}

/** The name of a list item: the name itself, or the `name` of an item written as an object. */
export function listedName(item: unknown): string {
  return item !== null && typeof item === 'object' ? String((item as { name?: unknown }).name) : String(item);
}

/**
 * Each delivery (kind-block.ts `Delivery`): the receiver must be declared, take its value from no source of its
 * own, and take it from one deliverer only; then it gets the deliverer's output as its source, and depends on it.
 */
function wireDeliveries(declared: Map<string, Declared>, sink: DiagnosticSink): void {
  const taken = new Map<string, string>();
  for (const { resource, block, entry, file, at } of [...declared.values()]) {
    const delivery = block.delivery?.(resource.attributes as never);
    if (!delivery) continue;
    const container = delivery.at.length > 1 ? valueAtPath(entry, delivery.at.slice(0, -1).join('.')) : entry;
    const offset = valueOffset(file, container, delivery.at.at(-1)!, valueOffset(file, entry, delivery.at[0]!, at));
    const where = delivery.at.join('.');
    const report = (code: string, summary: string, detail: string) =>
      sink.push(diagnosticAt(file, offset, { code, summary, detail, end: offset + delivery.localName.length }));
    // A name written in a module names the module's own resource, as its references do.
    const target = declared.get(resourceAddress(delivery.kind, nameInModule(modulesOf(resource.address), delivery.localName)));
    if (!target) {
      const known = [...declared.values()].filter((d) => d.resource.kind === delivery.kind).map((d) => localPart(d.resource.address));
      report(
        'unknown_delivery_target',
        `${where} of ${resource.address}: no ${delivery.kind} "${delivery.localName}" is declared${didYouMean(delivery.localName, known)}`,
        `Declare the ${delivery.kind} in this configuration (without a ${delivery.field}), or correct the name (PROJECT/RECORD).`,
      );
      continue;
    }
    const own = target.resource.secrets[delivery.field];
    if (own && !('output' in own)) {
      const there = target.resource.source;
      report(
        'delivery_target_has_value',
        `${where} of ${resource.address}: ${target.resource.address} has its own ${delivery.field} (${there.file}:${there.line}:${there.col})`,
        `A ${delivery.kind} that receives a delivery takes its ${delivery.field} from it alone: remove the ${delivery.field} of ${target.resource.address}, or deliver to another ${delivery.kind}.`,
      );
      continue;
    }
    const first = taken.get(target.resource.address);
    if (first !== undefined) {
      report(
        'delivery_target_taken',
        `${where} of ${resource.address}: ${target.resource.address} already receives the delivery of ${first}`,
        `A ${delivery.kind} holds one delivered ${delivery.field}: give each a ${delivery.kind} of its own.`,
      );
      continue;
    }
    taken.set(target.resource.address, resource.address);
    target.resource.secrets = {
      ...target.resource.secrets,
      [delivery.field]: { output: { address: resource.address, name: delivery.output } },
    };
    if (!target.resource.dependsOn.includes(resource.address)) target.resource.dependsOn = [...target.resource.dependsOn, resource.address];
  }
}

function checkExplicitDependencies(declared: Map<string, Declared>, sink: DiagnosticSink): void {
  for (const { resource, entry, file, at, explicit } of declared.values()) {
    explicit.forEach((address, i) => {
      if (declared.has(address)) return;
      const offset = valueOffset(file, entry.dependsOn, i, at);
      sink.push(
        diagnosticAt(file, offset, {
          code: 'unknown_reference',
          summary: `Unknown address "${address}" in dependsOn of ${resource.address}${didYouMean(address, declared.keys())}`,
          end: offset + address.length,
        }),
      );
      resource.dependsOn = resource.dependsOn.filter((a) => a !== address);
    });
  }
}

/** Each cycle is reported once, at an explicit `dependsOn` entry that closes it (implied edges alone cannot cycle). */
function checkCycles(declared: Map<string, Declared>, sink: DiagnosticSink): void {
  // Only a cycle through an explicit edge is reported: without any, the walk over every resource would find nothing to say.
  if (![...declared.values()].some((d) => d.explicit.length > 0)) return;
  const needs = new Map([...declared.keys()].sort().map((address) => [address, declared.get(address)!.resource.dependsOn]));
  for (const cycle of findCycles(needs)) reportCycle(cycle, declared, sink);
}

function reportCycle(cycle: string[], declared: Map<string, Declared>, sink: DiagnosticSink): void {
  for (let i = 0; i < cycle.length - 1; i++) {
    const from = declared.get(cycle[i]!)!;
    const index = from.explicit.indexOf(cycle[i + 1]!);
    if (index === -1) continue;
    const offset = valueOffset(from.file, from.entry.dependsOn, index, from.at);
    sink.push(
      diagnosticAt(from.file, offset, {
        code: 'dependency_cycle',
        summary: `Dependency cycle: ${cycle.join(' -> ')}`,
        detail: 'Resources cannot depend on each other in a loop; remove this dependsOn entry or another one of the cycle.',
        end: offset + cycle[i + 1]!.length,
      }),
    );
    return;
  }
}
