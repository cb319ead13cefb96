#!/usr/bin/env bash
# The Python reader's tests (packages/python), as CI runs them: pytest on a Python 3 that has `cryptography`, pytest,
# and what builds and installs a wheel offline (setuptools, wheel, venv). `python3` on PATH when it has them all,
# else Debian's /usr/bin/python3; when neither does, they are installed with apt-get (as root), and otherwise the run
# fails saying what to install. It never skips. `--setup` only makes sure of the Python (before `npm test`, whose
# test/e2e/python-reader.test.ts runs readers in Python too).
set -euo pipefail
cd "$(dirname "$0")/.."
need='import cryptography, pytest, setuptools, wheel, venv, pip'
packages='python3 python3-cryptography python3-pytest python3-setuptools python3-wheel python3-venv python3-pip'
has() { "$1" -c "$need" >/dev/null 2>&1; }
PYTHON="${PYTHON:-python3}"
if ! has "$PYTHON"; then
  if has /usr/bin/python3; then
    PYTHON=/usr/bin/python3
  elif command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "python-tests: installing $packages with apt-get" >&2
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $packages >/dev/null || { apt-get update >/dev/null && apt-get install -y --no-install-recommends $packages >/dev/null; }
    PYTHON=/usr/bin/python3
  fi
fi
if ! has "$PYTHON"; then
  echo "error: the Python reader's tests need Python 3.10+ with cryptography, pytest, setuptools, wheel, venv and pip, and $PYTHON lacks some." >&2
  echo "Install them (Debian: sudo apt-get install $packages), or set PYTHON to an interpreter that has them." >&2
  exit 1
fi
echo "python-tests: $("$PYTHON" --version) ($PYTHON)" >&2
[ "${1:-}" = --setup ] && exit 0
# pytest's exit code 5 (no tests collected) fails the run like any other.
exec "$PYTHON" -m pytest -q -p no:cacheprovider packages/python
