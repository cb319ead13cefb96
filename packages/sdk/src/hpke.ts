/**
 * HPKE (RFC 9180) for the one suite cplane uses: DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 /
 * ChaCha20-Poly1305 (ids 0x0020, 0x0001, 0x0003), in base mode (0x00) and auth mode (0x02, the sender
 * proves it holds a static private key). Assembled from kept primitives (X25519 and HMAC-SHA256 of Node's
 * crypto, which are OpenSSL's: X25519 about three times and HMAC about four times faster than JavaScript
 * ones; @noble/ciphers ChaCha20-Poly1305) exactly as the RFC's sections 4, 4.1, 5.1, 5.2, 5.3 and 7.1.3 write
 * it, and checked against the RFC's test vectors A.2.1 (base) and A.2.3 (auth): every sequence number and
 * every exported value given there (test/crypto/hpke.test.ts).
 *
 * Why not @hpke/core: it runs on WebCrypto, so every call is a promise; the emulator checks wrappers
 * inside its synchronous handlers (each write is atomic) and apply-time wrapping is a pure function, so a
 * synchronous implementation keeps both simple.
 */
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman as nodeDiffieHellman,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

/** Lengths of the suite (RFC 9180 tables 2 and 5): shared secret, public key and enc, AEAD key, nonce, hash. */
const N_SECRET = 32;
const N_PK = 32;
const N_K = 32;
const N_N = 12;
const N_H = 32;

const KEM_SUITE_ID = concat(bytes('KEM'), i2osp(0x0020, 2));
const HPKE_SUITE_ID = concat(bytes('HPKE'), i2osp(0x0020, 2), i2osp(0x0001, 2), i2osp(0x0003, 2));

/** The two modes cplane uses (RFC 9180 table 1): base authenticates no sender; auth binds the sender's static key. */
export type HpkeMode = 'base' | 'auth';
const MODE_ID: Record<HpkeMode, number> = { base: 0x00, auth: 0x02 };

export interface HpkeKeyPair {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

/** A sealed message: the encapsulated ephemeral key and the AEAD ciphertext with its tag. */
export interface HpkeSealed {
  enc: Uint8Array;
  ct: Uint8Array;
}

/**
 * A private key made ready for use (a Node KeyObject, whose import from raw bytes is the slow part) with its
 * public key: make it once with recipientOf when one key opens (or, as an auth-mode sender, seals) many messages.
 */
export interface HpkeRecipient {
  privateKey: KeyObject;
  publicKey: Uint8Array;
}

/** An auth-mode sender's static key pair: the same shape as a recipient's. */
export type HpkeSender = HpkeRecipient;

/**
 * An encryption context (RFC 9180 5.2 and 5.3): the key schedule's values, so the test vectors can check each one,
 * and Seal/Open with the sequence number kept here, and Export.
 */
export interface HpkeContext {
  enc: Uint8Array;
  sharedSecret: Uint8Array;
  key: Uint8Array;
  baseNonce: Uint8Array;
  exporterSecret: Uint8Array;
  /** Seals the next message (sender contexts). */
  seal(aad: Uint8Array, plaintext: Uint8Array): Uint8Array;
  /** Opens the next message (recipient contexts); throws HpkeOpenError. */
  open(aad: Uint8Array, ciphertext: Uint8Array): Uint8Array;
  /** A secret of `length` bytes (at most 32) bound to the context and `exporterContext`. */
  export(exporterContext: Uint8Array, length: number): Uint8Array;
}

export function recipientOf(privateKey: Uint8Array): HpkeRecipient {
  const key = privateKeyObject(privateKey);
  return { privateKey: key, publicKey: rawPublicKey(key) };
}

/** A message that does not open: wrong private key, wrong sender, wrong info or associated data, or altered bytes. */
export class HpkeOpenError extends Error {
  override readonly name = 'HpkeOpenError';
}

/** DeriveKeyPair (RFC 9180 7.1.3): a key pair determined by `ikm` (at least 32 bytes of key material). */
export function deriveKeyPair(ikm: Uint8Array): HpkeKeyPair {
  const dkpPrk = labeledExtract(KEM_SUITE_ID, new Uint8Array(0), 'dkp_prk', ikm);
  const privateKey = labeledExpand(KEM_SUITE_ID, dkpPrk, 'sk', new Uint8Array(0), 32);
  return { privateKey, publicKey: publicKeyOf(privateKey) };
}

/** GenerateKeyPair: a fresh random key pair (any 32 bytes are an X25519 private key, RFC 7748 section 5). */
export function generateKeyPair(): HpkeKeyPair {
  const privateKey = new Uint8Array(randomBytes(32));
  return { privateKey, publicKey: publicKeyOf(privateKey) };
}

export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  return recipientOf(privateKey).publicKey;
}

