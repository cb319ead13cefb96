/**
 * `cplane export --as-deployment NAME DIR`: instead of a second copy of everything, the exported account
 * becomes one more entry of an existing configuration's `deployments:`, `NAME: { account, variables }`, its
 * variables the values the configuration's templates take in this account (infer-variables.ts) and those of its
 * directory variables (the ids export read; never a public key, which no operation returns). The new entry is
 * spliced in after the last deployment, in fmt's canonical form, so every other byte of the file is kept.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Document, isMap, isNode, isScalar, parseDocument, Scalar, visit } from 'yaml';
import { formatConfigText } from '../config/index.js';
import { AbortError } from '../errors.js';
import { packageFile } from '../package-files.js';
import type { DirectoryEntry } from './build-model.js';
import type { Evidence, Inferred } from './infer-variables.js';

const DEPLOYMENT_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** The file of the configuration folder that holds `deployments:`, parsed, checked before the account is read. */
export interface DeploymentsFile {
  file: string;
  doc: Document;
  /** The file's text as read: what the new entry is spliced into. */
  text: string;
  /** Every variable the configuration's files declare. */
  declared: Set<string>;
  /** Each declared variable's declaration (`{ type, default }`), as written. */
  declarations: Map<string, { type?: unknown; default?: unknown }>;
  /** Each file's content, as written (templates not interpolated): what the inferred values are solved from. */
  contents: unknown[];
  /** The variables the configuration's `directory:` users and groups read their id or key from, in file order. */
  directoryVars: string[];
}

const WHOLE_VARIABLE = /^\$\{\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\}$/;

/** The variables `directory.users.*` and `directory.groups.*` read their `id` and `publicKey` from. */
function directoryVariables(doc: Document): string[] {
  const found: string[] = [];
  for (const section of ['users', 'groups']) {
    const entries = doc.getIn(['directory', section]);
    if (!isMap(entries)) continue;
    for (const pair of entries.items) {
      if (!isMap(pair.value)) continue;
      for (const field of ['id', 'publicKey']) {
        const value = pair.value.get(field);
        const name = typeof value === 'string' ? WHOLE_VARIABLE.exec(value)?.[1] : undefined;
        if (name !== undefined) found.push(name);
      }
    }
  }
  return found;
}

export async function findDeploymentsFile(dir: string, name: string): Promise<DeploymentsFile> {
  if (!DEPLOYMENT_NAME.test(name)) {
    throw new AbortError(
      `--as-deployment "${name}" is not a deployment name.`,
      'Use lowercase letters, digits, "-" and "_", starting with a letter or digit (e.g. prod-us).',
    );
  }
  const names = (
    await readdir(dir).catch(() => {
      throw new AbortError(
        `No configuration folder ${dir}.`,
        'Give the folder of the configuration that has `deployments:` (e.g. `cplane export --as-deployment b infra`).',
      );
    })
  )
    .filter((f) => !f.startsWith('.') && /\.ya?ml$/.test(f))
    .sort();
  let found: DeploymentsFile | undefined;
  const declared = new Set<string>();
  const declarations = new Map<string, { type?: unknown; default?: unknown }>();
  const contents: unknown[] = [];
  const directoryVars: string[] = [];
  for (const file of names) {
    const text = await readFile(join(dir, file), 'utf8');
    const doc = parseDocument(text);
    if (doc.errors.length > 0)
      throw new AbortError(
        `${join(dir, file)} is not valid YAML: ${doc.errors[0]!.message}`,
        'Fix it (`cplane validate`), then export again.',
      );
    directoryVars.push(...directoryVariables(doc));
    const variables = doc.get('variables');
    if (isMap(variables)) {
      for (const pair of variables.items) {
        if (!isScalar(pair.key)) continue;
        declared.add(String(pair.key.value));
        const declaration: unknown = isNode(pair.value) ? pair.value.toJSON() : undefined;
        declarations.set(String(pair.key.value), declaration !== null && typeof declaration === 'object' ? declaration : {});
      }
    }
    contents.push(doc.toJS());
    if (!doc.has('deployments')) continue;
    const deployments = doc.get('deployments');
    if (deployments === null) doc.set('deployments', doc.createNode({}));
    else if (!isMap(deployments))
      throw new AbortError(
        `${join(dir, file)}: deployments: is not a map of deployments.`,
        'Fix it (`cplane validate`), then export again.',
      );
    else if (deployments.has(name))
      throw new AbortError(
        `The configuration ${dir} already has a deployment "${name}" (${join(dir, file)}); nothing was read or written.`,
        'Choose another name, or remove that deployment first.',
      );
    found ??= { file: join(dir, file), doc, text, declared, declarations, contents, directoryVars };
  }
  if (!found) {
    throw new AbortError(
      `The configuration ${dir} has no \`deployments:\`; nothing was read or written.`,
      'Start one: in main.yaml replace `account: ${var.account}` (and the `account` variable) with\n' +
        '  deployments:\n    <name>: { account: <its account id> }\nthen export the other account with --as-deployment again. See docs/deployments.md.',
    );
  }
  return found;
}

