/**
 * The environment variables a configuration folder reads (for `cplane init`, and what `cplane run` keeps from its
 * command): the secret sources (`{ env: NAME }`, its modules' included), the `${env.NAME}` in its strings (the
 * state URL's password among them), and `CPLANE_VAR_<name>` for each variable declared without a default. Found
 * from the files' text alone, with no variable or environment value needed; whether each is set is read from
 * `env`, never its value.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { collectDeclarations, listConfigFiles, readConfigFiles, secretEnvMatcher, secretEnvNames } from '../files/config-folder.js';
import { collectDeployments } from '../blocks/deployments.js';
import type { SourceFile } from '../files/source-file.js';
import type { Diagnostic } from '../types.js';
import type { VariableArgument } from './variables.js';

export interface EnvironmentNeed {
  name: string;
  /** What it is used for, in a few words. */
  use: string;
  set: boolean;
}

const ENV_REFERENCE = /\$\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g;

function strings(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, into));
  return into;
}

/** The names of the variables `--var` and `--var-file` give (a var file that cannot be read gives none: loading it reports why). */
async function givenNames(variables: readonly VariableArgument[], cwd: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (const argument of variables) {
    if ('name' in argument) names.add(argument.name);
    else if ('values' in argument) Object.keys(argument.values).forEach((name) => names.add(name));
    else {
      const value: unknown = await readFile(resolve(cwd, argument.file), 'utf8').then(
        (text) => parse(text) as unknown,
        () => undefined,
      );
      if (value && typeof value === 'object' && !Array.isArray(value)) Object.keys(value).forEach((name) => names.add(name));
    }
  }
  return names;
}

/**
 * The parsed files of the module folders the root files call (`modules.NAME.source`), for their secret sources.
 * Only a folder inside the configuration folder is read, as loading reads it (modules.ts says why one is refused);
 * nothing of these files is ever quoted, so their diagnostics are dropped.
 */
async function moduleValues(root: string, rootValues: readonly unknown[]): Promise<unknown[]> {
  const folders = new Set<string>();
  for (const value of rootValues) {
    const calls = (value as { modules?: unknown }).modules;
    if (!calls || typeof calls !== 'object') continue;
    for (const call of Object.values(calls as Record<string, { source?: unknown }>)) {
      const folder = typeof call?.source === 'string' ? resolve(root, call.source) : undefined;
      const inside = folder === undefined ? '..' : relative(root, folder);
      if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) folders.add(folder!);
    }
  }
  const values: unknown[] = [];
  for (const folder of folders) {
    const names = (await listConfigFiles(folder, [])) ?? [];
    values.push(...(await readConfigFiles(folder, names, (name) => join(folder, name), [])).map((f) => f.value));
  }
  return values;
}

/** The folder's configuration files, parsed; undefined (and a diagnostic) when it has none. */
async function readFolder(root: string, cwd: string, diagnostics: Diagnostic[]): Promise<SourceFile[] | undefined> {
  const names = await listConfigFiles(root, diagnostics);
  if (!names) return undefined;
  const display = (name: string) => {
    const shown = relative(cwd, resolve(root, name));
    return shown.startsWith('..') || isAbsolute(shown) ? resolve(root, name) : shown;
  };
  return readConfigFiles(root, names, display, diagnostics);
}

/** The `${env.NAME}` of the state URL (`state: { url }`): its password's. */
function stateUrlNames(values: readonly unknown[]): string[] {
  return values.flatMap((value) => {
    const url = (value as { state?: { url?: unknown } }).state?.url;
    return typeof url === 'string' ? [...url.matchAll(ENV_REFERENCE)].map((match) => match[1]!) : [];
  });
}

/**
 * The variables a configuration folder reads secrets from: its secret sources (`{ env: NAME }`, its modules' and its
 * deployments' tokens included) and those in its state URL. A source whose name is interpolated
 * (`{ env: "DB_PASSWORD_${var.env}" }`, one per deployment) stands for every variable it can become, in every
 * deployment; one that is only a reference (`${var.source}`) stands for every variable, the command gets only what
 * `--env` and `--pass-env` give it. None when the folder holds no configuration.
 */
