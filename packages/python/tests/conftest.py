import sys
from pathlib import Path

# The tests run against the source tree (`python3 -m pytest packages/python`); the wheel test installs the built one.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
