/**
 * `cplane read (ADDRESS [dir] | --record-id ID)`: the current value of a
 * record, decrypted here and printed alone on stdout (so it can be piped),
 * never written anywhere else. Two ways to hold the key:
 * - as a reader (a Service Account token, or any token with a reader key):
 *   the private key from CPLANE_SA_KEY or --key-file (mode 0600) opens the
 *   data key the API wrapped for that reader, accepted only from a writer key
 *   the reader pins (--writer-key, CPLANE_WRITER_KEY);
 * - as cplane (a personal access token): cplane's state key opens the value's
 *   own wrapper, for records this state wrote, bound to the record asked for.
 * Either way `--min-version N` refuses an older value (a rollback).
 */
import { identityOf } from '../../api/client.js';
import type { ApiClient } from '../../api/client.js';
import {
  decodeReaderKey,
  isHpkeWrapper,
  parseWriterKeys,
  readReaderKeyFile,
  ReaderKeyError,
  readRecordFields,
  readSecret,
  WrapError,
  WriterKeyListError,
} from '@cplane/sdk';
import { kindOf } from '../../plan-model/index.js';
import { valueKind } from '../../providers/index.js';
import { openState, type StateStore } from '../../state/index.js';
import { registerSecret } from '../../text/safe-text.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { connect, connectionSettings } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { locateStateOnly } from '../../session/workspace.js';
import { explainWrap } from '../run/explain-read-error.js';
import { manifestPathOf, readByName } from '../run/manifest-reading.js';

/** An address of the record kind (its definition says the kind's name). */
export const isRecordAddress = (text: string | undefined): text is string => text !== undefined && kindOf(text) === valueKind;
const usage = 'read (ADDRESS [dir] | --record-id ID) [--key-file FILE] [--writer-key KEY] [--min-version N] [--account ID] [--state PATH]';

/** The writer keys a reader trusts: --writer-key (repeatable, each comma-separated) or CPLANE_WRITER_KEY. */
function trustedWriters(ctx: CommandContext): Uint8Array[] {
  const flags = Array.isArray(ctx.values['writer-key']) ? (ctx.values['writer-key'] as string[]) : [];
  const [text, where] = flags.length > 0 ? [flags.join(','), '--writer-key'] : [ctx.env.CPLANE_WRITER_KEY, 'CPLANE_WRITER_KEY'];
  if (!text) {
    throw new AbortError(
      'A reader accepts a value only from a writer it trusts, and no writer key was given: without one, the API server could hand this reader a value it made up.',
      'Pin the writer key of the configuration that grants the record: its owner prints it with `cplane writer-key`; pass it with --writer-key KEY or CPLANE_WRITER_KEY (several, comma-separated).',
    );
  }
  try {
    return parseWriterKeys(text, where);
  } catch (error) {
    if (error instanceof WriterKeyListError)
      throw new AbortError(error.message, 'Copy the public key `cplane writer-key` prints (or its `publicKey` in --json).');
    throw error;
  }
}

/** `--min-version N`: a whole number from 1. */
function minVersionOf(ctx: CommandContext): number | undefined {
  const text = ctx.values['min-version'];
  if (typeof text !== 'string') return undefined;
  if (!/^[1-9][0-9]{0,9}$/.test(text))
    throw new AbortError(`--min-version must be a whole number from 1, not "${text}".`, `Usage: cplane ${usage}`);
  return Number(text);
}

/** The CLI's own advice on a private key it cannot use (the SDK's hints name no flag or command). */
const readerKeyHints: Partial<Record<ReaderKeyError['code'], string>> = {
  READER_KEY_INVALID: "Give the Service Account's private key as its dashboard (or `cplane emulator --print-fixtures`) shows it.",
  READER_KEY_FILE_MISSING: 'Check the path given to --key-file.',
};

/** The reader's private key, when one is given (CPLANE_SA_KEY or --key-file; the flag wins). */
function readerKey(ctx: CommandContext): Uint8Array | undefined {
  const file = typeof ctx.values['key-file'] === 'string' ? ctx.values['key-file'] : undefined;
  try {
    if (file) {
      const key = readReaderKeyFile(file);
      registerSecret(Buffer.from(key).toString('base64'));
      return key;
    }
    const env = ctx.env.CPLANE_SA_KEY;
    if (!env) return undefined;
    registerSecret(env);
    return decodeReaderKey(env, 'CPLANE_SA_KEY');
  } catch (error) {
    if (error instanceof ReaderKeyError) throw new AbortError(error.message, readerKeyHints[error.code] ?? error.hint);
    throw error;
  }
}

function target(ctx: CommandContext): { address?: string; recordId?: string; dir?: string } {
  const recordId = typeof ctx.values['record-id'] === 'string' ? ctx.values['record-id'] : undefined;
  const [first, second, ...extra] = ctx.positionals;
  if (recordId !== undefined) {
    if (isRecordAddress(first)) throw new AbortError('Give either ADDRESS or --record-id, not both.', `Usage: cplane ${usage}`);
    if (second !== undefined) throw new AbortError(`Unexpected arguments: ${ctx.positionals.join(' ')}.`, `Usage: cplane ${usage}`);
    return { recordId, ...(first !== undefined ? { dir: first } : {}) };
  }
  if (!isRecordAddress(first) || extra.length > 0) {
    throw new AbortError(
      'Say which record to read: a record address (e.g. record.payments/stripe-key) or --record-id ID.',
      `Usage: cplane ${usage}`,
    );
  }
  return { address: first, ...(second !== undefined ? { dir: second } : {}) };
}