export interface SetupSenderRequest {
  recipientPublicKey: Uint8Array;
  info: Uint8Array;
  /** Auth mode: the sender's static key. Without it, base mode. */
  sender?: HpkeSender;
  /** For the test vectors only; normal use leaves it out and gets a fresh ephemeral key pair. */
  ephemeral?: HpkeKeyPair;
}

/**
 * SetupBaseS / SetupAuthS (RFC 9180 5.1.1, 5.1.3): Encap or AuthEncap to the recipient (4.1), then the key
 * schedule. In auth mode the KEM's shared secret also depends on DH(skS, pkR) and the context on pkS.
 */
export function setupSender(request: SetupSenderRequest): HpkeContext {
  const { recipientPublicKey, info, sender, ephemeral } = request;
  checkLength(recipientPublicKey, N_PK, 'recipient public key');
  // A fresh ephemeral key stays a KeyObject: importing raw private keys is the slow part of Node's X25519.
  const fresh = ephemeral ? undefined : generateKeyPairSync('x25519');
  const enc = fresh ? rawPublicKey(fresh.privateKey) : ephemeral!.publicKey;
  const dhEphemeral = diffieHellman(fresh?.privateKey ?? privateKeyObject(ephemeral!.privateKey), recipientPublicKey);
  const sharedSecret = sender
    ? extractAndExpand(concat(dhEphemeral, staticDh(sender, recipientPublicKey)), concat(enc, recipientPublicKey, sender.publicKey))
    : extractAndExpand(dhEphemeral, concat(enc, recipientPublicKey));
  return context(enc, sharedSecret, keySchedule(sender ? 'auth' : 'base', sharedSecret, info));
}

/**
 * The static DH of auth mode, DH(skS, pkR) for the sender and DH(skR, pkS) for the recipient, depends on the two
 * static keys alone, so it is kept per own key (a made-ready KeyObject pair) and other public key: an apply that
 * wraps a thousand records for the same three readers makes three, not three thousand, and a reader opening many
 * wrappers of one writer makes one (the ephemeral DH stays per message). At most 10,000 are kept per own key.
 */
const staticSecrets = new WeakMap<HpkeRecipient, Map<string, Uint8Array>>();

function staticDh(own: HpkeRecipient, otherPublicKey: Uint8Array): Uint8Array {
  let known = staticSecrets.get(own);
  if (!known) staticSecrets.set(own, (known = new Map()));
  const id = Buffer.from(otherPublicKey).toString('hex');
  let secret = known.get(id);
  if (!secret) {
    secret = diffieHellman(own.privateKey, otherPublicKey);
    if (known.size >= 10_000) known.clear();
    known.set(id, secret);
  }
  return secret;
}

export interface SetupRecipientRequest {
  recipient: Uint8Array | HpkeRecipient;
  enc: Uint8Array;
  info: Uint8Array;
  /** Auth mode: the public key of the sender the message must come from. Without it, base mode. */
  senderPublicKey?: Uint8Array;
}

/** SetupBaseR / SetupAuthR (RFC 9180 5.1.1, 5.1.3): Decap or AuthDecap, then the key schedule. */
export function setupRecipient(request: SetupRecipientRequest): HpkeContext {
  const { enc, info, senderPublicKey } = request;
  checkLength(enc, N_PK, 'encapsulated key');
  const recipient = request.recipient instanceof Uint8Array ? recipientOf(request.recipient) : request.recipient;
  const { privateKey, publicKey } = recipient;
  const dhEphemeral = diffieHellman(privateKey, enc);
  const sharedSecret = senderPublicKey
    ? extractAndExpand(concat(dhEphemeral, staticDh(recipient, senderPublicKey)), concat(enc, publicKey, senderPublicKey))
    : extractAndExpand(dhEphemeral, concat(enc, publicKey));
  return context(enc, sharedSecret, keySchedule(senderPublicKey ? 'auth' : 'base', sharedSecret, info));
}

