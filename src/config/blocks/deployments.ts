/**
 * `deployments:` (docs/deployments.md): the accounts one configuration is applied to, by name, each with its
 * own account and workspace (so its own state), its own variable values, the token it chooses among those the
 * runner bound (`token: NAME`, `baseUrl`: token-binding.ts), the deployments that must apply
 * before it (`after`) and an `autoApprove` rule. The block is read from the files as written, before any
 * variable has a value (a deployment gives the values), so it is never interpolated. Checked here, each at its
 * file:line:col: an unknown name in `after` (with a suggestion), a cycle of `after` (its path), two deployments
 * on the same account and workspace, `${...}` in a deployment, an `account:` beside `deployments:`, a `token:`
 * that names a variable, and a `baseUrl` its token is not bound to (checkTokenBindings).
 */
import { resolve } from 'node:path';
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { checkPathInside, PATH_HINT, refusalWords, type PathBounds } from '../files/path-bounds.js';
import { offsetIn, positionIn, textStart, type SourceFile } from '../files/source-file.js';
import { didYouMean } from '../../text/suggest.js';
import { addressVariableOf, boundAddress, sameAddress, shownAddress, TOKEN_NAME, tokenVariableOf } from './token-binding.js';
import type { SourceRange } from '../types.js';

/** One deployment, as the configuration declares it. */
export interface Deployment {
  name: string;
  account: string;
  /** The workspace of its state; `default` unless given. */
  workspace: string;
  /** Variable values, as written (typed by YAML). */
  variables: Record<string, unknown>;
  /** Absolute paths of its variable files, in order: only those inside the configuration's bounds (path-bounds.ts). */
  varFiles: string[];
  /** Names of the deployments that must apply before it. */
  after: string[];
  /** The token it chooses (`token: NAME`): CPLANE_TOKEN_<NAME>, read instead of CPLANE_TOKEN (token-binding.ts). */
  tokenName?: string;
  /** The address its token must be bound to (`baseUrl`): a check, never where a token is sent (token-binding.ts). */
  baseUrl?: string;
  /** Its GitHub environment (`environment:`, default its name): where a CI job finds its token (`cplane deployments --matrix`). */
  environment: string;
  /** The CEL rule over the plan's summary that approves its apply, and where its text is. */
  autoApprove?: { rule: string; source: SourceRange };
  /** Where the deployment is declared. */
  source: SourceRange;
  /** The file and map of its `variables:`, so a wrong value is reported at its line. */
  variablesAt?: { file: SourceFile; node: Record<string, unknown> };
  /** The file and list of its `varFiles:`, so a path refused is reported at its line. */
  varFilesAt?: { file: SourceFile; node: unknown[] };
  /** The file and map of the entry itself, so a setting refused is reported at its line. */
  entryAt?: { file: SourceFile; node: Record<string, unknown> };
}

type Mapping = Record<string, unknown>;
const isMapping = (value: unknown): value is Mapping => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

const rangeAt = (file: SourceFile, offset: number): SourceRange => ({ file: file.display, ...file.lines.linePos(offset) });

