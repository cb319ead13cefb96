/**
 * The variable values a deployment added by `export --as-deployment` needs, read off the account being adopted,
 * never guessed: each configured entry's strings are templates (`name: payments-${var.env}`), and the live object
 * its plan will adopt (the exported entry of the same section whose name the configured name matches) carries the
 * real text (`payments-staging`), so each template is solved for its variables (`env: staging`). Every field of a
 * matched entry is solved the same way, nested settings and the entries declared inside it (matched by name
 * again) included. Two objects that give one variable different values are a conflict, reported with both.
 */
import { exportedDefinitionOf } from '../providers/index.js';
import type { ExportedFile } from './build-model.js';

/** Where a value was read: the configured address and field, and the live text it was solved from. */
export interface Evidence {
  variable: string;
  address: string;
  field: string;
  live: string;
  value: string;
  /** The configured text the value was solved from (`payments-${var.env}`). */
  template: string;
  /** For a `name`: the local name export gave the live entry, beside the configured one at the end of `address`. */
  liveLocal?: string;
}

/** A configured entry's readers of one directory section beside the live entry's (`grants.groups: [team]` and `[group-0d…]`). */
export interface GrantEvidence {
  section: 'users' | 'groups';
  address: string;
  /** The configured names (the configuration's `directory:` entries). */
  configured: string[];
  /** The live names (export's `directory:` entries of this account, named from ids). */
  live: string[];
}

export interface Inferred {
  /** Each variable's value where every object that gives one agrees. */
  values: Map<string, string>;
  /** Variables two objects give different values: the first two that disagree. */
  conflicts: Map<string, [Evidence, Evidence]>;
  /** Who each matched entry is shared with, configured and live: what a directory entry's id is read from. */
  grants?: GrantEvidence[];
}

/** What solving finds: template values, and the readers of matched entries. */
interface Found {
  values: Evidence[];
  grants: GrantEvidence[];
}

const GRANTS_FIELD = /^grants\.(users|groups)$/;
const strings = (value: unknown[]): value is string[] => value.every((v) => typeof v === 'string');

const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const VARIABLE = /^\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*$/;
/** Keys of a configuration file that hold no resource entries. */
const NOT_RESOURCES = new Set([
  'version',
  'variables',
  'deployments',
  'directory',
  'account',
  'policies',
  'imports',
  'moved',
  'removed',
  'modules',
  'outputs',
]);

const isMap = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The variables `template` reads and the values that make it `live`, or undefined when it cannot (`${env.X}`
 * and `${each.*}` match any text). A variable used twice must take one value (a back-reference).
 */
export function solveTemplate(template: string, live: string): Map<string, string> | undefined {
  const names: string[] = [];
  let pattern = '';
  let last = 0;
  for (const match of template.matchAll(REFERENCE)) {
    pattern += escapeRegExp(template.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[1] === undefined) {
      pattern += escapeRegExp('${');
      continue;
    }
    const name = VARIABLE.exec(match[1])?.[1];
    if (name === undefined) pattern += '.*?';
    else if (names.includes(name)) pattern += `\\${names.indexOf(name) + 1}`;
    else {
      names.push(name);
      pattern += '(.+?)';
    }
  }
  pattern += escapeRegExp(template.slice(last));
  const found = new RegExp(`^${pattern}$`, 's').exec(live);
  if (!found) return undefined;
  return new Map(names.map((name, i) => [name, found[i + 1]!]));
}

