"""Every worked example in a docstring of mathcheck/ runs and prints what it says (``>>>`` lines; a
``# doctest: +SKIP`` example is one that needs a long check or a file, and says so). An example that
drifted from its code — ``measured_tolerance`` after the accumulation floor, ``formulas``' softmax
after the sum's bound became a symbol — is a wrong statement in the docs, so it fails here."""

from __future__ import annotations

import doctest
import importlib

import pytest
from tests.paths import ROOT

MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for p in (ROOT / "mathcheck").rglob("*.py")
    if p.name != "__main__.py"
)


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_hold(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name):
        runner.run(test)
    failed, tried = runner.summarize(verbose=False)
    assert failed == 0, f"{name}: {failed} of {tried} docstring examples fail (python -m doctest -v {name})"


def test_a_wrong_example_fails():
    """The runner reports a drifted example (so the test above can fail)."""
    runner = doctest.DocTestRunner()
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "probe", "probe.py", 0)
    runner.run(test, out=lambda s: None)
    assert runner.summarize(verbose=False).failed == 1
