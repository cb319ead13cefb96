"""The reader's client of the control-plane API: the two operations reading needs, `GET /records` (the Service
Account's record list, paged) and `POST /records/{id}/read` (a record's `fields`), as packages/sdk/src/client.ts
sends them: the bearer token only in the Authorization header, the account in `x-account-id`, an Idempotency-Key
on the read (it appends an audit row), 429/500/503 and connection failures retried with jittered exponential
backoff (Retry-After wins), every answer checked for the shape reading relies on (the server is untrusted).
Standard library only: `http.client`, the layer under `urllib`, so that one kept-alive connection carries every
request (as the SDK's agent does) instead of a new connection per poll."""

from __future__ import annotations

import http.client
import json
import random
import socket
import ssl
import threading
import time
import urllib.parse
import uuid
from typing import Any

from .errors import ApiError, NetworkError

RETRY_STATUSES = (429, 500, 503)
MAX_ATTEMPTS = 6
BASE_DELAY = 0.2
MAX_DELAY = 10.0
MAX_RETRY_AFTER = 60.0


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    return host in ("localhost", "::1") or host.endswith(".localhost") or (host.startswith("127.") and host.count(".") == 3)


class Client:
    def __init__(self, base_url: str, token: str, account_id: str, timeout: float = 60.0, max_response_bytes: int = 8 * 1024 * 1024, allow_insecure_http: bool = False) -> None:
        if not token or any(c.isspace() for c in token):
            raise ValueError("the API token is missing or contains white space")
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in ("http", "https"):
            raise ValueError(f"the base URL must be http(s), not {url.scheme}:")
        if url.scheme == "http" and not is_loopback_host(url.hostname or "") and not allow_insecure_http:
            raise ValueError(f"refusing to send the API token over plain http to {url.hostname}: use https (or allow_insecure_http=True on a trusted network)")
        self._url = url
        self._base_path = url.path.rstrip("/") + "/v1"
        self.__token = token
        self.account_id = account_id
        self._timeout = timeout
        self._max_bytes = max_response_bytes
        self._connection: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Client({self._url.scheme}://{self._url.netloc})"

    def list_records(self, limit: int, offset: int) -> list[dict]:
        data = self._call("listRecords", "GET", f"/records?limit={limit}&offset={offset}", None)
        if not isinstance(data, list):
            raise ApiError("listRecords", 200, "invalid_response", "the answer does not match the API spec: the result is not a list", None, 1)
        for i, row in enumerate(data):
            version = row.get("current_version") if isinstance(row, dict) else None
            if not isinstance(row, dict) or not isinstance(row.get("record_id"), str) or not (version is None or (type(version) is int and version >= 1)):
                raise ApiError("listRecords", 200, "invalid_response", f"the answer does not match the API spec: item {i} is not a record {{record_id, current_version}}", None, 1)
        return data

    def read_record(self, record_id: str) -> dict:
        data = self._call("readRecord", "POST", f"/records/{urllib.parse.quote(record_id, safe='')}/read", {"scope": ["fields"]})
        problem = _fields_problem(data.get("fields") if isinstance(data, dict) else None) if isinstance(data, dict) else "the result is not an object"
        if problem:
            raise ApiError("readRecord", 200, "invalid_response", f"the answer does not match the API spec: {problem}", None, 1)
        return data

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            port = self._url.port
            if self._url.scheme == "https":
                self._connection = http.client.HTTPSConnection(self._url.hostname or "", port, timeout=self._timeout, context=ssl.create_default_context())
            else:
                self._connection = http.client.HTTPConnection(self._url.hostname or "", port, timeout=self._timeout)
        return self._connection

    def _call(self, operation: str, method: str, path: str, body: Any) -> Any:
        headers = {
            "authorization": f"Bearer {self.__token}",
            "accept": "application/json",
            "user-agent": "cplane_reader (python)",
            "x-account-id": self.account_id,
        }
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        if method != "GET":
            headers["idempotency-key"] = str(uuid.uuid4())
        deadline = time.monotonic() + self._timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                status, answer_headers, text = self._exchange(method, self._base_path + path, headers, payload)
            except (OSError, http.client.HTTPException) as error:
                if attempt < MAX_ATTEMPTS and time.monotonic() < deadline:
                    time.sleep(random.random() * min(MAX_DELAY, BASE_DELAY * 2 ** (attempt - 1)))
                    continue
                raise NetworkError(operation, attempt, type(error).__name__ + (f": {error.strerror}" if getattr(error, "strerror", None) else "")) from None
            request_id = answer_headers.get("x-request-id") or None
            envelope = _envelope(text)
            if 200 <= status < 300 and envelope is not None and envelope.get("ok") is True:
                return envelope.get("data")
            if status in RETRY_STATUSES and attempt < MAX_ATTEMPTS and time.monotonic() < deadline:
                time.sleep(_backoff(attempt, answer_headers.get("retry-after")))
                continue
            error = envelope.get("error") if envelope is not None and envelope.get("ok") is False and isinstance(envelope.get("error"), dict) else {}
            code = error.get("code") if isinstance(error.get("code"), str) else ("invalid_response" if status < 300 else f"http_{status}")
            reason = error.get("message") if isinstance(error.get("message"), str) else (
                "the API answered without a success envelope" if status < 300 else "the API answered without an error envelope"
            )
            envelope_request_id = envelope.get("requestId") if envelope is not None and isinstance(envelope.get("requestId"), str) else None
            raise ApiError(operation, status, code, reason, envelope_request_id or request_id, attempt)

    def _exchange(self, method: str, path: str, headers: dict, payload: bytes | None) -> tuple[int, dict, str]:
        with self._lock:
            for fresh in (False, True):
                connection = self._connect()
                try:
                    connection.request(method, path, body=payload, headers=headers)
                    response = connection.getresponse()
                    data = response.read(self._max_bytes + 1)
                    if len(data) > self._max_bytes:
                        self.close_locked()
                        raise ApiError(method, 0, "response_too_large", f"the answer is larger than {self._max_bytes} bytes", None, 1)
                    if response.getheader("connection", "").lower() == "close":
                        self.close_locked()
                    return response.status, {k.lower(): v for k, v in response.getheaders()}, data.decode("utf-8", "replace")
                except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, http.client.CannotSendRequest, http.client.ResponseNotReady):
                    # A kept-alive connection the server closed in between: one new connection, then the caller's retry.
                    self.close_locked()
                    if fresh:
                        raise
                except (OSError, socket.timeout, http.client.HTTPException):
                    self.close_locked()
                    raise
        raise AssertionError("unreachable")

    def close_locked(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _backoff(attempt: int, retry_after: str | None) -> float:
    if retry_after and retry_after.strip().replace(".", "", 1).isdigit():
        return min(float(retry_after), MAX_RETRY_AFTER)
    return random.random() * min(MAX_DELAY, BASE_DELAY * 2 ** (attempt - 1))


def _envelope(text: str) -> dict | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and isinstance(value.get("ok"), bool) else None


def _fields_problem(fields: Any) -> str | None:
    if fields is None:
        return None
    if not isinstance(fields, dict):
        return "fields is not an object"
    version = fields.get("version")
    if type(version) is not int or version < 1:
        return "fields.version is not a positive whole number"
    if not isinstance(fields.get("ciphertext"), str):
        return "fields.ciphertext is not a string"
    wrapper = fields.get("wrapper")
    if not isinstance(wrapper, dict):
        return "fields.wrapper is not an object"
    for name in ("alg", "keyId", "wrappedDek"):
        if not isinstance(wrapper.get(name), str):
            return f"fields.wrapper.{name} is not a string"
    if wrapper.get("nonce") is not None and not isinstance(wrapper.get("nonce"), str):
        return "fields.wrapper.nonce is not a string"
    return None
