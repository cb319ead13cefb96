"""What an application is told when its settings are wrong, with the TypeScript SDK's codes and words; never the
credential, in an error, a log or a repr."""

import base64
import json
import logging

import pytest

from cplane_reader import ManifestError, ReaderCredentialError, create_reader, encode_reader_credential

KEY = bytes(range(32))
TOKEN = "sk-svc-sa-unit-test-token-0001"
CREDENTIAL = encode_reader_credential(TOKEN, KEY)
WRITER = base64.b64encode(bytes(32)).decode()


def manifest(**deployments):
    import hashlib

    key_id = "x25519:" + hashlib.sha256(bytes(32)).hexdigest()[:16]
    one = {
        "baseUrl": "http://127.0.0.1:9",
        "accountId": "0a000000-0000-4000-8000-000000000001",
        "serviceAccountId": "0e000000-0000-4000-8000-000000000001",
        "writerKeys": [{"publicKey": WRITER, "keyId": key_id}],
        "records": {"payments/stripe-key": {"recordId": "1c000000-0000-4000-8000-00000000000a"}, "core/ci-token": {"recordId": "1c000000-0000-4000-8000-00000000000b"}},
    }
    return {"version": 1, "serviceAccount": "ci-deployer", "deployments": {name: one for name in deployments} or {"default": one}}


def code(call):
    with pytest.raises(Exception) as refused:
        call()
    return refused.value


def test_a_name_not_granted_is_refused_with_did_you_mean():
    with create_reader(manifest(), CREDENTIAL) as reader:
        error = code(lambda: reader.get("payments/stripe-kye"))
    assert isinstance(error, ManifestError) and error.code == "SECRET_NOT_IN_MANIFEST"
    assert str(error) == (
        'Secret "payments/stripe-kye" is not granted to Service Account ci-deployer in deployment "default" (did you mean "payments/stripe-key"?). '
        "If it should be, the owner of the configuration grants it (grants.serviceAccounts of the record), applies, and writes the manifest again."
    )


def test_deployments_required_and_did_you_mean(monkeypatch):
    monkeypatch.delenv("CPLANE_DEPLOYMENT", raising=False)
    two = manifest(staging=1, prod=1)
    assert code(lambda: create_reader(two, CREDENTIAL)).code == "DEPLOYMENT_REQUIRED"
    error = code(lambda: create_reader(two, CREDENTIAL, deployment="prd"))
    assert error.code == "DEPLOYMENT_NOT_IN_MANIFEST" and '(did you mean "prod"?)' in str(error)
    assert create_reader(two, CREDENTIAL, deployment="prod").deployment == "prod"


def test_a_manifest_missing_or_not_valid(tmp_path, monkeypatch):
    monkeypatch.delenv("CPLANE_MANIFEST", raising=False)
    assert code(lambda: create_reader(None, CREDENTIAL)).code == "MANIFEST_INVALID"
    assert "cannot be read" in str(code(lambda: create_reader(str(tmp_path / "missing.json"), CREDENTIAL)))
    (tmp_path / "bad.json").write_text("{")
    assert "is not JSON" in str(code(lambda: create_reader(str(tmp_path / "bad.json"), CREDENTIAL)))
    wrong = manifest()
    wrong["deployments"]["default"]["writerKeys"][0]["keyId"] = "x25519:0000000000000000"
    assert "a writer key is not {publicKey, keyId}" in str(code(lambda: create_reader(wrong, CREDENTIAL)))


@pytest.mark.parametrize(
    "text,part",
    [
        (None, "is not set"),
        ("cplane-reader-2.a.b.c", "a format this version of cplane_reader does not read"),
        (CREDENTIAL + ".x", "has 5 parts"),
        (CREDENTIAL[:-1] + ("A" if CREDENTIAL[-1] != "A" else "B"), "fails its check"),
    ],
)
def test_a_damaged_credential_names_the_part_never_its_text(text, part, monkeypatch, caplog):
    monkeypatch.delenv("CPLANE_READER", raising=False)
    error = code(lambda: create_reader(manifest(), text))
    assert isinstance(error, ReaderCredentialError) and error.code == "READER_CREDENTIAL_INVALID"
    assert part in str(error)
    for shown in (str(error), repr(error)):
        assert TOKEN not in shown and base64.urlsafe_b64encode(TOKEN.encode()).decode().rstrip("=") not in shown


def test_the_credential_is_in_no_repr_error_or_log(caplog):
    caplog.set_level(logging.DEBUG)
    errors = []
    with create_reader(manifest(), CREDENTIAL, on_error=lambda e, n: errors.append(e)) as reader:
        shown = [repr(reader), repr(reader._client), str(vars(reader))]
        failed = code(lambda: reader.get("payments/stripe-key"))  # nothing listens on port 9
        assert failed.code == "NETWORK_ERROR" and str(failed).startswith('Secret "payments/stripe-key": ')
        reader.refresh()
    for text in [*shown, str(failed), repr(failed), caplog.text, *map(str, errors)]:
        assert TOKEN not in text and CREDENTIAL not in text and KEY.hex() not in text
