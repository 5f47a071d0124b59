"""The numeric kernel, module by module: the function table, the walker and its three backends, the
reader of hypotheses and the independent evaluator (holds), the constructive draw, the sampler, the
tolerance model — and the rule that adding a grammar function is one table entry."""

import ast
import dataclasses
import math
import random
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
import torch

from mathcheck.claim import Context
from mathcheck.numeric import construct, floats, functions, holds, sampling, tolerance
from mathcheck.numeric.evaluate import Evaluator, Indexed, evaluate, evaluator
from mathcheck.numeric.precise import PreciseEvaluator, hp_value
from mathcheck.numeric.expressions import Walker, loop_reduce
from mathcheck.parser import ParseError, parse, parse_many
from tests.paths import ROOT

PKG = ROOT / "mathcheck"


def _three(e, point):
    """``e`` at ``point`` by the float, torch and mpmath backends."""
    return (floats.evaluate(e, point), evaluator(point)(e), float(PreciseEvaluator(point)(e)))


# --- the table ---------------------------------------------------------------------------------------


def test_every_function_class_has_all_three_implementations():
    for f in functions.TABLE:
        assert f.build is not None or not f.grammar, f.name
        if f.sympy:
            assert f.math and f.torch and f.mpmath, f.name
            assert isinstance(f.cls(), type), f.name


def test_names_aliases_and_latex_words_come_from_the_table():
    assert functions.lookup("abs").name == "Abs" and functions.lookup("max").name == "Max"
    assert functions.lookup("sign") is None  # evaluated, not callable
    assert "softsign" in functions.names()
    assert functions.latex_words()["ln"] == "log"


@pytest.mark.parametrize("f", [f for f in functions.entries() if f.arity == (1,)], ids=lambda f: f.name)
def test_every_unary_entry_parses_and_evaluates_on_every_backend(f):
    e = parse(f"{f.name}(x)")
    (x,) = e.free_symbols
    point = {x: 0.75 if f.name != "acosh" else 1.5}
    a, t, m = _three(e, point)
    assert a == pytest.approx(m, rel=1e-13, abs=1e-15) and t == pytest.approx(m, rel=1e-12, abs=1e-15)


# --- softsign, the real example ---------------------------------------------------------------------


def test_softsign_is_built_from_abs():
    x = sp.Symbol("x", real=True)
    assert parse("softsign(x)") == x / (1 + sp.Abs(x))


def test_softsign_end_to_end():
    from mathcheck.usercheck import check

    good = check("softsign(x)", "x/(1+Abs(x))")
    assert good.status == "proved", good.lines()
    bad = check("softsign(x)", "x/(1+x)")
    assert bad.status == "refuted" and bad.counterexample is not None, bad.lines()


def test_softsign_on_the_command_line():
    from click.testing import CliRunner

    from mathcheck.cli import main

    r = CliRunner().invoke(main, ["check", "softsign(x)", "x/(1+Abs(x))"])
    assert r.exit_code == 0 and r.output.startswith("proved"), r.output


# --- one entry is enough -----------------------------------------------------------------------------


def _sinc_math(x):
    return math.sin(x) / x if x else 1.0


def _sinc_torch(x):
    return torch.where(x == 0, torch.ones_like(x), torch.sin(x) / x)


SINC = functions.Function(
    "sinc",
    build=lambda x: sp.sinc(x),
    doc="sin(x)/x, 1 at 0",
    sympy="sinc",
    math=_sinc_math,
    torch=_sinc_torch,
    mpmath=mpmath.sinc,
)
TWICE = functions.Function("twice", build=lambda x: 2 * x, doc="2x")


@pytest.fixture
def one_more_entry(monkeypatch):
    monkeypatch.setattr(functions, "TABLE", functions.TABLE + (SINC, TWICE))


def test_without_the_entry_the_name_is_unknown():
    with pytest.raises(ParseError, match="unknown function 'sinc'"):
        parse("sinc(x)")


def test_a_new_entry_reaches_the_parser_and_all_three_backends(one_more_entry):
    e = parse("sinc(x) + twice(x)")
    (x,) = e.free_symbols
    assert e == sp.sinc(x) + 2 * x
    a, t, m = _three(e, {x: 0.5})
    assert a == pytest.approx(math.sin(0.5) / 0.5 + 1.0, rel=1e-15)
    assert t == pytest.approx(a, rel=1e-15) and m == pytest.approx(a, rel=1e-15)
    with pytest.raises(ParseError, match="sinc takes one argument"):
        parse("sinc(x, y)")


