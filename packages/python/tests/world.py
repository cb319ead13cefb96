"""The end-to-end arrangement for the Python reader, as test/e2e/helpers.ts makes it for TypeScript: the real
emulator (`cplane emulator --port 0`) and the real CLI (`cplane apply`, `reader-manifest`, `reader-credential`) as
subprocesses of the repository's build, and a lying proxy in front of the emulator (as test/helpers/lying-proxy.ts)
that forwards every request and may answer something else: a compromised API server."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

import pytest

REPO = Path(__file__).resolve().parents[3]
CLI = REPO / "bin" / "cplane.js"
STATE_KEY = base64.b64encode(bytes([9] * 32)).decode()


def require_build() -> None:
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH: the end-to-end tests run the real emulator and CLI (Node 20.19 or later).")
    if not (REPO / "dist" / "bundle" / "cplane.cjs").exists():
        pytest.fail("The CLI is not built (dist/bundle/cplane.cjs is missing): run `npm run build` in the repository first.")


def fixtures() -> dict:
    out = subprocess.run(["node", str(CLI), "emulator", "--print-fixtures"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


class World:
    """An emulator on a random port and a configuration folder in a temp dir, with the CLI as its operator."""

    def __init__(self) -> None:
        require_build()
        self.temp = Path(tempfile.mkdtemp(prefix="cplane-py-e2e-"))
        self.dir = self.temp / "infra"
        self.dir.mkdir()
        self.fixtures = fixtures()
        self.emulator = subprocess.Popen(
            ["node", str(CLI), "emulator", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={"PATH": os.environ["PATH"], "HOME": str(self.temp), "NO_COLOR": "1"},
        )
        self.url = self.emulator.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.url
        self.acme = self.fixtures["accounts"][0]["id"]
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.temp),
            "XDG_CONFIG_HOME": str(self.temp / "config"),
            "CPLANE_BASE_URL": self.url,
            "CPLANE_TOKEN": self.fixtures["tokens"]["admin"],
            "CPLANE_ACCOUNT": self.acme,
            "CPLANE_STATE_KEY": STATE_KEY,
            "NO_COLOR": "1",
        }

    def config(self, yaml: str) -> None:
        (self.dir / "main.yaml").write_text(yaml)

    def cli(self, args: list[str], env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(["node", str(CLI), *args], capture_output=True, text=True, cwd=self.temp, env={**self.env, **(env or {})}, input=stdin)

    def apply(self, env: dict) -> None:
        done = self.cli(["apply", str(self.dir), "--auto-approve"], env)
        assert done.returncode == 0, done.stderr

    def manifest(self) -> dict:
        done = self.cli(["reader-manifest", "ci-deployer", str(self.dir)])
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def ci_deployer(self) -> dict:
        return next(s for s in self.fixtures["serviceAccounts"] if s["name"] == "ci-deployer")

    def credential(self) -> str:
        """CPLANE_READER for ci-deployer, made by `cplane reader-credential` (the key on stdin)."""
        done = self.cli(
            ["reader-credential", "--token-env", "SA_TOKEN"],
            {"SA_TOKEN": self.fixtures["tokens"]["serviceAccount"]},
            stdin=self.ci_deployer()["privateKey"],
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def writer_seed(self) -> bytes:
        """cplane's writer key seed, the state key's `writer key` subkey (src/crypto/state-key.ts deriveSubkey: HKDF-SHA256, no salt)."""
        prk = hmac.new(bytes(32), base64.b64decode(STATE_KEY), hashlib.sha256).digest()
        return hmac.new(prk, b"cplane state writer key v1\x01", hashlib.sha256).digest()

    def close(self) -> None:
        self.emulator.terminate()
        self.emulator.wait()
        shutil.rmtree(self.temp, ignore_errors=True)


Lie = Callable[[str, str, dict], "dict | None"]


class LyingProxy:
    """Forwards to `upstream`; `lie(method, path, answer_json)` may return another answer to send instead. Counts requests."""

    def __init__(self, upstream: str) -> None:
        self.lie: Lie | None = None
        self.requests: list[tuple[str, str]] = []
        target = urllib.parse.urlsplit(upstream)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
                upstream_conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
                upstream_conn.request(self.command, self.path, body=body, headers=headers)
                answer = upstream_conn.getresponse()
                text = answer.read()
                request_id = answer.getheader("x-request-id") or ""
                upstream_conn.close()
                path = self.path.split("?")[0]
                proxy.requests.append((self.command, path))
                lie = proxy.lie
                if lie is not None and text:
                    replaced = lie(self.command, path, json.loads(text))
                    if replaced is not None:
                        text = json.dumps(replaced).encode()
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(text)))
                self.send_header("x-request-id", request_id)
                self.end_headers()
                self.wfile.write(text)

            do_GET = _forward
            do_POST = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def through(manifest: dict, url: str) -> dict:
    """The manifest with its one deployment's base URL pointed at `url` (the proxy)."""
    (name, deployment), = manifest["deployments"].items()
    return {**manifest, "deployments": {name: {**deployment, "baseUrl": url}}}
