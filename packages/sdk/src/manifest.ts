/**
 * The reader manifest: the public file, kept in the application's repository, that says where and what an
 * application reads (`cplane reader-manifest` writes it from the configuration and its state). Per deployment:
 * the API's base URL, the account, the Service Account's id, the writer keys to trust, and each record the
 * Service Account may read by its `project/record` name with its id. It holds no secret; its integrity is the
 * repository's. What the API answers never changes it: a name resolves to the id written here, and the value
 * read must be wrapped by one of these writers, for this account, this record and this reader.
 */
import { readFileSync } from 'node:fs';
import { keyIdOf } from './key-id.js';

export const MANIFEST_VERSION = 1;

export interface ManifestRecord {
  recordId: string;
  /** Set when cplane delivers a gateway token to the record (its address): the value is that token, renewed by cplane. */
  deliveredToken?: string;
}

export interface ManifestDeployment {
  baseUrl: string;
  accountId: string;
  /** The Service Account's id in this account, when a grant made it known: a wrapper for another reader is refused by name. */
  serviceAccountId?: string;
  writerKeys: { publicKey: string; keyId: string }[];
  /** By `project/record` name (the configuration's local names). */
  records: Record<string, ManifestRecord>;
}

export interface ReaderManifest {
  version: typeof MANIFEST_VERSION;
  /** The Service Account's name in the configuration. */
  serviceAccount: string;
  /** By deployment name (`default` for a configuration without `deployments:`). */
  deployments: Record<string, ManifestDeployment>;
}

