"""The LaTeX reader's differential fuzzer (bench/latex_fuzz.py): SymPy's own ``latex()`` of a random
expression reads back to the same expression — a quick seeded slice here, ≥ 10,000 cases in the bench
(figures in docs/soundness.md)."""

import random
import sys

import sympy as sp
from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import latex_fuzz


def test_a_seeded_slice_reads_back_with_no_mismatch():
    out = latex_fuzz.run(400, seed=28)
    assert out["mismatch"] == 0 and out["crash"] == 0, out["bad"]
    assert out["same"] + out["equal"] >= 0.95 * out["cases"], out  # the reader reads what SymPy prints


def test_the_cases_issue_28_found_read_back():
    """SymPy prints Derivative(x sin x, x) as ``\\frac{d}{d x} x \\sin{…}``: the term after d/dx."""
    x, y = latex_fuzz.SYMBOLS["x"], latex_fuzz.SYMBOLS["y"]
    rng = random.Random(0)
    assert latex_fuzz.compare(sp.Derivative(x * sp.sin(x), x), rng)[0] == "same"
    assert latex_fuzz.compare(sp.root(x, 3) ** 2 + (x / y) ** sp.Rational(1, 2), rng)[0] in ("same", "equal")


def test_a_misreading_is_reported_as_a_mismatch(monkeypatch):
    from mathcheck import latex

    monkeypatch.setattr(latex, "translate", lambda tex, path="<latex>", variables=(): "x^3")
    x = latex_fuzz.SYMBOLS["x"]
    assert latex_fuzz.compare(x**2 + 1, random.Random(1))[0] == "mismatch"


def test_hand_notation_unknown_functions_read_back():
    """Issue 28: ``f\\left(…\\right)``, ``\\operatorname{LSE}\\left(…\\right)``, ``f'\\left(…\\right)`` in
    random trees read back to the same value with one random smooth function for each unknown."""
    out = latex_fuzz.run(40, seed=28, hand=True)
    assert out["mismatch"] == 0 and out["crash"] == 0, out["bad"]
    assert out["equal"] + out["same-unevaluable"] == out["cases"], out


def test_a_misread_unknown_function_is_a_mismatch(monkeypatch):
    from mathcheck import latex

    monkeypatch.setattr(latex, "translate", lambda tex, path="<latex>", variables=(): "f(x + 1)")
    x = latex_fuzz.SYMBOLS["x"]
    assert latex_fuzz.compare_hand(latex_fuzz.UNKNOWN["f"](x), random.Random(1))[0] == "mismatch"
