"""Opening a record value as one of its readers, exactly as packages/sdk does (read-value.ts, data-key-wrap.ts,
record-value.ts): the data key is wrapped for this reader with HPKE auth mode by a writer the reader pins, for this
account, record, version, value and reader; the value is XChaCha20-Poly1305 under that data key, bound to
"cplane/value/v2" NUL account NUL recordId NUL version. A wrapper is checked before its value is opened, and the
version is the writer's word, compared with the oldest this reader accepts."""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import hashlib
import re
from dataclasses import dataclass, field

from . import hpke
from .errors import WrapError
from .xchacha import InvalidTag, XChaCha20Poly1305

WRAP_FORMAT = "cplane-hpke2"
UNAUTHENTICATED_FORMAT = "cplane-hpke1"
INFO = b"cplane/data-key-wrap/v2"
DATA_KEY_BYTES = 32
RECORD_VALUE_ALG = "xchacha20poly1305+kek-hkdf-sha256/v2"
UNBOUND_RECORD_VALUE_ALG = "xchacha20poly1305+kek-hkdf-sha256/v1"

_ID = re.compile(r"^[A-Za-z0-9_:-]{1,100}$")
_VERSION = re.compile(r"^[1-9][0-9]{0,9}$")
_KEY_ID = re.compile(r"^x25519:[0-9a-f]{16}$")
_SECONDS = re.compile(r"^[0-9]{1,12}$")
_B64URL = re.compile(r"^[A-Za-z0-9_-]+$")


def key_id_of(public_key: bytes) -> str:
    """`x25519:` and 16 hex digits of the SHA-256 of the public key."""
    return "x25519:" + hashlib.sha256(public_key).hexdigest()[:16]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def from_b64url(text: str) -> bytes | None:
    if not _B64URL.match(text):
        return None
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None


def value_digest(ciphertext: str, nonce: str | None) -> str:
    """SHA-256 (hex) of a value's ciphertext and nonce: what a reader's wrapper is bound to."""
    return hashlib.sha256(f"{ciphertext}\0{nonce or ''}".encode()).hexdigest()


@dataclass(frozen=True)
class ReadValue:
    """A value read and checked, with what its writer's authenticated wrapper says of it."""

    value: str = field(repr=False)
    version: int
    account_id: str
    writer_key_id: str
    wrapped_at: _dt.datetime
    name: str | None = None

    def __repr__(self) -> str:
        return f"ReadValue(name={self.name!r}, version={self.version}, account_id={self.account_id!r}, writer_key_id={self.writer_key_id!r}, value=<hidden>)"


@dataclass(frozen=True)
class _Wrapper:
    header: str
    account_id: str
    version: int
    recipient_id: str
    key_id: str
    writer_key: bytes
    wrapped_at: _dt.datetime
    enc: bytes
    ct: bytes


def parse_wrapped_dek(text: str) -> _Wrapper:
    if text.startswith(UNAUTHENTICATED_FORMAT + "."):
        raise WrapError(
            "WRAP_UNTRUSTED_WRITER",
            f"The data key was wrapped in the first format ({UNAUTHENTICATED_FORMAT}), which names no writer, so anyone who knows the reader's public key could have made it; it is not used. Ask the owner of the configuration that manages the record to wrap it again for this reader (a re-wrap).",
        )
    parts = text.split(".")
    malformed = WrapError(
        "WRAP_MALFORMED",
        f"The wrapped data key is not in the {WRAP_FORMAT} format ({WRAP_FORMAT}.<account>.<version>.<recipientId>.<keyId>.<writerKey>.<wrappedAt>.<enc>.<ct>).",
    )
    if len(parts) != 9:
        raise malformed
    fmt, account_id, version, recipient_id, key_id, writer_key, wrapped_at, enc, ct = parts
    if not (fmt == WRAP_FORMAT and _ID.match(account_id) and _VERSION.match(version) and _ID.match(recipient_id) and _KEY_ID.match(key_id) and _SECONDS.match(wrapped_at)):
        raise malformed
    writer_bytes, enc_bytes, ct_bytes = from_b64url(writer_key), from_b64url(enc), from_b64url(ct)
    if writer_bytes is None or len(writer_bytes) != 32 or enc_bytes is None or len(enc_bytes) != 32 or ct_bytes is None or len(ct_bytes) != DATA_KEY_BYTES + 16:
        raise WrapError("WRAP_MALFORMED", "The wrapped data key has a writer key, encapsulated key or ciphertext of the wrong length.")
    return _Wrapper(
        header=".".join(parts[:7]),
        account_id=account_id,
        version=int(version),
        recipient_id=recipient_id,
        key_id=key_id,
        writer_key=writer_bytes,
        wrapped_at=_dt.datetime.fromtimestamp(int(wrapped_at), _dt.timezone.utc),
        enc=enc_bytes,
        ct=ct_bytes,
    )


def _aad(header: str, record_id: str, digest: str) -> bytes:
    return "\0".join([header, record_id, digest]).encode()


def wrap_data_key(
    data_key: bytes,
    recipient_public_key: bytes,
    account_id: str,
    record_id: str,
    version: int,
    recipient_id: str,
    digest: str,
    writer_private_key: bytes,
    wrapped_at: int,
) -> str:
    """A writer's wrapper (the TypeScript writer's wrapDataKey): here for the tests, which play a lying server."""
    header = ".".join(
        [WRAP_FORMAT, account_id, str(version), recipient_id, key_id_of(recipient_public_key), b64url(hpke.public_key_of(writer_private_key)), str(wrapped_at)]
    )
    enc, ct = hpke.seal(recipient_public_key, INFO, _aad(header, record_id, digest), data_key, writer_private_key)
    return ".".join([header, b64url(enc), b64url(ct)])


