"""The shared pipeline for the user's expressions: check_relation (the derive helper's entry point),
the torch-free float64 evaluator, hypotheses restricting the points, and one-way layering."""

import ast
import json
import pathlib
import re
import subprocess
import sys

import pytest
import sympy as sp

from mathcheck.parser import parse_many
from mathcheck.userexpr import check_relation
from mathcheck.numeric import floats
from mathcheck.numeric.sampling import sample_points
from mathcheck.render.json import check_result as check_json
from mathcheck.render.text import check_result as check_text
from tests.paths import ROOT

PKG = ROOT / "mathcheck"


def parsed(a, b, assume=None):
    return parse_many([a, b], assume)


def sym(e, name):
    return next(s for s in e.free_symbols if s.name == name)


@pytest.mark.parametrize(
    "a, rel, b, assume, status",
    [
        ("x*(x + 1)", "=", "x**2 + x", None, "proved"),
        ("x^2 + 1", ">=", "2*x", None, "proved"),
        ("exp(x)", ">=", "1 + x", None, "proved"),
        ("log(x)", "<=", "x - 1", {"x": ("positive",)}, "proved"),
        ("x", "<=", "x^2", None, "refuted"),  # fails for 0 < x < 1
        ("x^2", "<", "x^2", None, "refuted"),  # equal is not less
        ("sin(x)", ">", "1", None, "refuted"),
        ("tanh(x)", "=", "2*sigmoid(x) - 1", None, "refuted"),
    ],
)
def test_check_relation_decides_each_relation(a, rel, b, assume, status):
    L, R = parsed(a, b, assume)
    r = check_relation(L, R, rel, assume or {})
    assert r.status == status, check_text(r)
    assert r.relation == rel and r.how
    if status == "refuted":
        assert r.counterexample and r.values
    else:
        assert r.counterexample is None
    assert r.evaluator == floats.NAME  # no diff: torch is not needed
    report = check_json(r)
    assert {"status", "how", "counterexample", "evaluator", "relation"} <= set(report)
    json.dumps(report)


def test_hypotheses_restrict_the_points():
    L, R = parsed("x", "x^2")
    x = sym(L, "x")
    r = check_relation(L, R, "<=", {}, given=(x > 1,))
    assert r.status == "inconclusive"  # true under x > 1; the checker's sign rules cannot use it yet
    assert r.numeric.status == "passed" and r.numeric.points >= 10
    assert r.given == ("x > 1",)
    r = check_relation(L, sp.Integer(0), "<", {}, given=(x > 0,))
    assert r.status == "refuted" and r.counterexample["x"] > 0  # the counterexample meets the hypothesis
    for p in sample_points((L,), 0, 10, (x > 1, x < 2)):
        assert 1 < p[x] < 2


def test_a_counterexample_found_without_the_hypotheses_is_not_trusted():
    L, R = parsed("x^2", "x")
    x = sym(L, "x")
    r = check_relation(L, R, ">=", {}, given=(x >= 1,))
    assert r.status != "refuted", check_text(r)


def test_diff_uses_torch_autograd_and_says_so():
    L, R = parsed("diff(x^3, x)", "3*x^2")
    r = check_relation(L, R, "=", {})
    assert r.status == "proved" and "autograd" in r.evaluator and r.numeric.evaluator == r.evaluator


def test_bad_relation_or_sides_are_bad_input():
    L, R = parsed("x", "x")
    assert check_relation(L, R, "!=", {}).status == "bad-input"
    assert check_relation("x", R, "=", {}).status == "bad-input"


def test_same_seed_same_result():
    L, R = parsed("x", "x^2")
    a, b = check_relation(L, R, "<=", {}, seed=4), check_relation(L, R, "<=", {}, seed=4)
    assert check_json(a, timings=False) == check_json(b, timings=False)


