/**
 * loadConfig: a configuration folder in, a DesiredState and every diagnostic
 * out. The stages run in order (read and parse, variables, interpolation,
 * schema, cross-file checks); all problems of a stage are collected across
 * files, and the cross-file stage runs only when every file is valid, since
 * its errors would otherwise repeat the earlier ones. A path the files name is read only inside the folder's
 * bounds (path-bounds.ts), and no diagnostic shows a secret source's value (secret-snippets.ts).
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import { buildDesired, type LoadedFile } from './build-desired.js';
import {
  collectDeclarations,
  confineSecretFiles,
  listConfigFiles,
  readConfigFiles,
  secretEnvMatcher,
  secretEnvNames,
} from './files/config-folder.js';
import { registerSecret } from '../text/safe-text.js';
import { diagnosticAt, hasErrors, sortDiagnostics, type DiagnosticSink } from './diagnostics.js';
import { expandFile } from './values/for-each.js';
import { collectDirectory } from './blocks/directory.js';
import { checkTokenBindings, collectDeployments, confineVarFiles, isFillIn, refuseFillIns, type Deployment } from './blocks/deployments.js';
import { pathBounds, type PathBounds } from './files/path-bounds.js';
import { secretSourceValues, withoutSecretValues } from './values/secret-snippets.js';
import { collectPolicies } from './blocks/policies.js';
import { collectReconcile } from './blocks/reconcile.js';
import { registerUrlPasswords } from '../text/url-secrets.js';
import { collectRefactoringBlocks } from './blocks/refactoring-blocks.js';
import { checkSchema, type UnsetVariables } from './files/schema-check.js';
import { didYouMean } from '../text/suggest.js';
import { loadModules } from './blocks/modules.js';
import { offsetIn, type OpenDocuments, type SourceFile } from './files/source-file.js';
import { boundState, checkStateUrl, statePasswords } from './blocks/state-binding.js';
import { resolveVariables, type VariableArgument, type VariableValue } from './values/variables.js';
import type { ConfigFile } from './files/config-file.js';
import type { SharedLoads } from './files/shared-loads.js';
import type { KindBlock } from './blocks/kind-block.js';
import type { DesiredState, Diagnostic } from './types.js';

export interface LoadOptions {
  /** The configuration blocks of the resource kinds (`kindBlocks` of src/providers/): what the files may declare. */
  kinds: readonly KindBlock[];
  /** `--var name=value` and `--var-file path` in command-line order: the last one wins. */
  variables?: VariableArgument[];
  /** Environment for `${env.NAME}`, CPLANE_VAR_* and CPLANE_ACCOUNT; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** `--base-url`: the address CPLANE_TOKEN is bound to, instead of CPLANE_BASE_URL (config/blocks/token-binding.ts). */
  baseUrl?: string;
  /** `--state`: the state the runner binds, before CPLANE_STATE (config/blocks/state-binding.ts). */
  stateFlag?: string;
  /** `--account`: wins over CPLANE_ACCOUNT and the configuration. */
  account?: string;
  /** Folder that relative paths are shown from and resolved against; defaults to process.cwd(). */
  cwd?: string;
  /** Variable values a saved plan was made with: they win over every other source. */
  savedVariables?: Record<string, VariableValue>;
  /** Where `savedVariables` come from, in words (default: the saved plan), e.g. `tests/a.cptest.yaml`. */
  savedVariablesOrigin?: string;
  /**
   * Variables without a value are unknown rather than errors (`cplane validate`): a field that uses one
   * is checked only for its type, and only where the variable declares a type.
   */
  allowUnsetVariables?: boolean;
  /**
   * The deployment (of the configuration's `deployments:`) to load for: its account, and its varFiles and
   * variables after every other source but a saved plan's (they win over --var and CPLANE_VAR_*).
   */
  deployment?: string;
  /** Files an editor holds open, by absolute path: read instead of the disk (the language server, src/lsp/). */
  open?: OpenDocuments;
  /** What loads of the same folder share (`cplane test`: one load per run): each file parsed once, its listing and bounds. */
  shared?: SharedLoads;
}