def test_a_new_entry_reaches_the_check_pipeline(one_more_entry):
    from mathcheck.usercheck import check

    assert check("twice(x)", "x + x").status == "proved"
    bad = check("sinc(x)", "cos(x)/x")
    assert bad.status == "refuted", bad.lines()
    good = check("sinc(x)", "sin(x)/x", {"x": ("positive",)})
    assert good.status != "refuted" and good.numeric.status == "passed", good.lines()


def test_a_new_entry_is_one_table_entry_and_nothing_else(one_more_entry):
    """No backend keeps a list of its own: a table with the entry replaced is seen at once."""
    assert SINC.cls() in functions.implementations("math")
    patched = dataclasses.replace(SINC, math=lambda x: 42.0)
    functions.TABLE = functions.TABLE[:-2] + (patched, TWICE)
    x = sp.Symbol("x")
    assert floats.evaluate(sp.sinc(x), {x: 0.5}) == 42.0


# --- the walkers agree ---------------------------------------------------------------------------

AGREE = [
    "sigmoid(x) - softplus(y)",
    "factorial(n) + binomial(n, 2)",
    "Sum(x^k/factorial(k), (k, 0, n))",
    "atan2(x, y) * Max(x, y, 0)",
    "logsumexp(x, y) - Min(x, 1)",
    "gamma(y) + lgamma(y)",
    "softsign(x*y) + erf(x) - erfc(y)",
]


@pytest.mark.parametrize("text", AGREE)
def test_the_three_backends_agree(text):
    (e,) = parse_many([text], {"y": ("positive",), "n": ("nonnegative", "integer")}, unused_ok=True)
    for point in sampling.sample_points((e,), 1, 5):
        exact = float(hp_value(e, point))
        a, t, m = _three(e, point)
        assert m == pytest.approx(exact, rel=1e-14, abs=1e-300)
        assert a == pytest.approx(m, rel=1e-12, abs=1e-12) and t == pytest.approx(m, rel=1e-9, abs=1e-12)


def test_the_torch_walker_broadcasts_sums_and_differentiates():
    z, k, n, x = sp.IndexedBase("z"), sp.Symbol("k", integer=True), sp.Symbol("n"), sp.Symbol("x")
    zz = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    v = Evaluator({n: 3, z: zz})(sp.Sum(sp.exp(z[k]), (k, 1, n)))
    assert float(v) == pytest.approx(float(zz.exp().sum()))
    d = Evaluator({x: torch.tensor([0.1, 0.2], dtype=torch.float64)})(sp.Derivative(sp.sin(x) ** 2, x))
    assert torch.allclose(d, torch.sin(2 * torch.tensor([0.1, 0.2], dtype=torch.float64)))


def test_checked_indices_refuse_instead_of_wrapping():
    from mathcheck.numeric.evaluate import EvaluationError, Indexed

    z = sp.IndexedBase("z")
    env = {z: Indexed(torch.zeros(3, dtype=torch.float64))}
    assert float(Evaluator(env)(z[0])) == 0.0  # torch's wrap-around: z[-1]
    with pytest.raises(EvaluationError, match="outside"):
        Evaluator(env, checked_indices=True)(z[0])


def test_undefined_is_a_skipped_point_in_floats():
    x = sp.Symbol("x")
    with pytest.raises(floats.Undefined):
        floats.evaluate(sp.log(x), {x: -1.0})
    with pytest.raises(floats.Undefined):
        floats.evaluate(sp.gamma(x), {x: -2.0})


def test_factorial_is_exact_at_integers_on_every_backend():
    n = sp.Symbol("n", integer=True)
    e = sp.factorial(n)
    assert floats.evaluate(e, {n: 20}) == float(math.factorial(20))
    assert evaluator({n: 20})(e) == float(math.factorial(20))


# --- the one walker --------------------------------------------------------------------------------


