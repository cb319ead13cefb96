/**
 * `cplane export`: reads a live account and writes a configuration folder that
 * reproduces it in another account (ids become local names, the account a
 * variable, secrets environment placeholders), optionally adopting the
 * objects into the source account's state. Other folders use `exportAccount`.
 */
import { relative, resolve, sep } from 'node:path';
import { packageFile } from '../package-files.js';
import type { ApiClient } from '../api/client.js';
import { AbortError } from '../errors.js';
import { exportedDefinitionOf, exportKinds, listAccounts, nestingOrder } from '../providers/index.js';

/** The kinds export writes, in the order a configuration nests them. */
const exportNesting = nestingOrder.filter((kind) => exportKinds.includes(kind));
import { beginAdoption } from './adopt.js';
import { addDeployment, findDeploymentsFile, type AddedDeployment } from './as-deployment.js';
import { buildModel, type ExportModel, type Placeholder } from './build-model.js';
import { emitFiles } from './emit-yaml.js';
import { inferVariables } from './infer-variables.js';
import { groupGateways, type GatewayGroup } from './group.js';
import { checkOutputFolder, writeOutputFolder } from './output-folder.js';
import { readAccount } from './read-account.js';

export interface ExportOptions {
  /** Opens an API client working in `account` (or in none, for GET /accounts); export closes what it opens. */
  connect: (account?: string) => ApiClient;
  /** --account / CPLANE_ACCOUNT; when absent, the token's only account. */
  account?: string;
  /** --project names; every project when empty. */
  projectNames: string[];
  /** Output folder (absolute, or relative to the process's folder). */
  outDir: string;
  force: boolean;
  adopt: boolean;
  /** Environment for the state key when adopting. */
  env: NodeJS.ProcessEnv;
  /** The command line, recorded in the state lock when adopting. */
  command: string;
  /** How long adopting waits for a state lock another run holds (`--lock-timeout`), in milliseconds. */
  lockTimeoutMs?: number;
  /** `--group`: gateways that differ only by name are written once, with forEach (group.ts). */
  group?: boolean;
  /** Per-gateway reads in flight at once (default 10). */
  parallelism?: number;
  /** `--as-deployment NAME DIR`: add the account to DIR's `deployments:` instead of writing a folder. */
  asDeployment?: { name: string; dir: string };
}

/** How many objects of each kind were exported, in the order the report lists them, with the word for one. */
export type ExportCounts = { noun: string; count: number }[];

/** How many objects were left out for each reason the definitions count, in the order the report lists them. */
export type SkipCounts = { count: number; one: string; many?: string }[];

export interface ExportResult {
  account: string;
  outDir: string;
  files: string[];
  removed: string[];
  counts: ExportCounts;
  skipped: SkipCounts;
  placeholders: Placeholder[];
  /** The objects written without their value, which is never exported (records). */
  withoutValue: { count: number; noun: string };
  /** The directory entries each account applied to fills in, by the variables of their id and public key. */
  directory: { section: 'users' | 'groups'; local: string; idVar: string; keyVar: string }[];
  /** With --group: the forEach templates written, with how many gateways each stands for. */
  groups?: GatewayGroup[];
  /** Addresses recorded in state by --adopt. */
  adopted?: number;
}

const schemaFile = packageFile('schema', 'config.schema.json');

/** What `--as-deployment` did: the deployment added, and what is left to give it. */
export interface AsDeploymentResult extends AddedDeployment {
  account: string;
  name: string;
  skipped: SkipCounts;
}

/**
 * Adds the account to an existing configuration's `deployments:` (as-deployment.ts). The folder is checked
 * before the account is read, so a name already taken or a configuration without deployments reads nothing.
 */
export async function exportAsDeployment(
  options: ExportOptions & { asDeployment: { name: string; dir: string } },
): Promise<AsDeploymentResult> {
  const { name, dir } = options.asDeployment;
  const target = await findDeploymentsFile(resolve(dir), name);
  const account = await withClient(options.connect(), (client) => accessibleAccount(client, options.account));
  const live = await withClient(options.connect(account), (client) =>
    readAccount({ client, account, projectNames: options.projectNames, parallelism: options.parallelism ?? 10 }),
  );
  const model = buildModel(live, { onlyUsedCredentials: options.projectNames.length > 0 });
  const added = await addDeployment(target, name, account, model, inferVariables(target.contents, model.files));
  return { ...added, account, name, skipped: skippedOf(model) };
}

