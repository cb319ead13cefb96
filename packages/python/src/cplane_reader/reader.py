"""Reading secrets by name (`create_reader`), as the TypeScript SDK's createReader (packages/sdk/src/reader.ts):
the manifest says where each name is and the credential who reads. Every value is read by the manifest's record id
and opened with the manifest's writer keys, account and Service Account id (value.py).

Values are cached and kept current by one thread that polls the Service Account's record list (`GET /records`):
one request per interval for every name watched, whatever their number (one per 200 records), then a read of only
the records whose version moved. A version never goes backwards; a failed refresh keeps the last good value and
reports the error; a new version that cannot be read yet (WRAP_OTHER_VERSION: its wrap for this reader is still to
come) is not taken as seen, so the next poll tries it again. A stall is reported: a record whose
value this reader holds that the list leaves out (RECORD_NOT_LISTED), or a listed version that stays while the record moves (its
`updated_at` changes and the read finds a newer version than the list said: RECORD_LIST_STALE)."""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import replace
from typing import Callable

from .client import Client
from .credential import ReaderCredential, decode_reader_credential
from .errors import ApiError, ManifestError, ReaderError, WatchError, WrapError, named
from .manifest import load_manifest, manifest_deployment, manifest_record
from .value import ReadValue, decrypt_as_reader

DEFAULT_INTERVAL = 30.0
PAGE_SIZE = 200
log = logging.getLogger("cplane_reader")

# The newest version this process has read of each record: a later read never goes backwards (WRAP_ROLLBACK).
_newest_read: dict[str, int] = {}
_newest_lock = threading.Lock()

OnChange = Callable[[str, ReadValue], None]
OnError = Callable[[BaseException], None]


class _Watcher:
    def __init__(self, name: str, record_id: str, on_change: OnChange, interval: float, on_error: OnError | None) -> None:
        self.name, self.record_id, self.on_change, self.interval, self.on_error = name, record_id, on_change, interval, on_error