export type ManifestErrorCode =
  /** The file is not a reader manifest this version reads. */
  | 'MANIFEST_INVALID'
  /** The name is not one the Service Account was granted in this deployment. */
  | 'SECRET_NOT_IN_MANIFEST'
  /** The deployment asked for is not in the manifest. */
  | 'DEPLOYMENT_NOT_IN_MANIFEST'
  /** The manifest has several deployments and none was named. */
  | 'DEPLOYMENT_REQUIRED';

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  constructor(
    readonly code: ManifestErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The manifest at `path`, or the parsed object, checked; `where` names it in errors. */
export function loadManifest(manifest: string | unknown, where = typeof manifest === 'string' ? manifest : 'the manifest'): ReaderManifest {
  if (typeof manifest !== 'string') return checkManifest(manifest, where);
  let text: string;
  try {
    text = readFileSync(manifest, 'utf8');
  } catch (error) {
    throw new ManifestError(
      'MANIFEST_INVALID',
      `The reader manifest ${where} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path (CPLANE_MANIFEST, or the manifest option).`,
    );
  }
  try {
    return checkManifest(JSON.parse(text), where);
  } catch (error) {
    if (error instanceof ManifestError) throw error;
    throw new ManifestError(
      'MANIFEST_INVALID',
      `The reader manifest ${where} is not JSON: write it again with \`cplane reader-manifest\`.`,
    );
  }
}

/** Checks the shape reading relies on; the first problem is the error. */
export function checkManifest(value: unknown, where: string): ReaderManifest {
  const invalid = (problem: string) =>
    new ManifestError(
      'MANIFEST_INVALID',
      `The reader manifest ${where} is not valid: ${problem}. Write it again with \`cplane reader-manifest\`.`,
    );
  if (!isObject(value)) throw invalid('it is not a JSON object');
  if (value.version !== MANIFEST_VERSION)
    throw invalid(
      `its version is ${JSON.stringify(value.version)}, and this version of @cplane/sdk reads version ${MANIFEST_VERSION} (upgrade @cplane/sdk for a newer one)`,
    );
  if (typeof value.serviceAccount !== 'string') throw invalid('serviceAccount is not a string');
  if (!isObject(value.deployments)) throw invalid('deployments is not an object');
  for (const [name, deployment] of Object.entries(value.deployments)) {
    const at = `deployment "${name}"`;
    if (!isObject(deployment)) throw invalid(`${at} is not an object`);
    if (typeof deployment.baseUrl !== 'string' || !/^https?:\/\//.test(deployment.baseUrl))
      throw invalid(`${at}: baseUrl is not an http(s) URL`);
    if (typeof deployment.accountId !== 'string' || !UUID.test(deployment.accountId)) throw invalid(`${at}: accountId is not a uuid`);
    if (
      deployment.serviceAccountId !== undefined &&
      (typeof deployment.serviceAccountId !== 'string' || !UUID.test(deployment.serviceAccountId))
    )
      throw invalid(`${at}: serviceAccountId is not a uuid`);
    if (!Array.isArray(deployment.writerKeys) || deployment.writerKeys.length === 0)
      throw invalid(`${at}: writerKeys is not a list of writer keys`);
    for (const key of deployment.writerKeys as unknown[]) {
      const bytes = isObject(key) && typeof key.publicKey === 'string' ? Buffer.from(key.publicKey, 'base64') : undefined;
      if (!bytes || bytes.length !== 32 || !isObject(key) || key.keyId !== keyIdOf(bytes))
        throw invalid(`${at}: a writer key is not {publicKey, keyId} of a 32-byte X25519 public key`);
    }
    if (!isObject(deployment.records)) throw invalid(`${at}: records is not an object`);
    for (const [secret, record] of Object.entries(deployment.records)) {
      if (!isObject(record) || typeof record.recordId !== 'string' || !UUID.test(record.recordId))
        throw invalid(`${at}: record "${secret}" has no recordId uuid`);
    }
  }
  return value as unknown as ReaderManifest;
}

/** The deployment named (else the only one), or why there is none. */
export function manifestDeployment(
  manifest: ReaderManifest,
  name: string | undefined,
  where: string,
): { name: string; deployment: ManifestDeployment } {
  const names = Object.keys(manifest.deployments);
  if (name === undefined || name === '') {
    if (names.length === 1) return { name: names[0]!, deployment: manifest.deployments[names[0]!]! };
    throw new ManifestError(
      'DEPLOYMENT_REQUIRED',
      `The reader manifest ${where} has ${names.length} deployments (${names.join(', ') || 'none'}) and none was named: set CPLANE_DEPLOYMENT (or the deployment option) to the one this application runs in.`,
    );
  }
  const deployment = Object.hasOwn(manifest.deployments, name) ? manifest.deployments[name] : undefined;
  if (!deployment) {
    throw new ManifestError(
      'DEPLOYMENT_NOT_IN_MANIFEST',
      `Deployment "${name}" is not in the reader manifest ${where}${didYouMean(name, names)}; it has ${names.join(', ') || 'none'}. Check CPLANE_DEPLOYMENT, or ask the owner of the configuration for a manifest written with that deployment (\`--all\` or \`--deployment ${name}\`).`,
    );
  }
  return { name, deployment };
}

/** The record of a secret's name in a deployment, or why the application may not read it. */
export function manifestRecord(
  manifest: ReaderManifest,
  deployment: { name: string; deployment: ManifestDeployment },
  secret: string,
): ManifestRecord {
  const record = Object.hasOwn(deployment.deployment.records, secret) ? deployment.deployment.records[secret] : undefined;
  if (!record) {
    throw new ManifestError(
      'SECRET_NOT_IN_MANIFEST',
      `Secret "${secret}" is not granted to Service Account ${manifest.serviceAccount} in deployment "${deployment.name}"${didYouMean(secret, Object.keys(deployment.deployment.records))}. If it should be, the owner of the configuration grants it (grants.serviceAccounts of the record), applies, and writes the manifest again.`,
    );
  }
  return record;
}

/** ` (did you mean "x"?)` for the closest name at most 3 edits away (fewer for a short one), or nothing. */
function didYouMean(name: string, names: string[]): string {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name, candidate);
    if (distance <= Math.min(3, Math.max(1, Math.floor(name.length / 4))) && (!best || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best ? ` (did you mean "${best.name}"?)` : '';
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
