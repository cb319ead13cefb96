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

/** The one parser: undefined when the text is not an address. */
export function parseAddress(text: string): Address | undefined {
  const modules: string[] = [];
  let rest = text;
  while (rest.startsWith('module.')) {
    const end = rest.indexOf('.', 'module.'.length);
    const name = rest.slice('module.'.length, end);
    if (end === -1 || !new RegExp(`^${NAME}$`).test(name)) return undefined;
    modules.push(name);
    rest = rest.slice(end + 1);
  }
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

/** The address of an object of `kind` with the local name `localName` (`project` + `payments` -> `project.payments`). */
export function resourceAddress(kind: string, localName: string): string {
  // A name read from an old state entry may be missing: it is kept as text, as a template literal would.
  const text = String(localName);
  const segments = parseLocalName(text) ?? [{ name: text }];
  return formatAddress({ modules: [], kind, segments });
}

/**
 * The address of an object declared inside the object at `parent`: its segments follow the parent's
 * (`gateway.prod` + `gateway_token` + `ci` -> `gateway_token.prod/ci`); without a name it is the parent's one
 * object of that kind (`gateway.prod` + `otel_export` -> `otel_export.prod`).
 */
export function childAddress(parent: string, kind: string, name?: string): string {
  const { modules, segments } = mustParse(parent);
  return formatAddress({ modules, kind, segments: name === undefined ? segments : [...segments, { name }] });
}

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
  return parseAddress(address)?.segments.some((s) => s.key !== undefined) ?? false;
}

/** The local name of an address (everything after `kind.`): `record.payments/stripe-key` -> `payments/stripe-key`. */
export function localPart(address: string): string {
  const parsed = parseAddress(address);
  return parsed ? formatLocalName(parsed.segments) : address;
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
  return formatAddress({ modules: parentTo.modules, kind: child.kind, segments: [...parentTo.segments, ...child.segments.slice(parentFrom.segments.length)] });
}