/** Single-shot seal (RFC 9180 6.1): the first and only message of a context. Auth mode when `sender` is given. */
export function seal(request: SetupSenderRequest & { aad: Uint8Array; plaintext: Uint8Array }): HpkeSealed {
  const ctx = setupSender(request);
  return { enc: ctx.enc, ct: ctx.seal(request.aad, request.plaintext) };
}

/** Single-shot open; throws HpkeOpenError when the message does not open (also for another sender in auth mode). */
export function open(request: Omit<SetupRecipientRequest, 'enc'> & { sealed: HpkeSealed; aad: Uint8Array }): Uint8Array {
  try {
    return setupRecipient({ ...request, enc: request.sealed.enc }).open(request.aad, request.sealed.ct);
  } catch (cause) {
    if (cause instanceof HpkeOpenError) throw cause;
    throw new HpkeOpenError('the HPKE message does not open: another recipient or sender key, other associated data, or altered bytes', {
      cause,
    });
  }
}

/** SealBase, single shot (kept for readers of the first wrapper format). */
export function sealBase(
  recipientPublicKey: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
  ephemeral?: HpkeKeyPair,
): HpkeSealed {
  return seal({ recipientPublicKey, info, aad, plaintext, ...(ephemeral ? { ephemeral } : {}) });
}

/** OpenBase, single shot. */
export function openBase(recipient: Uint8Array | HpkeRecipient, sealed: HpkeSealed, info: Uint8Array, aad: Uint8Array): Uint8Array {
  return open({ recipient, sealed, info, aad });
}

function context(enc: Uint8Array, sharedSecret: Uint8Array, schedule: KeySchedule): HpkeContext {
  let sequence = 0;
  // RFC 9180 5.2: the nonce of message `seq` is base_nonce XOR I2OSP(seq, Nn); the sequence never wraps.
  const nextNonce = () => {
    if (sequence >= Number.MAX_SAFE_INTEGER) throw new RangeError('HPKE message limit reached');
    const nonce = i2osp(sequence++, N_N);
    for (let i = 0; i < N_N; i++) nonce[i]! ^= schedule.baseNonce[i]!;
    return nonce;
  };
  return {
    enc,
    sharedSecret,
    ...schedule,
    seal: (aad, plaintext) => chacha20poly1305(schedule.key, nextNonce(), aad).encrypt(plaintext),
    open(aad, ciphertext) {
      const nonce = nextNonce();
      try {
        return chacha20poly1305(schedule.key, nonce, aad).decrypt(ciphertext);
      } catch (cause) {
        sequence--;
        throw new HpkeOpenError(
          'the HPKE message does not open: another recipient or sender key, other associated data, or altered bytes',
          { cause },
        );
      }
    },
    export: (exporterContext, length) => labeledExpand(HPKE_SUITE_ID, schedule.exporterSecret, 'sec', exporterContext, length),
  };
}

// ---------------------------------------------------------------- RFC 9180 building blocks

/** The key schedule context depends on the mode and `info` alone (no PSK here): worked out once for each pair. */
const contexts: Record<HpkeMode, WeakMap<Uint8Array, Uint8Array>> = { base: new WeakMap(), auth: new WeakMap() };

function keyScheduleContext(mode: HpkeMode, info: Uint8Array): Uint8Array {
  let context = contexts[mode].get(info);
  if (!context) {
    const empty = new Uint8Array(0);
    const pskIdHash = labeledExtract(HPKE_SUITE_ID, empty, 'psk_id_hash', empty);
    const infoHash = labeledExtract(HPKE_SUITE_ID, empty, 'info_hash', info);
    context = concat(Uint8Array.of(MODE_ID[mode]), pskIdHash, infoHash);
    contexts[mode].set(info, context);
  }
  return context;
}