/** Whether any string inside `value` asks for interpolation. */
function interpolationIn(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${');
  if (Array.isArray(value)) return value.some(interpolationIn);
  return isMapping(value) && Object.values(value).some(interpolationIn);
}

/**
 * The deployments the files declare, in file then declaration order, or undefined when none declares any.
 * Shape errors are the schema's (the entries it would refuse are skipped here); the checks across
 * deployments are pushed to `sink`.
 */
export function collectDeployments(files: readonly SourceFile[], root: string, sink: DiagnosticSink): Deployment[] | undefined {
  const holders = files.filter((file) => isMapping(file.value) && 'deployments' in file.value);
  if (holders.length === 0) return undefined;
  const deployments: Deployment[] = [];
  const at = new Map<string, { file: SourceFile; entry: Mapping; block: Mapping }>();
  for (const file of holders) {
    const block = (file.value as Mapping).deployments;
    if (!isMapping(block)) continue;
    for (const [name, entry] of Object.entries(block)) {
      if (!isMapping(entry) || typeof entry.account !== 'string') continue;
      const keyAt = offsetIn(file, block, name);
      const earlier = at.get(name);
      if (earlier) {
        const first = rangeAt(earlier.file, offsetIn(earlier.file, earlier.block, name));
        sink.push(
          diagnosticAt(file, keyAt, {
            code: 'duplicate_deployment',
            summary: `The deployment "${name}" is declared twice: in ${first.file}:${first.line}:${first.col} and again here`,
            detail: 'Declare each deployment once across all files of the configuration.',
            end: keyAt + name.length,
          }),
        );
        continue;
      }
      if (interpolationIn(entry)) {
        sink.push(
          diagnosticAt(file, keyAt, {
            code: 'deployment_interpolation',
            summary: `The deployment "${name}" uses \${...}: a deployment is written literally, since it is what gives the variables their values`,
            detail: 'Write the account, workspace and values themselves; per-deployment values go in its variables: or varFiles:.',
            end: keyAt + name.length,
          }),
        );
        continue;
      }
      at.set(name, { file, entry, block });
      const tokenName = tokenNameOf(name, file, entry, sink);
      const rule = typeof entry.autoApprove === 'string' ? entry.autoApprove : undefined;
      deployments.push({
        name,
        account: entry.account,
        workspace: typeof entry.workspace === 'string' ? entry.workspace : 'default',
        variables: isMapping(entry.variables) ? entry.variables : {},
        varFiles: strings(entry.varFiles).map((path) => resolve(root, path)),
        after: strings(entry.after),
        environment: typeof entry.environment === 'string' ? entry.environment : name,
        ...(tokenName !== undefined ? { tokenName } : {}),
        ...(typeof entry.baseUrl === 'string' ? { baseUrl: entry.baseUrl } : {}),
        ...(rule !== undefined ? { autoApprove: { rule, source: rangeAt(file, offsetIn(file, entry, 'autoApprove', 'value')) } } : {}),
        source: rangeAt(file, keyAt),
        ...(isMapping(entry.variables) ? { variablesAt: { file, node: entry.variables } } : {}),
        ...(Array.isArray(entry.varFiles) ? { varFilesAt: { file, node: entry.varFiles } } : {}),
        entryAt: { file, node: entry },
      });
    }
  }
  refuseTopLevelAccount(files, holders[0]!, sink);
  checkAfter(deployments, at, sink);
  checkTargets(deployments, at, sink);
  warnSharedTokenFallback(deployments, at, sink);
  return deployments;
}

/** The token name a deployment's own name suggests (`token: dev`), or NAME when it cannot be one. */
const suggestedToken = (name: string): string => (/^[A-Za-z][A-Za-z0-9_]*$/.test(name) ? name : 'NAME');

/**
 * Where some deployments choose a token of their own, one that chooses none falls back to CPLANE_TOKEN, whichever
 * account that token is for: an account added to a fleet (`export --as-deployment`) must not borrow it in silence.
 */
function warnSharedTokenFallback(
  deployments: readonly Deployment[],
  at: ReadonlyMap<string, { file: SourceFile; entry: Mapping; block: Mapping }>,
  sink: DiagnosticSink,
): void {
  const chooser = deployments.find((d) => d.tokenName !== undefined);
  if (!chooser) return;
  // A `token:` that is refused has its own error: only one that is not written falls back.
  for (const d of deployments.filter((d) => at.get(d.name)!.entry.token === undefined)) {
    const { file, block } = at.get(d.name)!;
    const keyAt = offsetIn(file, block, d.name);
    sink.push(
      diagnosticAt(file, keyAt, {
        severity: 'warning',
        code: 'deployment_token_fallback',
        summary: `The deployment "${d.name}" chooses no token, so it uses CPLANE_TOKEN, while "${chooser.name}" chooses ${tokenVariableOf(chooser.tokenName)}`,
        detail: `Give it a token of its own (\`token: ${suggestedToken(d.name)}\` reads ${tokenVariableOf(suggestedToken(d.name))}; docs/deployments.md), or leave it so if CPLANE_TOKEN is meant for its account too.`,
        end: keyAt + d.name.length,
      }),
    );
  }
}

/**
 * The token a deployment chooses (`token: NAME`), or undefined with a diagnostic when `token:` names anything else.
 * The old form `token: { env: VARIABLE }` let a pull request send any variable of the runner (the state key,
 * GITHUB_TOKEN, another deployment's token) as a bearer token: it is refused, with the form that replaces it.
 */
function tokenNameOf(name: string, file: SourceFile, entry: Mapping, sink: DiagnosticSink): string | undefined {
  const token = entry.token;
  if (token === undefined) return undefined;
  if (typeof token === 'string' && TOKEN_NAME.test(token)) return token;
  const offset = offsetIn(file, entry, 'token');
  const suggested = suggestedToken(name);
  const instead = `Write token: ${suggested}, and set the token as ${tokenVariableOf(suggested)} on the runner (a secret of its CI job, never of the repository); it is sent only to ${addressVariableOf(suggested)}, or CPLANE_BASE_URL when that is unset (docs/deployments.md#one-credential-per-deployment).`;
  const named = isMapping(token) && typeof token.env === 'string' ? token.env : undefined;
  sink.push(
    diagnosticAt(file, offset, {
      code: named !== undefined ? 'deployment_token_env' : 'deployment_token_name',
      summary:
        named !== undefined
          ? `The deployment "${name}" names the environment variable ${named} as its token (token: { env: ... }): a configuration may not choose which variable is sent as a token, so nothing is sent for it`
          : `The deployment "${name}" has token: ${JSON.stringify(token)}: a token's name is a letter, then letters, digits and '_' (at most 63)`,
      detail: instead,
      end: offset + 'token'.length,
    }),
  );
  return undefined;
}

/**
 * A deployment's `baseUrl` must be where the runner sends its token (token-binding.ts): a pull request that points
 * it elsewhere gets an error at the `baseUrl`, naming the deployment and the token, and nothing is sent for it. A
 * token the runner does not hold is not checked here: its deployment fails when it connects, saying what to set.
 */
export function checkTokenBindings(
  deployments: readonly Deployment[],
  env: NodeJS.ProcessEnv,
  baseUrlFlag: string | undefined,
  sink: DiagnosticSink,
): void {
  for (const deployment of deployments) {
    const at = deployment.entryAt;
    if (deployment.baseUrl === undefined || !at) continue;
    const variable = tokenVariableOf(deployment.tokenName);
    const bound = boundAddress(env, deployment.tokenName, baseUrlFlag);
    if (bound.url !== undefined ? sameAddress(bound.url, deployment.baseUrl) : !env[variable]) continue;
    const offset = offsetIn(at.file, at.node, 'baseUrl', 'value');
    const where =
      bound.url !== undefined
        ? `the runner bound ${variable} to ${shownAddress(bound.url)} (${bound.from})`
        : `the runner bound ${variable} to no address (${bound.from} is not set)`;
    sink.push(
      diagnosticAt(at.file, offset, {
        code: 'token_not_bound',
        summary: `The deployment "${deployment.name}" has baseUrl: ${shownAddress(deployment.baseUrl)}, but ${where}: a configuration cannot send a token anywhere else, so nothing is sent for ${deployment.name}`,
        detail:
          deployment.tokenName !== undefined
            ? `Leave baseUrl out (the deployment goes where its token is bound), or bind the token to that address on the runner: set ${addressVariableOf(deployment.tokenName)}.`
            : `Leave baseUrl out (the deployment goes to ${bound.from}), or give it a token of its own bound to that address: token: NAME, with CPLANE_TOKEN_NAME and CPLANE_BASE_URL_NAME set on the runner.`,
        end: offset + deployment.baseUrl.length,
      }),
    );
  }
}

/**
 * Keeps in each deployment only the var files inside `bounds`; each one outside is an error at its place in
 * `varFiles:`, and is never read (a pull request could name the state key file or /proc/self/environ).
 */
export async function confineVarFiles(deployments: Deployment[], bounds: PathBounds, sink: DiagnosticSink): Promise<void> {
  for (const deployment of deployments) {
    const kept: string[] = [];
    for (const [i, path] of deployment.varFiles.entries()) {
      const checked = await checkPathInside(path, bounds);
      if ('real' in checked) {
        kept.push(path);
        continue;
      }
      const at = deployment.varFilesAt;
      const written = String(at?.node[i] ?? path);
      const problem = {
        code: 'path_outside',
        summary: `The var file "${written}" of deployment "${deployment.name}" ${refusalWords(checked.refused, bounds)}: it is not read`,
        detail: PATH_HINT,
      };
      if (!at) sink.push({ severity: 'error', ...problem });
      else {
        const offset = textStart(at.file, offsetIn(at.file, at.node, i, 'value'));
        sink.push(diagnosticAt(at.file, offset, { ...problem, end: offset + written.length }));
      }
    }
    deployment.varFiles = kept;
  }
}

/**
 * Where `cplane export --as-deployment` could not fill a value of the deployment it adds (a key it may not pin on the
 * API's word, an id no operation gives), it writes `<fill in: what to give>`: refused until a person replaces it.
 */
export const fillIn = (what: string): string => `${FILL_IN}${what}>`;
const FILL_IN = '<fill in: ';
export const isFillIn = (value: unknown): value is string => typeof value === 'string' && value.startsWith(FILL_IN);

/** Each placeholder inside `node` (a deployment's entry), with the map or list that holds it and its key. */
function fillInsOf(node: unknown, path: string): { container: unknown; key: string | number; path: string; value: string }[] {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => {
    const at = Array.isArray(node) ? Number(key) : key;
    const inner = Array.isArray(node) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    return isFillIn(value) ? [{ container: node, key: at, path: inner, value }] : fillInsOf(value, inner);
  });
}

