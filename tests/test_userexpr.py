"""The shared pipeline for the user's expressions: check_relation (the derive helper's entry point),
the torch-free float64 evaluator, hypotheses restricting the points, and one-way layering."""

import ast
import json
import pathlib
import subprocess
import sys

import pytest
import sympy as sp

from mathcheck.parser import parse_many
from mathcheck.userexpr import check_relation
from mathcheck.userexpr import floats
from mathcheck.userexpr.points import sample_points

PKG = pathlib.Path(__file__).resolve().parents[1] / "mathcheck"


def parsed(a, b, assume=None):
    return parse_many([a, b], assume)


def sym(e, name):
    return next(s for s in e.free_symbols if s.name == name)


@pytest.mark.parametrize("a, rel, b, assume, status", [
    ("x*(x + 1)", "=", "x**2 + x", None, "proved"),
    ("x^2 + 1", ">=", "2*x", None, "proved"),
    ("exp(x)", ">=", "1 + x", None, "proved"),
    ("log(x)", "<=", "x - 1", {"x": ("positive",)}, "proved"),
    ("x", "<=", "x^2", None, "refuted"),              # fails for 0 < x < 1
    ("x^2", "<", "x^2", None, "refuted"),             # equal is not less
    ("sin(x)", ">", "1", None, "refuted"),
    ("tanh(x)", "=", "2*sigmoid(x) - 1", None, "refuted"),
])
def test_check_relation_decides_each_relation(a, rel, b, assume, status):
    L, R = parsed(a, b, assume)
    r = check_relation(L, R, rel, assume or {})
    assert r.status == status, r.lines()
    assert r.relation == rel and r.how
    if status == "refuted":
        assert r.counterexample and r.values
    else:
        assert r.counterexample is None
    assert r.evaluator == floats.NAME  # no diff: torch is not needed
    report = r.to_json()
    assert {"status", "how", "counterexample", "evaluator", "relation"} <= set(report)
    json.dumps(report)


def test_hypotheses_restrict_the_points():
    L, R = parsed("x", "x^2")
    x = sym(L, "x")
    r = check_relation(L, R, "<=", {}, given=(x > 1,))
    assert r.status == "inconclusive"  # true under x > 1; the checker's sign rules cannot use it yet
    assert r.numeric["status"] == "passed" and r.numeric["points"] >= 10
    assert r.given == ("x > 1",)
    r = check_relation(L, sp.Integer(0), "<", {}, given=(x > 0,))
    assert r.status == "refuted" and r.counterexample["x"] > 0  # the counterexample meets the hypothesis
    for p in sample_points((L,), 0, 10, (x > 1, x < 2)):
        assert 1 < p[x] < 2


def test_a_counterexample_found_without_the_hypotheses_is_not_trusted():
    L, R = parsed("x^2", "x")
    x = sym(L, "x")
    r = check_relation(L, R, ">=", {}, given=(x >= 1,))
    assert r.status != "refuted", r.lines()


def test_diff_uses_torch_autograd_and_says_so():
    L, R = parsed("diff(x^3, x)", "3*x^2")
    r = check_relation(L, R, "=", {})
    assert r.status == "proved" and "autograd" in r.evaluator and r.numeric["evaluator"] == r.evaluator


def test_bad_relation_or_sides_are_bad_input():
    L, R = parsed("x", "x")
    assert check_relation(L, R, "!=", {}).status == "bad-input"
    assert check_relation("x", R, "=", {}).status == "bad-input"


def test_same_seed_same_result():
    L, R = parsed("x", "x^2")
    a, b = check_relation(L, R, "<=", {}, seed=4), check_relation(L, R, "<=", {}, seed=4)
    assert a.to_json(timings=False) == b.to_json(timings=False)


def test_scalar_check_never_imports_torch():
    code = ("import sys; from mathcheck.usercheck import check; "
            "r = check('sin(x)^2 + cos(x)^2', '1'); print(r.status, r.evaluator, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["proved", "float64", "(Python", "math)", "False"]


def test_float_evaluator_agrees_with_sympy():
    L, = parse_many(["exp(x) + factorial(y) + Abs(x - y) + Sum(k*x, (k, 1, n))"],
                    {"y": ("positive",), "n": ("positive",)})
    env = {sym(L, "x"): 0.3, sym(L, "y"): 1.7, sym(L, "n"): 4}
    exact = float(L.subs({sym(L, "x"): sp.Rational(3, 10), sym(L, "y"): sp.Rational(17, 10),
                          sym(L, "n"): 4}).doit().evalf(30))
    assert floats.evaluate(L, env) == pytest.approx(exact, rel=1e-14)
    (u,) = parse_many(["log(x)"])
    with pytest.raises(floats.Undefined):
        floats.evaluate(u, {sym(u, "x"): -1.0})


def _imports(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_userexpr_is_one_layer_below_the_cli():
    """userexpr imports neither the CLI nor the user-facing facade; usercheck imports it one way."""
    for path in (PKG / "userexpr").glob("*.py"):
        mods = _imports(path)
        assert not {m for m in mods if m in ("mathcheck.cli", "mathcheck.usercheck", "mathcheck.verify.user")}, path
        if path.name != "autograd.py":
            assert "torch" not in {m.split(".")[0] for m in mods}, path
    assert "mathcheck.usercheck" not in _imports(PKG / "verify" / "user.py")
