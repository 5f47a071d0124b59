"""The pytest plugin (entry point ``pytest11: mathcheck``): derivations as regression tests.

    pytest --mathcheck                          # the built-in catalog (and installed plug-ins)
    pytest --mathcheck-from my_claims.py        # a user's claims (a path or a module; repeatable)
    pytest --mathcheck -n auto                  # spread over all cores with pytest-xdist
    pytest --mathcheck-derivations 'docs/**/*.md'   # every ```mathcheck chain (and *.derivation file)

Each claim becomes two items, ``mathcheck::<id>`` (proved: every step and the numeric check) and
``mathcheck::<id>::mutants`` (every mutant refuted); each derivation chain one item,
``derive::<file>::<chain name>``. Claims loaded with ``--mathcheck-from`` are the user's: the
project's own tests (which read the catalog) never see them.

``--mathcheck-derivations`` and ``--mathcheck-from`` run what they name: started in a project's
root without test paths, pytest collects only those items, not the project's whole suite (name
paths as well, ``pytest tests/ --mathcheck-from F``, to run both); ``--collect-only`` counts them.

A failing item reports the failing step or the
counterexample and the command that replays it, not a traceback. pytest loads this module for
every run, so it imports neither SymPy nor torch until a claim item runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

# the one failure of a claim, chain or identity (an AssertionError whose message is the report):
# the plugin's items print it instead of a traceback, mathcheck.testing's assertions raise it
from mathcheck.testing import ClaimFailed

if TYPE_CHECKING:
    from pathlib import Path

    from _pytest._code.code import TerminalRepr  # what Item.repr_failure returns besides a str


def pytest_addoption(parser) -> None:
    group = parser.getgroup("mathcheck", "mathcheck: derivations as tests")
    group.addoption(
        "--mathcheck",
        action="store_true",
        default=False,
        help="collect mathcheck's claims (built-in and installed plug-ins) as test items",
    )
    group.addoption(
        "--mathcheck-from",
        action="append",
        default=[],
        metavar="FILE.py|MODULE",
        help="collect the claims of this file or module as test items (repeatable)",
    )
    group.addoption(
        "--mathcheck-derivations",
        action="append",
        default=[],
        metavar="GLOB",
        help="collect the chains of these derivation files (Markdown ```mathcheck fences, "
        "*.derivation text) as test items, e.g. 'docs/**/*.md' (repeatable)",
    )
    group.addoption("--mathcheck-seed", type=int, default=0, help="seed of the numeric checks (default 0)")


class ClaimItem(pytest.Item):
    def __init__(self, *, claim_id: str, kind: str, seed: int, spec: str | None, **kw):
        super().__init__(**kw)
        self.claim_id, self.kind, self.seed, self.spec = claim_id, kind, seed, spec
        self.add_marker("mathcheck")

    def runtest(self) -> None:
        from mathcheck import engine, outcome, registry, testing
        from mathcheck.verify import Options

        entry = registry.entry(self.claim_id)
        from_ = (self.spec,) if self.spec else ()
        v = engine.verdict(entry, self.kind, Options(seed=self.seed), from_=from_)
        if outcome.exit_code(v.status) != 0:  # the replay line carries the --from file
            raise ClaimFailed((testing.prove_message if self.kind == "prove" else testing.refute_message)(v))

    def repr_failure(self, excinfo, style=None) -> str | TerminalRepr:
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"mathcheck {self.kind} {self.claim_id}"


class DerivationItem(pytest.Item):
    """One chain of a derivation file: passes when every link and its statement are proved."""

    def __init__(self, *, chain, seed: int, **kw):
        super().__init__(**kw)
        self.chain, self.seed = chain, seed
        self.add_marker("mathcheck")

    def runtest(self) -> None:
        import click

        from mathcheck import derive, outcome
        from mathcheck.render import text

        r = derive.check_chain(self.chain, self.seed)
        if outcome.exit_code(r.status) != 0:  # proved, or a ≈ link held within its stated bound
            lines = [click.unstyle(x) for x in text.derive_chain(self.chain.path, r)]
            lines.append(f"    replay: {derive.replay_line([self.chain.path], self.seed)}")
            raise ClaimFailed("\n".join(lines))

    def repr_failure(self, excinfo, style=None) -> str | TerminalRepr:
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, self.chain.line - 1, f"mathcheck derive {self.chain.path}:{self.chain.line}"


def _derivation_files(config) -> tuple[list[str], set[str]]:
    """The files to read, and those only a glob matched (they may hold no chain: most docs do not)."""
    import glob
    import os

    root = str(config.invocation_params.dir)
    files: list[str] = []
    named: set[str] = set()
    for pattern in config.getoption("mathcheck_derivations"):
        found = sorted(glob.glob(os.path.join(root, pattern), recursive=True))
        found = [f for f in found if os.path.isfile(f)]
        if not found:
            raise pytest.UsageError(f"--mathcheck-derivations {pattern!r}: no file matches")
        files += [os.path.relpath(f, root) for f in found if os.path.relpath(f, root) not in files]
        if not glob.has_magic(pattern):
            named |= {os.path.relpath(f, root) for f in found}
    return files, set(files) - named


def _derivation_items(session, config) -> list:
    from mathcheck import chains, derive

    seed = config.getoption("mathcheck_seed")
    try:
        loaded = derive.load(*_derivation_files(config))
    except chains.DeriveError as exc:
        raise pytest.UsageError(str(exc)) from None
    items = []
    for path, found in loaded:
        for chain in found:
            name = f"derive::{path}::{chain.name}"
            items.append(DerivationItem.from_parent(session, name=name, nodeid=name, chain=chain, seed=seed))
    return items


def _wanted(config) -> list[tuple[str, str | None]]:
    """(claim id, the --from spec it came from) for every claim the options ask for."""
    from mathcheck import registry

    out: list[tuple[str, str | None]] = []
    try:
        for spec in config.getoption("mathcheck_from"):
            out += [(cid, spec) for cid in registry.load_from(spec)]
        if config.getoption("mathcheck"):
            out += [(e.id, None) for e in registry.entries(plugins=True)]
    except registry.LoadError as exc:
        raise pytest.UsageError(str(exc)) from None
    seen, unique = set(), []
    for cid, spec in out:
        if cid not in seen:
            seen.add(cid)
            unique.append((cid, spec))
    return unique


def _only_named(config) -> bool:
    """Whether only the named derivations/claims should run: asked for, and no test path given."""
    named = config.getoption("mathcheck_derivations") or config.getoption("mathcheck_from")
    return bool(named) and getattr(config, "args_source", None) != pytest.Config.ArgsSource.ARGS


def pytest_ignore_collect(collection_path, config) -> bool | None:
    if _only_named(config) and collection_path != config.invocation_params.dir:
        return True  # the project's own test files are not collected, not even imported
    return None


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "mathcheck: a mathcheck claim collected by --mathcheck")
    if (config.getoption("mathcheck") or config.getoption("mathcheck_from")) and not hasattr(config, "workerinput"):
        # claims are user code: one that ends this process below Python (ctypes' _exit(0), a crash)
        # would leave pytest's exit status 0 — "all passed". The session goes on in a watched child;
        # an xdist worker that dies that way is already a failure (xdist reports the crashed node).
        from mathcheck.procs import supervise

        capture = config.pluginmanager.getplugin("capturemanager")
        supervise(
            "pytest " + " ".join(config.invocation_params.args),
            code=int(pytest.ExitCode.INTERNAL_ERROR),
            restore=capture.stop_global_capturing if capture else None,
        )


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselection, so they select claim items too
def pytest_collection_modifyitems(session, config, items) -> None:
    before = len(items)
    if config.getoption("mathcheck_derivations"):
        items += _derivation_items(session, config)
    if config.getoption("mathcheck") or config.getoption("mathcheck_from"):
        seed = config.getoption("mathcheck_seed")
        for cid, spec in _wanted(config):
            for kind, name in (("prove", f"mathcheck::{cid}"), ("refute", f"mathcheck::{cid}::mutants")):
                items.append(
                    ClaimItem.from_parent(
                        session, name=name, nodeid=name, claim_id=cid, kind=kind, seed=seed, spec=spec
                    )
                )
    if len(items) > before:  # reported like collected items, so "N tests collected" counts them
        config.hook.pytest_collectreport(report=pytest.CollectReport("mathcheck", "passed", None, list(items[before:])))
