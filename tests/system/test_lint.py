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


def test_every_package_names_its_public_names_in_all():
    """Each package ``__init__`` has an ``__all__`` (issue 34 item 6), and each name in it is defined
    there, imported there, or one of the package's modules."""
    import ast

    for init in sorted((ROOT / "mathcheck").rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assigned = [n for n in tree.body if isinstance(n, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
        assert assigned, f"{init.relative_to(ROOT)}: no __all__"
        names = ast.literal_eval(assigned[0].value)
        defined = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        defined |= {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        defined |= {(a.asname or a.name).split(".")[0] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                    for a in n.names}
        modules = {p.stem for p in init.parent.glob("*.py")} | {p.parent.name for p in init.parent.glob("*/__init__.py")}
        lazy = "__getattr__" in defined  # a package whose names are imported on first use
        missing = [n for n in names if n not in defined | modules and not lazy]
        assert not missing, f"{init.relative_to(ROOT)}: __all__ names {missing}, which it neither defines nor holds"
