"""The pytest plugin (entry point ``pytest11: mathcheck``): derivations as regression tests.

    pytest --mathcheck                          # the built-in catalog (and installed plug-ins)
    pytest --mathcheck-from my_claims.py        # a user's claims (a path or a module; repeatable)
    pytest --mathcheck -n auto                  # spread over all cores with pytest-xdist

Each claim becomes two items, ``mathcheck::<id>`` (proved: every step and the numeric check) and
``mathcheck::<id>::mutants`` (every mutant refuted). A failing item reports the failing step or the
counterexample and the command that replays it, not a traceback. pytest loads this module for
every run, so it imports neither SymPy nor torch until a claim item runs.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("mathcheck", "mathcheck: derivations as tests")
    group.addoption("--mathcheck", action="store_true", default=False,
                    help="collect mathcheck's claims (built-in and installed plug-ins) as test items")
    group.addoption("--mathcheck-from", action="append", default=[], metavar="FILE.py|MODULE",
                    help="collect the claims of this file or module as test items (repeatable)")
    group.addoption("--mathcheck-seed", type=int, default=0, help="seed of the numeric checks (default 0)")


class ClaimFailed(Exception):
    """The message is the report; ``repr_failure`` prints it instead of a traceback."""


class ClaimItem(pytest.Item):
    def __init__(self, *, claim_id: str, kind: str, seed: int, spec: str | None, **kw):
        super().__init__(**kw)
        self.claim_id, self.kind, self.seed, self.spec = claim_id, kind, seed, spec
        self.add_marker("mathcheck")

    def runtest(self):
        from mathcheck import engine, registry, testing
        from mathcheck.verify import Options

        entry = registry.entry(self.claim_id)
        options = Options(seed=self.seed)
        suffix = f" --from {self.spec}" if self.spec else ""
        if self.kind == "prove":
            v = engine.prove_entry(entry, options)
            if v.status != "proved":
                raise ClaimFailed(testing.prove_message(v, suffix))
        else:
            r = engine.refute_entry(entry, options)
            if not r.all_refuted:
                raise ClaimFailed(testing.refute_message(r, suffix))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"mathcheck {self.kind} {self.claim_id}"


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


def pytest_configure(config):
    config.addinivalue_line("markers", "mathcheck: a mathcheck claim collected by --mathcheck")


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselection, so they select claim items too
def pytest_collection_modifyitems(session, config, items):
    if not (config.getoption("mathcheck") or config.getoption("mathcheck_from")):
        return
    seed = config.getoption("mathcheck_seed")
    for cid, spec in _wanted(config):
        for kind, name in (("prove", f"mathcheck::{cid}"), ("refute", f"mathcheck::{cid}::mutants")):
            items.append(ClaimItem.from_parent(session, name=name, nodeid=name, claim_id=cid, kind=kind,
                                               seed=seed, spec=spec))
