/**
 * The key ring of an apply (`KeyRing` in ./template.ts): write-only values read from their sources (or, for a
 * token delivered to a record, from the token's plaintext sealed in state), record
 * values encrypted with the state's record key and bound to their place (account, record, version), and a
 * record's data key wrapped for a reader with HPKE auth mode under cplane's writer key, bound to the record, the
 * version, the value's digest and the reader (@cplane/sdk: packages/sdk/src/data-key-wrap.ts).
 *
 * The data key of a version this apply wrote is kept from its write; any other record's current value is read
 * once and its data key opened with cplane's own wrapper, which refuses a value bound to another record or
 * version (the API is not trusted to return the record asked for), naming the record, and a version older than
 * the one state recorded as written (the API is not trusted to return the current one). Data keys are kept for
 * the apply only: a record's new value version is written by its own step before any wrap of that record in the
 * same apply (a grant depends on its record, and the record's step re-wraps after its value write), so what is
 * kept is always current.
 */
import type { ApiClient } from '../api/client.js';
import { valueDigest } from '../crypto/record-value.js';
import { VALUE_VERSION_INPUT, type SecretSource } from '../plan-model/index.js';
import { WrapError } from '@cplane/sdk/internal/wrap-error';
import type { StateStore } from '../state/index.js';
import { registerSecret } from '../text/safe-text.js';
import { readResultPath, type KeyRing, type WrittenValue } from './template.js';

export function stateKeyRing(
  state: StateStore,
  readSecret: (source: SecretSource) => string | Promise<string>,
  client?: ApiClient,
  now: () => Date = () => new Date(),
): KeyRing {
  const accountId = state.data.account;
  const dataKeys = new Map<string, Promise<WrittenValue>>();
  const currentDataKey = (recordId: string) => {
    let found = dataKeys.get(recordId);
    if (!found) {
      if (!client) throw new Error('this key ring cannot wrap data keys: it was made without an API client');
      found = client.call('readRecord', { path: { id: recordId }, body: { scope: ['fields'] } }).then((read) => {
        if (!read.fields) throw new Error(`record ${recordId} has no value to wrap for a reader: give it a value first`);
        const { version } = read.fields;
        refuseOlderThanWritten(state, recordId, version);
        return {
          recordId,
          version,
          dataKey: state.crypto.openRecordDataKey(read.fields, { accountId, recordId, version }),
          digest: valueDigest(read.fields),
        };
      });
      // A failed read is not kept: a resend of the write reads again.
      found.catch(() => dataKeys.delete(recordId));
      dataKeys.set(recordId, found);
    }
    return found;
  };
  return {
    async secret(source) {
      if (!('output' in source)) return readSecret(source);
      // Another address's one-time secret, sealed in state by its step (earlier in this apply, or before): a
      // token delivered to its record.
      const { address, name } = source.output;
      const sealed = state.data.resources[address]?.sealed?.[name];
      if (!sealed) throw new Error(`${address} has no ${name} sealed in state to deliver (its step did not run, or failed)`);
      const value = state.crypto.open(address, sealed);
      registerSecret(value);
      return value;
    },
    encrypt: (plaintext, { recordId, version }) => state.crypto.sealRecordValue(plaintext, { accountId, recordId, version }),
    remember: (written) => void dataKeys.set(written.recordId, Promise.resolve(written)),
    async wrap({ recordId, recipientId, publicKey }) {
      const { version, dataKey, digest } = await currentDataKey(recordId);
      // Loaded when the first wrap is made: a plan, and an apply without readers, never load HPKE.
      const { wrapDataKey } = await import('@cplane/sdk/internal/data-key-wrap');
      const recipientPublicKey = new Uint8Array(Buffer.from(publicKey, 'base64'));
      const writer = (await state.crypto.writerKey()).sender;
      return wrapDataKey({
        dataKey,
        recipientPublicKey,
        accountId,
        recordId,
        version,
        recipientId,
        valueDigest: digest,
        writer,
        wrappedAt: now(),
      });
    },
  };
}

/**
 * A value older than the one cplane last wrote (the version state recorded for the record, `VALUE_VERSION_INPUT`)
 * is refused, naming the record: a server that answers with a rotated-away version would otherwise get its data key
 * wrapped for a new reader. A newer one (written outside cplane since) is the record's current value.
 */
function refuseOlderThanWritten(state: StateStore, recordId: string, version: number): void {
  const written = Object.values(state.data.resources).find(
    (entry) => entry.id === recordId && typeof entry.inputs[VALUE_VERSION_INPUT] === 'number',
  )?.inputs[VALUE_VERSION_INPUT] as number | undefined;
  if (written === undefined || version >= written) return;
  throw new WrapError(
    'WRAP_ROLLBACK',
    `The value of record ${recordId} the API returned is version ${version}, older than version ${written} that cplane wrote and state recorded: the API returned a rotated-away value, and nothing is wrapped from it.`,
  );
}

/**
 * The record binding of a value write's answer: what it says it made (`valueVersion`), against the record and
 * version the value was encrypted for. The data key is kept for the grants that follow only when the answer names
 * the step's own record (the API is not trusted: an answer naming another record must not get this value's key
 * wrapped for that record's readers) and the version the value was encrypted for; another version is a problem.
 */
export function boundWrittenValue(
  paths: { record: string; version: string },
  written: WrittenValue,
  answer: unknown,
  ownId: string | undefined,
): { value?: WrittenValue; problem?: string } {
  const recordId = readResultPath(answer, paths.record);
  const version = readResultPath(answer, paths.version);
  if (typeof recordId !== 'string' || recordId !== ownId || recordId !== written.recordId) return {};
  if (version !== written.version) {
    return {
      problem: `record ${recordId}: the API stored the value as version ${String(version)}, and it was encrypted for version ${written.version} (another writer changed the record since the plan); plan and apply again`,
    };
  }
  return { value: written };
}