export interface LoadResult {
  /** Undefined when any diagnostic is an error. */
  desired: DesiredState | undefined;
  diagnostics: Diagnostic[];
  /** With allowUnsetVariables: the declared variables that had no value, sorted. */
  unsetVariables?: string[];
  /** The configuration's `deployments:`, when it has any (even when other diagnostics are errors). */
  deployments?: Deployment[];
  /** The account the configuration is for, once its files load (even when a later stage, references, has errors). */
  account?: string;
}

/**
 * A problem in a `forEach` template is found once per instance, at the same place, in words that differ only
 * by the instance key: the first (which names its instance) says it.
 */
function withoutRepeats(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    if (!d.range) return true;
    const key = JSON.stringify([d.range.file, d.range.line, d.range.col, d.code, d.summary.replace(/\[[^\]]*\]/g, '[]')]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function pickAccount(files: LoadedFile[], sink: DiagnosticSink): string | undefined {
  let first: LoadedFile | undefined;
  for (const loaded of files) {
    if (loaded.config.account === undefined) continue;
    if (first && first.config.account !== loaded.config.account) {
      const { line, col } = first.file.lines.linePos(offsetIn(first.file, first.file.value, 'account'));
      sink.push(
        diagnosticAt(loaded.file, offsetIn(loaded.file, loaded.file.value, 'account'), {
          code: 'duplicate_account',
          summary: `The account is given twice with different values: in ${first.file.display}:${line}:${col} and again here`,
          detail: 'Give the account in one file only.',
        }),
      );
    }
    first ??= loaded;
  }
  return first?.config.account;
}

export async function loadConfig(dir: string, options: LoadOptions): Promise<LoadResult> {
  const read: FilesRead = { files: [] };
  const result = await loadFolder(dir, options, read);
  // Only a diagnostic that quotes something needs the secret values looked for; they are read only then.
  if (!read.bounds || !result.diagnostics.some((d) => d.snippet !== undefined)) return result;
  const values = await secretSourceValues(read.files, options.env ?? process.env, read.bounds, read.isSourceName);
  return { ...result, diagnostics: withoutSecretValues(result.diagnostics, [...values, ...statePasswords(read.files)]) };
}

/** The configuration's files as read, and its bounds: what the secret values in diagnostics are looked for with. */
interface FilesRead {
  files: SourceFile[];
  bounds?: PathBounds;
  /** The variables the secret sources read as written, in every deployment (before interpolation made them this one's). */
  isSourceName?: (variable: string) => boolean;
}

async function loadFolder(dir: string, options: LoadOptions, read: FilesRead): Promise<LoadResult> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const root = resolve(cwd, dir);
  const diagnostics: Diagnostic[] = [];
  const found: Found = {};
  // `done` reports what was found (the account, the deployments) even when a later stage fails.
  const done = (desired?: DesiredState): LoadResult => ({
    desired: hasErrors(diagnostics) ? undefined : desired,
    ...(found.account ? { account: found.account } : {}),
    diagnostics: sortDiagnostics(withoutRepeats(diagnostics)),
    ...(found.unset ? { unsetVariables: [...found.unset.keys()].sort() } : {}),
    ...(found.deployments ? { deployments: found.deployments } : {}),
  });
  const folder = await readFolder(root, cwd, env, options, read, diagnostics);
  if (!folder) return done();
  const values = await variableValues(folder, env, cwd, options, found, diagnostics);
  if (!values) return done();
  const { files, bounds } = folder;
  const scope = { values, declared: new Set(folder.declarations.keys()), env, secretEnv: secretEnvNames(files.map((f) => f.value)) };
  const loaded = expandFiles(files, options.kinds, scope, found.unset, boundState(env, options.stateFlag), diagnostics);
  if (hasErrors(diagnostics)) return done();
  const modules = await loadModules(
    loaded,
    { root, display: folder.display, kinds: options.kinds, env, unset: found.unset, open: options.open },
    diagnostics,
  );
  read.files = [...files, ...modules.files.map((l) => l.file)];
  await confineSecretFiles(
    [...loaded, ...modules.files].map((l) => l.file),
    bounds,
    diagnostics,
  );
  if (hasErrors(diagnostics)) return done();
  return done(desiredOf(folder, loaded, modules, values, options, found, diagnostics));
}

/** What the stages find that a failed load still reports, and the account the stages choose. */
interface Found {
  account?: string;
  /** The account chosen with the deployment, --account or CPLANE_ACCOUNT. */
  chosenAccount?: string;
  unset?: UnsetVariables;
  deployments?: Deployment[];
}

