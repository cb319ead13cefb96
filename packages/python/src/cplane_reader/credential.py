"""The one secret an application holds, CPLANE_READER: `cplane-reader-1.<token>.<key>.<check>`, each part base64url
(packages/sdk/src/reader-credential.ts). Errors say which part is wrong and never echo the string or a part of it;
the decoded credential's repr shows neither the token nor the key."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field

from .errors import ReaderCredentialError
from .value import b64url, from_b64url

READER_CREDENTIAL_PREFIX = "cplane-reader-1"


@dataclass(frozen=True)
class ReaderCredential:
    token: str = field(repr=False)
    private_key: bytes = field(repr=False)

    def __repr__(self) -> str:
        return "ReaderCredential(<hidden>)"


def _check_of(body: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(body.encode()).digest()).decode()[:8]


def encode_reader_credential(token: str, private_key: bytes) -> str:
    if not token.startswith("sk-svc-sa-"):
        raise ReaderCredentialError("The token of a reader credential must be a Service Account token (sk-svc-sa-…): an application never holds a personal access token.")
    if re.search(r"\s", token):
        raise ReaderCredentialError("The Service Account token contains white space: copy it again without spaces or line breaks.")
    if len(private_key) != 32:
        raise ReaderCredentialError("The private key of a reader credential is an X25519 private key of exactly 32 bytes.")
    body = f"{READER_CREDENTIAL_PREFIX}.{b64url(token.encode())}.{b64url(private_key)}"
    return f"{body}.{_check_of(body)}"


def decode_reader_credential(text: str | None, where: str) -> ReaderCredential:
    if text is None or text.strip() == "":
        raise ReaderCredentialError(
            f"{where} is not set: give the application its reader credential (cplane-reader-1.…), made by the owner of the configuration from the Service Account's token and private key."
        )
    parts = text.strip().split(".")
    if parts[0] != READER_CREDENTIAL_PREFIX:
        hint = "a format this version of cplane_reader does not read: upgrade it" if parts[0].startswith("cplane-reader-") else "not a reader credential"
        raise ReaderCredentialError(f'{where} does not start with "{READER_CREDENTIAL_PREFIX}.": it is {hint}.')
    if len(parts) != 4:
        raise ReaderCredentialError(f"{where} has {len(parts)} parts separated by dots, not 4 ({READER_CREDENTIAL_PREFIX}, token, key, check): copy it again whole.")
    _, token_part, key_part, check = parts
    if _check_of(".".join(parts[:3])) != check:
        raise ReaderCredentialError(f"{where} fails its check (its last part): it was cut short or altered in a copy; copy it again whole.")
    token_bytes = from_b64url(token_part) or b""
    try:
        token = token_bytes.decode("utf-8")
    except UnicodeDecodeError:
        token = ""
    if not token.startswith("sk-svc-sa-") or re.search(r"\s", token):
        raise ReaderCredentialError(f"The token part of {where} (its second part) is not a Service Account token.")
    private_key = from_b64url(key_part) or b""
    if len(private_key) != 32:
        raise ReaderCredentialError(f"The key part of {where} (its third part) is not an X25519 private key of 32 bytes.")
    return ReaderCredential(token=token, private_key=private_key)
