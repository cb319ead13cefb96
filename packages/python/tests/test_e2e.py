"""End to end: values written by `cplane apply` against the real emulator, read in Python by name with the manifest
`cplane reader-manifest` wrote and the credential `cplane reader-credential` made; then through a lying proxy, the
three refusals test/e2e/reader-lying-server.test.ts shows for TypeScript, with the same codes: another record's
value (WRAP_OPEN_FAILED), a rolled-back version (WRAP_ROLLBACK), another account's wrapper (WRAP_OTHER_ACCOUNT)."""

from __future__ import annotations

import base64
import logging
import threading
import time

import pytest

from cplane_reader import ManifestError, ReaderError, create_reader
from cplane_reader import hpke
from cplane_reader.value import unwrap_data_key, value_digest, wrap_data_key
from world import LyingProxy, World, through

ENV = {"STRIPE_KEY": "sk_live_python_e2e_7301", "DB_PASSWORD": "db-python-e2e-4412", "API_KEY": "api-key-python-v1-5566"}
CONFIGURATION = """version: 1
projects:
  payments:
    name: payments-python
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants: { serviceAccounts: [ci-deployer] }
      db-password:
        value: { env: DB_PASSWORD }
        grants: { serviceAccounts: [ci-deployer] }
      api-key:
        value: { env: API_KEY }
        grants: { serviceAccounts: [ci-deployer] }
"""


@pytest.fixture(scope="module")
def world():
    w = World()
    try:
        w.config(CONFIGURATION)
        w.apply(ENV)
        w.manifest_json = w.manifest()
        w.reader_credential = w.credential()
        w.proxy = LyingProxy(w.url)
        yield w
    finally:
        if getattr(w, "proxy", None):
            w.proxy.close()
        w.close()


def record_id(w: World, name: str) -> str:
    return w.manifest_json["deployments"]["default"]["records"][name]["recordId"]


def code_of(call) -> tuple[str, str]:
    with pytest.raises(ReaderError) as refused:
        call()
    return refused.value.code, refused.value.message


def test_a_value_cplane_apply_wrote_is_read_in_python_by_name(world, tmp_path, monkeypatch):
    manifest_file = tmp_path / "cplane-reader.json"
    manifest_file.write_text(__import__("json").dumps(world.manifest_json))
    monkeypatch.setenv("CPLANE_MANIFEST", str(manifest_file))
    monkeypatch.setenv("CPLANE_READER", world.reader_credential)
    monkeypatch.delenv("CPLANE_DEPLOYMENT", raising=False)
    with create_reader() as reader:
        assert reader.get("payments/stripe-key") == ENV["STRIPE_KEY"]
        read = reader.read("payments/db-password")
        assert (read.value, read.version, read.name) == (ENV["DB_PASSWORD"], 1, "payments/db-password")
        assert read.account_id == world.acme
        assert read.writer_key_id == world.manifest_json["deployments"]["default"]["writerKeys"][0]["keyId"]
        # Neither the value nor the credential in a repr.
        for text in (repr(reader), repr(read)):
            assert ENV["DB_PASSWORD"] not in text and world.reader_credential not in text
        with pytest.raises(ManifestError) as missing:
            reader.get("payments/strpe-key")
        assert missing.value.code == "SECRET_NOT_IN_MANIFEST"
        assert 'did you mean "payments/stripe-key"?' in missing.value.message


def test_another_records_value_served_for_the_manifests_id_is_refused(world):
    stripe, db = record_id(world, "payments/stripe-key"), record_id(world, "payments/db-password")
    db_fields = {}

    def lie(method, path, answer):
        if path == f"/v1/records/{db}/read":
            db_fields["fields"] = answer["data"]["fields"]
        if path == f"/v1/records/{stripe}/read":
            return {"ok": True, "data": {"record_id": stripe, "fields": db_fields["fields"]}}
        return None

    world.proxy.lie = lie
    try:
        with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential) as reader:
            assert reader.get("payments/db-password") == ENV["DB_PASSWORD"]
            code, message = code_of(lambda: reader.get("payments/stripe-key"))
            assert code == "WRAP_OPEN_FAILED"
            assert message.startswith('Secret "payments/stripe-key": ')
            assert ENV["DB_PASSWORD"] not in message and world.reader_credential not in message
    finally:
        world.proxy.lie = None


def test_a_rolled_back_version_is_refused(world):
    api = record_id(world, "payments/api-key")
    old = {}

    def keep(method, path, answer):
        if path == f"/v1/records/{api}/read":
            old.setdefault("answer", answer)
        return None

    world.proxy.lie = keep
    try:
        with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential) as reader:
            assert reader.read("payments/api-key").version == 1
        world.apply({**ENV, "API_KEY": "api-key-python-v2-9912"})
        world.proxy.lie = None
        errors = []
        with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential, interval=0, on_error=lambda e, n: errors.append(e)) as reader:
            read = reader.read("payments/api-key")
            assert (read.value, read.version) == ("api-key-python-v2-9912", 2)
            # The server replays version 1 and says the record moved: the reader refuses and keeps version 2.
            def replay(method, path, answer):
                if path == f"/v1/records/{api}/read":
                    return old["answer"]
                if method == "GET" and path == "/v1/records":
                    return {**answer, "data": [{**row, "current_version": 3} if row["record_id"] == api else row for row in answer["data"]]}
                return None

            world.proxy.lie = replay
            reader.refresh()
            assert [e.code for e in errors] == ["WRAP_ROLLBACK"]
            assert reader.get("payments/api-key") == "api-key-python-v2-9912"
        # A new reader in the same process refuses it too: never older than a version this process has read.
        with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential) as fresh:
            code, message = code_of(lambda: fresh.get("payments/api-key"))
            assert code == "WRAP_ROLLBACK" and "api-key-python" not in message
    finally:
        world.proxy.lie = None


