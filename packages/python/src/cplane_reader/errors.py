"""The reader's errors, with the TypeScript SDK's codes (docs/sdk.md, "Errors"): every error has a stable `code`
and a message that says what is wrong and who must act, never the value, a key or the token."""

from __future__ import annotations

import re

_CONTROL = re.compile("[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """Server text as it may go into a message: no control or direction characters, at most 200 characters."""
    plain = _CONTROL.sub("?", text)
    return plain[:200] + "…" if len(plain) > 200 else plain


class ReaderError(Exception):
    """The base of every error of cplane_reader; `code` is the TypeScript SDK's code for the same cause."""

    code: str = "READER_ERROR"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def _rename(self, message: str) -> None:
        self.args = (message,)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class WrapError(ReaderError):
    """A value or wrapper that cannot be used (WRAP_*)."""


class ManifestError(ReaderError):
    """MANIFEST_INVALID, SECRET_NOT_IN_MANIFEST, DEPLOYMENT_NOT_IN_MANIFEST, DEPLOYMENT_REQUIRED."""


class ReaderCredentialError(ReaderError):
    """READER_CREDENTIAL_INVALID: the message names the part that is wrong, never its text."""

    def __init__(self, message: str) -> None:
        super().__init__("READER_CREDENTIAL_INVALID", message)


class AccountError(ReaderError):
    """ACCOUNT_REQUIRED."""


class WatchError(ReaderError):
    """RECORD_NOT_LISTED (the record list leaves out a record being read) or RECORD_LIST_STALE (it holds a version back), as the TypeScript SDK names them."""


class ApiError(ReaderError):
    """The API refused: `status`, `reason` and `request_id` to quote. `code` is the envelope's code."""

    def __init__(self, operation: str, status: int, code: str, reason: str, request_id: str | None, attempts: int) -> None:
        parts = [f"{operation} failed: the control-plane API answered {status} {clean(code)}" + (f" ({clean(reason)})" if reason and reason != code else "")]
        if attempts > 1:
            parts.append(f"after {attempts} attempts")
        if request_id:
            parts.append(f"request id {clean(request_id)}")
        who = _who_acts(status, reason)
        super().__init__(code, ", ".join(parts) + "." + (f" {who}" if who else ""))
        self.operation = operation
        self.status = status
        self.reason = reason
        self.request_id = request_id
        self.attempts = attempts


class NetworkError(ReaderError):
    """NETWORK_ERROR: no complete answer from the API."""

    def __init__(self, operation: str, attempts: int, why: str) -> None:
        super().__init__(
            "NETWORK_ERROR",
            f"{operation}: no answer from the control-plane API after {attempts} attempt(s) ({clean(why)}). Check the base URL and the network, then try again.",
        )
        self.operation = operation
        self.attempts = attempts


def _who_acts(status: int, reason: str) -> str | None:
    if status == 401:
        return "The token is missing, invalid or expired: the application needs a valid Service Account token from an admin of the account."
    if status == 403 and reason == "service_account_inactive":
        return "The Service Account is not active: ask an admin of the account to activate it."
    if status == 403:
        return "This token may not do this in this account: check the account id, and ask the owner of the configuration to grant the record to this Service Account."
    if status == 404:
        return "There is no such object in the account: check the record id and the account id."
    if status == 429 or status >= 500:
        return "The API is busy or failing: try again later, and quote the request id if it persists."
    if 200 <= status < 400:
        return "The answer is not the control-plane API's: check the base URL (the API's address, without /v1)."
    return None


def named(error: BaseException, name: str) -> BaseException:
    """The error, its message starting with the secret's name (its code unchanged), as the SDK's reader names them."""
    prefix = f'Secret "{name}": '
    if isinstance(error, ReaderError):
        if not error.message.startswith(prefix):
            error._rename(prefix + error.message)
        return error
    return ReaderError("READER_ERROR", prefix + str(error))
