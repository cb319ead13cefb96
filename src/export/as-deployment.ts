/**
 * `cplane export --as-deployment NAME DIR`: instead of a second copy of everything, the exported account
 * becomes one more entry of an existing configuration's `deployments:`, `NAME: { account, variables }`, its
 * variables the values the configuration's templates take in this account (infer-variables.ts) and those of its
 * directory variables (directory-fill.ts), its other settings the other deployments' patterns
 * (deployment-conventions.ts), and a placeholder for each value none of them gives. The new entry is spliced in after
 * the last deployment, in fmt's canonical form, so every other byte of the file is kept.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Document, isMap, isNode, isScalar, LineCounter, parseDocument, Scalar, visit } from 'yaml';
import { fillIn, formatConfigText } from '../config/index.js';
import { AbortError } from '../errors.js';
import { packageFile } from '../package-files.js';
import type { DirectoryEntry } from './build-model.js';
import { conventionalSettings, type DeploymentEntries, type Filled, type Open } from './deployment-conventions.js';
import { directoryFill } from './directory-fill.js';
import type { Evidence, Inferred } from './infer-variables.js';

const DEPLOYMENT_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** The file of the configuration folder that holds `deployments:`, parsed, checked before the account is read. */
export interface DeploymentsFile {
  file: string;
  doc: Document;
  /** The file's text as read: what the new entry is spliced into. */
  text: string;
  /** Each declared variable's declaration (`{ type, default }`), as written. */
  declarations: Map<string, { type?: unknown; default?: unknown }>;
  /** Each file's content, as written (templates not interpolated): what the inferred values are solved from. */
  contents: unknown[];
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
  const declarations = new Map<string, { type?: unknown; default?: unknown }>();
  const contents: unknown[] = [];
  for (const file of names) {
    const text = await readFile(join(dir, file), 'utf8');
    const doc = parseDocument(text);
    if (doc.errors.length > 0)
      throw new AbortError(
        `${join(dir, file)} is not valid YAML: ${doc.errors[0]!.message}`,
        'Fix it (`cplane validate`), then export again.',
      );
    const variables = doc.get('variables');
    if (isMap(variables)) {
      for (const pair of variables.items) {
        if (!isScalar(pair.key)) continue;
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
    found ??= { file: join(dir, file), doc, text, declarations, contents };
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
  /** The entry written, as data. */
  entry: Record<string, unknown>;
  /** What export filled in, and how it knows each. */
  filled: Filled[];
  /** What it could not: each a placeholder `<fill in: …>` at its line (or, for var files to create, left out). */
  open: Open[];
  /** Settings left out on purpose, for people (an autoApprove rule is never copied). */
  notes: string[];
  /** Directory entries of this account that the configuration has no variables for. */
  unmatched: DirectoryEntry[];
  /** Variables given a value read off this account's objects (inferred.ts), with the value. */
  inferred: { name: string; value: string }[];
  /** Variables two live objects give different values, with both: a placeholder was written. */
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

/** Two deployments on one account and workspace would share one state (`duplicate_deployment_target`). */
function refuseTakenAccount(target: DeploymentsFile, account: string): void {
  const block = target.doc.get('deployments');
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
}

/** The other deployments, as written. */
function existingDeployments(target: DeploymentsFile): DeploymentEntries {
  const block = target.doc.get('deployments');
  const entries = isMap(block) ? (block.toJSON() as Record<string, unknown>) : {};
  return Object.fromEntries(
    Object.entries(entries).filter((e): e is [string, Record<string, unknown>] => e[1] !== null && typeof e[1] === 'object'),
  );
}

/** The variables this deployment's var files give, which it then need not give in `variables:`. */
async function varFileVariables(dir: string, files: unknown): Promise<Set<string>> {
  const names = new Set<string>();
  for (const file of Array.isArray(files) ? (files as string[]) : []) {
    const value: unknown = parseDocument(await readFile(join(dir, file), 'utf8')).toJS();
    if (value !== null && typeof value === 'object') for (const name of Object.keys(value)) names.add(name);
  }
  return names;
}

/**
 * Whether the new deployment must give `variable` itself: not when its var files give it, nor when the variable has a
 * default that no other deployment overrides (then it is the same everywhere).
 */
function mustGive(target: DeploymentsFile, existing: DeploymentEntries, fromFiles: Set<string>) {
  return (variable: string): boolean => {
    const declaration = target.declarations.get(variable);
    if (!declaration || fromFiles.has(variable)) return false;
    const overridden = Object.values(existing).some(
      (e) => e.variables !== null && typeof e.variables === 'object' && variable in e.variables,
    );
    return !('default' in declaration) || overridden;
  };
}

/** Why no value of the account's objects is written for `variable`, or undefined when one is (or none is needed). */
function unfilledReason(variable: string, text: string | undefined, conflict: boolean): string | undefined {
  // A deployment is written literally (`deployment_interpolation`): text that reads as a reference cannot stand there.
  if (text?.includes('${'))
    return `the value of variable ${variable} for this deployment: its account's objects give text with "$" then "{", which a deployment's values may not hold`;
  if (conflict)
    return `the value of variable ${variable} for this deployment: two objects of its account give different values (the export's report names them)`;
  if (text === undefined) return `the value of variable ${variable} for this deployment: no object of its account gives it`;
  return undefined;
}

/**
 * The variables read off the account's objects (one equal to its variable's default is left out), and a placeholder
 * for each one the deployment must give that no object gives, two give differently, or one gives as text it may not hold.
 */
function objectVariables(target: DeploymentsFile, inferred: Inferred, must: (variable: string) => boolean, taken: Set<string>) {
  const values: Record<string, unknown> = {};
  const filled: Filled[] = [];
  const open: Open[] = [];
  const read: AddedDeployment['inferred'] = [];
  const conflicts = [...inferred.conflicts].filter(([v]) => target.declarations.has(v)).map(([name, evidence]) => ({ name, evidence }));
  for (const [variable, declaration] of target.declarations) {
    if (taken.has(variable)) continue;
    const text = inferred.values.get(variable);
    const reason = unfilledReason(variable, text, inferred.conflicts.has(variable));
    if (reason !== undefined) {
      if (!must(variable) || (text === undefined && !inferred.conflicts.has(variable) && 'default' in declaration)) continue;
      values[variable] = fillIn(reason);
      open.push({ key: `variables.${variable}`, what: reason, placeholder: true });
      continue;
    }
    if (text === undefined) continue;
    const value = typed(text, declaration.type);
    read.push({ name: variable, value: text });
    if ('default' in declaration && String(declaration.default) === String(value)) continue;
    values[variable] = value;
    filled.push({ key: `variables.${variable}`, value, from: "this account's objects, solved against the configuration's templates" });
  }
  return { values, filled, open, read, conflicts };
}

/** Where each placeholder ended up in the written text (line and column, 1-based). */
function locate(text: string, name: string, open: Open[]): void {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  for (const item of open.filter((o) => o.placeholder)) {
    const node: unknown = doc.getIn(['deployments', name, ...item.key.split('.')], true);
    const start = isNode(node) ? node.range?.[0] : undefined;
    if (start === undefined) continue;
    // The column of the text, inside its quotes, as validate's error gives it.
    const { line, col } = lines.linePos(start + (text[start] === '"' || text[start] === "'" ? 1 : 0));
    Object.assign(item, { line, col });
  }
}

/**
 * Adds `name: { account, ... }` to the `deployments:` of `target` and writes the file: what the account shows (the
 * directory's ids, the values its objects give), what the other deployments' patterns give (token, after, ...), and a
 * placeholder for everything else it needs, each named in `open`.
 */
export async function addDeployment(
  target: DeploymentsFile,
  name: string,
  account: string,
  live: { directory: DirectoryEntry[]; pins: { name: string; keyId: string }[] },
  inferred: Inferred,
): Promise<AddedDeployment> {
  refuseTakenAccount(target, account);
  const existing = existingDeployments(target);
  const dir = dirname(target.file);
  const conventions = conventionalSettings(existing, name, dir);
  const must = mustGive(target, existing, await varFileVariables(dir, conventions.settings.varFiles));
  const directory = directoryFill(target.contents, { ...live, grants: inferred.grants ?? [] }, must);
  const objects = objectVariables(target, inferred, must, new Set(Object.keys(directory.values)));
  const variables = { ...directory.values, ...objects.values };
  const entry = { account, ...conventions.settings, ...(Object.keys(variables).length > 0 ? { variables } : {}) };
  const text = await withDeployment(target, name, entry);
  const open = [...conventions.open, ...directory.open, ...objects.open];
  locate(text, name, open);
  await writeFile(target.file, text);
  return {
    file: target.file,
    entry,
    filled: [...conventions.filled, ...directory.filled, ...objects.filled],
    open,
    notes: conventions.notes,
    unmatched: directory.unmatched,
    inferred: objects.read,
    conflicts: objects.conflicts,
  };
}
