/**
 * `cplane compare A B` (docs/deployments.md): parity drift between two deployments' live accounts. Both
 * accounts are read as export reads them (read-account.ts) and turned into the entries export would write
 * (build-model.ts), so two objects are compared in configuration terms (local names, not ids). What their
 * variables explain is not a difference. First, as `export --as-deployment` does (infer-variables.ts), each
 * configured template is solved against the live text of the entry it manages: where it gives this side's values,
 * the text is the template (`app-${var.region}-main`, `${var.region}core`) and the entry has its configured local
 * name. Then what no template reaches (the environment variable names export derives from names, the objects of a
 * list variable) has each variable's differing value replaced by `${var.NAME}` where it stands as a word. What is
 * left (an object only one account has, a setting that differs) is reported, of the objects the deployments'
 * states manage (all of them with `--unmanaged`).
 */
import { canonicalJson } from '../config/index.js';
import type { VariableValue } from '../plan-model/index.js';
import type { AccountObjects } from './account-objects.js';
import { buildModel, type ExportedEntry, type ExportedFile } from './build-model.js';
import { solveConfigured } from './infer-variables.js';
import { upperSnake } from './local-names.js';
import { definitionOf } from '../providers/index.js';

export interface ParityDifference {
  /** The address as export would write it, with variable values replaced by `${var.NAME}`. */
  address: string;
  /** `only-in-a`: the first account has it and the second does not. */
  kind: 'only-in-a' | 'only-in-b' | 'different';
  /** For `different`: the field of the entry that differs (`settings`, `scopes`, ...). */
  field?: string;
  a?: unknown;
  b?: unknown;
}

type Variables = Record<string, VariableValue>;

/** Marks an element of a list variable that only one side's list holds: what forEach makes of it is explained. */
const LIST_ELEMENT = '[*]}';

/**
 * The text replacements of one side, longest first: its value of each variable the two sides give different
 * text, also as an environment variable name export makes from a name (`staging` in `OTEL_HEADERS_SHOP_STAGING`),
 * and each element of a list variable that the other side's list does not hold (`${var.NAME[*]}`).
 */
function replacements(own: Variables, other: Variables): [string, string][] {
  const out: [string, string][] = [];
  const add = (text: string, token: string) => {
    if (text.length < 2) return;
    out.push([text, token]);
    if (upperSnake(text) !== text) out.push([upperSnake(text), token]);
  };
  for (const [name, value] of Object.entries(own)) {
    if (typeof value === 'string' && other[name] !== value) add(value, `\${var.${name}}`);
    if (!Array.isArray(value)) continue;
    const theirs = Array.isArray(other[name]) ? (other[name] as unknown[]) : [];
    for (const element of value)
      if (typeof element === 'string' && !theirs.includes(element)) add(element, `\${var.${name}${LIST_ELEMENT}`);
  }
  return out.sort((x, y) => y[0].length - x[0].length);
}

/**
 * `text` with each value replaced where it stands as a word: between the text's ends, spaces or punctuation
 * (`-`, `_`, `.`, `/`...), as a name template puts it (`app-${var.region}`), never inside another word (`ap`
 * in `app`), which would make two identical accounts differ.
 */
function replaceWords(text: string, from: string, to: string): string {
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), () => to);
}

/** How one side's text reads in configuration terms: the live texts its templates explain, and its words to replace. */
interface Normaliser {
  /** Live text -> the configured template it was made from with this side's values. */
  templates: Map<string, string>;
  /** Live local name -> the configured one (`apcore` -> `core`), where the configured name is a template. */
  locals: Map<string, string>;
  swaps: readonly [string, string][];
}

/**
 * The texts of `files` that the configured templates (`configured`, each file's content as written) explain with
 * this side's values. A live text two templates explain differently, or a local name two configured names claim,
 * is left to the word replacements.
 */
function templatesOf(
  configured: readonly unknown[],
  files: readonly ExportedFile[],
  own: Variables,
): Pick<Normaliser, 'templates' | 'locals'> {
  const byText = new Map<string, { template: string; local?: [string, string]; fits: boolean }[]>();
  for (const e of solveConfigured(configured, files)) {
    // `${each.key}` and the like match any text: such a template would hide what it stands for.
    if (!onlyVariables(e.template)) continue;
    const key = `${e.template}\0${e.live}`;
    const fits = own[e.variable] !== undefined && String(own[e.variable] as string) === e.value;
    const local =
      e.liveLocal !== undefined ? ([e.liveLocal, e.address.slice(e.address.lastIndexOf('.') + 1)] as [string, string]) : undefined;
    byText.set(key, [...(byText.get(key) ?? []), { template: e.template, ...(local ? { local } : {}), fits }]);
  }
  const templates = new Map<string, string | null>();
  const locals = new Map<string, string | null>();
  const claim = (map: Map<string, string | null>, from: string, to: string) =>
    map.set(from, map.has(from) && map.get(from) !== to ? null : to);
  for (const [key, solved] of byText) {
    if (!solved.every((s) => s.fits)) continue;
    claim(templates, key.slice(key.indexOf('\0') + 1), solved[0]!.template);
    if (solved[0]!.local) claim(locals, ...solved[0]!.local);
  }
  const sure = (map: Map<string, string | null>) => new Map([...map].filter((pair): pair is [string, string] => pair[1] !== null));
  return { templates: sure(templates), locals: sure(locals) };
}