class Reader:
    """A reader of the secrets a manifest names, as the Service Account of the credential (`create_reader`)."""

    def __init__(self, manifest: dict, where: str, deployment: str | None, credential: ReaderCredential, interval: float, on_error: Callable[[BaseException, str], None] | None, timeout: float, allow_insecure_http: bool) -> None:
        self._manifest = manifest
        self._place = manifest_deployment(manifest, deployment, where)
        self.deployment = self._place.name
        self.__credential = credential
        self._interval = interval
        self._on_error = on_error
        self._client = Client(self._place.base_url, credential.token, self._place.account_id, timeout=timeout, allow_insecure_http=allow_insecure_http)
        self._values: dict[str, ReadValue] = {}
        self._watchers: list[_Watcher] = []
        self._listed_meta: dict[str, str | None] = {}
        self._last_listed = 0.0
        self._lock = threading.RLock()
        self._poll_lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"Reader(service_account={self._manifest['serviceAccount']!r}, deployment={self.deployment!r})"

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the API of createReader

    def get(self, name: str) -> str:
        """The secret's current value (cached; asked again once older than the interval when nothing watches)."""
        return self.read(name).value

    def read(self, name: str) -> ReadValue:
        """`get`, with the value's version, account, writer and when it was wrapped."""
        record_id = manifest_record(self._manifest, self._place, name)["recordId"]
        with self._lock:
            known = self._values.get(record_id)
        if known is None:
            try:
                return replace(self._read_record(record_id), name=name)
            except ReaderError as error:
                raise named(error, name) from None
        # Watchers keep the cache current; otherwise a value older than the interval is checked against the list.
        with self._lock:
            watched = bool(self._watchers)
        if not watched and time.monotonic() - self._last_listed >= self._interval:
            self.refresh()
        with self._lock:
            return replace(self._values[record_id], name=name)

    def watch(self, name: str, on_change: OnChange, interval: float | None = None, on_error: OnError | None = None) -> Callable[[], None]:
        """Calls `on_change(value, read)` with the value now and with each newer version; returns the function that stops it."""
        watcher = _Watcher(name, manifest_record(self._manifest, self._place, name)["recordId"], on_change, interval if interval is not None else DEFAULT_INTERVAL, on_error)
        with self._lock:
            if self._closed:
                raise ReaderError("READER_CLOSED", "This reader is closed: create another.")
            self._watchers.append(watcher)
            known = self._values.get(watcher.record_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cplane_reader-watch", daemon=True)
                self._thread.start()
        if known is not None:
            on_change(known.value, replace(known, name=name))
        self._wake.set()  # a first poll now, for the new watcher

        def stop() -> None:
            with self._lock:
                if watcher in self._watchers:
                    self._watchers.remove(watcher)

        return stop

    def refresh(self) -> None:
        """Asks the record list once now and reads what changed (what each interval does)."""
        with self._poll_lock:
            self._poll()

    def close(self) -> None:
        """Stops every watcher and closes the connection."""
        with self._lock:
            self._closed = True
            self._watchers.clear()
            thread = self._thread
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._client.close()

    # ------------------------------------------------------------------ polling

    def _run(self) -> None:
        first = True
        while True:
            with self._lock:
                if self._closed:
                    return
                intervals = [w.interval for w in self._watchers]
            if not first:
                self._wake.wait(min(intervals) if intervals else None)
            first = False
            # A new watcher wakes the thread for a poll now; otherwise the interval passed.
            self._wake.clear()
            with self._lock:
                if self._closed:
                    return
                if not self._watchers:
                    continue
            try:
                self.refresh()
            except Exception as error:  # never let the thread die: report and keep the last good values
                log.warning("cplane_reader: a refresh failed: %s", error)

    def _read_record(self, record_id: str) -> ReadValue:
        with self._lock:
            known = self._values.get(record_id)
        with _newest_lock:
            seen = _newest_read.get(record_id)
        floor = max(known.version if known else 1, seen or 1)
        fields = self._client.read_record(record_id).get("fields")
        if not fields:
            raise WrapError("WRAP_MALFORMED", f"Record {record_id} has no value yet: ask the owner of the configuration that manages it to write one.")
        read = decrypt_as_reader(
            record_id,
            fields,
            self.__credential.private_key,
            self._place.writer_keys,
            self._place.account_id,
            min_version=floor if floor > 1 else None,
            reader_id=self._place.service_account_id,
        )
        with _newest_lock:
            _newest_read[record_id] = max(_newest_read.get(record_id, 0), read.version)
        with self._lock:
            if known is None or read.version > known.version:
                self._values[record_id] = read
            return self._values[record_id]

    def _poll(self) -> None:
        with self._lock:
            tracked = list(dict.fromkeys([*self._values.keys(), *(w.record_id for w in self._watchers)]))
        try:
            listed = self._list_versions()
        except ReaderError as error:
            for record_id in tracked:
                self._report(record_id, error)
            return
        except Exception as error:  # noqa: BLE001 - reported as the SDK reports any failure
            for record_id in tracked:
                self._report(record_id, ReaderError("READER_ERROR", str(error)))
            return
        self._last_listed = time.monotonic()
        for record_id in tracked:
            with self._lock:
                known = self._values.get(record_id)
            row = listed.get(record_id)
            moved = row is not None and record_id in self._listed_meta and row.get("updated_at") != self._listed_meta[record_id]
            if row is not None:
                self._listed_meta[record_id] = row.get("updated_at")
            version = row.get("current_version") if row is not None else None
            if known is not None and row is None:
                self._report(record_id, WatchError("RECORD_NOT_LISTED", f"Record {record_id} is not in the Service Account's record list any more, so a new value of it would not be seen: the last good value is kept. If the grant was removed, ask the owner of the configuration; otherwise the API left it out: report it."))
                continue
            # Only a newer version is read, or one whose record moved while the list kept its version.
            if known is not None and (version is None or version <= known.version) and not moved:
                continue
            try:
                read = self._read_record(record_id)
            except ReaderError as error:
                self._report(record_id, error)
                continue
            if known is None or read.version > known.version:
                with self._lock:
                    watchers = [w for w in self._watchers if w.record_id == record_id]
                for w in watchers:
                    try:
                        w.on_change(read.value, replace(read, name=w.name))
                    except Exception as error:  # noqa: BLE001 - the application's callback: reported, the watcher goes on
                        self._report(record_id, ReaderError("WATCH_CALLBACK_FAILED", f"on_change raised {type(error).__name__}"))
                if known is not None and version is not None and read.version > version:
                    self._report(record_id, WatchError("RECORD_LIST_STALE", f"The record list says record {record_id} is at version {version}, and it was read at version {read.version}: the list is held back, so renewals would not be seen in time. The new value is used; report it."))

    def _list_versions(self) -> dict[str, dict]:
        rows: dict[str, dict] = {}
        offset = 0
        while True:
            page = self._client.list_records(PAGE_SIZE, offset)
            for row in page:
                rows[row["record_id"]] = row
            if len(page) < PAGE_SIZE:
                return rows
            offset += PAGE_SIZE

    def _report(self, record_id: str, error: BaseException) -> None:
        with self._lock:
            watchers = [w for w in self._watchers if w.record_id == record_id]
        names = [w.name for w in watchers] or [n for n, r in self._place.records.items() if r["recordId"] == record_id]
        handled = False
        for w in watchers:
            if w.on_error is not None:
                w.on_error(named(error, w.name))
                handled = True
        if handled:
            return
        for name in names:
            if self._on_error is not None:
                self._on_error(named(error, name), name)
            else:
                log.warning("cplane_reader kept the last good value of %s: %s (%s)", name, getattr(error, "message", str(error)), getattr(error, "code", "CPLANE_REFRESH_FAILED"))


def create_reader(
    manifest: str | dict | None = None,
    credential: str | None = None,
    deployment: str | None = None,
    interval: float = DEFAULT_INTERVAL,
    on_error: Callable[[BaseException, str], None] | None = None,
    timeout: float = 60.0,
    allow_insecure_http: bool = False,
) -> Reader:
    """A reader of the secrets a manifest names: CPLANE_MANIFEST, CPLANE_READER and CPLANE_DEPLOYMENT by default.

    `interval` (seconds) is how long a value read by `get` is used before the list is asked again when nothing
    watches; watchers poll at their own interval (`watch(..., interval=)`, default 30 s)."""
    source = manifest if manifest is not None else os.environ.get("CPLANE_MANIFEST")
    if source is None or source == "":
        raise ManifestError("MANIFEST_INVALID", "No reader manifest: set CPLANE_MANIFEST to its path (the file `cplane reader-manifest` writes), or pass manifest.")
    where = source if isinstance(source, str) else "given"
    loaded = load_manifest(source, where)
    decoded = decode_reader_credential(credential if credential is not None else os.environ.get("CPLANE_READER"), "the credential" if credential is not None else "CPLANE_READER")
    chosen = deployment if deployment is not None else os.environ.get("CPLANE_DEPLOYMENT")
    return Reader(loaded, where, chosen, decoded, interval, on_error, timeout, allow_insecure_http)