/**
 * A placeholder export left in a deployment is an error at its place, naming what to give: for the deployment
 * chosen, or for every one when none is (`cplane validate`), so one account's open placeholder never stops the
 * others' plans.
 */
export function refuseFillIns(deployments: readonly Deployment[], chosen: string | undefined, sink: DiagnosticSink): void {
  for (const { name, entryAt } of deployments) {
    if ((chosen !== undefined && name !== chosen) || !entryAt) continue;
    for (const { container, key, path, value } of fillInsOf(entryAt.node, '')) {
      const offset = textStart(entryAt.file, offsetIn(entryAt.file, container, key, 'value'));
      sink.push(
        diagnosticAt(entryAt.file, offset, {
          code: 'deployment_fill_in',
          summary: `deployments.${name}.${path} is still the placeholder \`cplane export --as-deployment\` wrote: give ${value.slice(FILL_IN.length, -1)}`,
          detail: 'Replace the whole "<fill in: ...>" text with the value (docs/deployments.md#what-the-new-deployment-is-given).',
          end: offset + value.length,
        }),
      );
    }
  }
}

/** The account of a configuration with deployments is each deployment's: a top-level one would say another. */
function refuseTopLevelAccount(files: readonly SourceFile[], holder: SourceFile, sink: DiagnosticSink): void {
  const where = rangeAt(holder, offsetIn(holder, holder.value, 'deployments'));
  for (const file of files) {
    if (!isMapping(file.value) || !('account' in file.value)) continue;
    const offset = offsetIn(file, file.value, 'account');
    sink.push(
      diagnosticAt(file, offset, {
        code: 'account_beside_deployments',
        summary: `account: cannot be given beside deployments: (${where.file}:${where.line}:${where.col}): each deployment names its own account`,
        detail: 'Remove this account: line, and give the account in each deployment, e.g. deployments: { staging: { account: ... } }.',
        end: offset + 'account'.length,
      }),
    );
  }
}

