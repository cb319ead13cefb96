import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprint, KeyError, openSecret, resolveStateKey, sealSecret, SealError, SCRYPT_PARAMS } from '../../src/crypto/index.js';
import type { SealError as SealErrorType } from '../../src/crypto/index.js';
import { openState, StateError } from '../../src/state/index.js';
import type { StateError as StateErrorType } from '../../src/state/index.js';
import { makeSandbox } from './helpers.js';
import type { Sandbox } from './helpers.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('sealSecret / openSecret', () => {
  const key = new Uint8Array(randomBytes(32));

  it('round-trips, with a fresh 24-byte nonce each time', () => {
    const a = sealSecret(key, 'gwt_secret', 'gateway_token.prod/ci');
    const b = sealSecret(key, 'gwt_secret', 'gateway_token.prod/ci');
    expect(Buffer.from(a.nonce, 'base64')).toHaveLength(24);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.data).not.toContain('gwt_secret');
    expect(openSecret(key, a, 'gateway_token.prod/ci')).toBe('gwt_secret');
  });

  it('refuses a wrong key, wrong associated data and altered bytes with SealError', () => {
    const sealed = sealSecret(key, 'gwt_secret', 'gateway_token.prod/ci');
    const altered = {
      ...sealed,
      data: Buffer.from(Buffer.from(sealed.data, 'base64').map((byte, i) => (i === 0 ? byte ^ 1 : byte))).toString('base64'),
    };
    for (const attempt of [
      () => openSecret(new Uint8Array(randomBytes(32)), sealed, 'gateway_token.prod/ci'),
      () => openSecret(key, sealed, 'gateway_token.prod/other'),
      () => openSecret(key, altered, 'gateway_token.prod/ci'),
    ]) {
      const error = thrown(attempt) as SealErrorType;
      expect(error).toBeInstanceOf(SealError);
      expect(error.code).toBe('SEAL_OPEN_FAILED');
    }
    expect((thrown(() => openSecret(key, { ...sealed, nonce: 'AAAA' }, 'x')) as SealErrorType).code).toBe('SEAL_MALFORMED');
  });
});

describe('fingerprint', () => {
  it('is HMAC-SHA256 hex over context, NUL, value', () => {
    const key = new Uint8Array(randomBytes(32));
    const expected = createHmac('sha256', key).update('credential.openai:secret\0sk-123').digest('hex');
    expect(fingerprint(key, 'sk-123', 'credential.openai:secret')).toBe(expected);
  });
});

describe('resolveStateKey', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = makeSandbox();
  });
  afterEach(() => box.cleanup());

  it('takes CPLANE_STATE_KEY first and rejects one that is not 32 bytes of base64', () => {
    const key = randomBytes(32).toString('base64');
    expect(resolveStateKey({ ...box.env, CPLANE_STATE_KEY: key, CPLANE_PASSPHRASE: 'pw' })).toMatchObject({ source: 'env' });
    const error = thrown(() => resolveStateKey({ ...box.env, CPLANE_STATE_KEY: randomBytes(16).toString('base64') })) as StateErrorType;
    expect(error).toBeInstanceOf(KeyError);
    expect(error.code).toBe('STATE_KEY_INVALID');
    expect(error.message).toBe('CPLANE_STATE_KEY must be base64 of exactly 32 bytes (it decodes to 16 bytes).');
    expect(error.hint).toBe('Make a key with `openssl rand -base64 32`.');
    expect((thrown(() => resolveStateKey({ ...box.env, CPLANE_STATE_KEY: 'not base64 at all!' })) as StateErrorType).code).toBe(
      'STATE_KEY_INVALID',
    );
    expect(existsSync(join(box.configHome, 'cplane'))).toBe(false);
  });

  it('creates the key file with mode 0600 under XDG_CONFIG_HOME once, then reuses it', () => {
    const first = resolveStateKey(box.env);
    const path = join(box.configHome, 'cplane', 'state.key');
    expect(first).toMatchObject({ source: 'keyfile', keyFile: path, created: true });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')).toHaveLength(32);
    const second = resolveStateKey(box.env);
    expect(second.created).toBeUndefined();
    expect(Buffer.from(second.key).equals(Buffer.from(first.key))).toBe(true);
  });

  it('refuses a key file that group or others can read, naming the file and the chmod that fixes it', async () => {
    resolveStateKey(box.env);
    const path = join(box.configHome, 'cplane', 'state.key');
    chmodSync(path, 0o644);
    const error = (await openState({ configDir: box.configDir, account: 'acc_1', env: box.env, command: 'test', lock: true }).catch(
      (e: unknown) => e,
    )) as StateErrorType;
    expect(error).toBeInstanceOf(StateError);
    expect(error.code).toBe('STATE_KEY_FILE_OPEN');
    expect(error.message).toBe(
      `The key file ${path} can be read by others (mode 644); cplane refuses to use a key that others may have copied.`,
    );
    expect(error.hint).toBe(`Make it private with \`chmod 600 ${path}\`, and if others may have read it, make a new key and state.`);
    chmodSync(path, 0o600);
    await (await openState({ configDir: box.configDir, account: 'acc_1', env: box.env, command: 'test', lock: true })).close();
  });

  it('does not create a key file for an existing state, and says what to provide', () => {
    const error = thrown(() => resolveStateKey(box.env, { existing: {} })) as StateErrorType;
    expect(error.code).toBe('STATE_KEY_MISSING');
    expect(error.hint).toContain('CPLANE_STATE_KEY');
    expect(error.hint).toContain(join(box.configHome, 'cplane', 'state.key'));
    expect(existsSync(join(box.configHome, 'cplane', 'state.key'))).toBe(false);
  });

  it('derives a passphrase key with scrypt N=2^17, r=8, p=1 and a random salt, once per salt', () => {
    const env = { ...box.env, CPLANE_PASSPHRASE: 'correct horse' };
    const first = resolveStateKey(env);
    expect(first.source).toBe('passphrase');
    expect(first.kdf).toMatchObject({ name: 'scrypt', ...SCRYPT_PARAMS });
    expect(SCRYPT_PARAMS).toEqual({ N: 131072, r: 8, p: 1 });
    // The same salt gives the same key, from the process cache.
    expect(resolveStateKey(env, { existing: { kdf: first.kdf } }).key).toBe(first.key);
    const missing = thrown(() => resolveStateKey(box.env, { existing: { kdf: first.kdf } })) as StateErrorType;
    expect(missing.code).toBe('STATE_KEY_MISSING');
    expect(missing.hint).toBe('Set CPLANE_PASSPHRASE to the passphrase used when the state was created.');
  });
});