class _Exact:
    """A backend of exact fractions, the whole protocol a number system supplies to the walker."""

    kind, error, missing, table = "fraction", ValueError, "no value for {}", {}

    def run(self, walker, e):
        return walker.ev(e)

    def number(self, e):
        if not e.is_Rational:
            raise ValueError(f"not exact: {e}")
        return Fraction(int(e.p), int(e.q))

    def value(self, v):
        return Fraction(v)

    def index(self, v):
        return int(v)

    def entry(self, walker, e):
        return Fraction(sampling.lookup(walker.env[e.base], [self.index(walker.ev(i)) for i in e.indices]))

    def add(self, values):
        return sum(values, Fraction(0))

    def mul(self, values):
        return math.prod(values, start=Fraction(1))

    def pow(self, base, ex, e):
        return base ** int(ex)

    def reduce(self, walker, e):
        return loop_reduce(walker, e.function, e.limits, isinstance(e, sp.Product))

    def term(self, v):
        return v

    fsum, prod = add, mul

    def delta(self, a, b):
        return Fraction(a == b)

    def piecewise(self, walker, e):
        return walker.piecewise(e)

    def derivative(self, walker, e):
        raise ValueError("no derivatives")

    matrix = other = call = derivative


def test_a_number_system_is_a_backend_and_nothing_else():
    n, k = sp.Symbol("n", integer=True), sp.Symbol("k", integer=True)
    x, z = sp.Symbol("x"), sp.IndexedBase("z")
    e = sp.Sum(k**2 * z[k], (k, 1, n)) / 3 + sp.Product(k, (k, 1, 3)) * sp.KroneckerDelta(n, 2) + x
    zs = list(range(sampling.SPAN))  # z[i] = i − OFFSET: z[1] = 9, z[2] = 10
    point = {n: 2, x: Fraction(1, 7), z: zs}
    assert Walker(_Exact(), point)(e) == Fraction(1 * 9 + 4 * 10, 3) + 6 + Fraction(1, 7)


def test_karr_reversed_ranges_on_every_backend():
    """Σ_{k=a}^{b} = −Σ_{b+1}^{a−1} and Π_{k=a}^{b} = 1/Π_{b+1}^{a−1} for b < a, as SymPy's doit."""
    k, x = sp.Symbol("k", integer=True), sp.Symbol("x")
    sums = [sp.Sum(k * x, (k, 5, 2)), sp.Sum(k * x, (k, 3, 2)), sp.Sum(sp.Sum(k, (k, 1, 4)) * x, (k, 2, 1))]
    for e in sums:
        want = float(e.doit().subs(x, 0.5))
        assert floats.evaluate(e, {x: 0.5}) == want
        assert float(PreciseEvaluator({x: 0.5})(e)) == want
        assert evaluator({x: 0.5})(e) == want
    for e in (sp.Product(k + x, (k, 5, 2)), sp.Product(k + x, (k, 3, 2))):
        want = float(e.doit().subs(x, 0.5))
        assert floats.evaluate(e, {x: 0.5}) == pytest.approx(want, rel=1e-15)
        assert float(PreciseEvaluator({x: 0.5})(e)) == pytest.approx(want, rel=1e-15)


def test_piecewise_takes_the_first_branch_that_holds_exactly():
    x = sp.Symbol("x")
    e = sp.Piecewise((x, x > 0), (-2 * x, True))
    assert floats.evaluate(e, {x: -0.25}) == 0.5 and float(PreciseEvaluator({x: -0.25})(e)) == 0.5
    with pytest.raises(floats.Undefined, match="no branch"):
        floats.evaluate(sp.Piecewise((x, x > 0)), {x: -1.0})


def test_the_walk_is_written_once():
    """The backends supply operations; only the walker (and the bounded evaluator, whose every node
    yields a value and its bound) walks a tree."""
    for name in ("floats.py", "evaluate.py", "precise.py"):
        tree = ast.parse((PKG / "numeric" / name).read_text())
        defs = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert "ev" not in defs and "pair" not in defs, name