function checkAfter(deployments: Deployment[], at: Map<string, { file: SourceFile; entry: Mapping }>, sink: DiagnosticSink): void {
  const names = deployments.map((d) => d.name);
  for (const deployment of deployments) {
    const { file, entry } = at.get(deployment.name)!;
    deployment.after.forEach((other, i) => {
      if (at.has(other)) return;
      const offset = offsetIn(file, entry.after, i, 'value');
      sink.push(
        diagnosticAt(file, offset, {
          code: 'unknown_deployment',
          summary: `The deployment "${deployment.name}" comes after "${other}", which is not a deployment${didYouMean(
            other,
            names.filter((n) => n !== deployment.name),
          )}`,
          detail: `Declared deployments: ${names.join(', ')}.`,
          end: offset + other.length,
        }),
      );
    });
    deployment.after = deployment.after.filter((other) => at.has(other));
  }
  // Depth-first: a deployment met again while its own `after` is being walked closes a cycle.
  const byName = new Map(deployments.map((d) => [d.name, d]));
  const done = new Set<string>();
  const reported = new Set<string>();
  const walk = (name: string, path: string[]): void => {
    if (done.has(name)) return;
    const loop = path.indexOf(name);
    if (loop !== -1) {
      const cycle = [...path.slice(loop), name];
      const key = [...cycle.slice(0, -1)].sort().join(',');
      if (reported.has(key)) return;
      reported.add(key);
      const { file, entry } = at.get(name)!;
      const offset = offsetIn(file, entry, 'after');
      sink.push(
        diagnosticAt(file, offset, {
          code: 'deployment_cycle',
          summary: `The deployments wait for each other in a cycle: ${cycle.join(' after ')}`,
          detail: 'apply --all could never start any of them: remove one of these after: entries.',
          end: offset + 'after'.length,
        }),
      );
      return;
    }
    for (const other of byName.get(name)?.after ?? []) walk(other, [...path, name]);
    done.add(name);
  };
  for (const deployment of deployments) walk(deployment.name, []);
}

