/**
 * Addresses as small typed values (after Terraform's `internal/addrs`), with one parser and one formatter:
 *
 *     [module.NAME.]* KIND.SEGMENT[/SEGMENT]*      SEGMENT = NAME or NAME[KEY]
 *
 * `project.payments`, `record.payments/stripe-key` (a record under its project), `gateway_token.prod/ci`,
 * `gateway.team[payments]` (an instance of a resource with a key), `module.payments.gateway.prod`. The
 * segments of a nested kind are its parent's segments followed by its own name; a kind that has exactly
 * one object per parent (`otel_export.prod`) takes its parent's segments. Code never builds an address with
 * a template literal and never parses one with `indexOf`: it goes through `formatAddress` and `parseAddress`.
 */

/** One step of the local name: `payments`, or `team[payments]` (name `team`, instance key `payments`). */
export interface NameSegment {
  name: string;
  key?: string;
}

export interface Address {
  /** Module calls from the outermost: `module.a.module.b.gateway.x` -> `['a', 'b']`. */
  modules: string[];
  kind: string;
  /** At least one. */
  segments: NameSegment[];
}

const NAME = '[A-Za-z0-9][A-Za-z0-9_-]*';
const KEY = '[^\\[\\]/]+';
const SEGMENT = new RegExp(`^(${NAME})(?:\\[(${KEY})\\])?$`);
const KIND = /^[a-z][a-z0-9_]*$/;

function parseSegment(text: string): NameSegment | undefined {
  const match = SEGMENT.exec(text);
  if (!match) return undefined;
  return match[2] === undefined ? { name: match[1]! } : { name: match[1]!, key: match[2] };
}

/** A local name (`prod`, `payments/stripe-key`, `team[payments]/ci`) as segments; undefined when malformed. */
export function parseLocalName(text: string): NameSegment[] | undefined {
  const segments = text.split('/').map(parseSegment);
  return segments.every((s) => s !== undefined) ? (segments as NameSegment[]) : undefined;
}

/** The `module.NAME.` prefixes of `text` and what follows them; undefined when a prefix is malformed. */
function splitModules(text: string): { modules: string[]; rest: string } | undefined {
  const modules: string[] = [];
  let rest = text;
  while (rest.startsWith('module.')) {
    const end = rest.indexOf('.', 'module.'.length);
    const name = rest.slice('module.'.length, end);
    if (end === -1 || !new RegExp(`^${NAME}$`).test(name)) return undefined;
    modules.push(name);
    rest = rest.slice(end + 1);
  }
  return { modules, rest };
}

/** The one parser: undefined when the text is not an address. */
export function parseAddress(text: string): Address | undefined {
  const split = splitModules(text);
  if (!split) return undefined;
  const { modules, rest } = split;
  const dot = rest.indexOf('.');
  const kind = rest.slice(0, dot);
  if (dot === -1 || !KIND.test(kind)) return undefined;
  const segments = parseLocalName(rest.slice(dot + 1));
  return segments ? { modules, kind, segments } : undefined;
}

export function formatLocalName(segments: readonly NameSegment[]): string {
  return segments.map((s) => (s.key === undefined ? s.name : `${s.name}[${s.key}]`)).join('/');
}

/** The one formatter. */
export function formatAddress(address: Address): string {
  return [...address.modules.map((m) => `module.${m}.`), address.kind, '.', formatLocalName(address.segments)].join('');
}

/**
 * The address of an object of `kind` with the local name `localName` (`project` + `payments` -> `project.payments`).
 * Inside a module the local name carries the module prefixes (`module.payments.core` -> `module.payments.project.core`):
 * references by name between the objects of a module are written that way in their attributes.
 */
export function resourceAddress(kind: string, localName: string): string {
  // A name read from an old state entry may be missing: it is kept as text, as a template literal would.
  const text = String(localName);
  const split = splitModules(text);
  const segments = split ? parseLocalName(split.rest) : undefined;
  return formatAddress(
    split && segments
      ? { modules: split.modules, kind, segments }
      : { modules: [], kind, segments: parseLocalName(text) ?? [{ name: text }] },
  );
}

/** A local name inside the module calls `modules` (`['payments']` + `core` -> `module.payments.core`). */
export function nameInModule(modules: readonly string[], localName: string): string {
  return [...modules.map((m) => `module.${m}.`), localName].join('');
}

/** The module calls an address is inside (`module.payments.gateway.main` -> `['payments']`); none for a malformed one. */
export function modulesOf(address: string): string[] {
  return parseAddress(address)?.modules ?? [];
}

