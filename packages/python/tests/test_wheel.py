"""The package builds into a wheel offline (`pip wheel --no-build-isolation --no-deps`, with the setuptools and wheel
the machine has), and `pip install` of that wheel into a fresh virtual environment works, with no index: its one
dependency, `cryptography`, is the machine's (the environment sees the system's packages)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]


def run(args, **kwargs):
    done = subprocess.run(args, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_wheel_builds_offline_and_installs_into_a_fresh_venv(tmp_path):
    missing = [m for m in ("pip", "setuptools", "wheel", "venv") if subprocess.run([sys.executable, "-c", f"import {m}"]).returncode != 0]
    if missing:
        pytest.fail(f"{sys.executable} lacks {', '.join(missing)}: the wheel is built offline with the machine's (Debian: apt-get install python3-pip python3-setuptools python3-wheel python3-venv).")
    # Built from a copy: a build in place leaves build/ and *.egg-info in the repository.
    source = tmp_path / "source"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache", "tests"))
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", str(wheels), str(source)])
    (wheel,) = wheels.glob("cplane_reader-0.1.0-py3-none-any.whl")
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    run([str(venv / "bin" / "pip"), "install", "--no-index", str(wheel)])
    # From a folder outside the repository, so only the installed package can be imported.
    shown = run(
        [str(venv / "bin" / "python"), "-c", "import cplane_reader, cplane_reader.reader; print(cplane_reader.__file__); print(cplane_reader.create_reader.__name__)"],
        cwd=tmp_path,
    )
    assert str(venv) in shown.splitlines()[0]
    assert shown.splitlines()[1] == "create_reader"
    listed = run([str(venv / "bin" / "pip"), "show", "-f", "cplane-reader"], cwd=tmp_path)
    assert "Requires: cryptography" in listed
    assert "cplane_reader/xchacha.py" in listed and "cplane_reader/hpke.py" in listed
