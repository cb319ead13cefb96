/**
 * `forEach`: one resource entry written once, declared once per key of a map or a list (after Terraform's
 * `for_each`). This stage replaces plain interpolation for the files' values: it walks the kinds' blocks,
 * expands each `forEach` entry into its instances (`team` over `{payments, search}` becomes `team[payments]`
 * and `team[search]`), and interpolates every string with the instance it belongs to, so `${each.key}` and
 * `${each.value.FIELD}` read the right one. An `import` block with `forEach` becomes one block per key.
 *
 * Instances are copies of the template whose nodes keep the template's positions (source-file.ts `nodes`),
 * so every later diagnostic about an instance points at the template's line, and names the instance by its
 * address. Keys must be known now: a `forEach` over a variable without a value is an error naming it.
 *
 * A file makes at most MAX_INSTANCES_PER_FILE instances (docs/security.md, "Bounds"): nested `forEach`
 * entries multiply, so a few kilobytes of keys could otherwise ask for millions of resources and hold
 * `validate` and the language server for ever. The `forEach` that would go past it gets the diagnostic.
 */
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { interpolateEntry, type EachInstance, type InterpolationScope } from './interpolate.js';
import { copyWithPositions, positionIn, type NodePosition, type SourceFile } from '../files/source-file.js';
import { childAddress, formatLocalName, parseLocalName, resourceAddress } from '../../plan-model/address.js';
import type { Entry, KindBlock } from '../blocks/kind-block.js';

/** One instance of a `forEach`: its key (in the address) and the value `${each.value}` reads. */
interface Instance {
  key: string;
  value: unknown;
}

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A key goes into an address (KIND.NAME[KEY]) and into printed plans and PR comments: no control or
 * format characters (terminal escapes, bidirectional overrides), and no `[`, `]` or `/`.
 */
const VALID_KEY = /^[^[\]/\p{Cc}\p{Cf}]{1,100}$/u;

/** Instances one file may make, nested ones included: far above any real configuration. */
export const MAX_INSTANCES_PER_FILE = 20_000;

const UNSET_VARIABLE = /\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g;

export function expandFile(file: SourceFile, kinds: readonly KindBlock[], scope: InterpolationScope, sink: DiagnosticSink): void {
  new FileExpansion(file, kinds, scope, sink).run();
}

/** The expansion of one file: its instances counted against the file's bound, its diagnostics at the template's place. */
class FileExpansion {
  private made = 0;
  private overBound = false;
  // Looked up once per kind, not once per entry.
  private readonly childrenOf = new Map<string, KindBlock[]>();

  constructor(
    private readonly file: SourceFile,
    private readonly kinds: readonly KindBlock[],
    private readonly scope: InterpolationScope,
    private readonly sink: DiagnosticSink,
  ) {}

  run(): void {
    const value = this.file.value as Mapping;
    for (const key of Object.keys(value)) {
      // `deployments:` gives the variables their values: it is read as written (config/blocks/deployments.ts).
      if (key === 'variables' || key === 'deployments') continue;
      const block = this.kinds.find((k) => !k.parent && k.key === key);
      if (block) this.expandMap(block, value, key, undefined, this.scope);
      else if (key === 'import' && Array.isArray(value.import)) this.expandImports(value, value.import);
      else interpolateEntry(value, key, this.file, this.scope, this.sink);
    }
  }

  private childBlocks(kind: string): KindBlock[] {
    let children = this.childrenOf.get(kind);
    if (!children) this.childrenOf.set(kind, (children = this.kinds.filter((b) => b.parent?.kind === kind)));
    return children;
  }

  private report(offset: number, code: string, summary: string, detail?: string, end?: number): void {
    this.sink.push(diagnosticAt(this.file, offset, { code, summary, detail, end }));
  }

  /** Counts `instances` of `entry`'s forEach against the file's bound; past it, reports once and expands nothing more. */
  private withinBound(instances: Instance[] | undefined, entry: Mapping, owner: string): Instance[] {
    if (!instances || this.overBound) return [];
    if (this.made + instances.length <= MAX_INSTANCES_PER_FILE) {
      this.made += instances.length;
      return instances;
    }
    this.overBound = true;
    const at = positionIn(this.file, entry, 'forEach')?.key ?? 0;
    this.report(
      at,
      'for_each_too_many',
      `forEach of ${owner} would make more than ${MAX_INSTANCES_PER_FILE} instances in this file (nested forEach entries multiply)`,
      `Split the configuration into several files or modules, or make the forEach maps smaller; ${MAX_INSTANCES_PER_FILE} instances per file is the bound.`,
      at + 'forEach'.length,
    );
    return [];
  }

