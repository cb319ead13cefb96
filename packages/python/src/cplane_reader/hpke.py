"""HPKE (RFC 9180) for the one suite cplane uses: DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / ChaCha20-Poly1305
(0x0020, 0x0001, 0x0003), base mode (0x00) and auth mode (0x02: the sender proves it holds a static private key).
As packages/sdk/src/hpke.ts, from the RFC's sections 4, 4.1, 5.1, 5.2, 5.3 and 7.1.3, and checked against its
test vectors A.2.1 and A.2.3 (tests/test_vectors.py). X25519 and ChaCha20-Poly1305 are `cryptography`'s;
HKDF-SHA256 is HMAC-SHA256 (RFC 5869), in its labeled form, where every length is at most one block."""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

N_SECRET = 32
N_PK = 32
N_K = 32
N_N = 12
N_H = 32

KEM_SUITE_ID = b"KEM" + struct.pack(">H", 0x0020)
HPKE_SUITE_ID = b"HPKE" + struct.pack(">HHH", 0x0020, 0x0001, 0x0003)
MODE_BASE = 0x00
MODE_AUTH = 0x02


class HpkeOpenError(Exception):
    """A message that does not open: another recipient or sender key, other associated data, or altered bytes."""


def _i2osp(value: int, length: int) -> bytes:
    return value.to_bytes(length, "big")


def labeled_extract(suite_id: bytes, salt: bytes, label: str, ikm: bytes) -> bytes:
    return hmac.new(salt, b"HPKE-v1" + suite_id + label.encode() + ikm, hashlib.sha256).digest()


def labeled_expand(suite_id: bytes, prk: bytes, label: str, info: bytes, length: int) -> bytes:
    if length > 32:
        raise ValueError(f"one HKDF-SHA256 block gives at most 32 bytes, not {length}")
    message = _i2osp(length, 2) + b"HPKE-v1" + suite_id + label.encode() + info + b"\x01"
    return hmac.new(prk, message, hashlib.sha256).digest()[:length]


def _raw_public(key: X25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _private(raw: bytes) -> X25519PrivateKey:
    if len(raw) != 32:
        raise ValueError("an X25519 private key is 32 bytes")
    return X25519PrivateKey.from_private_bytes(raw)


def public_key_of(private_key: bytes) -> bytes:
    return _raw_public(_private(private_key).public_key())


def generate_key_pair() -> tuple[bytes, bytes]:
    """A fresh (private, public) X25519 key pair, raw 32 bytes each."""
    key = X25519PrivateKey.generate()
    return key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()), _raw_public(key.public_key())


def derive_key_pair(ikm: bytes) -> tuple[bytes, bytes]:
    """DeriveKeyPair (RFC 9180 7.1.3): (private, public) determined by `ikm`."""
    dkp_prk = labeled_extract(KEM_SUITE_ID, b"", "dkp_prk", ikm)
    private = labeled_expand(KEM_SUITE_ID, dkp_prk, "sk", b"", 32)
    return private, public_key_of(private)


def _dh(private_key: bytes, public_key: bytes) -> bytes:
    if len(public_key) != N_PK:
        raise HpkeOpenError("a public key is 32 bytes")
    try:
        shared = _private(private_key).exchange(X25519PublicKey.from_public_bytes(public_key))
    except ValueError as error:  # OpenSSL refuses an all-zero result (a small-order public key), RFC 9180 7.1.4
        raise HpkeOpenError("the X25519 shared secret is all zeros (a small-order public key)") from error
    if shared == bytes(32):
        raise HpkeOpenError("the X25519 shared secret is all zeros (a small-order public key)")
    return shared


def _extract_and_expand(dh: bytes, kem_context: bytes) -> bytes:
    eae_prk = labeled_extract(KEM_SUITE_ID, b"", "eae_prk", dh)
    return labeled_expand(KEM_SUITE_ID, eae_prk, "shared_secret", kem_context, N_SECRET)