/**
 * The address of an object declared inside the object at `parent`: its segments follow the parent's
 * (`gateway.prod` + `gateway_token` + `ci` -> `gateway_token.prod/ci`); without a name it is the parent's one
 * object of that kind (`gateway.prod` + `otel_export` -> `otel_export.prod`).
 */
export function childAddress(parent: string, kind: string, name?: string): string {
  // The children of one parent are made one after another (a record's readers): its parse is kept for the next.
  if (lastParent?.text !== parent) lastParent = { text: parent, address: mustParse(parent) };
  const { modules, segments } = lastParent.address;
  return formatAddress({ modules, kind, segments: name === undefined ? segments : [...segments, { name }] });
}

let lastParent: { text: string; address: Readonly<Address> } | undefined;

function mustParse(text: string): Address {
  // Addresses inside cplane are made by formatAddress; a malformed one is kept whole as a name so that
  // what is printed is what was given.
  return parseAddress(text) ?? { modules: [], kind: '', segments: [{ name: text }] };
}

/** The kind an address names: `gateway.prod` -> `gateway`; undefined when it is not an address. */
export function kindOf(address: string): string | undefined {
  return parseAddress(address)?.kind;
}

/** Whether an address names an instance of a `forEach` (one of its segments has a key): `gateway.team[payments]`, `gateway_token.team[payments]/ci`. */
export function isInstanceAddress(address: string): boolean {
  // Only a key is written in brackets: an address without one needs no parse (a load asks this of every resource).
  if (!address.includes('[')) return false;
  return parseAddress(address)?.segments.some((s) => s.key !== undefined) ?? false;
}

/**
 * The local name of an address (everything after `kind.`, with its module prefixes): `record.payments/stripe-key`
 * -> `payments/stripe-key`, `module.payments.gateway.main` -> `module.payments.main`; so that
 * `resourceAddress(kindOf(a), localPart(a))` is `a`.
 */
export function localPart(address: string): string {
  const parsed = parseAddress(address);
  return parsed ? nameInModule(parsed.modules, formatLocalName(parsed.segments)) : address;
}

/**
 * Where an address declared inside `from` goes when `from` moves to `to`: its segments start with `from`'s
 * and the rest stays (`gateway_token.prod/ci` with `gateway.prod` -> `gateway.live` is `gateway_token.live/ci`).
 * Undefined when `address` is not declared inside `from`.
 */
export function movedWithParent(address: string, from: string, to: string): string | undefined {
  const [child, parentFrom, parentTo] = [parseAddress(address), parseAddress(from), parseAddress(to)];
  if (!child || !parentFrom || !parentTo) return undefined;
  const prefix = formatLocalName(parentFrom.segments);
  const own = formatLocalName(child.segments);
  if (own !== prefix && !own.startsWith(`${prefix}/`)) return undefined;
  if (child.modules.join('.') !== parentFrom.modules.join('.')) return undefined;
  return formatAddress({
    modules: parentTo.modules,
    kind: child.kind,
    segments: [...parentTo.segments, ...child.segments.slice(parentFrom.segments.length)],
  });
}

/**
 * Whether `address` is what `pattern` names on the command line (`--target`, `--exclude`): the address itself, every
 * address inside a module call (`module.payments`), or every instance of a resource (`gateway.team` names
 * `gateway.team[payments]`).
 */
export function addressMatches(address: string, pattern: string): boolean {
  if (address === pattern) return true;
  const parsed = parseAddress(address);
  if (!parsed) return false;
  const prefix = splitModules(`${pattern}.`);
  if (prefix && prefix.rest === '' && prefix.modules.length > 0) return prefix.modules.every((m, i) => parsed.modules[i] === m);
  const named = parseAddress(pattern);
  if (
    !named ||
    named.kind !== parsed.kind ||
    named.modules.join('.') !== parsed.modules.join('.') ||
    named.segments.length !== parsed.segments.length
  )
    return false;
  const last = named.segments.length - 1;
  return named.segments.every((s, i) =>
    i < last
      ? s.name === parsed.segments[i]!.name && s.key === parsed.segments[i]!.key
      : s.name === parsed.segments[i]!.name && s.key === undefined,
  );
}

/** The address of the object `address` is declared inside (`gateway_token.prod/ci` + `gateway` -> `gateway.prod`); undefined for a top-level one. */
export function parentAddress(address: string, parentKind: string): string | undefined {
  const parsed = parseAddress(address);
  if (!parsed || parsed.segments.length < 2) return undefined;
  return formatAddress({ modules: parsed.modules, kind: parentKind, segments: parsed.segments.slice(0, -1) });
}