  /** The keys of `entry.forEach` (interpolated in the enclosing scope), or undefined after reporting why there are none. */
  private instancesOf(entry: Mapping, owner: string, outer: InterpolationScope): Instance[] | undefined {
    interpolateEntry(entry, 'forEach', this.file, outer, this.sink);
    const over = entry.forEach;
    const at = positionIn(this.file, entry, 'forEach') ?? { value: [0, 0] };
    const unknown = this.unknownVariables(over, outer);
    if (unknown.length > 0) {
      const names = unknown.map((n) => `"${n}"`).join(', ');
      this.report(
        at.value[0],
        'for_each_unknown',
        `The keys of ${owner} depend on variable ${names}, which has no value: forEach keys must be known before planning`,
        `Give ${unknown.length === 1 ? 'it' : 'them'} a default, or a value with --var ${unknown[0]}=JSON or a --var-file.`,
        at.value[1],
      );
      return undefined;
    }
    if (typeof over === 'string' && over.includes('${')) return undefined; // an interpolation error, already reported
    if (isMapping(over))
      return this.checkKeys(
        Object.entries(over).map(([key, v]) => ({ key, value: v, at: positionIn(this.file, over, key) ?? at })),
        owner,
      );
    if (Array.isArray(over)) {
      const found: (Instance & { at: NodePosition })[] = [];
      over.forEach((item, i) => {
        const itemAt = positionIn(this.file, over, i) ?? at;
        const key = ['string', 'number', 'boolean'].includes(typeof item)
          ? String(item)
          : isMapping(item) && typeof item.name === 'string'
            ? item.name
            : undefined;
        if (key === undefined) {
          this.report(
            itemAt.value[0],
            'for_each_key_type',
            `Item ${i} of the forEach list of ${owner} has no key: a list's item must be text, or a map with a "name"`,
            "A list of maps is keyed by each map's name; or give forEach a map of keys to values.",
            itemAt.value[1],
          );
        } else found.push({ key, value: item, at: itemAt });
      });
      return found.length === over.length ? this.checkKeys(found, owner) : undefined;
    }
    const got = over === null ? 'null' : typeof over === 'string' ? 'text' : `a ${typeof over}`;
    this.report(
      at.value[0],
      'for_each_type',
      `forEach of ${owner} must be a map or a list; got ${got}`,
      'Write a map or a list here, or ${var.NAME} of a variable declared with type: map or type: list.',
      at.value[1],
    );
    return undefined;
  }

  private checkKeys(found: (Instance & { at: NodePosition })[], owner: string): Instance[] | undefined {
    const seen = new Set<string>();
    let ok = true;
    for (const { key, at } of found) {
      if (this.unknownIn(key)) {
        ok = false;
        this.report(
          at.value[0],
          'for_each_unknown',
          `A key of ${owner} depends on ${JSON.stringify(key)}, which has no value: forEach keys must be known before planning`,
          'Give the variable a default or a value with --var.',
          at.value[1],
        );
      } else if (!VALID_KEY.test(key)) {
        ok = false;
        this.report(
          at.value[0],
          'invalid_for_each_key',
          `Invalid forEach key ${JSON.stringify(key)} in ${owner}: a key is 1 to 100 printable characters without "[", "]" or "/"`,
          'The key becomes part of the address, as in gateway.team[payments].',
          at.value[1],
        );
      } else if (seen.has(key)) {
        ok = false;
        this.report(
          at.value[0],
          'duplicate_for_each_key',
          `Duplicate forEach key "${key}" in ${owner}: each key makes one instance`,
          'Remove or rename one of the items.',
          at.value[1],
        );
      }
      seen.add(key);
    }
    return ok ? found.map(({ key, value: v }) => ({ key, value: v })) : undefined;
  }

  private unknownIn = (text: string) =>
    [...text.matchAll(UNSET_VARIABLE)].some((m) => this.scope.declared.has(m[1]!) && !this.scope.values.has(m[1]!));
  private unknownVariables(over: unknown, outer: InterpolationScope): string[] {
    if (typeof over !== 'string') return [];
    return [...new Set([...over.matchAll(UNSET_VARIABLE)].map((m) => m[1]!).filter((n) => outer.declared.has(n) && !outer.values.has(n)))];
  }