/** The values `configured` (an entry of the configuration, as written) takes to be `live` (the exported entry). */
function solveEntry(configured: unknown, live: unknown, address: string, field: string, out: Found): void {
  const readers = GRANTS_FIELD.exec(field)?.[1] as GrantEvidence['section'] | undefined;
  if (readers && Array.isArray(configured) && Array.isArray(live) && strings(configured) && strings(live)) {
    out.grants.push({ section: readers, address, configured, live });
  } else if (typeof configured === 'string' && configured.includes('${') && ['string', 'number', 'boolean'].includes(typeof live)) {
    for (const [variable, value] of solveTemplate(configured, String(live)) ?? [])
      out.values.push({ variable, address, field, live: String(live), value, template: configured });
  } else if (Array.isArray(configured) && Array.isArray(live) && configured.length === live.length) {
    configured.forEach((item, i) => solveEntry(item, live[i], address, `${field}[${i}]`, out));
  } else if (isMap(configured) && isMap(live) && !isSecretSource(live)) {
    for (const [key, value] of Object.entries(configured)) {
      if (!(key in live)) continue;
      const path = field ? `${field}.${key}` : key;
      if (isEntries(value) && isEntries(live[key])) solveEntries(value, live[key], `${address}.${key}`, out);
      else solveEntry(value, live[key], address, path, out);
    }
  }
}

/**
 * A secret's `{ env: NAME }` or `{ file: PATH }`: export makes its name up from names (`CPLANE_OTEL_SHOP_STAGING_...`,
 * upper-cased), so it says nothing of the account's values and is never solved.
 */
function isSecretSource(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'env' || keys[0] === 'file');
}

/** A map of entries by local name (a project's `records`): every value a map. */
function isEntries(value: unknown): value is Record<string, Record<string, unknown>> {
  return isMap(value) && Object.values(value).length > 0 && Object.values(value).every(isMap);
}

/**
 * Matches each configured entry of a map of entries with the live entries its plan adopts: the configured name solved
 * against (or equal to) the live one. An entry without `name` is named by its local name (export leaves `name` out
 * where the two are the same).
 */
function solveEntries(configured: Record<string, unknown>, live: Record<string, unknown>, section: string, out: Found): void {
  for (const [local, entry] of Object.entries(configured)) {
    if (!isMap(entry)) continue;
    const name = typeof entry.name === 'string' ? entry.name : local;
    for (const [liveLocal, liveEntry] of Object.entries(live)) {
      if (!isMap(liveEntry)) continue;
      const liveName = typeof liveEntry.name === 'string' ? liveEntry.name : liveLocal;
      const solved = solveTemplate(name, liveName);
      if (!solved) continue;
      const address = `${section}.${local}`;
      for (const [variable, value] of solved)
        out.values.push({ variable, address, field: 'name', live: liveName, value, template: name, liveLocal });
      const { name: _name, ...rest } = entry;
      solveEntry(rest, liveEntry, address, '', out);
    }
  }
}

/** Every variable value the configuration's entries (`configured`, each file's content) take in the exported account. */
export function inferVariables(configured: readonly unknown[], exported: readonly ExportedFile[]): Inferred {
  const values = new Map<string, string>();
  const first = new Map<string, Evidence>();
  const conflicts = new Map<string, [Evidence, Evidence]>();
  const found = solveAll(configured, exported);
  for (const e of found.values) {
    const seen = first.get(e.variable);
    if (!seen) {
      first.set(e.variable, e);
      values.set(e.variable, e.value);
    } else if (seen.value !== e.value && !conflicts.has(e.variable)) {
      conflicts.set(e.variable, [seen, e]);
      values.delete(e.variable);
    }
  }
  return { values, conflicts, grants: found.grants };
}

/** Each template of the configuration's entries solved against the exported entry its plan adopts, field by field. */
export function solveConfigured(configured: readonly unknown[], exported: readonly ExportedFile[]): Evidence[] {
  return solveAll(configured, exported).values;
}

function solveAll(configured: readonly unknown[], exported: readonly ExportedFile[]): Found {
  const live = new Map<string, Record<string, unknown>>();
  for (const file of exported) {
    for (const entry of file.entries) {
      const section = exportedDefinitionOf(entry.kind).config.key;
      const entries = live.get(section) ?? live.set(section, {}).get(section)!;
      entries[entry.local] = entry.entry;
    }
  }
  const found: Found = { values: [], grants: [] };
  for (const content of configured) {
    if (!isMap(content)) continue;
    for (const [section, entries] of Object.entries(content)) {
      if (NOT_RESOURCES.has(section) || !isMap(entries) || !live.has(section)) continue;
      solveEntries(entries, live.get(section)!, section, found);
    }
  }
  return found;
}
