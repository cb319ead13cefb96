/**
 * The settings of a deployment `export --as-deployment` adds that the account cannot tell and the other deployments
 * can: the token it chooses, the wave it applies in (`after`), its GitHub environment, API address and var files, each
 * following the pattern every other deployment follows (`token: prod_eu` for `prod-eu` gives `token: prod_us`). A
 * setting without one pattern is left out and said; `autoApprove` is never copied (it decides what runs without a person).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { deploymentWaves, TOKEN_NAME, tokenVariableOf } from '../config/index.js';

/** A setting of the new deployment that export filled, and how it knows it. */
export interface Filled {
  /** Its key under the deployment: `token`, `variables.team_group_id`. */
  key: string;
  value: unknown;
  /** For people: where the value comes from. */
  from: string;
}

/** A setting export could not fill: a placeholder `<fill in: what>` in the file (or, where none can stand, left out). */
export interface Open {
  key: string;
  /** What to give, for people. */
  what: string;
  /** Whether a placeholder holds its place in the file (a var file to create has none: it is not written). */
  placeholder: boolean;
  /** Where the placeholder is, once written. */
  line?: number;
  col?: number;
}

export type DeploymentEntries = Record<string, Record<string, unknown>>;

export interface Conventions {
  settings: Record<string, unknown>;
  filled: Filled[];
  open: Open[];
  notes: string[];
}

const MARK = '\u0000';
/** The ways a value carries its deployment's name: as it is, with `_` for `-`, upper-cased. */
const NAME_FORMS: ((name: string) => string)[] = [(n) => n, (n) => n.replace(/-/g, '_'), (n) => n.replace(/-/g, '_').toUpperCase()];

/**
 * The value `field` takes for `name` when every deployment's value is the same text around its own name (or the same
 * text), or undefined: `{ a: 'vars/a.yaml', b: 'vars/b.yaml' }` gives `vars/c.yaml` for c.
 */
function patterned(values: [string, string][], name: string, allowConstant: boolean): string | undefined {
  if (values.length === 0) return undefined;
  const [first, firstValue] = values[0]!;
  for (const form of NAME_FORMS) {
    for (const template of templatesOf(firstValue, form(first))) {
      if (values.every(([other, value]) => template.split(MARK).join(form(other)) === value)) return template.split(MARK).join(form(name));
    }
  }
  return allowConstant && values.every(([, value]) => value === firstValue) ? firstValue : undefined;
}

/** `value` with the name marked where it stands: everywhere, or at one place (`a` is in `vars/a.yaml` twice). */
function templatesOf(value: string, name: string): string[] {
  if (name === '' || !value.includes(name)) return [];
  const templates = [value.split(name).join(MARK)];
  for (let at = value.indexOf(name); at !== -1; at = value.indexOf(name, at + 1))
    templates.push(`${value.slice(0, at)}${MARK}${value.slice(at + name.length)}`);
  return templates;
}

/** Each deployment's value of a string field, when every deployment has one; undefined when some have none. */
function everyValue(existing: DeploymentEntries, field: string): [string, string][] | undefined {
  const values = Object.entries(existing).map(([name, entry]) => [name, entry[field]] as const);
  return values.every(([, v]) => typeof v === 'string') ? (values as [string, string][]) : undefined;
}

/** `after`: the same as the deployments of the last wave, so the new one applies beside them, after everything else. */
function afterOf(existing: DeploymentEntries, into: Conventions): void {
  const waves = deploymentWaves(
    Object.entries(existing).map(([name, entry]) => ({
      name,
      after: Array.isArray(entry.after) ? entry.after.filter((a): a is string => typeof a === 'string' && a in existing) : [],
    })),
  );
  const last = waves.at(-1) ?? [];
  const after = [...new Set(last.flatMap((d) => d.after))].sort();
  if (after.length === 0) return;
  into.settings.after = after;
  into.filled.push({
    key: 'after',
    value: after,
    from: `the same wave (${waves.length}) as ${last.map((d) => d.name).join(', ')}, the last: it applies after the others; change it to apply earlier`,
  });
}