export async function exportAccount(options: ExportOptions): Promise<ExportResult> {
  const outDir = resolve(options.outDir);
  const existing = await checkOutputFolder(outDir, options.force);
  const account = await withClient(options.connect(), (client) => accessibleAccount(client, options.account));
  const live = await withClient(options.connect(account), (client) =>
    readAccount({ client, account, projectNames: options.projectNames, parallelism: options.parallelism ?? 10 }),
  );
  const built = buildModel(live, { onlyUsedCredentials: options.projectNames.length > 0 });
  const model: ExportModel & { groups?: GatewayGroup[] } = options.group ? groupGateways(built) : built;
  const files = emitFiles(model, relative(outDir, schemaFile).split(sep).join('/'));
  // The state's lock is taken before the folder changes, so a state in use stops the export with the folder as it was.
  const adoption = options.adopt
    ? await beginAdoption({ outDir, account, env: options.env, command: options.command, lockTimeoutMs: options.lockTimeoutMs ?? 0 })
    : undefined;
  try {
    const { written, removed } = await writeOutputFolder(outDir, files, existing);
    const result: ExportResult = {
      account,
      outDir,
      files: written,
      removed,
      counts: countsOf(model),
      skipped: skippedOf(model),
      placeholders: model.placeholders,
      withoutValue: withoutValueOf(model),
      directory: model.directory.map(({ section, local, idVar, keyVar }) => ({ section, local, idVar, keyVar })),
    };
    if (model.groups) result.groups = model.groups;
    if (adoption)
      result.adopted = await adoption.record(
        model.adoptions,
        model.directory.flatMap((d) => [
          { name: d.idVar, value: d.id },
          { name: d.keyVar, value: undefined },
        ]),
      );
    return result;
  } finally {
    await adoption?.close();
  }
}

async function withClient<T>(client: ApiClient, use: (client: ApiClient) => Promise<T>): Promise<T> {
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/**
 * The account to export, checked against GET /accounts before any request inside it: an id the token
 * cannot use is refused here rather than sent (the API would deny it anyway).
 */
async function accessibleAccount(client: ApiClient, wanted: string | undefined): Promise<string> {
  const accounts = await listAccounts(client);
  const list = accounts.map((a) => `${a.account_id} (${a.name})`).join(', ');
  if (wanted === undefined || wanted === '') {
    if (accounts.length === 1) return accounts[0]!.account_id;
    throw new AbortError(
      'No account given: pass --account ID or set CPLANE_ACCOUNT.',
      accounts.length > 0 ? `Accounts this token can use: ${list}.` : 'This token cannot use any account.',
    );
  }
  if (!accounts.some((a) => a.account_id === wanted)) {
    throw new AbortError(
      `Account ${wanted} is not accessible with this token; nothing was read or written.`,
      accounts.length > 0 ? `Accounts this token can use: ${list}.` : 'This token cannot use any account.',
    );
  }
  return wanted;
}

const exportedOf = (model: ExportModel, kind: string) => model.adoptions.filter((a) => a.kind === kind).length;

/** The exported objects of each kind, in the order a configuration nests them. */
function countsOf(model: ExportModel): ExportCounts {
  return exportNesting.map((kind) => {
    const { export: mapping, config } = exportedDefinitionOf(kind);
    return { noun: mapping.noun ?? config.noun, count: exportedOf(model, kind) };
  });
}

function skippedOf(model: ExportModel): SkipCounts {
  return exportNesting.flatMap((kind) =>
    (exportedDefinitionOf(kind).export.skip ?? []).flatMap(({ count }) =>
      count ? [{ ...count, count: model.skipped[count.key] ?? 0 }] : [],
    ),
  );
}

/** The objects written without their value (the kind whose value export never reads). */
function withoutValueOf(model: ExportModel): ExportResult['withoutValue'] {
  const kind = exportNesting.find((k) => exportedDefinitionOf(k).export.withoutValue);
  return kind === undefined ? { count: 0, noun: '' } : { count: exportedOf(model, kind), noun: exportedDefinitionOf(kind).config.noun };
}

export type { Placeholder } from './build-model.js';
export { compareAccounts, managedKey, type ParityDifference } from './compare.js';
export { readConfiguredContents } from './as-deployment.js';
export { readAccount } from './read-account.js';
