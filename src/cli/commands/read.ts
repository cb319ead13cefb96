/**
 * `cplane read (ADDRESS [dir] | --record-id ID)`: the current value of a
 * record, decrypted here and printed alone on stdout (so it can be piped),
 * never written anywhere else. Two ways to hold the key:
 * - as a reader (a Service Account token, or any token with a reader key):
 *   the private key from CPLANE_SA_KEY or --key-file (mode 0600) opens the
 *   data key the API wrapped for that reader;
 * - as cplane (a personal access token): cplane's state key opens the value's
 *   own wrapper, for records this state wrote.
 */
import { identityOf } from '../../api/client.js';
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import { isHpkeWrapper, WrapError } from '../../crypto/data-key-wrap.js';
import { decodeReaderKey, readReaderKeyFile, ReaderKeyError } from '../../crypto/reader-key.js';
import { kindOf } from '../../plan-model/index.js';
import { recordProvider } from '../../providers/index.js';
import { openState, type StateStore } from '../../state/index.js';
import { readRecordFields, readSecret } from '../../sdk/read-secret.js';
import { registerSecret } from '../../text/safe-text.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { connect, connectionSettings } from '../../session/connection.js';
import { AbortError } from '../../session/errors.js';
import { locateStateOnly } from '../../session/workspace.js';

/** An address of the record kind (its definition says the kind's name). */
const isRecordAddress = (text: string | undefined): text is string => text !== undefined && kindOf(text) === recordProvider.kind;
const usage = 'read (ADDRESS [dir] | --record-id ID) [--key-file FILE] [--account ID] [--state PATH]';

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
    if (error instanceof ReaderKeyError) throw new AbortError(error.message, error.hint);
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
    throw new AbortError('Say which record to read: a record address (e.g. record.payments/stripe-key) or --record-id ID.', `Usage: cplane ${usage}`);
  }
  return { address: first, ...(second !== undefined ? { dir: second } : {}) };
}

/** Turns a refusal to read, or a wrapper that cannot be used, into an abort that says what to do (keeping the API's reason and request id). */
function explainWrap(error: unknown, recordId: string): never {
  if (error instanceof ApiError && error.status === 409 && error.reason.endsWith('grant_not_found')) {
    throw new AbortError(
      `Record ${recordId} is not granted to this reader: the API answered ${error.status} ${error.reason}${error.requestId ? `, request id ${error.requestId}` : ''}.`,
      'Ask an owner of the record to grant it to this reader (a `grants` entry in the configuration that manages it), then read again.',
    );
  }
  if (!(error instanceof WrapError)) throw error;
  const hint =
    error.code === 'WRAP_OTHER_VERSION'
      ? 'Run `cplane apply` for the configuration that grants the record, so the new value is wrapped for every reader.'
      : error.code === 'WRAP_OTHER_KEY'
        ? 'Give the private key of the reader this token belongs to (CPLANE_SA_KEY or --key-file).'
        : 'Ask an owner of the record to grant it to this reader, then read again.';
  throw new AbortError(error.message, hint);
}

/** The value of a record this state wrote: cplane's own wrapper, opened with the state key. */
async function readAsCplane(client: ApiClient, store: StateStore, recordId: string): Promise<string> {
  const fields = await readRecordFields(client, recordId);
  if (isHpkeWrapper(fields.wrapper.wrappedDek)) {
    throw new AbortError(
      `The API gave the data key of record ${recordId} wrapped for you as a reader (a share), not cplane's own wrapper.`,
      'Read it with your private key: --key-file FILE or CPLANE_SA_KEY.',
    );
  }
  try {
    return store.crypto.decryptRecordValue(fields);
  } catch {
    throw new AbortError(
      `The value of record ${recordId} was not written with this state's key (its wrapper names key ${fields.wrapper.keyId}).`,
      'Read it with the state key of the configuration that wrote it, or as a reader with its private key (--key-file).',
    );
  }
}

export const readCommand: CommandModule = {
  async run(ctx) {
    const { address, recordId: givenId, dir } = target(ctx);
    const settings = connectionSettings(ctx);
    const privateKey = readerKey(ctx);
    if (!privateKey && identityOf(settings.token) === 'service_account') {
      throw new AbortError(
        'A Service Account reads a record with its private key, and none was given.',
        'Set CPLANE_SA_KEY to the Service Account\'s private key (base64), or pass --key-file FILE (a file of mode 0600).',
      );
    }
    const location = await locateStateOnly(ctx, dir);
    if (!location.account) throw new AbortError('No account: the record\'s account is not known.', 'Pass --account ID or set CPLANE_ACCOUNT.');

    // The state is opened only when it is needed: to find ADDRESS, or for its key (reading as cplane).
    const store = address !== undefined || !privateKey ? await openState({ ...location, env: ctx.env, command: 'read', lock: false, mustExist: true }) : undefined;
    let client: ApiClient | undefined;
    try {
      let recordId = givenId;
      if (address !== undefined) {
        const resource = store!.data.resources[address];
        if (!resource || resource.kind !== recordProvider.kind) throw new AbortError(`${address} is not a record in the state ${store!.path}.`, 'Run `cplane state list` to see the addresses it holds, or give --record-id ID.');
        recordId = resource.id;
      }
      client = connect(ctx, { account: location.account, settings });
      let value: string;
      try {
        value = privateKey ? await readSecret(client, { recordId: recordId!, privateKey }) : await readAsCplane(client, store!, recordId!);
      } catch (error) {
        explainWrap(error, recordId!);
      }
      // Alone on stdout, so it can be piped: `cplane read record.payments/stripe-key | ...`.
      ctx.stdout.write(`${value}\n`);
      return 0;
    } finally {
      await client?.close();
      await store?.close();
    }
  },
};
