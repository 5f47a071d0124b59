"""The layering of mathcheck, read from its import graph (module- and function-level imports).

Layers, top down (docs/design.md): faces → commands and render → derivations, verify, the user's
expressions → the symbolic kernel → the numeric kernel → values. A module may import its own layer or a
lower one, never a higher one, and the graph has no circle. Every import statement counts, at any
depth in the file (``def f(): from mathcheck.render import …`` is an edge like any other).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from tests.paths import ROOT

PKG = ROOT / "mathcheck"

#: Module prefix → layer (higher imports lower). The longest matching prefix wins.
LAYERS = {
    # the package root is a face: under IPython it registers the notebook display (render/)
    "mathcheck": 5,
    # values
    "mathcheck.version": 0,
    "mathcheck.claim": 0,
    "mathcheck.verdict": 0,
    "mathcheck.outcome": 0,
    "mathcheck.lazy": 0,
    "mathcheck.budget": 0,
    "mathcheck.relations": 0,
    "mathcheck.cache_dir": 0,
    "mathcheck.procs": 0,
    # the kernels: numeric (evaluation, sampling, tolerances), then symbolic (the step checker, which
    # draws its counterexamples through numeric's sampler)
    "mathcheck.numeric": 1,
    "mathcheck.symbolic": 2,
    # what the claims and the user's expressions are made of
    "mathcheck.registry": 3,
    "mathcheck.audit": 3,
    "mathcheck.derivations": 3,
    "mathcheck.verify": 3,
    "mathcheck.userexpr": 3,
    "mathcheck.parser": 3,
    "mathcheck.latex": 3,
    "mathcheck.chains": 3,
    # commands and renderers
    "mathcheck.engine": 4,
    "mathcheck.derive": 4,
    "mathcheck.book": 4,
    "mathcheck.conform": 4,
    "mathcheck.model": 4,
    "mathcheck.writeup": 4,
    "mathcheck.render": 4,
    "mathcheck.cache": 4,
    "mathcheck.serial": 4,
    # faces
    "mathcheck.cli": 5,
    "mathcheck.__main__": 5,
    "mathcheck.pytest_plugin": 5,
    "mathcheck.testing": 5,
    "mathcheck.usercheck": 5,
}
NAMES = {
    0: "values",
    1: "numeric kernel",
    2: "symbolic kernel",
    3: "claims and user expressions",
    4: "commands",
    5: "faces",
}


def modules(pkg: Path) -> dict[str, Path]:
    out = {}
    for f in pkg.rglob("*.py"):
        parts = list(f.relative_to(pkg.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


def imports(pkg: Path) -> dict[str, dict[str, int]]:
    """Module → {imported module of the package: line of the first import}."""
    mods = modules(pkg)

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {m: {} for m in mods}
    for m, f in mods.items():
        is_pkg = f.name == "__init__.py"
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = m.split(".") if is_pkg else m.split(".")[:-1]
                    here = here[: len(here) - (node.level - 1)]
                    base = ".".join(here + ([base] if base else []))
                # `from a import b` imports module a.b when it is one, else a name of a
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                r = resolve(t)
                if r and r != m:
                    graph[m].setdefault(r, node.lineno)
    return graph


def layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def cycles(graph: dict[str, dict]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def upward(graph: dict[str, dict[str, int]]) -> list[str]:
    return [
        f"{m} ({NAMES[layer(m)]}) imports {t} ({NAMES[layer(t)]}) at line {line}"
        for m, targets in sorted(graph.items())
        for t, line in sorted(targets.items())
        if layer(t) > layer(m) and not (m.startswith(t + ".") or m == t)
    ]


GRAPH = imports(PKG)


def test_every_module_has_a_layer():
    assert all(layer(m) in NAMES for m in GRAPH)
    assert len(GRAPH) > 60  # the walk found the package, not an empty folder


def test_no_import_circle():
    assert cycles(GRAPH) == []


def test_no_module_imports_a_higher_layer():
    assert upward(GRAPH) == []


@pytest.mark.parametrize(
    "low, high",
    [
        ("mathcheck.numeric", "mathcheck.verify"),
        ("mathcheck.numeric", "mathcheck.userexpr"),
        ("mathcheck.numeric", "mathcheck.conform"),
        ("mathcheck.numeric", "mathcheck.symbolic"),
        ("mathcheck.claim", "mathcheck.render"),
        ("mathcheck.verdict", "mathcheck.render"),
    ],
)
def test_named_boundaries(low, high):
    bad = [
        (m, t)
        for m, ts in GRAPH.items()
        if m == low or m.startswith(low + ".")
        for t in ts
        if t == high or t.startswith(high + ".")
    ]
    assert bad == []


def test_renderers_import_no_pipeline():
    """``render/`` prints what the commands computed: it imports no user pipeline (``userexpr``) and no
    command that computes (issue 34: ``check --file``'s totals were counted by the renderer through
    ``userexpr.batch``; ``derive``'s hypotheses, notes, definitions and per-file counts were read by
    the renderers through ``mathcheck.derive``, now values of its report). The HTML page reads the
    author's LaTeX with ``latex/`` to show it as written."""
    graph = imports(PKG)
    bad = [
        f"{m} imports {t} at line {line}"
        for m, targets in sorted(graph.items())
        if m.startswith("mathcheck.render")
        for t, line in targets.items()
        if t.startswith(PIPELINES)
    ]
    assert bad == []


PIPELINES = (
    "mathcheck.userexpr",
    "mathcheck.verify",
    "mathcheck.conform",
    "mathcheck.model",
    "mathcheck.engine",
    "mathcheck.derive",
)


@pytest.mark.parametrize("package", ["derivations", "symbolic"])
def test_never_imports_torch(package):
    found = []
    for f in (PKG / package).rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{f.name}:{node.lineno}" for n in names if n.split(".")[0] == "torch"]
    assert found == []


def test_the_checks_can_fail(tmp_path):
    """A planted circle and a planted upward import are both found (function-level included)."""
    pkg = tmp_path / "mathcheck"
    (pkg / "render").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "render" / "__init__.py").write_text("")
    (pkg / "claim.py").write_text("def show():\n    from mathcheck.render import text\n")
    (pkg / "render" / "text.py").write_text("from mathcheck.claim import show\n")
    graph = imports(pkg)
    assert cycles(graph) == [["mathcheck.claim", "mathcheck.render.text"]]
    assert upward(graph) == ["mathcheck.claim (values) imports mathcheck.render.text (commands) at line 2"]


# --- start-up and strings ---------------------------------------------------------------------


def test_derivations_import_sympy_lazily():
    for path in (PKG / "derivations").glob("*.py"):
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in top:
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            assert not (mod or "").startswith("sympy"), f"{path.name} imports sympy at module level"


def _imported_at_startup(*args: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mathcheck", *args], capture_output=True, text=True, check=True
    )
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


def test_no_module_is_named_like_a_package_of_mathcheck():
    """``userexpr/symbolic.py`` once shadowed ``mathcheck.symbolic`` (issue 34): a reader of
    ``from mathcheck.userexpr import symbolic`` could not tell which was meant. ``render/latex.py``
    (the LaTeX renderer beside the ``latex/`` reader) is the one left, named here so a new one fails."""
    root = ROOT / "mathcheck"
    packages = {p.parent.name for p in root.rglob("__init__.py") if p.parent != root}
    shadowing = sorted(str(m.relative_to(root)) for m in root.rglob("*.py") if m.stem in packages)
    assert shadowing == ["render/latex.py"], shadowing
