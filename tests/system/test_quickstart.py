"""The first ten minutes: the README's quick start is what CI runs, and it installs every package
the code and the tests import (issue 33: a green CI once hid IPython, which only the CI machine had).

    README:   pip install torch==2.13.0 && pip install -e '.[test]' && mathcheck prove --all -j 2
              python -m pytest -n auto -q
    .ci/run:  the same two lines, verbatim, in a venv it creates itself, then the same test command
              with `-m slow`.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path
from tests.paths import ROOT

CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def quickstart() -> list[str]:
    """The command lines of the README's quick start (its first ```sh fence)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    fence = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in fence.splitlines() if line.strip()]


def ci_lines() -> list[str]:
    """.ci/run's lines, without comments (a trailing `|| status=$?` stays)."""
    return [line.split("  #")[0].strip() for line in CI.splitlines() if not line.strip().startswith("#")]


def test_the_readme_quick_start_is_two_commands():
    install, test = quickstart()
    assert install.startswith("pip install torch==2.13.0 && ") and "'.[test]'" in install
    assert test.startswith("python -m pytest ")


def test_ci_runs_the_readme_commands_verbatim():
    install, test = quickstart()
    lines = ci_lines()
    assert install in lines, f".ci/run must run the README's install line as written: {install}"
    assert f"{test} || fast=$?" in lines, f".ci/run's test command must be the README's: {test}"
    assert f"{test} -m slow || slow=$?" in lines, (
        ".ci/run must also run the slow sweeps the README's command leaves out"
    )


def test_ci_installs_into_a_fresh_venv_of_its_own():
    lines = ci_lines()
    venv = lines.index("python3 -m venv .ci-venv")
    assert lines[venv - 1] == "rm -rf .ci-venv" and lines[venv + 1] == "source .ci-venv/bin/activate"
    assert venv < lines.index(quickstart()[0]), "the venv must exist before the README's install line runs"
    assert ".ci-venv/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


def _imports(folder: Path) -> set[str]:
    """Top-level names of every module imported anywhere in ``folder``'s .py files (at any depth in
    a file), plus `pytest.importorskip("name")`'s."""
    names = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", "") == "importorskip"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.add(node.args[0].value.split(".")[0])
    return names


def _requirements() -> set[str]:
    """install_requires and the `test` extra of setup.cfg, as normalised distribution names."""
    text = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    names = set()
    for block in re.findall(r"(?:install_requires =|\ntest =)\n((?:    .*\n)+)", text):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                names.add(_normal(re.match(r"[A-Za-z0-9_.-]+", line).group(0)))
    return names


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(names: set[str]) -> set[str]:
    """``names`` and what they require (installed metadata, extras left out)."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_normal(re.match(r"[A-Za-z0-9_.-]+", r).group(0)) for r in requires if "extra ==" not in r]
    return seen


def test_every_package_the_code_and_tests_import_is_installed_by_the_quick_start():
    # ours: the repository's top-level folders, and the tests' and bench's own modules
    local = {p.name for p in ROOT.iterdir() if p.is_dir()} | {
        p.stem for folder in ("tests", "bench") for p in (ROOT / folder).rglob("*.py")
    }
    third_party = (_imports(ROOT / "mathcheck") | _imports(ROOT / "tests")) - set(sys.stdlib_module_names) - local
    providers = metadata.packages_distributions()
    installed = _closure(_requirements())
    missing = {}
    for name in sorted(third_party):
        dists = {_normal(d) for d in providers.get(name, [name])}
        if not dists & installed:
            missing[name] = sorted(dists)
    assert not missing, f"imported but not installed by setup.cfg's install_requires or `test` extra: {missing}"