/** Each YAML file of the configuration folder as written (templates not interpolated), in name order; unparsable ones left out. */
export async function readConfiguredContents(dir: string): Promise<unknown[]> {
  const names = (await readdir(dir)).filter((f) => !f.startsWith('.') && /\.ya?ml$/.test(f)).sort();
  const docs = await Promise.all(names.map(async (file) => parseDocument(await readFile(join(dir, file), 'utf8'))));
  return docs.filter((doc) => doc.errors.length === 0).map((doc) => doc.toJS() as unknown);
}

export interface AddedDeployment {
  file: string;
  /** The directory variables given a value (ids of this account). */
  given: string[];
  /**
   * Variables the configuration's directory reads that this deployment still has to give: the public keys, which
   * no operation returns, and the ids of entries this account's export did not match (names come from ids, so an
   * entry of another account, or one renamed, matches nothing here).
   */
  toFill: string[];
  /** Directory entries of this account that the configuration has no variables for. */
  unmatched: DirectoryEntry[];
  /** Variables given a value read off this account's objects (inferred.ts), with the value. */
  inferred: { name: string; value: string }[];
  /** Required variables (no default) that no live object gives a value: the deployment lacks them. */
  missing: string[];
  /** Variables two live objects give different values, with both: none was written. */
  conflicts: { name: string; evidence: [Evidence, Evidence] }[];
}

/**
 * The new entry's lines in canonical form (`cplane fmt`'s, config/files/format.ts): `name: { ... }` on one line when it
 * fits, a block map otherwise, at `indent` columns.
 */
async function entryLines(name: string, value: Record<string, unknown>, indent: number): Promise<string> {
  const line = new Document({ [name]: value });
  const entry = line.get(name);
  if (isMap(entry)) entry.flow = true;
  // A value read off a live object may hold a line break (a name): plain or folded, it would spread the flow map
  // over lines that the indentation below breaks; double-quoted, it stays on one line, "\n" escaped.
  visit(line, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && /[\r\n]/.test(node.value)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  const flow = line.toString({ lineWidth: 0 }).trimEnd();
  const schema = JSON.parse(await readFile(packageFile('schema', 'config.schema.json'), 'utf8')) as Record<string, unknown>;
  const formatted = formatConfigText(`deployments:\n  ${flow}\n`, schema);
  const lines = formatted.ok
    ? formatted.text
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.slice(2))
    : [flow];
  return lines.map((l) => `${' '.repeat(indent)}${l}`).join('\n');
}

/**
 * The file with `name: { ... }` added to its `deployments:`. A block map with entries gets the entry after its last
 * one, at its indentation, and every other byte of the file stays as it was (so `cplane fmt --check` passes when
 * it passed before); `deployments:` empty or written as a flow map is rewritten through the Document.
 */
