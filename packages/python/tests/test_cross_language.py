"""The cross-language vectors the TypeScript writer and reader wrote (test/sdk/reader-vectors.json, from
test/sdk/reader-vectors.ts): the Python reader gives each value, or each error code, as the TypeScript reader does
(test/sdk/reader-vectors.test.ts checks the same file in TypeScript)."""

import base64
import json
from pathlib import Path

import pytest

from cplane_reader import WrapError, decode_reader_credential, encode_reader_credential
from cplane_reader.value import decrypt_as_reader

REPO = Path(__file__).resolve().parents[3]
VECTORS = json.loads((REPO / "test/sdk/reader-vectors.json").read_text())


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["case"] for c in VECTORS["cases"]])
def test_reader_vector(case):
    def read():
        return decrypt_as_reader(
            case["recordId"],
            case["fields"],
            base64.b64decode(case["readerPrivateKey"]),
            [base64.b64decode(k) for k in case["writerKeys"]],
            case["accountId"],
            min_version=case.get("minVersion"),
            reader_id=case["readerId"],
        )

    expect = case["expect"]
    if "code" in expect:
        with pytest.raises(WrapError) as refused:
            read()
        assert refused.value.code == expect["code"]
    else:
        value = read()
        assert {"value": value.value, "version": value.version, "writerKeyId": value.writer_key_id} == expect
        assert expect["value"] not in repr(value)


def test_credentials_decode_and_encode_as_in_typescript():
    assert len(VECTORS["credentials"]) == 2
    for c in VECTORS["credentials"]:
        decoded = decode_reader_credential(c["credential"], "the vector")
        assert decoded.token == c["token"]
        assert base64.b64encode(decoded.private_key).decode() == c["privateKey"]
        assert encode_reader_credential(c["token"], base64.b64decode(c["privateKey"])) == c["credential"]
        assert c["token"] not in repr(decoded) and c["credential"] not in repr(decoded)
