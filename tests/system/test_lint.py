"""The linter and the formatter, as CI runs them: ruff with the project's rules (pyproject.toml's
[tool.ruff]): ``ruff check`` and ``ruff format --check``."""

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
    r = subprocess.run(
        [ruff, "check", "--no-cache", "mathcheck", "tests", "bench"], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1000:]


def test_ruff_format_leaves_the_tree_as_it_is():
    """``ruff format --check`` (120 columns; the corpora and fixtures, which are data, excluded)."""
    if shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists():
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    r = subprocess.run([ruff, "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, "run `ruff format .`:\n" + r.stdout[-3000:] + r.stderr[-1000:]
    # and the check can fail: a file laid out by hand is refused
    probe = subprocess.run(
        [ruff, "format", "--check", "--stdin-filename", "mathcheck/lintprobe.py", "-"],
        input="x = {'a':1}\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 1, probe.stdout + probe.stderr


def _ruff_on(source: str, as_path: str) -> subprocess.CompletedProcess:
    """ruff on ``source`` as if it were the file ``as_path`` of the repository (its config applies)."""
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    return subprocess.run(
        [ruff, "check", "--no-cache", "--output-format", "concise", "--stdin-filename", as_path, "-"],
        input=source,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    "as_path, flagged",
    [
        ("mathcheck/lintprobe.py", True),
        ("tests/lintprobe.py", False),
        ("bench/lintprobe.py", False),
        ("examples/lintprobe.py", False),
    ],
)
def test_a_public_function_without_a_return_type_fails_the_lint_in_the_package_only(as_path, flagged):
    """pyproject.toml enforces ANN201 (docs/design.md, "Annotations") on the package; tests, benches
    and examples are ignored."""
    if shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists():
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    r = _ruff_on("def f():\n    return 1\n", as_path)
    assert ("ANN201" in r.stdout) == flagged and (r.returncode == 1) == flagged, r.stdout + r.stderr
    assert _ruff_on("def f() -> int:\n    return 1\n", as_path).returncode == 0


def test_every_package_names_its_public_names_in_all():
    """Each package ``__init__`` has an ``__all__`` (issue 34 item 6), and each name in it is defined
    there, imported there, or one of the package's modules."""
    import ast

    for init in sorted((ROOT / "mathcheck").rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assigned = [
            n
            for n in tree.body
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
        ]
        assert assigned, f"{init.relative_to(ROOT)}: no __all__"
        names = ast.literal_eval(assigned[0].value)
        defined = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        defined |= {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        defined |= {
            (a.asname or a.name).split(".")[0]
            for n in tree.body
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }
        modules = {p.stem for p in init.parent.glob("*.py")} | {
            p.parent.name for p in init.parent.glob("*/__init__.py")
        }
        lazy = "__getattr__" in defined  # a package whose names are imported on first use
        missing = [n for n in names if n not in defined | modules and not lazy]
        assert not missing, f"{init.relative_to(ROOT)}: __all__ names {missing}, which it neither defines nor holds"
