/**
 * Where the state key comes from, in this order: CPLANE_STATE_KEY (base64 of 32
 * bytes), CPLANE_PASSPHRASE (scrypt with a random salt kept in the state
 * header), or a key file `$XDG_CONFIG_HOME/cplane/state.key` made with mode 0600
 * on first use. A check value in the state header tells a wrong key apart
 * before anything is opened or overwritten.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { readOwnerOnlyFile } from '@cplane/sdk/internal/owner-only-file';
import { join } from 'node:path';
import { createHash, createHmac, hkdfSync, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

export type KeyErrorCode = 'STATE_KEY_INVALID' | 'STATE_KEY_MISSING' | 'STATE_KEY_FILE_OPEN';

/**
 * The state key cannot be found or used. The codes are the state store's
 * (it turns this into its own StateError), the hint says what to do.
 */
export class KeyError extends Error {
  override readonly name = 'KeyError';
  constructor(
    readonly code: KeyErrorCode,
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export interface KdfParams {
  name: 'scrypt';
  /** Base64 of 16 random bytes, new for each state. */
  salt: string;
  N: number;
  r: number;
  p: number;
}

export type KeySource = 'env' | 'passphrase' | 'keyfile';

export interface StateKey {
  key: Uint8Array;
  source: KeySource;
  /** Set when the key was derived from a passphrase: to be stored in the state header. */
  kdf?: KdfParams;
  /** Path of the key file, when the key came from one. */
  keyFile?: string;
  /** True when the key file was created by this call. */
  created?: boolean;
}

export interface ResolveKeyOptions {
  /** Defaults to $XDG_CONFIG_HOME, else ~/.config. */
  configHome?: string;
  /** Header of an existing state: its kdf parameters, and whether a state already exists (then no key file is created). */
  existing?: { kdf?: KdfParams };
}

/** scrypt cost: N=2^17, r=8, p=1 (about 0.4 s once per process and salt). */
export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;

const KEY_HINT =
  'Provide the key: set CPLANE_STATE_KEY (base64 of 32 bytes, e.g. from `openssl rand -base64 32`), or CPLANE_PASSPHRASE, or let cplane create its key file.';

export function keyFilePath(env: NodeJS.ProcessEnv, configHome?: string): string {
  const base = configHome ?? (env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'));
  return join(base, 'cplane', 'state.key');
}

export function newKdfParams(): KdfParams {
  return { name: 'scrypt', salt: Buffer.from(randomBytes(16)).toString('base64'), ...SCRYPT_PARAMS };
}

// Deriving costs ~0.4 s; a process that opens the same state twice (plan then apply) pays it once.
const derivedKeys = new Map<string, Uint8Array>();

function deriveFromPassphrase(passphrase: string, kdf: KdfParams): Uint8Array {
  const cacheKey = createHash('sha256').update(`${passphrase}\0${kdf.salt}\0${kdf.N}:${kdf.r}:${kdf.p}`, 'utf8').digest('hex');
  let key = derivedKeys.get(cacheKey);
  if (!key) {
    // maxmem: scrypt needs 128 * N * r bytes (128 MiB at the default cost), above Node's 32 MiB default;
    // twice that leaves room for Node's own accounting.
    key = new Uint8Array(
      scryptSync(passphrase, Buffer.from(kdf.salt, 'base64'), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 2 * 128 * kdf.N * kdf.r }),
    );
    derivedKeys.set(cacheKey, key);
  }
  return key;
}

function decodeKey(text: string, where: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || bytes.length !== 32) {
    throw new KeyError(
      'STATE_KEY_INVALID',
      `${where} must be base64 of exactly 32 bytes (it decodes to ${bytes.length} bytes).`,
      'Make a key with `openssl rand -base64 32`.',
    );
  }
  return new Uint8Array(bytes);
}

function readKeyFile(path: string): Uint8Array | undefined {
  const read = readOwnerOnlyFile(path);
  if (read.found === 'missing') return undefined;
  if (read.found === 'open-to-others') {
    throw new KeyError(
      'STATE_KEY_FILE_OPEN',
      `The key file ${path} can be read by others (mode ${read.mode}); cplane refuses to use a key that others may have copied.`,
      `Make it private with \`chmod 600 ${path}\`, and if others may have read it, make a new key and state.`,
    );
  }
  return decodeKey(read.text, `The key file ${path}`);
}

function createKeyFile(path: string): Uint8Array | undefined {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const key = new Uint8Array(randomBytes(32));
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  try {
    writeSync(fd, `${Buffer.from(key).toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return key;
}

export function resolveStateKey(env: NodeJS.ProcessEnv, options: ResolveKeyOptions = {}): StateKey {
  if (env.CPLANE_STATE_KEY) return { key: decodeKey(env.CPLANE_STATE_KEY, 'CPLANE_STATE_KEY'), source: 'env' };
  if (env.CPLANE_PASSPHRASE) {
    const kdf = options.existing?.kdf ?? newKdfParams();
    return { key: deriveFromPassphrase(env.CPLANE_PASSPHRASE, kdf), source: 'passphrase', kdf };
  }
  const path = keyFilePath(env, options.configHome);
  if (options.existing?.kdf) {
    throw new KeyError(
      'STATE_KEY_MISSING',
      'This state was written with a key derived from a passphrase, and no passphrase is set.',
      'Set CPLANE_PASSPHRASE to the passphrase used when the state was created.',
    );
  }
  const fromFile = readKeyFile(path);
  if (fromFile) return { key: fromFile, source: 'keyfile', keyFile: path };
  if (options.existing) {
    throw new KeyError(
      'STATE_KEY_MISSING',
      `This state was written with a key, and none is available: CPLANE_STATE_KEY and CPLANE_PASSPHRASE are unset and there is no key file at ${path}.`,
      `Set CPLANE_STATE_KEY to the key used when the state was created, or restore the key file ${path} (and XDG_CONFIG_HOME, if it was set).`,
    );
  }
  const created = createKeyFile(path);
  if (created) return { key: created, source: 'keyfile', keyFile: path, created: true };
  const raced = readKeyFile(path);
  if (!raced) throw new KeyError('STATE_KEY_MISSING', `The key file ${path} vanished while it was being created.`, KEY_HINT);
  return { key: raced, source: 'keyfile', keyFile: path };
}

const KEY_CHECK_LABEL = 'cplane state key check v1';
/**
 * The check of a state whose entries carry MACs has its own label, so the header cannot be downgraded: whoever
 * removes `entryMacs` (to have a forged entry trusted as an old, unauthenticated one) leaves a check that no longer
 * matches the old label, and cannot make one that does without the key.
 */
const KEY_CHECK_LABEL_ENTRY_MACS = 'cplane state key check v1; entries authenticated v1';

/** Hex HMAC of a constant: stored in the state header to recognise the key without revealing it. */
export function keyCheckOf(key: Uint8Array, entryMacs: boolean): string {
  return createHmac('sha256', key)
    .update(entryMacs ? KEY_CHECK_LABEL_ENTRY_MACS : KEY_CHECK_LABEL, 'utf8')
    .digest('hex');
}

export function keyMatchesCheck(key: Uint8Array, check: string, entryMacs: boolean): boolean {
  const expected = Buffer.from(keyCheckOf(key, entryMacs), 'hex');
  const actual = Buffer.from(check, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Separate keys for each use of the state key (sealing, fingerprints, the MACs of state entries and of saved
 * plan files), so no use can weaken another.
 */
export function deriveSubkey(key: Uint8Array, purpose: 'seal' | 'fingerprint' | 'entry mac' | 'plan file mac' | 'writer key'): Uint8Array {
  // No salt: HKDF then uses a block of zeros (RFC 5869), as it always has here.
  return new Uint8Array(hkdfSync('sha256', key, new Uint8Array(0), `cplane state ${purpose} v1`, 32));
}