export async function secretEnvironmentNames(dir: string, cwd: string): Promise<{ has(variable: string): boolean }> {
  const root = resolve(cwd, dir);
  const values = ((await readFolder(root, cwd, [])) ?? []).map((f) => f.value);
  const isSource = secretEnvMatcher([...values, ...(await moduleValues(root, values))], { bareReference: 'every variable' });
  const stateUrl = new Set(stateUrlNames(values));
  return { has: (variable) => isSource(variable) || stateUrl.has(variable) };
}

export async function environmentNeeds(
  dir: string,
  options: { env: NodeJS.ProcessEnv; cwd: string; variables?: readonly VariableArgument[]; deployment?: string },
): Promise<{ needs: EnvironmentNeed[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const root = resolve(options.cwd, dir);
  const files = await readFolder(root, options.cwd, diagnostics);
  if (!files) return { needs: [], diagnostics };
  // A deployment's own values (its varFiles, then its variables) give those variables, as when it is loaded.
  const deployment =
    options.deployment === undefined ? undefined : collectDeployments(files, root, [])?.find((d) => d.name === options.deployment);
  const ofDeployment: VariableArgument[] = deployment
    ? [
        ...deployment.varFiles.map((file) => ({ file, fromConfiguration: true })),
        { values: deployment.variables, origin: `deployment ${deployment.name}` },
      ]
    : [];
  const given = await givenNames([...(options.variables ?? []), ...ofDeployment], options.cwd);
  // `deployments:` names no secret source here: its `token: NAME` is a connection's (the command lists its own),
  // and its `variables:` are values (`{ env: dev }` is the value of a variable named env).
  const values = files.map((f) => withoutDeployments(f.value));
  const needs = new Map<string, string>();
  const known = knownValues(files, [...(options.variables ?? []), ...ofDeployment], options.env);
  for (const written of secretEnvNames([...values, ...(await moduleValues(root, values))])) {
    const name = withValues(written, known);
    needs.set(name, name === written ? 'secret source' : `secret source (${written})`);
  }
  for (const name of stateUrlNames(values)) needs.set(name, 'in the state URL');
  for (const text of values.flatMap((v) => strings(v, []))) {
    for (const match of text.matchAll(ENV_REFERENCE)) if (!needs.has(match[1]!)) needs.set(match[1]!, '${env.NAME} in a value');
  }
  for (const [name, declaration] of collectDeclarations(files, [])) {
    if (declaration.config.default !== undefined || given.has(name)) continue;
    // The `account` variable also takes --account or CPLANE_ACCOUNT (load.ts).
    const env = name === 'account' && options.env.CPLANE_ACCOUNT ? 'CPLANE_ACCOUNT' : `CPLANE_VAR_${name}`;
    needs.set(env, `variable ${name} (no default; or --var ${name}=VALUE)`);
  }
  const list = [...needs].map(([name, use]) => ({ name, use, set: Boolean(options.env[name]) }));
  return { needs: list.sort((a, b) => a.name.localeCompare(b.name)), diagnostics };
}

/**
 * The variables' values this machine gives without reading any file: `--var`, the deployment's `variables:`, then
 * `CPLANE_VAR_<name>`, then the declared defaults. A var file's values are left out (its names only are read here).
 */
function knownValues(files: SourceFile[], given: readonly VariableArgument[], env: NodeJS.ProcessEnv): Map<string, unknown> {
  const known = new Map<string, unknown>();
  for (const [name, declaration] of collectDeclarations(files, [])) {
    const value = env[`CPLANE_VAR_${name}`] ?? declaration.config.default;
    if (value !== undefined) known.set(name, value);
  }
  for (const argument of given) {
    if ('name' in argument) known.set(argument.name, argument.value);
    else if ('values' in argument) for (const [name, value] of Object.entries(argument.values)) known.set(name, value);
  }
  return known;
}

/** A secret source's name with its `${var.NAME}` filled (`DB_PASSWORD_${var.env}` is DB_PASSWORD_dev for dev), when every one is known. */
function withValues(name: string, known: ReadonlyMap<string, unknown>): string {
  const filled = name.replace(/\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g, (whole, variable: string) => {
    const value = known.get(variable);
    return typeof value === 'string' || typeof value === 'number' ? String(value) : whole;
  });
  return filled.includes('${') ? name : filled;
}

function withoutDeployments(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('deployments' in value)) return value;
  const { deployments: _deployments, ...rest } = value as Record<string, unknown>;
  return rest;
}