def test_scalar_check_never_imports_torch():
    code = (
        "import sys; from mathcheck.usercheck import check; "
        "r = check('sin(x)^2 + cos(x)^2', '1'); print(r.status, r.evaluator, 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["proved", "float64", "(Python", "math)", "False"]


def test_float_evaluator_agrees_with_sympy():
    (L,) = parse_many(
        ["erf(x) + gamma(y) + atan2(x, y) + Max(x, y) + Sum(k*x, (k, 1, n))"], {"y": ("positive",), "n": ("positive",)}
    )
    env = {sym(L, "x"): 0.3, sym(L, "y"): 1.7, sym(L, "n"): 4}
    exact = float(
        L.subs({sym(L, "x"): sp.Rational(3, 10), sym(L, "y"): sp.Rational(17, 10), sym(L, "n"): 4}).doit().evalf(30)
    )
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
    """userexpr imports neither the CLI nor the user-facing facade nor verify/; torch only through the
    numeric kernel's torch backend, which imports nothing of mathcheck above the values layer."""
    for path in (PKG / "userexpr").glob("*.py"):
        mods = _imports(path)
        assert not {m for m in mods if m in ("mathcheck.cli", "mathcheck.usercheck")}, path
        assert "torch" not in {m.split(".")[0] for m in mods}, path
        assert not {m for m in mods if m.startswith("mathcheck.verify")}, path
    for name in ("expressions.py", "evaluate.py", "floats.py", "sampling.py", "construct.py", "holds.py"):
        above = {
            m
            for m in _imports(PKG / "numeric" / name)
            if m.startswith("mathcheck.")
            and not m.startswith(
                ("mathcheck.numeric", "mathcheck.claim", "mathcheck.relations", "mathcheck.lazy", "mathcheck.budget")
            )
        }
        assert not above, (name, above)


# --- each function of the grammar, on every numeric side --------------------------------------------

FUNCTIONS = [  # (true identity, assumptions, false one)
    ("cosh(x)^2 - sinh(x)^2", "1", None, "cosh(x)^2 + sinh(x)^2", "1"),
    ("tanh(x)", "sinh(x)/cosh(x)", None, "tanh(x)", "cosh(x)/sinh(x)"),
    ("asinh(x)", "log(x + sqrt(x^2 + 1))", None, "asinh(x)", "log(x + sqrt(x^2 - 1))"),
    ("acosh(x)", "log(x + sqrt(x^2 - 1))", {"x": ("positive",)}, "acosh(x)", "log(x + sqrt(x^2 + 1))"),
    ("tanh(atanh(x/(1 + x^2)))", "x/(1 + x^2)", None, "atanh(x)", "atan(x)"),
    ("sin(asin(x))", "x", None, "asin(x)", "acos(x)"),
    ("cos(acos(x))", "x", None, "acos(x)", "pi/2 + asin(x)"),
    ("tan(atan(x))", "x", None, "atan(x)", "atan(1/x)"),
    ("atan2(y, x)", "atan(y/x)", {"x": ("positive",)}, "atan2(y, x)", "atan(x/y)"),
    ("cot(x)", "cos(x)/sin(x)", None, "cot(x)", "sin(x)/cos(x)"),
    ("sec(x)^2", "1 + tan(x)^2", None, "sec(x)", "1/sin(x)"),
    ("csc(x)^2", "1 + cot(x)^2", None, "csc(x)^2", "1 + tan(x)^2"),
    ("erf(x) + erfc(x)", "1", None, "erf(x)", "1 - erf(x)"),
    ("erfc(-x)", "2 - erfc(x)", None, "erfc(-x)", "erfc(x)"),
    ("gamma(x + 1)", "x*gamma(x)", {"x": ("positive",)}, "gamma(x + 1)", "gamma(x)"),
    ("lgamma(x + 1)", "log(x) + lgamma(x)", {"x": ("positive",)}, "lgamma(x)", "log(gamma(x + 1))"),
    ("softplus(x) - softplus(-x)", "x", None, "softplus(x)", "log(1 + exp(-x))"),
    ("logsumexp(a + c, b + c)", "c + logsumexp(a, b)", None, "logsumexp(a, b)", "Max(a, b)"),
    ("Max(x, 0)", "(x + Abs(x))/2", None, "Max(x, 0)", "Abs(x)"),
    ("relu(x) - relu(-x)", "x", None, "relu(x)", "Min(x, 0)"),
    ("Min(x, y)", "-Max(-x, -y)", None, "Min(x, y)", "Max(-x, -y)"),
    ("0.1*x + 0.2*x", "0.3*x", None, "0.1 + 0.2", "0.30000000000000004"),
    ("diff(erf(x), x)", "2*exp(-x^2)/sqrt(pi)", None, "diff(erfc(x), x)", "2*exp(-x^2)/sqrt(pi)"),
    ("diff(softplus(x), x)", "sigmoid(x)", None, "diff(softplus(x), x)", "sigmoid(-x)"),
    ("diff(acosh(x), x)", "1/sqrt(x^2 - 1)", {"x": ("positive",)}, "diff(asinh(x), x)", "1/sqrt(x^2 - 1)"),
]


@pytest.mark.parametrize("a, b, assume, fa, fb", FUNCTIONS)
def test_each_function_true_proved_false_refuted(a, b, assume, fa, fb):
    from mathcheck.usercheck import check

    good = check(a, b, assume)
    assert good.status == "proved", check_text(good)
    bad = check(fa, fb, assume)
    assert bad.status == "refuted", check_text(bad)
    assert bad.counterexample is not None


EVALUABLE = [
    "sinh(x)",
    "cosh(x)",
    "tanh(x)",
    "asinh(x)",
    "acosh(x + 2)",
    "atanh(x/4)",
    "asin(x/4)",
    "acos(x/4)",
    "atan(x)",
    "atan2(x, y)",
    "cot(x)",
    "sec(x)",
    "csc(x)",
    "erf(x)",
    "erfc(x)",
    "gamma(x)",
    "lgamma(y)",
    "softplus(x)",
    "logsumexp(x, y, 1)",
    "Max(x, y)",
    "Min(x, y, 0)",
    "relu(x)",
    "0.125*x",
    "factorial(n) + binomial(n, 2)",
    "factorial(x)",
    "binomial(x, 2)",
    "Sum(x^k, (k, 0, n))",
]


@pytest.mark.parametrize("text", EVALUABLE)
def test_float64_torch_and_50_digits_agree_on_each_function(text):
    from mathcheck.numeric import evaluate as torch_backend
    from mathcheck.numeric.precise import hp_value

    assume = {
        k: v for k, v in {"y": ("positive",), "n": ("nonnegative", "integer")}.items() if re.search(rf"\b{k}\b", text)
    }
    (e,) = parse_many([text], assume)
    for point in sample_points((e,), 3, 6):
        exact = hp_value(e, point)
        if not exact.is_real:
            continue
        f = floats.evaluate(e, point)
        t = torch_backend.evaluator(point)(e)
        assert f == pytest.approx(float(exact), rel=1e-12, abs=1e-12), point
        assert t == pytest.approx(float(exact), rel=1e-9, abs=1e-12), point


def test_the_forked_child_answers_fails_or_is_killed_on_time():
    import time

    from mathcheck.userexpr import child

    assert child.join(child.start(lambda: {"a": 1}), 30) == ("ok", {"a": 1})
    state, message = child.join(child.start(lambda: 1 / 0), 30)
    assert state == "error" and message.startswith("ZeroDivisionError")
    state, message = child.join(child.start(lambda: object()), 30)  # answers are JSON data, never pickles
    assert state == "error" and message.startswith("a result that is not plain data")
    start = time.monotonic()
    assert child.join(child.start(lambda: time.sleep(30)), 0.5) == ("timeout", None)
    assert time.monotonic() - start < 5
    proc = child.start(lambda: time.sleep(30))
    child.kill(proc)  # returns at once, the child reaped


# --- the float64 evaluator against 50 digits on random formulas of the grammar ------------------------

from hypothesis import HealthCheck, given as hgiven, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

UNARY = [
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "cot",
    "sinh",
    "cosh",
    "tanh",
    "asin",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "gamma",
    "Abs",
    "sigmoid",
    "softplus",
    "relu",
]
LEAVES = st.sampled_from(["x", "y", "2", "0.5", "pi", "3"])


def _formula(children):
    return st.one_of(
        st.tuples(st.sampled_from(UNARY), children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(children, st.sampled_from(["2", "3", "-1", "0.5"])).map(lambda t: f"({t[0]})^{t[1]}"),
        st.tuples(st.sampled_from(["Max", "Min", "logsumexp", "atan2"]), children, children).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
    )


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@hgiven(st.recursive(LEAVES, _formula, max_leaves=6), st.integers(0, 1000))
def test_float64_agrees_with_50_digits_wherever_both_are_real(text, seed):
    from mathcheck.parser import ParseError
    from mathcheck.numeric.precise import hp_value

    try:
        (e,) = parse_many([text])
    except ParseError:
        return
    for point in sample_points((e,), seed, 3):
        try:
            f = floats.evaluate(e, point)
        except floats.Undefined:
            continue
        exact = hp_value(e, point)
        if not (exact.is_number and exact.is_real and exact.is_finite):
            continue
        assert f == pytest.approx(float(exact), rel=1e-9, abs=1e-9), (text, point)


def test_one_sampler_meets_an_equation_hypothesis_exactly():
    """given Σ y_j = 1: random points never meet it; the numeric kernel's constructive draw does, and
    every point kept satisfies it exactly (a 50-digit confirmation must not see an off-manifold point)."""
    from mathcheck.claim import relation
    from mathcheck.numeric.sampling import satisfies

    e, s, one = parse_many(["y[k]*c", "Sum(y[j], (j, 1, n))", "1"], {"y": ("positive",)})
    given = (relation(s, one, "="),)
    pts = sample_points((e,), 0, 24, given)
    assert len(pts) == 24 and all(satisfies(given, p) for p in pts)
    assert sample_points((e,), 0, 24, given) == pts  # seeded


def test_a_check_with_no_point_says_so():
    from mathcheck.userexpr.float_side import numeric

    lhs, rhs = parse_many(["log(-1 - x^2)", "0"])
    out = numeric(lhs, rhs)
    assert out["status"] == "inconclusive" and out["points"] == 0 and out["skipped"] == 24
    assert out["note"].startswith("0 points: a side has no real value at all 24 points drawn")


def test_a_side_without_a_tensor_stays_float64_and_an_unconfirmable_disagreement_is_not_a_pass():
    from mathcheck.claim import relation
    from mathcheck.userexpr.float_side import numeric

    L, R, one, j, j2, D = parse_many(
        ["diff(Sum(x[i], (i, 1, D))/D, x[j])", "1/D", "1", "j", "j", "D"], {"D": ("positive", "integer")}
    )
    hyps = (relation(one, j, "<="), relation(j2, D, "<="))
    good = numeric(L, R, "=", 0, 24, hyps)
    assert good["status"] == "passed" and good["max_abs_err"] == 0.0  # 1/3 in float64, not float32
    bad = numeric(L, parse_many(["1"])[0], "=", 0, 24, hyps)
    assert bad["status"] == "refuted" and bad["values"]["lhs"] != bad["values"]["rhs"]
