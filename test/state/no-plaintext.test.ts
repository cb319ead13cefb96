import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import type { JournalEntry, StateStore } from '../../src/state/index.js';
import { makeSandbox, newKey, resource } from './helpers.js';
import type { Sandbox } from './helpers.js';

/** Every kind of secret the test suite uses, with where it goes in state. */
const secrets = {
  providerKey: 'sk-live-123-provider-key',
  otelHeader: 'Bearer otel-ingest-key-42',
  recordValue: 'postgres://app:hunter2@db.internal/app',
  tokenPlaintext: 'gwt_secret_9f8e7d6c5b4a',
  rotatedProviderKey: 'sk-live-456-rotated',
};

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

function journalEntry(store: StateStore, address: string, operation: JournalEntry['operation'], body: object): JournalEntry {
  return {
    id: `j-${address}`,
    address,
    stepId: address,
    operation,
    pathParams: {},
    idempotencyKey: `idem-${address}`,
    body: { sealed: store.crypto.sealBody(address, JSON.stringify(body)) },
    createdAt: '2025-01-02T03:04:05.000Z',
  };
}

/** The plaintext and the encodings a careless writer might use for it. */
function encodings(plaintext: string): string[] {
  const bytes = Buffer.from(plaintext, 'utf8');
  return [plaintext, JSON.stringify(plaintext).slice(1, -1), bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
}

describe('no secret is stored in plaintext', () => {
  it('state.json, its backup, its change log and the journal in them hold none of the secrets, nor the key or passphrase', async () => {
    const passphrase = 'a passphrase nobody should find';
    const stateKey = newKey();
    const cases: [string, NodeJS.ProcessEnv][] = [
      ['acc_pass', { ...box.env, CPLANE_PASSPHRASE: passphrase }],
      ['acc_key', { ...box.env, CPLANE_STATE_KEY: stateKey }],
    ];
    for (const [account, env] of cases) {
      const store = await openState({ configDir: box.configDir, account, env, command: 'test', lock: true });
      // First save: resources with fingerprints and a sealed token; writes in flight in the journal.
      await store.update((draft) => {
        draft.resources['credential.openai'] = resource('credential', 'cred_1', {
          fingerprints: { secret: store.crypto.fingerprint('credential.openai', 'secret', secrets.providerKey) },
        });
        draft.resources['otel_export.prod'] = resource('otel_export', 'gw_1', {
          fingerprints: {
            'headers.Authorization': store.crypto.fingerprint('otel_export.prod', 'headers.Authorization', secrets.otelHeader),
          },
        });
        draft.resources['record.db'] = resource('record', 'rec_1', {
          fingerprints: { value: store.crypto.fingerprint('record.db', 'value', secrets.recordValue) },
        });
        draft.resources['gateway_token.prod/ci'] = resource('gateway_token', 'tok_1', {
          sealed: { plaintext: store.crypto.seal('gateway_token.prod/ci', secrets.tokenPlaintext) },
        });
        draft.journal.push(
          journalEntry(store, 'credential.openai', 'rotateCredential', { secret: secrets.rotatedProviderKey }),
          journalEntry(store, 'otel_export.prod', 'updateOtelExport', { headers: { Authorization: secrets.otelHeader } }),
          journalEntry(store, 'record.db', 'createRecordVersion', {
            value: store.crypto.sealRecordValue(secrets.recordValue, { accountId: store.data.account, recordId: 'rec_1', version: 2 })
              .value,
          }),
        );
      });
      // Second save; the change log holds both until the close folds them into state.json.
      await store.update((draft) => {
        draft.resources['credential.openai']!.fingerprints.secret = store.crypto.fingerprint(
          'credential.openai',
          'secret',
          secrets.rotatedProviderKey,
        );
      });
      expect(store.data.journal).toHaveLength(3);
      const log = readFileSync(`${store.path}.log`, 'utf8');
      expect(log.match(/"type":"journal"/g)).toHaveLength(3);
      await store.close();

      const files = {
        'state.json': readFileSync(store.path, 'utf8'),
        'state.json.backup': readFileSync(`${store.path}.backup`, 'utf8'),
        'state.json.log': log,
      };
      expect(JSON.parse(files['state.json']).journal).toHaveLength(3);
      for (const [file, text] of Object.entries(files)) {
        for (const [name, plaintext] of Object.entries({ ...secrets, passphrase, stateKey })) {
          for (const encoded of encodings(plaintext)) expect(text.includes(encoded), `${name} found in ${file} of ${account}`).toBe(false);
        }
      }

      // The secrets are still there for whoever holds the key.
      const reopened = await openState({ configDir: box.configDir, account, env, command: 'test', lock: false });
      expect(reopened.crypto.open('gateway_token.prod/ci', reopened.data.resources['gateway_token.prod/ci']!.sealed!.plaintext!)).toBe(
        secrets.tokenPlaintext,
      );
      const { body } = reopened.data.journal[0]!;
      if (!body || !('sealed' in body)) throw new Error('the journal body with a secret is not sealed');
      expect(JSON.parse(reopened.crypto.openBody('credential.openai', body.sealed))).toEqual({ secret: secrets.rotatedProviderKey });
    }
  });
});
