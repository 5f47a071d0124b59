r"""Definite integrals in derive (issue 29 item 2): read from LaTeX and the text grammar, decided soundly.

Our own examples: ∫_0^1 x² dx = 1/3, the Gaussian density's mass, ∫_0^∞ e^{−ax} dx = 1/a (true only
for a > 0), the divergent ∫_1^∞ dx/x, an unknown integrand, a bound x beside a free one, symbolic
limits; each true one proved and each planted mistake refuted — and a divergent integral never proved.
"""

from __future__ import annotations

import pytest

from mathcheck import derive, latex
from mathcheck.chains import DeriveError, parse_text
from mathcheck.lazy import sympy as sp
from mathcheck.numeric import floats
from mathcheck.numeric.precise import Diverges, PreciseEvaluator
from mathcheck.parser import ParseError, parse
from mathcheck.render import accounts
from mathcheck.symbolic.integrals import Unsettled, settle

TIMEOUT = 60.0  # per link; the suite runs on a loaded machine


def _status(note: str) -> list[str]:
    chains = latex.chains(note, "n.md", markdown=True)
    return [derive.check_chain(c, seed=0, timeout=TIMEOUT).status for c in chains]


def _report(note: str):
    (c,) = latex.chains(note, "n.md", markdown=True)
    return derive.check_chain(c, seed=0, timeout=TIMEOUT)


# --- reading ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tex, text",
    [
        (r"\int_0^1 x^2 \, dx", "Integral(x^2, (x, 0, 1))"),
        (r"\int_{a}^{b} 2x \,\mathrm{d}x", "Integral(2*x, (x, a, b))"),
        (r"\int^{b}_{a} t\; d t", "Integral(t, (t, a, b))"),
        (r"\int_0^\infty e^{-a x}\, dx", "Integral(exp(-a*x), (x, 0, oo))"),
        (r"\int_{-\infty}^{+\infty} e^{-x^2} \!\, dx", "Integral(exp(-x^2), (x, -oo, oo))"),
        (r"\int\limits_0^1 \theta \, d\theta", "Integral(theta, (theta, 0, 1))"),
        (r"\int_0^1 \operatorname{d}x \cdot 0 + \int_0^1 x_1 \, dx_1", None),  # differential first: refused
        (r"x + \int_0^1 \int_0^2 x y \, dx \, dy", "x + Integral(Integral(x*y, (x, 0, 2)), (y, 0, 1))"),
        (r"\int_0^1 x\,dx \cdot \int_0^1 y\,dy", "Integral(x, (x, 0, 1))*Integral(y, (y, 0, 1))"),
    ],
)
def test_integrals_are_read_into_the_text_grammar(tex, text):
    if text is None:
        with pytest.raises(DeriveError, match="write the differential after the integrand"):
            latex.translate(tex)
        return
    assert latex.translate(tex) == text


@pytest.mark.parametrize(
    "tex, message",
    [
        (r"\int x^2\,dx", r"give limits: .*an indefinite integral is read only with limits"),
        (r"\int_0 x\,dx", r"give limits"),
        (r"\int_0^1 x", r"\\int needs its differential after the integrand"),
        (r"\int_0^1 a\, dx\, dy", r"two differentials for one \\int"),
        (r"\iint_D x\,dA", r"\\iint: double integrals over a region"),
        (r"\oint_C x\,dz", r"\\oint: contour integrals"),
        (r"\infty + 1", r"\\infty: infinity not read"),
    ],
)
def test_what_is_not_read_is_one_line(tex, message):
    with pytest.raises(DeriveError, match=message) as exc:
        latex.translate(tex)
    assert "\n" not in str(exc.value)


def test_text_grammar_integral_binds_its_variable():
    e = parse("Integral(x^2, (x, 0, 1)) + x")
    assert {str(s) for s in e.free_symbols} == {"x"}  # the free x only; the bound one is SymPy's
    assert parse("Integral(exp(-a*x), (x, 0, oo))").limits[0][2] == sp.oo
    for bad, why in [
        ("Integral(x)", "an indefinite integral is read only with limits"),
        ("Integral(x, (x, 0))", "write Integral"),
        ("Integral(x, (x, 0, oo + 1))", "oo is read only as a whole limit"),
        ("Integral(x, (pi, 0, 1))", "plain name"),
    ]:
        with pytest.raises(ParseError, match=why):
            parse(bad)


# --- numeric side: quadrature whose error estimate is part of the value ----------------------------


def test_quadrature_values_and_divergence():
    x = sp.Symbol("x", real=True)
    assert floats.evaluate(sp.Integral(x**2, (x, 0, 1)), {}) == pytest.approx(1 / 3, rel=1e-14)
    hp = PreciseEvaluator({})(sp.Integral(sp.exp(-(x**2)), (x, -sp.oo, sp.oo)))
    assert abs(hp - sp.sqrt(sp.pi).evalf(60)) < 1e-40
    for divergent in (
        sp.Integral(1 / x, (x, 1, sp.oo)),
        sp.Integral(1 / x**2, (x, -1, 1)),
        sp.Integral(sp.exp(x), (x, 0, sp.oo)),
    ):
        with pytest.raises(floats.IntegralUndefined):
            floats.evaluate(divergent, {})
        with pytest.raises(Diverges):
            PreciseEvaluator({})(divergent)