def unwrap_data_key(wrapped_dek: str, private_key: bytes, record_id: str, version: int, digest: str, trusted_writers: list[bytes], recipient_id: str | None = None) -> tuple[bytes, _Wrapper]:
    wrapper = parse_wrapped_dek(wrapped_dek)
    if wrapper.version != version:
        raise WrapError(
            "WRAP_OTHER_VERSION",
            f"The data key was wrapped for value version {wrapper.version}, and the current version is {version}: the new value has not been wrapped for this reader yet. Ask the owner of the configuration that manages the record to apply it, which wraps the new value for every reader.",
        )
    if recipient_id is not None and wrapper.recipient_id != recipient_id:
        raise WrapError("WRAP_OTHER_RECIPIENT", f"The data key was wrapped for {wrapper.recipient_id}, not for {recipient_id}.")
    own_key_id = key_id_of(hpke.public_key_of(private_key))
    if wrapper.key_id != own_key_id:
        raise WrapError(
            "WRAP_OTHER_KEY",
            f"The data key was wrapped for the key {wrapper.key_id}, and the private key given is {own_key_id}: it is another reader's key, or the reader's key was rotated since. Give this reader's current private key; after a rotation, ask the owner of the configuration to wrap the value for the new key.",
        )
    writer_key_id = key_id_of(wrapper.writer_key)
    if not any(key == wrapper.writer_key for key in trusted_writers):
        raise WrapError(
            "WRAP_UNTRUSTED_WRITER",
            f"The data key of record {record_id} was wrapped by the writer {writer_key_id}, which is not one of the writer keys this reader trusts: the API server, or a writer you have not pinned, made it. Check the writer keys you trust; if they are right, do not use the value.",
        )
    try:
        data_key = hpke.open_sealed(private_key, wrapper.enc, wrapper.ct, INFO, _aad(wrapper.header, record_id, digest), wrapper.writer_key)
    except hpke.HpkeOpenError:
        raise WrapError(
            "WRAP_OPEN_FAILED",
            f"The wrapped data key of record {record_id} does not open: it was made for another record, version, value or reader, not by the writer {writer_key_id}, or altered. Do not use it.",
        ) from None
    if len(data_key) != DATA_KEY_BYTES:
        raise WrapError("WRAP_MALFORMED", f"the wrapped data key is {len(data_key)} bytes, not {DATA_KEY_BYTES}")
    return data_key, wrapper


def _b64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return b""


def decrypt_with_data_key(data_key: bytes, ciphertext: str, nonce: str | None, alg: str, account_id: str, record_id: str, version: int) -> str:
    if alg == UNBOUND_RECORD_VALUE_ALG:
        raise WrapError(
            "WRAP_UNBOUND_VALUE",
            f"The value of record {record_id} was written before values were bound to their record ({UNBOUND_RECORD_VALUE_ALG}), so it cannot be told from another record's value; it is not used. Ask the owner of the configuration that manages the record to write the value again.",
        )
    if alg != RECORD_VALUE_ALG:
        raise WrapError("WRAP_MALFORMED", f"The value of record {record_id} uses {alg}, not {RECORD_VALUE_ALG}.")
    binding = "\0".join(["cplane/value/v2", account_id, record_id, str(version)]).encode()
    mismatch = WrapError(
        "WRAP_VALUE_MISMATCH",
        f"The value of record {record_id} does not match its wrapper for version {version} of account {account_id}: the API returned another record's or another version's value, or the bytes were altered.",
    )
    try:
        plaintext = XChaCha20Poly1305(data_key).decrypt(_b64(nonce or ""), _b64(ciphertext), binding)
        return plaintext.decode("utf-8")
    except (InvalidTag, ValueError, UnicodeDecodeError):
        raise mismatch from None


def decrypt_as_reader(
    record_id: str,
    fields: dict,
    private_key: bytes,
    trusted_writers: list[bytes],
    account_id: str,
    min_version: int | None = None,
    reader_id: str | None = None,
) -> ReadValue:
    """The `fields` of POST /records/{id}/read, opened and checked (packages/sdk/src/read-value.ts)."""
    wrapper = fields["wrapper"]
    wrapped_dek = wrapper["wrappedDek"]
    if not (wrapped_dek.startswith(WRAP_FORMAT + ".") or wrapped_dek.startswith(UNAUTHENTICATED_FORMAT + ".")):
        raise WrapError(
            "WRAP_MALFORMED",
            f"The API returned no data key wrapped for this reader for record {record_id}: it holds no grant of it. Ask the owner of the configuration that manages the record to grant it to this reader.",
        )
    digest = value_digest(fields["ciphertext"], wrapper.get("nonce"))
    data_key, opened = unwrap_data_key(wrapped_dek, private_key, record_id, fields["version"], digest, trusted_writers, reader_id)
    if min_version is not None and opened.version < min_version:
        raise WrapError(
            "WRAP_ROLLBACK",
            f"Record {record_id} was returned at value version {opened.version} (wrapped {opened.wrapped_at.strftime('%Y-%m-%dT%H:%M:%S.000Z')}), older than version {min_version}, the oldest this reader accepts: the API returned an old value.",
        )
    if opened.account_id != account_id:
        raise WrapError(
            "WRAP_OTHER_ACCOUNT",
            f"The value of record {record_id} was written for account {opened.account_id}, not for {account_id}, the account this reader expects: the API returned another deployment's value.",
        )
    value = decrypt_with_data_key(data_key, fields["ciphertext"], wrapper.get("nonce"), wrapper["alg"], opened.account_id, record_id, opened.version)
    return ReadValue(value=value, version=opened.version, account_id=opened.account_id, writer_key_id=key_id_of(opened.writer_key), wrapped_at=opened.wrapped_at)
