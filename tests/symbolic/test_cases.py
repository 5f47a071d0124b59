"""The provers of the one plan (mathcheck.symbolic.cases, run by decide.by_provers): each proves, and
none proves a falsehood."""

import pytest

from mathcheck.claim import relation
from mathcheck.parser import parse_many
from mathcheck.symbolic import decide as plan

# the provers once the user pipeline's own (case splits, peeled sums, closed forms): the two before
# them (piecewise, special functions) would show some of these first, under another name
CASES = [
    p
    for p in plan.PROVERS
    if p.name not in ("piecewise (Max/Min/Abs by cases)", "special functions in elementary form")
]


def decide(L, R, rel, given=(), seconds=20.0, provers=CASES):
    """How ``given ⇒ L REL R`` was shown by the provers, or None (strict relations: none decides)."""
    if rel in ("<", ">"):
        return None
    e = R - L if rel == "<=" else L - R
    d = plan.by_provers(e, "=" if rel == "=" else ">=", tuple(given), seconds, provers)
    assert d.value is not False  # a prover never refutes
    return d.how if d.value else None


def _decide(lhs, rhs, rel, given=()):
    parsed = parse_many([lhs, rhs] + [x for a, _, b in given for x in (a, b)])
    hyps = [relation(parsed[2 + 2 * k], parsed[3 + 2 * k], r) for k, (_, r, _) in enumerate(given)]
    return decide(parsed[0], parsed[1], rel, hyps, 20.0)


@pytest.mark.parametrize(
    "lhs, rel, rhs, given, how",
    [
        ("relu(x) - relu(-x)", "=", "x", (), "case split on the sign of x (2 regions)"),
        ("max(x, y)", "=", "(x + y + abs(x - y))/2", (), "case split on the sign of x - y (2 regions)"),
        ("abs(x + y)", "<=", "abs(x) + abs(y)", (), "case split on the sign of x, y, x + y (8 regions)"),
        ("Min(x, y)", "<=", "Max(x, y)", (), "case split on the sign of x - y (2 regions)"),
        (
            "Max(x, y)",
            "=",
            "x",
            (("x", ">=", "y"),),
            "case split on the sign of x - y (1 region; 1 excluded by the hypotheses)",
        ),
        (
            "Sum(k^2, (k, 1, j))",
            "=",
            "Sum(k^2, (k, 1, j - 1)) + j^2",
            (),
            "sums peeled to a common range (Karr's convention)",
        ),
        (
            "Sum(x[k], (k, 0, n))",
            "=",
            "x[0] + Sum(x[k], (k, 1, n))",
            (),
            "sums peeled to a common range (Karr's convention)",
        ),
        (
            "Product(x[i], (i, 1, n))*x[n + 1]",
            "=",
            "Product(x[i], (i, 1, n + 1))",
            (),
            "sums peeled to a common range (Karr's convention)",
        ),
        ("Sum(b^k, (k, 0, n))", "=", "(b^(n + 1) - 1)/(b - 1)", (("b", ">", "1"),), "closed form under the hypotheses"),
        ("diff(Sum(exp(x[i]), (i, 1, n)), x[j])", "=", "exp(x[j])", (("1", "<=", "j"), ("j", "<=", "n")), None),
    ],
)
def test_strategies_prove(lhs, rel, rhs, given, how):
    if lhs.startswith("diff"):  # derivatives are taken by the symbolic side before the strategies run
        from mathcheck.numeric.precise import take_derivatives

        parsed = parse_many([lhs, rhs, "1", "j", "j", "n"])
        hyps = [relation(parsed[2], parsed[3], "<="), relation(parsed[4], parsed[5], "<=")]
        assert decide(take_derivatives(parsed[0]), parsed[1], rel, hyps, 20.0) == "closed form under the hypotheses"
        return
    assert _decide(lhs, rhs, rel, given) == how


def test_heaviside_regions_include_the_boundary():
    from mathcheck.numeric.precise import take_derivatives

    L, R = parse_many(["diff(relu(x), x)*x", "relu(x)"])
    assert decide(take_derivatives(L), R, "=", (), 20.0) == "case split on the sign of x (3 regions)"
    L, R = parse_many(["diff(relu(x), x)", "1"])
    # relu has no derivative at 0 (SymPy's H(0) = 1/2 is a convention): that boundary claims nothing
    left_out = "1 boundary left out: a derivative of Max/Min/Abs has no value there"
    assert decide(take_derivatives(L), R, "<=", (), 20.0) == f"case split on the sign of x (2 regions; {left_out})"
    assert decide(take_derivatives(L), R, "=", (), 20.0) is None  # 0 for x < 0


def test_the_derivative_of_max_is_the_indicator_wherever_it_exists():
    # cs231n's ∂max(x, y)/∂x = 1(x >= y), the indicator read as step(x - y) = Heaviside(x - y, 1)
    from mathcheck.numeric.precise import take_derivatives

    L, R = parse_many(["diff(Max(x, y), x)", "step(x - y)"])
    how = "case split on the sign of x - y (2 regions; 1 boundary left out: a derivative of Max/Min/Abs has no value there)"
    assert decide(take_derivatives(L), R, "=", (), 20.0) == how
    L, R = parse_many(["diff(Max(x, y), x)", "step(y - x)"])  # the indicators swapped
    assert decide(take_derivatives(L), R, "=", (), 20.0) is None


@pytest.mark.parametrize(
    "lhs, rel, rhs, given",
    [
        ("Max(x, y)", "=", "x", ()),  # false where y > x
        ("abs(x)", "<=", "x", ()),  # false for x < 0
        ("abs(x - y)", "<=", "abs(x) - abs(y)", ()),  # the reverse triangle inequality, wrong way round
        ("Sum(k, (k, 1, j))", "=", "Sum(k, (k, 1, j - 1)) + j + 1", ()),
        ("Sum(b^k, (k, 0, n))", "=", "(b^(n + 1) - 1)/(b - 1)", ()),  # false at b = 1: no hypothesis
        ("diff(Sum(exp(x[i]), (i, 1, n)), x[j])", "=", "exp(x[j])", ()),  # 0 when j is outside 1..n
        # false at x = 0 only, where the derivative exists (0) and the right side is 1: its boundary stays
        ("diff(Max(x, 0)^2, x)", "=", "2*Max(x, 0) + step(x) - (1 - step(-x))", ()),
        ("step(x) + step(-x)", "=", "1", ()),  # 2 at x = 0
    ],
)
def test_strategies_never_prove_a_falsehood(lhs, rel, rhs, given):
    from mathcheck.numeric.precise import take_derivatives

    L, R = parse_many([lhs, rhs])
    assert decide(take_derivatives(L), R, rel, (), 20.0) is None
    assert decide(take_derivatives(L), R, rel, (), 20.0, provers=None) is None  # every prover