  /** The entries of `block` in `holder[key]` (a map by name): `forEach` entries replaced by their instances. */
  private expandMap(block: KindBlock, holder: Mapping, key: string, parent: string | undefined, outer: InterpolationScope): void {
    const entries = holder[key];
    if (!isMapping(entries)) return interpolateEntry(holder, key, this.file, outer, this.sink);
    const addressOf = (name: string) => (parent === undefined ? resourceAddress(block.kind, name) : childAddress(parent, block.kind, name));
    const out: Mapping = {};
    const positions = new Map<string, NodePosition>();
    for (const [name, entry] of Object.entries(entries)) {
      const at = positionIn(this.file, entries, name);
      // Only a key is written in brackets: most names need no parse.
      if (name.includes('[') && parseLocalName(name)?.some((s) => s.key !== undefined)) {
        const offset = at?.key ?? 0;
        this.report(
          offset,
          'instance_name_written',
          `"${name}" names an instance: instances are made by forEach, not written`,
          `Write the entry once with forEach (e.g. ${name.replace(/\[.*$/, '')}: { forEach: [...] }), or use a name without "[ ]".`,
          offset + name.length,
        );
        continue;
      }
      if (!isMapping(entry) || !('forEach' in entry)) {
        out[name] = entry;
        if (at) positions.set(name, at);
        if (isMapping(entry)) this.expandEntry(block, entry, addressOf(name), outer);
        continue;
      }
      const owner = addressOf(name);
      for (const { key: instanceKey, value: instanceValue } of this.withinBound(this.instancesOf(entry, owner, outer), entry, owner)) {
        if (this.overBound) break; // the rest would only repeat the work the bound refused
        const instanceName = formatLocalName([{ name, key: instanceKey }]);
        const copy = copyWithPositions(this.file, entry, 'forEach') as Entry;
        out[instanceName] = copy;
        if (at) positions.set(instanceName, at);
        const each: EachInstance = { key: instanceKey, value: instanceValue, address: addressOf(instanceName) };
        this.expandEntry(block, copy, each.address, { ...outer, each });
      }
    }
    holder[key] = out;
    this.file.nodes.set(out, positions);
  }

  /** Interpolates an entry's own fields in `inner` scope and expands the blocks declared inside it. */
  private expandEntry(block: KindBlock, entry: Mapping, address: string, inner: InterpolationScope): void {
    const children = this.childBlocks(block.kind);
    for (const field of Object.keys(entry)) {
      const child = children.find((c) => c.key === field);
      if (!child) interpolateEntry(entry, field, this.file, inner, this.sink);
      else if (!child.single) this.expandMap(child, entry, field, address, inner);
      else if (isMapping(entry[field]) && 'forEach' in (entry[field] as Mapping)) {
        const at = positionIn(this.file, entry[field], 'forEach')?.key ?? 0;
        this.report(
          at,
          'for_each_on_single',
          `forEach is not allowed in ${field}: there is one per ${block.noun}`,
          `Put forEach on the ${block.noun} instead.`,
          at + 'forEach'.length,
        );
      } else if (isMapping(entry[field])) this.expandEntry(child, entry[field] as Mapping, childAddress(address, child.kind), inner);
      else interpolateEntry(entry, field, this.file, inner, this.sink);
    }
  }

  /** `import` blocks with `forEach`: one block per key, `to` and `id` interpolated with it. */
  private expandImports(value: Mapping, blocks: unknown[]): void {
    const out: unknown[] = [];
    const positions = new Map<string, NodePosition>();
    blocks.forEach((block, i) => {
      const at = positionIn(this.file, blocks, i);
      const place = (item: unknown) => {
        if (at) positions.set(String(out.length), at);
        out.push(item);
      };
      if (!isMapping(block) || !('forEach' in block)) {
        place(block);
        interpolateEntry(out as unknown as Mapping, out.length - 1, this.file, this.scope, this.sink);
        return;
      }
      const owner = `import block ${i + 1}`;
      for (const { key, value: instanceValue } of this.withinBound(this.instancesOf(block, owner, this.scope), block, owner)) {
        const copy = copyWithPositions(this.file, block, 'forEach') as Mapping;
        place(copy);
        interpolateEntry(
          out as unknown as Mapping,
          out.length - 1,
          this.file,
          { ...this.scope, each: { key, value: instanceValue, address: `the import of key "${key}"` } },
          this.sink,
        );
      }
    });
    value.import = out;
    this.file.nodes.set(out, positions);
  }
}