interface Folder {
  root: string;
  names: string[];
  display: (name: string) => string;
  files: SourceFile[];
  bounds: PathBounds;
  declarations: ReturnType<typeof collectDeclarations>;
}

/** The folder's files read and parsed, its bounds, and the secrets its sources name registered with the redactor. */
async function readFolder(
  root: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  options: LoadOptions,
  read: FilesRead,
  diagnostics: Diagnostic[],
): Promise<Folder | undefined> {
  const { shared } = options;
  const names = shared ? await shared.listing(root, () => listConfigFiles(root, diagnostics)) : await listConfigFiles(root, diagnostics);
  if (!names) return undefined;
  const shownRoot = relative(cwd, root);
  const display = (name: string) => (shownRoot.startsWith('..') || isAbsolute(shownRoot) ? join(root, name) : join(shownRoot, name));
  const files = await readConfigFiles(root, names, display, diagnostics, undefined, options.open, shared);
  const bounds = await (shared ? shared.pathBounds(root) : pathBounds(root));
  read.files = files;
  read.bounds = bounds;
  // Every deployment's secret sources are secrets of this run, whichever deployment this load is for: another
  // deployment's value in this one's output is redacted too.
  read.isSourceName = secretEnvMatcher(
    files.map((f) => f.value),
    { bareReference: 'none' },
  );
  for (const [name, value] of Object.entries(env)) if (read.isSourceName(name)) registerSecret(value);
  return { root, names, display, files, bounds, declarations: collectDeclarations(files, diagnostics) };
}

/** The deployments, the account chosen, and every declared variable's value; undefined when the deployment asked for is not there. */
async function variableValues(
  { root, files, bounds, declarations }: Folder,
  env: NodeJS.ProcessEnv,
  cwd: string,
  options: LoadOptions,
  found: Found,
  diagnostics: Diagnostic[],
): Promise<Map<string, VariableValue> | undefined> {
  const deployments = collectDeployments(files, root, diagnostics);
  found.deployments = deployments;
  // What the files name is read only inside the folder (or its Git work tree): every deployment's var files are
  // checked, not only the chosen one's, so `cplane validate` says it too.
  if (deployments) await confineVarFiles(deployments, bounds, diagnostics);
  if (deployments) checkTokenBindings(deployments, env, options.baseUrl, diagnostics);
  if (deployments) refuseFillIns(deployments, options.deployment, diagnostics);
  const deployment = chosenDeployment(options.deployment, deployments, diagnostics);
  if (options.deployment !== undefined && !deployment) return undefined;
  // `account: ${var.account}` is the convention (and what export writes): a required `account`
  // variable takes the account chosen with --account or CPLANE_ACCOUNT, so one folder serves many accounts.
  const chosenAccount = deployment?.account ?? options.account ?? (env.CPLANE_ACCOUNT || undefined);
  found.chosenAccount = chosenAccount;
  const accountVariable = declarations.get('account');
  if (chosenAccount && accountVariable && accountVariable.config.default === undefined) {
    accountVariable.config = { ...accountVariable.config, default: chosenAccount };
  }
  const allowUnset = options.allowUnsetVariables === true;
  const variables = deployment ? [...(options.variables ?? []), ...deploymentVariables(deployment)] : options.variables;
  const values = await resolveVariables(
    declarations,
    {
      variables,
      env,
      cwd,
      saved: options.savedVariables,
      ...(options.savedVariablesOrigin ? { savedOrigin: options.savedVariablesOrigin } : {}),
      allowUnset,
    },
    diagnostics,
  );
  // Without a value, a variable is checked for its type only: under validate, or where a placeholder export left
  // stands for its value (an error of its own, refuseFillIns).
  const fillIns = Object.entries(deployment?.variables ?? {}).flatMap(([name, value]) => (isFillIn(value) ? [name] : []));
  const unset = [...declarations].filter(([name]) => !values.has(name) && (allowUnset || fillIns.includes(name)));
  if (allowUnset || unset.length > 0) found.unset = new Map(unset.map(([name, d]) => [name, d.config.type]));
  return values;
}