async function withDeployment(target: DeploymentsFile, name: string, value: Record<string, unknown>): Promise<string> {
  const block = target.doc.get('deployments');
  const last = isMap(block) && !block.flow ? block.items.at(-1) : undefined;
  const keyStart = last && isScalar(last.key) ? last.key.range?.[0] : undefined;
  const valueEnd = last && isNode(last.value) ? last.value.range?.[1] : undefined;
  if (keyStart === undefined || valueEnd === undefined) {
    if (isMap(block)) block.add(target.doc.createPair(name, target.doc.createNode(value, { flow: true })));
    return target.doc.toString({ lineWidth: 0 });
  }
  const indent = keyStart - (target.text.lastIndexOf('\n', keyStart - 1) + 1);
  // A value last in the file can end after its line's newline: the line it ends is the one its last character is on.
  const lineEnd = target.text.indexOf('\n', Math.max(keyStart, valueEnd - 1));
  const at = lineEnd === -1 ? target.text.length : lineEnd;
  return `${target.text.slice(0, at)}\n${await entryLines(name, value, indent)}${target.text.slice(at)}`;
}

/** The value a variable of `type` takes from the text a template was solved for. */
function typed(text: string, type: unknown): unknown {
  if (type === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (type === 'bool' || type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

/**
 * Adds `name: { account, variables }` to the `deployments:` of `target` and writes the file: the directory's ids, and
 * the values `inferred` read off the account's objects (one equal to its variable's default is left out).
 */
export async function addDeployment(
  target: DeploymentsFile,
  name: string,
  account: string,
  directory: DirectoryEntry[],
  inferred: Inferred,
): Promise<AddedDeployment> {
  const block = target.doc.get('deployments');
  // Two deployments on one account and workspace would share one state (`duplicate_deployment_target`).
  const taken = isMap(block)
    ? block.items.find(
        (pair) =>
          isMap(pair.value) &&
          pair.value.get('account') === account &&
          [undefined, 'default'].includes(pair.value.get('workspace') as string | undefined),
      )
    : undefined;
  if (taken) {
    throw new AbortError(
      `Account ${account} is already the deployment "${String((taken.key as { value?: unknown }).value ?? taken.key)}" of ${target.file}; nothing was written.`,
      'Two deployments on one account need different workspaces: add `workspace: NAME` to the new entry by hand.',
    );
  }
  const variables: Record<string, unknown> = {};
  const toFill: string[] = [];
  const unmatched: DirectoryEntry[] = [];
  for (const entry of directory) {
    if (!target.declared.has(entry.idVar)) {
      unmatched.push(entry);
      continue;
    }
    variables[entry.idVar] = entry.id;
  }
  for (const name of target.directoryVars) if (!(name in variables) && !toFill.includes(name)) toFill.push(name);
  const given = Object.keys(variables);
  const fromObjects: AddedDeployment['inferred'] = [];
  for (const [variable, text] of inferred.values) {
    const declaration = target.declarations.get(variable);
    if (!declaration || variable in variables) continue;
    const value = typed(text, declaration.type);
    fromObjects.push({ name: variable, value: text });
    if ('default' in declaration && String(declaration.default) === String(value)) continue;
    variables[variable] = value;
  }
  const missing = [...target.declarations]
    .filter(
      ([variable, d]) =>
        !('default' in d) &&
        !(variable in variables) &&
        !inferred.values.has(variable) &&
        !inferred.conflicts.has(variable) &&
        !target.directoryVars.includes(variable),
    )
    .map(([variable]) => variable);
  const value = Object.keys(variables).length > 0 ? { account, variables } : { account };
  await writeFile(target.file, await withDeployment(target, name, value));
  const conflicts = [...inferred.conflicts]
    .filter(([variable]) => target.declarations.has(variable))
    .map(([variable, evidence]) => ({ name: variable, evidence }));
  return { file: target.file, given, toFill, unmatched, inferred: fromObjects, missing, conflicts };
}