/** The value of a record this state wrote: cplane's own wrapper, opened with the state key, for this account, record and version. */
async function readAsCplane(client: ApiClient, store: StateStore, recordId: string, minVersion: number | undefined): Promise<string> {
  const fields = await readRecordFields(client, recordId);
  if (isHpkeWrapper(fields.wrapper.wrappedDek)) {
    throw new AbortError(
      `The API gave the data key of record ${recordId} wrapped for you as a reader (a share), not cplane's own wrapper.`,
      'Read it with your private key: --key-file FILE or CPLANE_SA_KEY.',
    );
  }
  const binding = { accountId: store.data.account, recordId, version: fields.version };
  const value = store.crypto.decryptRecordValue(fields, binding);
  // Checked once the value opened: its version is then cplane's own word, bound into it, not the server's.
  if (minVersion !== undefined && fields.version < minVersion) {
    throw new WrapError(
      'WRAP_ROLLBACK',
      `Record ${recordId} was returned at value version ${fields.version}, older than version ${minVersion}, the oldest accepted: the API returned an old value.`,
    );
  }
  return value;
}

/** A record to read: its address in the state, or its id. */
export type RecordTarget = { address: string; recordId?: undefined } | { recordId: string; address?: undefined };

/** Reading records with one set of keys: what `cplane read` prints and `cplane run` hands to its command. */
export interface RecordReading {
  /** The value of the record's current version, checked as `cplane read` checks it; an abort that says why it cannot be read. */
  read(target: RecordTarget): Promise<string>;
  close(): Promise<void>;
}

/**
 * Opens what reading records takes, from the command's flags and environment: the reader's private key and the
 * writer keys it pins (a reader), or the state and its key (cplane); the state also when an address must be
 * found in it. Every value read is registered as a secret, so no later message of the run can show it.
 */
export async function openRecordReading(
  ctx: CommandContext,
  options: { dir: string | undefined; byAddress: boolean },
): Promise<RecordReading> {
  const settings = connectionSettings(ctx);
  const privateKey = readerKey(ctx);
  const writers = privateKey ? trustedWriters(ctx) : undefined;
  const minVersion = minVersionOf(ctx);
  if (!privateKey && identityOf(settings.token) === 'service_account') {
    throw new AbortError(
      'A Service Account reads a record with its private key, and none was given.',
      "Set CPLANE_SA_KEY to the Service Account's private key (base64), or pass --key-file FILE (a file of mode 0600).",
    );
  }
  const location = await locateStateOnly(ctx, options.dir);
  // A reader reads in the account it expects its values in (the SDK refuses a Service Account token without one, and
  // a wrapper for another account: docs/sdk.md); cplane reads in its state's.
  if (!location.account && !privateKey)
    throw new AbortError("No account: the record's account is not known.", 'Pass --account ID or set CPLANE_ACCOUNT.');
  // The state is opened only when it is needed: to find an address, or for its key (reading as cplane).
  const store =
    options.byAddress || !privateKey
      ? await openState({ ...location, env: ctx.env, command: 'read', lock: false, mustExist: true })
      : undefined;
  const client = connect(ctx, { account: location.account ?? store?.data.account, settings });
  return {
    async read(target) {
      let recordId = target.recordId;
      if (target.address !== undefined) {
        const resource = store!.data.resources[target.address];
        if (!resource || resource.kind !== valueKind)
          throw new AbortError(
            `${target.address} is not a record in the state ${store!.path}.`,
            'Run `cplane state list` to see the addresses it holds, or give --record-id ID.',
          );
        recordId = resource.id;
      }
      try {
        const value = privateKey
          ? await readSecret(client, {
              recordId: recordId!,
              privateKey,
              writerKeys: writers!,
              ...(minVersion !== undefined ? { minVersion } : {}),
            })
          : await readAsCplane(client, store!, recordId!, minVersion);
        registerSecret(value);
        return value;
      } catch (error) {
        explainWrap(error, recordId!);
      }
    },
    async close() {
      await client.close();
      await store?.close();
    },
  };
}

export const readCommand: CommandModule = {
  async run(ctx) {
    const manifest = manifestPathOf(ctx, isRecordAddress(ctx.positionals[0]) || ctx.values['record-id'] !== undefined);
    if (manifest !== undefined) return readByName(ctx, manifest);
    const { address, recordId, dir } = target(ctx);
    const reading = await openRecordReading(ctx, { dir, byAddress: address !== undefined });
    try {
      const value = await reading.read(address !== undefined ? { address } : { recordId: recordId! });
      // Alone on stdout, so it can be piped: `cplane read record.payments/stripe-key | ...`.
      ctx.stdout.write(`${value}\n`);
      return 0;
    } finally {
      await reading.close();
    }
  },
};