/** Each file expanded and interpolated with the values, then checked against the schema: the files that passed. */
function expandFiles(
  files: SourceFile[],
  kinds: readonly KindBlock[],
  scope: Parameters<typeof expandFile>[2],
  unset: UnsetVariables | undefined,
  bound: ReturnType<typeof boundState>,
  diagnostics: Diagnostic[],
): LoadedFile[] {
  const loaded: LoadedFile[] = [];
  for (const file of files) {
    checkStateUrl(file, bound, diagnostics);
    const before = diagnostics.length;
    expandFile(file, kinds, scope, diagnostics);
    // A reference that could not be resolved is left as text: the schema would only add that it is the wrong type.
    if (hasErrors(diagnostics.slice(before))) continue;
    if (checkSchema(file, kinds, diagnostics, unset)) loaded.push({ file, config: file.value as ConfigFile });
  }
  return loaded;
}

/** The desired state of the checked files: resources, the account (the configuration's must match the one chosen), and the rest. */
function desiredOf(
  { root, names }: Folder,
  loaded: LoadedFile[],
  modules: Awaited<ReturnType<typeof loadModules>>,
  values: Map<string, VariableValue>,
  options: LoadOptions,
  found: Found,
  diagnostics: Diagnostic[],
): DesiredState {
  const directory = collectDirectory(loaded, diagnostics);
  const resources = buildDesired([...loaded, ...modules.files], options.kinds, diagnostics, directory);
  const { chosenAccount } = found;
  const configured = pickAccount(loaded, diagnostics);
  if (chosenAccount !== undefined && configured !== undefined && chosenAccount !== configured) {
    // A leftover CPLANE_ACCOUNT must never send a configuration's changes to another account.
    const at = loaded.find((l) => l.config.account !== undefined) as LoadedFile;
    const chosenBy = options.account !== undefined ? '--account' : 'CPLANE_ACCOUNT';
    diagnostics.push(
      diagnosticAt(at.file, offsetIn(at.file, at.file.value, 'account', 'value'), {
        code: 'account_mismatch',
        summary: `${chosenBy} is ${chosenAccount}, but the configuration's account is ${configured}`,
        detail: `Unset ${chosenBy} to use ${configured}, or change the configuration (or the variable it takes its account from).`,
      }),
    );
  }
  const account = chosenAccount ?? configured;
  found.account = account;
  const refactoring = collectRefactoringBlocks(loaded, resources, diagnostics);
  const policies = collectPolicies(loaded, diagnostics);
  const reconcile = collectReconcile(loaded, diagnostics);
  const hasDirectory = loaded.some((l) => l.config.directory !== undefined);
  const desired: DesiredState = {
    resources,
    ...(refactoring ? { refactoring } : {}),
    ...(policies ? { policies } : {}),
    ...(hasDirectory ? { directory } : {}),
    ...(reconcile ? { reconcile } : {}),
    dir: root,
    files: [...names, ...modules.paths],
    variables: Object.fromEntries(values),
  };
  if (account !== undefined && account !== '') desired.account = account;
  const stateUrl = loaded.find((l) => l.config.state)?.config.state?.url;
  if (stateUrl) desired.stateUrl = stateUrl;
  registerUrlPasswords(stateUrl);
  return desired;
}

/** The deployment `name` of the configuration, or undefined after saying it has none of that name. */
function chosenDeployment(name: string | undefined, deployments: Deployment[] | undefined, sink: DiagnosticSink): Deployment | undefined {
  if (name === undefined) return undefined;
  const found = deployments?.find((d) => d.name === name);
  if (!found) {
    const names = (deployments ?? []).map((d) => d.name);
    sink.push({
      severity: 'error',
      code: 'unknown_deployment',
      summary: `The configuration has no deployment "${name}"${didYouMean(name, names)}`,
      detail: names.length > 0 ? `Its deployments: ${names.join(', ')}.` : 'It declares no deployments: (docs/deployments.md).',
    });
  }
  return found;
}

/** A deployment's variable files, then its own values (the later wins). */
function deploymentVariables(deployment: Deployment): VariableArgument[] {
  return [
    ...deployment.varFiles.map((file) => ({ file, fromConfiguration: true })),
    {
      values: deployment.variables,
      origin: `deployment ${deployment.name}`,
      deployment: deployment.name,
      ...(deployment.variablesAt ? { file: deployment.variablesAt.file } : {}),
    },
  ];
}
