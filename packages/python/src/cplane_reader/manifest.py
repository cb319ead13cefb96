"""The reader manifest (docs/sdk.md): the public file that says, per deployment, the API's base URL, the account,
the Service Account's id, the writer keys to trust and each record by its `project/record` name. Checked as
packages/sdk/src/manifest.ts checks it; what the API answers never changes it."""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import ManifestError
from .value import key_id_of

MANIFEST_VERSION = 1
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass(frozen=True)
class Deployment:
    name: str
    base_url: str
    account_id: str
    service_account_id: str | None
    writer_keys: list[bytes]
    records: dict[str, dict[str, Any]]


def load_manifest(source: str | dict, where: str | None = None) -> dict:
    """The manifest at a path, or the parsed object, checked; `where` names it in errors."""
    if not isinstance(source, str):
        return check_manifest(source, where or "given")
    where = where or source
    try:
        with open(source, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        code = getattr(error, "strerror", None) and type(error).__name__
        raise ManifestError(
            "MANIFEST_INVALID",
            f"The reader manifest {where} cannot be read ({code or 'error'}): check the path (CPLANE_MANIFEST, or the manifest option).",
        ) from None
    try:
        parsed = json.loads(text)
    except ValueError:
        raise ManifestError("MANIFEST_INVALID", f"The reader manifest {where} is not JSON: write it again with `cplane reader-manifest`.") from None
    return check_manifest(parsed, where)


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def check_manifest(value: Any, where: str) -> dict:
    def invalid(problem: str) -> ManifestError:
        return ManifestError("MANIFEST_INVALID", f"The reader manifest {where} is not valid: {problem}. Write it again with `cplane reader-manifest`.")

    if not isinstance(value, dict):
        raise invalid("it is not a JSON object")
    if value.get("version") != MANIFEST_VERSION or isinstance(value.get("version"), bool):
        raise invalid(f"its version is {json.dumps(value.get('version'))}, and this version of cplane_reader reads version {MANIFEST_VERSION} (upgrade cplane_reader for a newer one)")
    if not isinstance(value.get("serviceAccount"), str):
        raise invalid("serviceAccount is not a string")
    if not isinstance(value.get("deployments"), dict):
        raise invalid("deployments is not an object")
    for name, deployment in value["deployments"].items():
        at = f'deployment "{name}"'
        if not isinstance(deployment, dict):
            raise invalid(f"{at} is not an object")
        if not isinstance(deployment.get("baseUrl"), str) or not re.match(r"^https?://", deployment["baseUrl"]):
            raise invalid(f"{at}: baseUrl is not an http(s) URL")
        if not isinstance(deployment.get("accountId"), str) or not _UUID.match(deployment["accountId"]):
            raise invalid(f"{at}: accountId is not a uuid")
        sa = deployment.get("serviceAccountId")
        if sa is not None and (not isinstance(sa, str) or not _UUID.match(sa)):
            raise invalid(f"{at}: serviceAccountId is not a uuid")
        keys = deployment.get("writerKeys")
        if not isinstance(keys, list) or not keys:
            raise invalid(f"{at}: writerKeys is not a list of writer keys")
        for key in keys:
            raw = _b64(key["publicKey"]) if isinstance(key, dict) and isinstance(key.get("publicKey"), str) else None
            if raw is None or len(raw) != 32 or key.get("keyId") != key_id_of(raw):
                raise invalid(f"{at}: a writer key is not {{publicKey, keyId}} of a 32-byte X25519 public key")
        records = deployment.get("records")
        if not isinstance(records, dict):
            raise invalid(f"{at}: records is not an object")
        for secret, record in records.items():
            if not isinstance(record, dict) or not isinstance(record.get("recordId"), str) or not _UUID.match(record["recordId"]):
                raise invalid(f'{at}: record "{secret}" has no recordId uuid')
    return value


def manifest_deployment(manifest: dict, name: str | None, where: str) -> Deployment:
    """The deployment named (else the only one), or why there is none."""
    names = list(manifest["deployments"].keys())
    if not name:
        if len(names) != 1:
            raise ManifestError(
                "DEPLOYMENT_REQUIRED",
                f"The reader manifest {where} has {len(names)} deployments ({', '.join(names) or 'none'}) and none was named: set CPLANE_DEPLOYMENT (or the deployment option) to the one this application runs in.",
            )
        name = names[0]
    elif name not in manifest["deployments"]:
        raise ManifestError(
            "DEPLOYMENT_NOT_IN_MANIFEST",
            f'Deployment "{name}" is not in the reader manifest {where}{did_you_mean(name, names)}; it has {", ".join(names) or "none"}. Check CPLANE_DEPLOYMENT, or ask the owner of the configuration for a manifest written with that deployment (`--all` or `--deployment {name}`).',
        )
    d = manifest["deployments"][name]
    return Deployment(
        name=name,
        base_url=d["baseUrl"],
        account_id=d["accountId"],
        service_account_id=d.get("serviceAccountId"),
        writer_keys=[base64.b64decode(k["publicKey"]) for k in d["writerKeys"]],
        records=d["records"],
    )


def manifest_record(manifest: dict, deployment: Deployment, secret: str) -> dict:
    """The record of a secret's name, or SECRET_NOT_IN_MANIFEST with a "did you mean"."""
    record = deployment.records.get(secret) if isinstance(secret, str) else None
    if record is None:
        raise ManifestError(
            "SECRET_NOT_IN_MANIFEST",
            f'Secret "{secret}" is not granted to Service Account {manifest["serviceAccount"]} in deployment "{deployment.name}"{did_you_mean(str(secret), list(deployment.records))}. If it should be, the owner of the configuration grants it (grants.serviceAccounts of the record), applies, and writes the manifest again.',
        )
    return record


def did_you_mean(name: str, names: list[str]) -> str:
    """` (did you mean "x"?)` for the closest name at most 3 edits away (fewer for a short one), as the SDK chooses it."""
    best: tuple[str, int] | None = None
    limit = min(3, max(1, len(name) // 4))
    for candidate in names:
        distance = _edit_distance(name, candidate)
        if distance <= limit and (best is None or distance < best[1]):
            best = (candidate, distance)
    return f' (did you mean "{best[0]}"?)' if best else ""


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i]
        for j in range(1, len(b) + 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (0 if a[i - 1] == b[j - 1] else 1)))
        previous = current
    return previous[len(b)]