/** Two deployments on one account and workspace would share one state: each would undo the other's changes. */
function checkTargets(deployments: Deployment[], at: Map<string, { file: SourceFile; entry: Mapping }>, sink: DiagnosticSink): void {
  const seen = new Map<string, Deployment>();
  for (const deployment of deployments) {
    const key = `${deployment.account}\n${deployment.workspace}`;
    const earlier = seen.get(key);
    if (!earlier) {
      seen.set(key, deployment);
      continue;
    }
    const { file, entry } = at.get(deployment.name)!;
    const position = positionIn(file, entry, 'account');
    const offset = position?.value[0] ?? 0;
    sink.push(
      diagnosticAt(file, offset, {
        code: 'duplicate_deployment_target',
        summary: `The deployments "${earlier.name}" (${earlier.source.file}:${earlier.source.line}:${earlier.source.col}) and "${deployment.name}" are both on account ${deployment.account}, workspace ${deployment.workspace}: they would share one state`,
        detail: 'Give one of them another account, or another workspace: (e.g. workspace: eu) for a second state in the same account.',
        end: position?.value[1] ?? offset + 1,
      }),
    );
  }
}

/** The deployments in waves: each wave holds those whose `after` are all in earlier waves, in declaration order. */
export function deploymentWaves<D extends Pick<Deployment, 'name' | 'after'>>(deployments: readonly D[]): D[][] {
  const chosen = new Set(deployments.map((d) => d.name));
  const placed = new Set<string>();
  const waves: D[][] = [];
  let left = [...deployments];
  while (left.length > 0) {
    // Only the chosen deployments are waited for: one not chosen is not applied in this run.
    const wave = left.filter((d) => d.after.every((other) => !chosen.has(other) || placed.has(other)));
    if (wave.length === 0) throw new Error(`the deployments ${left.map((d) => d.name).join(', ')} wait for each other in a cycle`);
    wave.forEach((d) => placed.add(d.name));
    waves.push(wave);
    left = left.filter((d) => !placed.has(d.name));
  }
  return waves;
}