@dataclass
class Context:
    """An encryption context (RFC 9180 5.2, 5.3), with the key schedule's values so the vectors can check each."""

    enc: bytes
    shared_secret: bytes
    key: bytes
    base_nonce: bytes
    exporter_secret: bytes
    _sequence: int = field(default=0, repr=False)

    def _nonce(self) -> bytes:
        sequence = _i2osp(self._sequence, N_N)
        self._sequence += 1
        return bytes(a ^ b for a, b in zip(sequence, self.base_nonce))

    def seal(self, aad: bytes, plaintext: bytes) -> bytes:
        return ChaCha20Poly1305(self.key).encrypt(self._nonce(), plaintext, aad)

    def open(self, aad: bytes, ciphertext: bytes) -> bytes:
        nonce = self._nonce()
        try:
            return ChaCha20Poly1305(self.key).decrypt(nonce, ciphertext, aad)
        except InvalidTag as error:
            self._sequence -= 1
            raise HpkeOpenError(
                "the HPKE message does not open: another recipient or sender key, other associated data, or altered bytes"
            ) from error

    def export(self, exporter_context: bytes, length: int) -> bytes:
        return labeled_expand(HPKE_SUITE_ID, self.exporter_secret, "sec", exporter_context, length)

    def __repr__(self) -> str:  # the keys of a context are secret
        return "<hpke.Context>"


def _key_schedule(mode: int, shared_secret: bytes, info: bytes, enc: bytes) -> Context:
    psk_id_hash = labeled_extract(HPKE_SUITE_ID, b"", "psk_id_hash", b"")
    info_hash = labeled_extract(HPKE_SUITE_ID, b"", "info_hash", info)
    context = bytes([mode]) + psk_id_hash + info_hash
    secret = labeled_extract(HPKE_SUITE_ID, shared_secret, "secret", b"")
    return Context(
        enc=enc,
        shared_secret=shared_secret,
        key=labeled_expand(HPKE_SUITE_ID, secret, "key", context, N_K),
        base_nonce=labeled_expand(HPKE_SUITE_ID, secret, "base_nonce", context, N_N),
        exporter_secret=labeled_expand(HPKE_SUITE_ID, secret, "exp", context, N_H),
    )


def setup_sender(
    recipient_public_key: bytes,
    info: bytes,
    sender_private_key: bytes | None = None,
    ephemeral: tuple[bytes, bytes] | None = None,
) -> Context:
    """SetupBaseS / SetupAuthS (5.1.1, 5.1.3); auth mode when `sender_private_key` is given. `ephemeral` is for the vectors."""
    eph_private, enc = ephemeral or generate_key_pair()
    dh = _dh(eph_private, recipient_public_key)
    if sender_private_key is None:
        shared = _extract_and_expand(dh, enc + recipient_public_key)
        return _key_schedule(MODE_BASE, shared, info, enc)
    sender_public = public_key_of(sender_private_key)
    dh += _dh(sender_private_key, recipient_public_key)
    shared = _extract_and_expand(dh, enc + recipient_public_key + sender_public)
    return _key_schedule(MODE_AUTH, shared, info, enc)


def setup_recipient(private_key: bytes, enc: bytes, info: bytes, sender_public_key: bytes | None = None) -> Context:
    """SetupBaseR / SetupAuthR (5.1.1, 5.1.3); auth mode when `sender_public_key` is given."""
    if len(enc) != N_PK:
        raise HpkeOpenError("the encapsulated key is 32 bytes")
    own_public = public_key_of(private_key)
    dh = _dh(private_key, enc)
    if sender_public_key is None:
        return _key_schedule(MODE_BASE, _extract_and_expand(dh, enc + own_public), info, enc)
    dh += _dh(private_key, sender_public_key)
    shared = _extract_and_expand(dh, enc + own_public + sender_public_key)
    return _key_schedule(MODE_AUTH, shared, info, enc)


def seal(recipient_public_key: bytes, info: bytes, aad: bytes, plaintext: bytes, sender_private_key: bytes | None = None) -> tuple[bytes, bytes]:
    """Single-shot seal (6.1): (enc, ct)."""
    ctx = setup_sender(recipient_public_key, info, sender_private_key)
    return ctx.enc, ctx.seal(aad, plaintext)


def open_sealed(private_key: bytes, enc: bytes, ct: bytes, info: bytes, aad: bytes, sender_public_key: bytes | None = None) -> bytes:
    """Single-shot open; HpkeOpenError when it does not open (also for another sender in auth mode)."""
    return setup_recipient(private_key, enc, info, sender_public_key).open(aad, ct)
