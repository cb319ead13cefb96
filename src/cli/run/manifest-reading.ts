/**
 * Reading by name with a reader manifest, as `cplane read --manifest` and `cplane run --manifest` do: through the
 * SDK's `createReader`, the very code an application runs, with the manifest (--manifest, else CPLANE_MANIFEST), the
 * credential CPLANE_READER and the deployment (--deployment, else CPLANE_DEPLOYMENT, else the manifest's only one).
 * No configuration, state or state key is needed. cplane consumes these three variables itself: the command `run`
 * starts never gets them (docs/sdk.md). Errors keep the SDK's codes, with the CLI's advice.
 */
import { createReader, decodeReaderCredential, ManifestError, NetworkError, ReaderCredentialError, type Reader } from '@cplane/sdk';
import { registerSecret } from '../../text/safe-text.js';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { explainWrap } from './explain-read-error.js';

/** Whether a source is a record id (a uuid), not a secret's name. */
export const isRecordId = (source: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(source);

/**
 * The manifest a command reads by name with, or undefined when it reads by address or id: --manifest, else
 * CPLANE_MANIFEST unless the command names a record by address or id (so an operator's `cplane read record.x/y`
 * in a shell that has it set still reads by address).
 */
export function manifestPathOf(ctx: CommandContext, byAddressOrId: boolean): string | undefined {
  const flag = ctx.values.manifest;
  if (typeof flag === 'string' && flag !== '') return flag;
  return byAddressOrId ? undefined : ctx.env.CPLANE_MANIFEST || undefined;
}

/** Flags of reading by address or id, which a read by name does not use: said, rather than ignored. */
const NOT_WITH_MANIFEST = ['key-file', 'writer-key', 'min-version', 'record-id', 'account', 'state', 'workspace', 'token', 'base-url'];

const manifestHints: Record<ManifestError['code'], string> = {
  MANIFEST_INVALID: 'Write the manifest again with `cplane reader-manifest SERVICE_ACCOUNT [dir] --out FILE`.',
  SECRET_NOT_IN_MANIFEST:
    'Names are PROJECT/RECORD as the configuration writes them; a record not granted to the Service Account needs a grant, an apply and `cplane reader-manifest` again.',
  DEPLOYMENT_NOT_IN_MANIFEST:
    'Give --deployment NAME or CPLANE_DEPLOYMENT as the manifest names it, or write the manifest with that deployment (`cplane reader-manifest ... --deployment NAME`).',
  DEPLOYMENT_REQUIRED: 'Give --deployment NAME or set CPLANE_DEPLOYMENT.',
};

/** Any failure of reading by name as the CLI says it: what went wrong, its code, and what to do. */
export function explainNamed(error: unknown, name: string | undefined): never {
  if (error instanceof ManifestError) throw new AbortError(`${error.code}: ${error.message}`, manifestHints[error.code]);
  if (error instanceof ReaderCredentialError)
    throw new AbortError(
      `${error.code}: ${error.message}`,
      'Set CPLANE_READER to the string `cplane reader-credential` printed for the Service Account.',
    );
  if (error instanceof NetworkError) throw new AbortError(error.message, "Check the baseUrl of the manifest's deployment and the network.");
  // The client refuses a base URL it cannot use (plain http to another machine) before sending anything.
  if (error instanceof TypeError)
    throw new AbortError(
      `The manifest's base URL cannot be used: ${error.message}.`,
      'Fix baseUrl in the manifest (or pass --allow-insecure-http on a trusted network).',
    );
  explainWrap(error, name ?? 'the record');
}

/** The SDK's reader for this command's manifest, credential and deployment. */
export function openManifestReader(ctx: CommandContext, manifest: string): Reader {
  const flag = ctx.values.deployment;
  const given = Array.isArray(flag) ? (flag as string[]) : typeof flag === 'string' ? [flag] : [];
  if (given.length > 1)
    throw new AbortError('With --manifest, give one --deployment: the application runs in one.', 'For example: --deployment staging');
  const unused = NOT_WITH_MANIFEST.find((name) => ctx.values[name] !== undefined);
  if (unused)
    throw new AbortError(
      `--${unused} is not used when reading by name: the manifest and CPLANE_READER say where, what and who.`,
      `Leave --${unused} out, or read by address or record id without --manifest.`,
    );
  const credential = ctx.env.CPLANE_READER;
  if (!credential)
    throw new AbortError(
      'CPLANE_READER is not set: reading by name is done as a Service Account, with its reader credential.',
      'Set CPLANE_READER to the string `cplane reader-credential` printed for the Service Account.',
    );
  try {
    // Its parts too, so neither the token nor the key can show in a message of the run.
    const { token, privateKey } = decodeReaderCredential(credential, 'CPLANE_READER');
    for (const part of [credential, token, Buffer.from(privateKey).toString('base64')]) registerSecret(part);
    return createReader({
      manifest,
      credential,
      ...((given[0] ?? ctx.env.CPLANE_DEPLOYMENT) ? { deployment: given[0] ?? ctx.env.CPLANE_DEPLOYMENT! } : {}),
      client: {
        allowInsecureHttp: ctx.values['allow-insecure-http'] === true || ['1', 'true'].includes(ctx.env.CPLANE_ALLOW_INSECURE_HTTP ?? ''),
      },
    });
  } catch (error) {
    explainNamed(error, undefined);
  }
}

/** The current value of `name`, registered as a secret of the run. */
export async function readNamed(reader: Reader, name: string): Promise<string> {
  try {
    const value = await reader.get(name);
    registerSecret(value);
    return value;
  } catch (error) {
    explainNamed(error, name);
  }
}

/** `cplane read --manifest FILE NAME`: the value alone on stdout, as `cplane read` prints it. */
export async function readByName(ctx: CommandContext, manifest: string): Promise<number> {
  const [name, ...extra] = ctx.positionals;
  if (name === undefined || extra.length > 0) {
    throw new AbortError(
      'With --manifest, say which secret to read by its one name: PROJECT/RECORD, as the manifest lists it.',
      'Usage: cplane read --manifest FILE PROJECT/RECORD [--deployment NAME]',
    );
  }
  const reader = openManifestReader(ctx, manifest);
  try {
    ctx.stdout.write(`${await readNamed(reader, name)}\n`);
    return 0;
  } finally {
    await reader.close();
  }
}