def test_settle_keeps_side_conditions():
    x, a, b = sp.symbols("x a b", real=True)
    assert settle(sp.Integral(2 * x, (x, a, b)), 10.0) == b**2 - a**2
    for unsound, why in [
        (sp.Integral(1 / x, (x, a, b)), "singular at x = 0"),  # log b − log a is false for a < 0 < b
        (sp.Integral(1 / x, (x, -1, 1)), "singular at x = 0"),
        (sp.Integral(1 / x, (x, 1, sp.oo)), "diverges"),
        (sp.Integral(sp.exp(-a * x), (x, 0, sp.oo)), "conditions it cannot settle"),
        (sp.Integral(sp.Function("f")(x), (x, 0, 1)), "unknown function"),
    ]:
        with pytest.raises(Unsettled, match=why):
            settle(unsound, 10.0)


# --- derive: proved, refuted, never proved ----------------------------------------------------------


def test_definite_integrals_proved_and_planted_mistakes_refuted():
    note = "\n\n".join(
        [
            r"$$ \int_0^1 x^2 \, dx = \frac{1}{3} $$",
            r"$$ \int_0^1 x^2 \, dx = \frac{1}{2} $$",  # planted
            r"$$ \int_a^b 2x\,dx = b^2 - a^2 $$",
            r"$$ \int_a^b 2x\,dx = b^2 + a^2 $$",  # planted
            r"$$ x^2 + \int_0^1 x \, dx = x^2 + \frac{1}{2} $$",  # the bound x is not the free x
            r"$$ x^2 + \int_0^1 x \, dx = x^2 + \frac{x}{2} $$",  # planted: read as the free x
        ]
    )
    assert _status(note) == ["proved", "refuted", "proved", "refuted", "proved", "refuted"]


def test_gaussian_density_integrates_to_one():
    note = (
        "$$\n% assume: \\sigma > 0\n\\int_{-\\infty}^{\\infty} \\frac{1}{\\sqrt{2\\pi\\sigma^2}} "
        "e^{-\\frac{(x-\\mu)^2}{2\\sigma^2}} \\, dx = 1\n$$\n\n"
        "$$\n% assume: \\sigma > 0\n\\int_{-\\infty}^{\\infty} \\frac{1}{\\sqrt{\\pi\\sigma^2}} "
        "e^{-\\frac{(x-\\mu)^2}{2\\sigma^2}} \\, dx = 1\n$$\n"
    )
    assert _status(note) == ["proved", "refuted"]


def test_exponential_tail_needs_its_assumption():
    with_a = "$$\n% assume: a > 0\n\\int_0^\\infty e^{-a x}\\, dx = \\frac{1}{a}\n$$\n"
    planted = "$$\n% assume: a > 0\n\\int_0^\\infty e^{-a x}\\, dx = \\frac{2}{a}\n$$\n"
    assert _status(with_a + "\n" + planted) == ["proved", "refuted"]
    r = _report("$$ \\int_0^\\infty e^{-a x}\\, dx = \\frac{1}{a} $$")
    assert r.status == "inconclusive"
    assert "an integral has no value" in accounts.link(r.failing) or "cannot settle" in accounts.link(r.failing)


def test_divergent_integral_is_never_equal_to_a_number():
    r = _report(r"$$ \int_1^\infty \frac{1}{x}\, dx = 1 $$")
    assert r.status != "proved"
    assert "diverges" in accounts.link(r.failing)
    # both sides the same divergent integral: structurally equal, still not proved (no value)
    assert _status(r"$$ \int_1^\infty \frac{1}{x}\, dx = \int_1^\infty \frac{1}{x}\, dx $$") == ["inconclusive"]


def test_interior_singularity_is_not_proved_by_an_antiderivative():
    # SymPy's antiderivative gives log(b) − log(a), false wherever a < 0 < b (the integral diverges)
    assert _status(r"$$ \int_a^b \frac{1}{x}\, dx = \log b - \log a $$") == ["inconclusive"]


def test_unknown_integrand_is_never_proved_for_one_function():
    # ∫_0^1 f = f(x) would be proved if f(x) were one free value (f a constant)
    assert _status(r"$$ \int_0^1 f(x)\, dx = f(x) $$") == ["refuted"]
    r = _report(r"$$ \int_0^1 f(x)\, dx = \int_0^1 f(t)\, dt $$")
    assert r.status == "inconclusive" and "integrated over its own variable" in accounts.link(r.failing)


def test_text_grammar_derivation_file():
    chains = parse_text(
        "## area\n  Integral(x^2, (x, 0, 1))\n= 1/3\n## wrong\n  Integral(x^2, (x, 0, 1))\n= 1/2\n", "t.derivation"
    )
    assert [derive.check_chain(c, seed=0, timeout=TIMEOUT).status for c in chains] == ["proved", "refuted"]


def test_an_approximate_link_with_a_divergent_integral_holds_within_nothing():
    # e^{-ax} over [0, ∞) diverges for a < 0: no error to measure there, so no holds-within
    r = _report(r"$$ \int_0^\infty e^{-a x}\, dx \approx \frac{1}{a} \quad \text{within } 10^{-6} $$")
    assert r.status == "inconclusive" and "an integral has no value" in accounts.link(r.failing)
    ok = _report(
        "$$\n% assume: a > 0\n\\int_0^\\infty e^{-a x}\\, dx \\approx \\frac{1}{a} \\quad \\text{within } 10^{-6}\n$$\n"
    )
    assert ok.status == "holds-within"