interface KeySchedule {
  key: Uint8Array;
  baseNonce: Uint8Array;
  exporterSecret: Uint8Array;
}

function keySchedule(mode: HpkeMode, sharedSecret: Uint8Array, info: Uint8Array): KeySchedule {
  const context = keyScheduleContext(mode, info);
  const secret = labeledExtract(HPKE_SUITE_ID, sharedSecret, 'secret', new Uint8Array(0));
  return {
    key: labeledExpand(HPKE_SUITE_ID, secret, 'key', context, N_K),
    baseNonce: labeledExpand(HPKE_SUITE_ID, secret, 'base_nonce', context, N_N),
    exporterSecret: labeledExpand(HPKE_SUITE_ID, secret, 'exp', context, N_H),
  };
}

function extractAndExpand(dh: Uint8Array, kemContext: Uint8Array): Uint8Array {
  const eaePrk = labeledExtract(KEM_SUITE_ID, new Uint8Array(0), 'eae_prk', dh);
  return labeledExpand(KEM_SUITE_ID, eaePrk, 'shared_secret', kemContext, N_SECRET);
}

/** DH(sk, pk); an all-zero result (a small-order public key) must abort (RFC 9180 7.1.4). */
function diffieHellman(privateKey: KeyObject, publicKey: Uint8Array): Uint8Array {
  let shared: Uint8Array | undefined;
  try {
    shared = new Uint8Array(nodeDiffieHellman({ privateKey, publicKey: publicKeyObject(publicKey) }));
  } catch {
    // OpenSSL refuses an all-zero result itself ("failed during derivation").
  }
  if (!shared || shared.every((b) => b === 0)) throw new HpkeOpenError('the X25519 shared secret is all zeros (a small-order public key)');
  return shared;
}

// Raw 32-byte X25519 keys as Node's KeyObjects: a private key by the fixed DER prefix of RFC 8410 (PKCS #8, OID
// 1.3.101.110; a JWK would need the public key too), a public key as a JWK (several times faster than DER).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

function privateKeyObject(raw: Uint8Array): KeyObject {
  checkLength(raw, 32, 'private key');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
}

function publicKeyObject(raw: Uint8Array): KeyObject {
  checkLength(raw, N_PK, 'public key');
  return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

// A private key's public key is DH(sk, base point), never an export of a KeyObject: Node 20 can deadlock exporting
// a key that generateKeyPairSync made (KeyObjectHandle::Export holds the key's mutex while it allocates; if that
// starts a collection that frees the key's KeyGenJob, the job's destructor waits for the same mutex). A DH
// allocates its result only after it lets go of the keys.
const BASE_POINT = publicKeyObject(new Uint8Array(32).fill(9, 0, 1));

function rawPublicKey(privateKey: KeyObject): Uint8Array {
  return new Uint8Array(nodeDiffieHellman({ privateKey, publicKey: BASE_POINT }));
}

// HKDF-SHA256 (RFC 5869) as HPKE uses it. Extract is one HMAC keyed by the salt (an empty salt and HashLen zero
// bytes are the same HMAC key). Expand never needs more than one block here (every length is at most 32), and
// one block is HMAC(PRK, info || 0x01). Node's hkdfSync runs both steps at once, so it cannot take a PRK.
function labeledExtract(suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  return hmacSha256(salt, concat(bytes('HPKE-v1'), suiteId, bytes(label), ikm));
}

function labeledExpand(suiteId: Uint8Array, prk: Uint8Array, label: string, info: Uint8Array, length: number): Uint8Array {
  if (length > 32) throw new RangeError(`one HKDF-SHA256 block gives at most 32 bytes, not ${length}`);
  return hmacSha256(prk, concat(i2osp(length, 2), bytes('HPKE-v1'), suiteId, bytes(label), info, Uint8Array.of(1))).subarray(0, length);
}

function hmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha256', key).update(message).digest());
}

function i2osp(value: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = length - 1, v = value; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function checkLength(value: Uint8Array, length: number, what: string): void {
  if (value.length !== length) throw new HpkeOpenError(`the ${what} must be ${length} bytes, not ${value.length}`);
}
