"""The linter, as CI runs it: ruff with the project's rules (pyproject.toml's [tool.ruff])."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.paths import ROOT


def test_ruff_finds_nothing():
    if shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists():
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    r = subprocess.run([ruff, "check", "--no-cache", "mathcheck", "tests", "bench"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1000:]