def test_the_float_backend_never_imports_torch():
    code = (
        "import sys; import sympy as sp; from mathcheck.numeric import floats; x = sp.Symbol('x'); "
        "assert floats.evaluate(sp.exp(x) + sp.Sum(x, (x, 1, 3)), {x: 0.0}) == 7.0; "
        "assert 'torch' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- reading hypotheses, the independent evaluator ---------------------------------------------------


def test_ranges_read_both_bounds_and_move_strict_ones_by_one():
    j = sp.Symbol("j", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    assert holds.ranges((sp.And(sp.Le(1, j), sp.Le(j, n)),)) == {j: (1, n)}
    assert holds.ranges((sp.Lt(0, j), sp.Lt(j, n))) == {j: (1, n - 1)}
    assert holds.ranges((sp.Le(1, j),)) == {}  # bounded on one side only: no range


def test_is_definition_is_a_quantified_equation_of_an_entry():
    s, f = sp.IndexedBase("s"), sp.IndexedBase("f")
    j, x = sp.Symbol("j", integer=True), sp.Symbol("x")
    assert holds.is_definition(sp.Eq(s[j], sp.exp(f[j])))
    assert not holds.is_definition(sp.Eq(s[1], 2))  # one entry: a fact, not a definition
    assert not holds.is_definition(sp.Eq(s[j], 2), point={j: 1})  # j is set at the point
    assert not holds.is_definition(sp.Eq(x, 2))


def test_holds_at_is_three_valued_and_answers_plain_booleans():
    x = sp.Symbol("x", real=True)
    at = {x: sp.Rational(3, 2)}
    assert holds.holds_at(sp.Ge(x**2, 0), (), at) is True
    assert holds.holds_at(sp.Eq(x**2, x), (), at) is False
    assert holds.holds_at(sp.Eq(x, x), (sp.Lt(x, 0),), at) is None  # the point violates the hypothesis
    assert holds.holds_at(sp.Eq(sp.Function("g")(x), 1), (), at) is None  # an undefined function
    # 50 digits tell apart what agrees to 1e-30 (the tolerance is 10^-(digits − 8) relative)
    close = sp.Eq(x + sp.Rational(1, 10**30), x, evaluate=False)
    assert holds.holds_at(close, (), at) is False
    assert holds.holds_at(close, (), at, dps=30) is True


def test_the_constructive_draw_meets_a_normalisation_and_an_order():
    p, i = sp.IndexedBase("p", positive=True), sp.Symbol("i", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    z = sp.IndexedBase("z", real=True)
    hyps = (sp.Eq(sp.Sum(p[i], (i, 1, n)), 1), z[1] > z[2])
    pts = construct.constructed_points([sp.Sum(p[i] * z[i], (i, 1, n)) + z[1] + z[2]], hyps, Context(), 10, seed=0)
    assert len(pts) == 10
    for pt in pts:
        assert sum(pt[p[k]] for k in range(1, pt[n] + 1)) == 1 and pt[z[1]] > pt[z[2]]
        assert all(holds.hypothesis_holds(h, pt) for h in hyps)
    assert (
        construct.constructed_points([sp.Sum(p[i] * z[i], (i, 1, n)) + z[1] + z[2]], hyps, Context(), 10, seed=0) == pts
    )
    sized = construct.constructed_points([sp.Sum(p[i], (i, 1, n))], hyps[:1], Context(), 3, sizes={"n": 5})
    assert {pt[n] for pt in sized} == {5}
    assert construct.smallest_size(n) == 1 and construct.smallest_size(sp.Symbol("m", integer=True)) == -3


# --- the sampler -----------------------------------------------------------------------------------


def test_the_sampler_honours_a_normalisation():
    y, j = sp.IndexedBase("y", positive=True), sp.Symbol("j", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    given = (sp.Eq(sp.Sum(y[j], (j, 1, n)), 1),)
    exprs = (sp.Sum(y[j] ** 2, (j, 1, n)),)
    rng = random.Random(0)  # random points never meet it: every point kept is a constructed one
    scalars, bases, dims = sampling.variables(*exprs, *given)
    assert not any(sampling.satisfies(given, sampling._random_point(scalars, bases, dims, rng, k)) for k in range(480))
    pts = sampling.sample_points(exprs, seed=0, count=12, given=given)
    assert len(pts) == 12 and all(sampling.satisfies(given, p) for p in pts)
    for p in pts:  # exactly, in the floats the evaluators read
        assert sum(sp.Rational(sampling.lookup(p[y], [k])) for k in range(1, p[n] + 1)) == 1
    assert sampling.sample_points(exprs, seed=0, count=12, given=given) == pts


def test_the_sampler_honours_an_order():
    x, y = sp.symbols("x y", real=True)
    given = (x > y,)
    pts = sampling.sample_points((x - y,), seed=4, count=20, given=given)
    assert len(pts) == 20 and all(p[x] > p[y] for p in pts)


# --- the tolerance model ----------------------------------------------------------------------------


def test_derived_tolerances():
    e64, e32 = 2.0**-52, 2.0**-23
    assert tolerance.unit(torch.float64) == e64 and tolerance.unit(torch.float32) == e32
    assert tolerance.rounding_bound(e64, 8, 1.0) == 9 * e64
    assert tolerance.derived_tolerance(8, 1.0, e64, e64) == 4 * 18 * e64
    assert tolerance.derived_tolerance(8, 1.0, e32, e64) == pytest.approx(4 * 9 * (e32 + e64))
    assert tolerance.library_tolerance(64, torch.float64) == 16 * 64 * e64


def test_the_fixed_tolerances_are_named_here_only():
    """A fixed tolerance is a named constant of numeric/tolerance.py, never a literal at a call site."""
    fixed = {1e-30, 1e-12, 1e-10, 1e-9}
    for rel in (
        "userexpr/float_side.py",
        "userexpr/relation.py",
        "userexpr/symbolic_side.py",
        "numeric/precise.py",
        "numeric/sampling.py",
        "verify/generic.py",
        "verify/linear_algebra.py",
        "conform/property.py",
    ):
        literals = {
            n.value
            for n in ast.walk(ast.parse((PKG / rel).read_text()))
            if isinstance(n, ast.Constant) and isinstance(n.value, float)
        }
        assert not literals & fixed, (rel, literals & fixed)


# --- layering ---------------------------------------------------------------------------------------


def test_numeric_imports_only_the_values_layer():
    """numeric sits below symbolic (and verify, userexpr, conform, render, engine): it imports none of them."""
    allowed = ("mathcheck.numeric", "mathcheck.claim", "mathcheck.relations", "mathcheck.lazy", "mathcheck.budget")
    for path in (PKG / "numeric").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):  # module- and function-level imports
            mods = (
                [node.module]
                if isinstance(node, ast.ImportFrom) and node.module
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for m in mods:
                if m.startswith("mathcheck"):
                    assert m.startswith(allowed), (path.name, m)


# --- the one symbol binder (numeric/symbols.py) ---------------------------------------------------


def _free_symbols_binder(e) -> dict:
    """The binder the checks used to copy (issue 34): ``free_symbols`` by name."""
    return {s.name: s for s in e.free_symbols if isinstance(s, sp.Symbol)}


def test_binder_binds_a_bound_variable_that_free_symbols_misses():
    """∂/∂x_j Σ_j x_j² = 2x_j: SymPy counts the j of ``Derivative(·, x[j])`` as bound, so a check
    binding by ``free_symbols`` leaves j unbound and cannot evaluate the left side at j."""
    from mathcheck.numeric.symbols import bind, by_name

    x, j, n = sp.IndexedBase("x"), sp.Symbol("j", integer=True), sp.Symbol("n", integer=True)
    eq = sp.Eq(sp.Derivative(sp.Sum(x[j] ** 2, (j, 1, n)), x[j]), 2 * x[j], evaluate=False)
    assert "j" not in _free_symbols_binder(eq.lhs)  # the old binder's bug
    assert by_name(eq.lhs)["j"] is j and by_name(eq.lhs)["x"] is x
    xs = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    env = bind(eq, x=Indexed(xs, 1), n=3, j=2)
    lhs, rhs = (float(evaluate(side, env, dtype=torch.float64).detach()) for side in (eq.lhs, eq.rhs))
    assert lhs == rhs == -4.0
    old = {s: v for s, v in env.items() if s in _free_symbols_binder(eq.lhs).values() or s == x}
    with pytest.raises(Exception):  # the old binding leaves j without a value
        evaluate(eq.lhs, old, dtype=torch.float64)


def test_binder_sees_no_label_as_a_plain_symbol_and_binds_every_object_of_a_name():
    """``atoms(Symbol)`` returns z[i]'s label z as a plain symbol; the binder does not, and a name
    written both plain and as a base (``w`` and ``w[i]``) binds both."""
    from mathcheck.numeric.symbols import bind, by_name, written

    z, w, i = sp.IndexedBase("z"), sp.IndexedBase("w"), sp.Symbol("i", integer=True)
    assert sp.Symbol("z") in z[i].atoms(sp.Symbol) and [str(s) for s in written(z[i])] == ["i", "z"]
    plain_w = sp.Symbol("w")
    assert set(bind(plain_w + w[i], w=1.0)) == {plain_w, w}
    assert by_name(plain_w + w[i])["w"] is w and by_name(plain_w + w[i], kind=sp.Symbol)["w"] is plain_w


def test_binder_doctests():
    import doctest

    from mathcheck.numeric import symbols

    assert doctest.testmod(symbols).failed == 0