/** `token`: the others' pattern; without one, a token named for the deployment, when the others choose tokens at all. */
function tokenOf(existing: DeploymentEntries, name: string, into: Conventions): void {
  const chosen = Object.entries(existing).filter(([, e]) => typeof e.token === 'string') as [string, { token: string }][];
  if (chosen.length === 0) return;
  const taken = new Set(chosen.map(([, e]) => e.token));
  const byPattern = patterned(
    chosen.map(([n, e]) => [n, e.token]),
    name,
    false,
  );
  const own = NAME_FORMS[1]!(name);
  const token = byPattern ?? (TOKEN_NAME.test(own) ? own : undefined);
  if (token === undefined || !TOKEN_NAME.test(token) || taken.has(token)) {
    into.notes.push(
      `token: none written (no token name follows from "${name}"); give it one, e.g. token: NAME, read from ${tokenVariableOf('NAME')}.`,
    );
    return;
  }
  into.settings.token = token;
  const how = byPattern !== undefined ? `the pattern of ${chosen.map(([n, e]) => `${n} (token: ${e.token})`).join(', ')}` : 'its own name';
  into.filled.push({ key: 'token', value: token, from: `${how}: the runner gives it as ${tokenVariableOf(token)}` });
}

/** `environment`, `baseUrl`: what every other deployment's follows (the same text, or the same around its name). */
function textSettingsOf(existing: DeploymentEntries, name: string, into: Conventions): void {
  for (const field of ['environment', 'baseUrl']) {
    const values = everyValue(existing, field);
    const value = values && patterned(values, name, true);
    if (value === undefined) continue;
    into.settings[field] = value;
    into.filled.push({ key: field, value, from: `the pattern of ${values!.map(([n, v]) => `${n} (${v})`).join(', ')}` });
  }
}

/** `varFiles`: the others' files around their names, written when the new deployment's files are there. */
function varFilesOf(existing: DeploymentEntries, name: string, dir: string, into: Conventions): void {
  const lists = Object.entries(existing).map(([n, e]) => [n, Array.isArray(e.varFiles) ? e.varFiles : []] as const);
  const length = lists[0]?.[1].length ?? 0;
  if (length === 0 || !lists.every(([, l]) => l.length === length && l.every((f) => typeof f === 'string'))) return;
  const files: string[] = [];
  for (let i = 0; i < length; i++) {
    const file = patterned(
      lists.map(([n, l]) => [n, l[i] as string]),
      name,
      true,
    );
    if (file === undefined) return;
    files.push(file);
  }
  const missing = files.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) {
    into.open.push({
      key: 'varFiles',
      what: `the var files ${missing.join(', ')} of this account, which the others' pattern names and which do not exist: create them as the others' are, then add varFiles: [${files.join(', ')}]`,
      placeholder: false,
    });
    return;
  }
  into.settings.varFiles = files;
  into.filled.push({ key: 'varFiles', value: files, from: `the pattern of ${lists.map(([n, l]) => `${n} (${l.join(', ')})`).join(', ')}` });
}

/** The settings the new deployment `name` takes from the other deployments' patterns (`dir`: the configuration folder). */
export function conventionalSettings(existing: DeploymentEntries, name: string, dir: string): Conventions {
  const into: Conventions = { settings: {}, filled: [], open: [], notes: [] };
  if (Object.keys(existing).length === 0) return into;
  afterOf(existing, into);
  tokenOf(existing, name, into);
  textSettingsOf(existing, name, into);
  varFilesOf(existing, name, dir, into);
  const approving = Object.entries(existing).filter(([, e]) => typeof e.autoApprove === 'string');
  if (approving.length > 0)
    into.notes.push(
      `autoApprove: not copied from ${approving.map(([n]) => n).join(', ')} (a rule decides what applies without a person): until you give it one, it asks for approval.`,
    );
  return into;
}