def test_another_accounts_wrapper_by_the_trusted_writer_is_refused(world):
    stripe = record_id(world, "payments/stripe-key")
    sa = world.ci_deployer()
    reader_key = base64.b64decode(sa["privateKey"])
    writer_private, writer_public = hpke.derive_key_pair(world.writer_seed())
    globex = world.fixtures["accounts"][2]["id"]

    def lie(method, path, answer):
        if path != f"/v1/records/{stripe}/read":
            return None
        fields = answer["data"]["fields"]
        digest = value_digest(fields["ciphertext"], fields["wrapper"].get("nonce"))
        data_key, _ = unwrap_data_key(fields["wrapper"]["wrappedDek"], reader_key, stripe, fields["version"], digest, [writer_public])
        wrapped = wrap_data_key(data_key, hpke.public_key_of(reader_key), globex, stripe, fields["version"], sa["id"], digest, writer_private, int(time.time()))
        return {**answer, "data": {**answer["data"], "fields": {**fields, "wrapper": {**fields["wrapper"], "wrappedDek": wrapped}}}}

    world.proxy.lie = lie
    try:
        with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential) as reader:
            code, message = code_of(lambda: reader.get("payments/stripe-key"))
            assert code == "WRAP_OTHER_ACCOUNT"
            assert globex in message and world.acme in message
    finally:
        world.proxy.lie = None


def test_a_stalled_list_is_reported_and_the_last_good_value_kept(world, caplog):
    db = record_id(world, "payments/db-password")
    errors: list = []
    changes: list = []
    polls = threading.Semaphore(0)

    def leave_out(method, path, answer):
        if method == "GET" and path == "/v1/records":
            polls.release()
            return {**answer, "data": [row for row in answer["data"] if row["record_id"] != db]}
        return None

    with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential) as reader:
        reader.watch("payments/db-password", lambda value, read: changes.append(value), interval=0.05, on_error=errors.append)
        while not changes:
            time.sleep(0.01)
        world.proxy.lie = leave_out
        try:
            assert polls.acquire(timeout=60) and polls.acquire(timeout=60)
            while not errors:
                time.sleep(0.01)
        finally:
            world.proxy.lie = None
        assert errors[0].code == "RECORD_NOT_LISTED"
        assert errors[0].message.startswith('Secret "payments/db-password": ')
        assert reader.get("payments/db-password") == ENV["DB_PASSWORD"]
    assert world.reader_credential not in caplog.text


def test_the_renewal_window_keeps_the_last_good_value_and_is_tried_again(world):
    stripe = record_id(world, "payments/stripe-key")
    reads: list = []

    def window(method, path, answer):
        # A new version is listed, and the read returns it before its wrap for this reader: the wrapper is version 1's.
        if method == "GET" and path == "/v1/records":
            return {**answer, "data": [{**row, "current_version": row["current_version"] + 1} if row["record_id"] == stripe else row for row in answer["data"]]}
        if path == f"/v1/records/{stripe}/read":
            reads.append(path)
            fields = answer["data"]["fields"]
            return {**answer, "data": {**answer["data"], "fields": {**fields, "version": fields["version"] + 1}}}
        return None

    errors: list = []
    with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential, interval=0, on_error=lambda e, n: errors.append(e)) as reader:
        before = reader.read("payments/stripe-key")
        world.proxy.lie = window
        try:
            reads.clear()
            reader.refresh()
            reader.refresh()
        finally:
            world.proxy.lie = None
        # Not taken as seen: each interval reads it again, and the last good value stays.
        assert [e.code for e in errors] == ["WRAP_OTHER_VERSION", "WRAP_OTHER_VERSION"]
        assert len(reads) == 2
        after = reader.read("payments/stripe-key")
        assert (after.value, after.version) == (before.value, before.version)


def test_a_version_held_back_while_the_record_moves_is_reported_and_the_new_value_used(world):
    db = record_id(world, "payments/db-password")
    errors: list = []
    changes: list = []
    with create_reader(through(world.manifest_json, world.proxy.url), world.reader_credential, interval=0, on_error=lambda e, n: errors.append(e)) as reader:
        reader.watch("payments/db-password", lambda value, read: changes.append(read.version), interval=3600)
        reader.refresh()
        first = changes[-1]

        def hold_back(method, path, answer):
            if method == "GET" and path == "/v1/records":
                return {**answer, "data": [{**row, "current_version": first} if row["record_id"] == db else row for row in answer["data"]]}
            return None

        world.proxy.lie = hold_back
        try:
            world.apply({**ENV, "API_KEY": "api-key-python-v2-9912", "DB_PASSWORD": "db-python-e2e-v2-8823"})
            reader.refresh()
        finally:
            world.proxy.lie = None
        assert changes[-1] == first + 1
        assert reader.get("payments/db-password") == "db-python-e2e-v2-8823"
        assert [e.code for e in errors] == ["RECORD_LIST_STALE"]
        assert f"says record {db} is at version {first}" in errors[0].message
