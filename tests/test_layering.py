"""The project's layering rules, checked on the code itself."""

import ast
import pathlib
import subprocess
import sys

PKG = pathlib.Path(__file__).resolve().parents[1] / "mathcheck"


def imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_derivations_never_import_torch():
    for path in (PKG / "derivations").glob("*.py"):
        assert "torch" not in imported_modules(path), path


def test_derivations_import_sympy_lazily():
    for path in (PKG / "derivations").glob("*.py"):
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in top:
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            assert not (mod or "").startswith("sympy"), f"{path.name} imports sympy at module level"


def _imported_at_startup(*args: str) -> set[str]:
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "mathcheck", *args],
                         capture_output=True, text=True, check=True)
    return {line.split("|")[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}


def test_help_and_list_import_neither_sympy_nor_torch():
    for args in (["--help"], ["list"], ["list", "--json"]):
        mods = _imported_at_startup(*args)
        assert "click" in mods  # the probe sees imports at all
        assert "sympy" not in mods, args
        assert "torch" not in mods, args


def test_no_eval_of_strings_in_the_package():
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec"), f"{path}:{node.lineno}"
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("sympify", "parse_expr"):
                assert False, f"{path}:{node.lineno} calls {node.func.attr}"
