"""XChaCha20-Poly1305 as draft-irtf-cfrg-xchacha-03 builds it: HChaCha20 (section 2.2) turns the key and the
first 16 bytes of the 24-byte nonce into a subkey, and ChaCha20-Poly1305 (RFC 8439, from `cryptography`) seals
with that subkey and the nonce 0x00000000 || the last 8 bytes (section 2.3). Checked against the draft's vectors
(tests/test_vectors.py). HChaCha20 is the ChaCha20 block function's 20 rounds without the final addition, which
`cryptography` does not expose, so it is written here (a few lines; it only derives a key, never touches data)."""

from __future__ import annotations

import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

_MASK = 0xFFFFFFFF
_SIGMA = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)  # "expand 32-byte k"


def _rotl(value: int, shift: int) -> int:
    return ((value << shift) & _MASK) | (value >> (32 - shift))


def _quarter_round(s: list[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & _MASK
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & _MASK
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & _MASK
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & _MASK
    s[b] = _rotl(s[b] ^ s[c], 7)


def hchacha20(key: bytes, nonce16: bytes) -> bytes:
    """The 32-byte subkey of draft-irtf-cfrg-xchacha-03 section 2.2: words 0-3 and 12-15 after 20 rounds."""
    if len(key) != 32 or len(nonce16) != 16:
        raise ValueError("HChaCha20 takes a 32-byte key and a 16-byte nonce")
    state = list(_SIGMA) + list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", nonce16))
    for _ in range(10):
        _quarter_round(state, 0, 4, 8, 12)
        _quarter_round(state, 1, 5, 9, 13)
        _quarter_round(state, 2, 6, 10, 14)
        _quarter_round(state, 3, 7, 11, 15)
        _quarter_round(state, 0, 5, 10, 15)
        _quarter_round(state, 1, 6, 11, 12)
        _quarter_round(state, 2, 7, 8, 13)
        _quarter_round(state, 3, 4, 9, 14)
    return struct.pack("<8I", *state[0:4], *state[12:16])


class XChaCha20Poly1305:
    """The AEAD with a 24-byte nonce; `decrypt` raises `cryptography`'s InvalidTag when it does not open."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("XChaCha20-Poly1305 takes a 32-byte key")
        self._key = key

    def _inner(self, nonce: bytes) -> tuple[ChaCha20Poly1305, bytes]:
        if len(nonce) != 24:
            raise ValueError("XChaCha20-Poly1305 takes a 24-byte nonce")
        return ChaCha20Poly1305(hchacha20(self._key, nonce[:16])), b"\x00\x00\x00\x00" + nonce[16:]

    def encrypt(self, nonce: bytes, plaintext: bytes, aad: bytes) -> bytes:
        aead, inner_nonce = self._inner(nonce)
        return aead.encrypt(inner_nonce, plaintext, aad)

    def decrypt(self, nonce: bytes, ciphertext: bytes, aad: bytes) -> bytes:
        aead, inner_nonce = self._inner(nonce)
        return aead.decrypt(inner_nonce, ciphertext, aad)


__all__ = ["hchacha20", "XChaCha20Poly1305", "InvalidTag"]