const onlyVariables = (template: string) =>
  [...template.matchAll(/\$\{([^}]*)\}/g)].every((m) => /^\s*var\.[A-Za-z_][A-Za-z0-9_]*\s*$/.test(m[1]!));

/** An address (`KIND.shop-ap/ci`) with each live local name its configured one (`KIND.shop/ci`). */
function normaliseAddress(address: string, n: Normaliser): string {
  const dot = address.indexOf('.');
  const path = address
    .slice(dot + 1)
    .split('/')
    .map((local) => n.locals.get(local) ?? local)
    .join('/');
  return normalise(`${address.slice(0, dot + 1)}${path}`, n) as string;
}

function normalise(value: unknown, n: Normaliser): unknown {
  if (typeof value === 'string') return n.templates.get(value) ?? n.swaps.reduce((text, [from, to]) => replaceWords(text, from, to), value);
  if (Array.isArray(value)) return value.map((v) => normalise(v, n));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [normalise(k, n) as string, normalise(v, n)]));
  return value;
}

/** Every exported entry of an account by (normalised) address, without the entries declared inside it; with `managed`, only those. */
function entriesOf(side: CompareSide, other: CompareSide, configured: readonly unknown[]): Map<string, Record<string, unknown>> {
  const { files } = buildModel(side.objects, { onlyUsedCredentials: false });
  const n: Normaliser = { ...templatesOf(configured, files, side.variables), swaps: replacements(side.variables, other.variables) };
  const out = new Map<string, Record<string, unknown>>();
  const walk = (entry: ExportedEntry) => {
    const id = definitionOf(entry.kind).identify({ live: entry.live as never }).id;
    if (!side.managed || side.managed.has(managedKey(entry.kind, id))) {
      const { name, ...rest } = entry.entry;
      // A name the configuration writes as a template reads as that template even where export left it out.
      const named = name ?? (n.locals.has(entry.local) ? entry.local : undefined);
      out.set(
        normaliseAddress(entry.address, n),
        normalise(named === undefined ? rest : { name: named, ...rest }, n) as Record<string, unknown>,
      );
    }
    entry.children.forEach(walk);
  };
  for (const file of files) file.entries.forEach(walk);
  return out;
}

/** How a managed object is named in `managed`: its kind and id (as state records them). */
export const managedKey = (kind: string, id: string) => `${kind} ${id}`;

/** One side: its live objects, its variable values, and (unless `--unmanaged`) the objects its state manages. */
export interface CompareSide {
  objects: AccountObjects;
  variables: Variables;
  managed?: ReadonlySet<string>;
}

/** `configured`: each file of the configuration as written (templates not interpolated), whose templates explain values. */
export function compareAccounts(a: CompareSide, b: CompareSide, configured: readonly unknown[] = []): ParityDifference[] {
  const left = entriesOf(a, b, configured);
  const right = entriesOf(b, a, configured);
  const differences: ParityDifference[] = [];
  for (const address of [...new Set([...left.keys(), ...right.keys()])].sort()) {
    const x = left.get(address);
    const y = right.get(address);
    // An object made from an element of a list variable that only one side's list holds: the list explains it.
    if ((!x || !y) && address.includes(LIST_ELEMENT)) continue;
    if (!y) differences.push({ address, kind: 'only-in-a' });
    else if (!x) differences.push({ address, kind: 'only-in-b' });
    else {
      for (const field of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
        // Entries declared inside this one are compared at their own address.
        if (isChildMap(x[field]) || isChildMap(y[field])) continue;
        if (canonicalJson(x[field] ?? null) !== canonicalJson(y[field] ?? null))
          differences.push({ address, kind: 'different', field, a: x[field], b: y[field] });
      }
    }
  }
  return differences;
}

/** A map of entries by local name (a project's `records`, a gateway's `tokens`), which `children` holds too. */
function isChildMap(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).length > 0 &&
    Object.values(value).every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))
  );
}
