"""Laws as their authors write them (issue 29): p(x, z), p(z | x), q(z), E_q[…], KL(q(z) ‖ p(z | x)).

Each rule of symbolic/laws.py is tested with its side condition met (proved) and not met (left
inconclusive, never proved); the numeric side (numeric/laws.py) refutes a wrong identity with the
drawn laws printed. The identities are textbook ones (the chain rule, Bayes' rule, Kingma & Welling's
log p(x) = ELBO + KL), in our own wording.
"""

from __future__ import annotations

import pytest

from mathcheck import derive
from mathcheck.chains import parse_text
from mathcheck.lazy import sympy as sp
from mathcheck.numeric import laws as numeric_laws
from mathcheck.numeric.distributions import Facts
from mathcheck.parser import ParseError, parse_many
from mathcheck.symbolic import laws
from mathcheck.userexpr.probability import FactError, is_fact, read_facts

TIMEOUT = 120.0
JOINT = "assume: p(x, z), q(z) laws\n"
POSITIVE = "assume: p(x, z) > 0; q(z) > 0\n"


def _one(text: str, seed: int = 0):
    (c,) = parse_text(text, "t.derivation")
    return derive.check_chain(c, seed=seed, timeout=TIMEOUT)


def _how(report) -> str:
    return " ".join(str(s.account) for s in report.steps[1:])


def test_chain_rule_proved_when_the_marginal_is_positive():
    r = _one("## c\nassume: p(x, z) law\nassume: p(x) > 0\n  p(x, z)\n= p(z | x)*p(x)\n")
    assert r.status == "proved"
    assert "chain rule of probability" in _how(r)


def test_chain_rule_without_its_side_condition_is_inconclusive_not_proved():
    r = _one("## c\nassume: p(x, z) law\n  p(x, z)\n= p(z | x)*p(x)\n")
    assert r.status == "inconclusive"
    assert "needs p(x) > 0" in _how(r)


def test_bayes_rule_follows_from_the_chain_rule_applied_twice():
    r = _one("## b\nassume: p(x, z) law\nassume: p(x, z) > 0\n  p(z | x)\n= p(x | z)*p(z)/p(x)\n")
    assert r.status == "proved"
    assert "a marginal of a positive law is positive" in _how(r)
    wrong = _one("## b\nassume: p(x, z) law\nassume: p(x, z) > 0\n  p(z | x)\n= p(x | z)*p(x)/p(z)\n")
    assert wrong.status == "refuted"


def test_expectation_of_a_constant_is_the_constant():
    r = _one("## e\n" + JOINT + POSITIVE + "  log(p(x))\n= E_q(log(p(x)))\n")
    assert r.status == "proved"
    assert "E_q of a term constant in z" in _how(r)
    # a term that depends on z is not constant: E_q[log q(z)] is no number free of q
    r = _one("## e\n" + JOINT + POSITIVE + "  log(q(z))\n= E_q(log(q(z)))\n")
    assert r.status == "refuted"


def test_elbo_identity_proved_and_the_kl_subtracted_refuted_with_the_laws_printed():
    good = _one("## elbo\n" + JOINT + POSITIVE + "  log(p(x))\n= E_q(log(p(x, z)) - log(q(z))) + KL(q(z), p(z | x))\n")
    assert good.status == "proved"
    bad = _one("## elbo\n" + JOINT + POSITIVE + "  log(p(x))\n= E_q(log(p(x, z)) - log(q(z))) - KL(q(z), p(z | x))\n")
    assert bad.status == "refuted"
    cx = bad.failing.counterexample
    assert set(cx) == {"x", "p(x, z)", "q(z)"}  # z is summed over: no value of its own
    assert " at (1, 1)" in cx["p(x, z)"] and " at (1)" in cx["q(z)"]
    # the printed laws are laws: weights summing to 1
    weights = [sp.Rational(c.split(" at ")[0]) for c in cx["p(x, z)"].split(", ") if " at " in c]
    assert sum(weights) == 1


def test_same_seed_same_laws():
    text = "## elbo\n" + JOINT + POSITIVE + "  log(p(x))\n= E_q(log(p(x, z))) - KL(q(z), p(z | x))\n"
    a, b = _one(text, seed=3), _one(text, seed=3)
    assert a.status == b.status == "refuted"
    assert a.failing.counterexample == b.failing.counterexample


def test_kl_and_logs_without_positivity_are_inconclusive():
    r = _one("## k\n" + JOINT + "  log(p(x))\n= E_q(log(p(x, z)) - log(q(z))) + KL(q(z), p(z | x))\n")
    assert r.status == "inconclusive"
    assert "positivity" in _how(r) or "needs p(x) > 0" in _how(r)


def test_a_drawn_law_with_zeros_leaves_an_undefined_side_a_miss_never_a_verdict():
    facts = read_facts("p(x, z) law")
    x, z = sp.symbols("x z", real=True)
    cond = laws.law("p", (z,), (x,))
    d = numeric_laws.Draw(
        {"x": [1, 2], "z": [1, 2]}, {"p": (("x", "z"), {(1, 1): sp.Integer(1), (1, 2): 0, (2, 1): 0, (2, 2): 0})}
    )
    assert numeric_laws.value(cond, d, facts, {"x": 1, "z": 1}) == 1
    with pytest.raises(numeric_laws.Undefined):
        numeric_laws.value(cond, d, facts, {"x": 2, "z": 1})


def test_facts_about_laws_read_and_bad_ones_one_line():
    f = read_facts("p(x, z), q(z) laws; p(x, z) > 0")
    assert f.law("p") == ("x", "z") and f.law("q") == ("z",)
    assert ("p", frozenset({"x", "z"})) in f.positive
    assert is_fact("p(x, z) law") and is_fact("q(z) > 0") and not is_fact("x=positive")
    with pytest.raises(FactError, match="keeps for itself"):
        read_facts("log(x) law")  # log(p(x)) must stay the logarithm
    with pytest.raises(FactError, match="joint law"):
        read_facts("p(z | x) > 0")
    with pytest.raises(derive.DeriveError, match="q is no declared law"):
        derive.validate(parse_text("## c\nassume: p(x, z) law; q(z) > 0\n  p(x)\n= p(x)\n", "t.derivation")[0])


def test_parser_reads_laws_only_when_declared():
    laws_ = {"p": ("x", "z"), "q": ("z",)}
    (e,) = parse_many(["p(z | x)"], laws=laws_)
    assert laws.parts(e) == ("p", (sp.Symbol("z", real=True),), (sp.Symbol("x", real=True),))
    with pytest.raises(ParseError, match="declared law only"):
        parse_many(["p(z | x)"])  # no law declared: | is not in the grammar, and the line says why
    with pytest.raises(ParseError, match="q is a law of z"):
        parse_many(["E_q(log(q(z)), w)"], laws=laws_)
    with pytest.raises(ParseError, match="takes the names of its variables"):
        parse_many(["p(x + 1, z)"], laws=laws_)


def test_latex_reads_the_vae_notation():
    from mathcheck import latex

    text = (
        "$$\n% assume: p(x, z), q(z) \\text{ laws}\n% assume: p(x, z) > 0; q(z) > 0\n"
        "\\log p(x) = \\mathbb{E}_{z \\sim q}[\\log p(x, z) - \\log q(z)] "
        "+ \\mathrm{KL}\\big(q(z) \\,\\|\\, p(z \\mid x)\\big)\n$$"
    )
    (c,) = latex.chains(text, "n.md", markdown=True)
    assert [s.text for s in c.steps] == [
        "log(p(x))",
        "E_q(log(p(x, z)) - log(q(z)), z) + KL(q(z), p(z | x))",
    ]
    assert derive.check_chain(c, seed=0, timeout=TIMEOUT).status == "proved"
    (c,) = latex.chains("$$\\mathbb{E}_{q(z)}[z] = 0$$", "n.md", markdown=True)
    assert [s.text for s in c.steps] == ["E_q(z, z)", "0"]


def test_symbolic_lowering_names_its_rules():
    x, z = sp.symbols("x z", real=True)
    f = Facts(laws=(("p", ("x", "z")), ("q", ("z",))), positive=frozenset({("p", frozenset({"x", "z"}))}))
    e = laws.law_expectation("q", sp.log(laws.law("p", (x,))))
    out, rules = laws.lower(e, f)
    assert out == sp.log(sp.Function("p", positive=True)(x))
    assert any("constant in z" in r for r in rules)


# --- Monte Carlo for the expectations a Gauss rule cannot give (numeric/montecarlo.py) -------------


@pytest.fixture
def fewer_draws(monkeypatch):
    """2^17 draws a test instead of 2^20: the same test, a larger detectable error, a faster suite."""
    from mathcheck.numeric import montecarlo

    monkeypatch.setattr(montecarlo, "DRAWS", 1 << 17)


def test_monte_carlo_proves_a_true_expectation_and_refutes_a_wrong_one_with_its_rates(fewer_draws):
    good = _one("## a\nassume: X ~ Normal(0, 1)\n  E(abs(X))\n= sqrt(2/pi)\n")
    assert good.status == "proved"
    summary = good.steps[1].account["numeric"]["summary"]
    assert "false-alarm rate ≤ 1e-06" in summary and "smallest detectable error" in summary
    assert "∫ g(x) f(x) dx" in good.steps[1].account["how"]
    bad = _one("## a\nassume: X ~ Normal(0, 1)\n  E(abs(X))\n= 3/4\n")
    assert bad.status == "refuted"
    assert bad.failing.counterexample == {"X": "Normal(0, 1)"}
    assert "false-alarm rate ≤ 1e-06" in bad.steps[1].account["how"]


def test_monte_carlo_with_drawn_parameters(fewer_draws):
    text = "## e\nassume: X ~ Normal(mu, s^2)\nassume: s=positive\n  E(exp(X))\n= exp(mu + s^2{})\n"
    assert _one(text.format("/2")).status == "proved"
    assert _one(text.format("")).status == "refuted"


def test_the_density_rule_needs_a_known_positive_variance():
    r = _one("## e\nassume: X ~ Normal(mu, v)\n  E(exp(X))\n= exp(mu + v/2)\n")
    assert r.status != "proved"


def test_a_heavy_tailed_instance_is_skipped_never_judged(fewer_draws):
    # e^X for X ~ N(0, 9) is lognormal with σ = 3: kurtosis ~ e^36; the normal approximation is not trusted
    r = _one("## h\nassume: X ~ Normal(0, 9)\n  E(exp(X))\n= exp(9/2)\n")
    assert r.status == "inconclusive"
    r = _one("## h\nassume: X ~ Normal(0, 9)\n  E(exp(X))\n= 1\n")
    assert r.status == "inconclusive"  # false, but never refuted by an untrusted test


def test_monte_carlo_rate_is_the_kernels():
    from mathcheck.numeric import montecarlo, stats

    assert montecarlo.FAMILY_ALPHA == stats.FAMILY_ALPHA <= 1e-6


def test_gibbs_inequality_closes_kl_bounds_and_the_elbo_bound():
    assert _one("## g\n" + JOINT + POSITIVE + "  KL(q(z), p(z | x))\n>= 0\n").status == "proved"
    r = _one("## g\n" + JOINT + POSITIVE + "  log(p(x))\n>= E_q(log(p(x, z)) - log(q(z)))\n")
    assert r.status == "proved"
    assert "Gibbs' inequality" in _how(r)
    # the ELBO above the evidence: refuted by drawn laws, printed
    bad = _one("## g\n" + JOINT + POSITIVE + "  E_q(log(p(x, z)) - log(q(z)))\n>= log(p(x))\n")
    assert bad.status == "refuted" and "q(z)" in bad.failing.counterexample


def test_gibbs_without_its_side_condition_is_not_proved():
    # p(z | x) needs p(x) > 0: without a positivity fact Gibbs is not applied
    assert _one("## g\n" + JOINT + "  KL(q(z), p(z | x))\n>= 0\n").status == "inconclusive"
    # Gibbs says KL ≥ 0, nothing more
    assert _one("## g\n" + JOINT + POSITIVE + "  KL(q(z), p(z | x))\n>= 1\n").status == "refuted"


# --- Jensen's inequality (symbolic/expectation.py), the curvature shown ----------------------------


@pytest.mark.parametrize(
    "link, status",
    [
        ("  E(X)^2\n<= E(X^2)\n", "proved"),  # t² convex: φ'' = 2
        ("  exp(E(X))\n<= E(exp(X))\n", "proved"),  # φ'' = e^t ≥ 0
        ("  E(-X^2)\n<= -E(X)^2\n", "proved"),  # concave the other way round
        ("  E(exp(X))\n<= exp(E(X))\n", "refuted"),  # the planted direction: a drawn law
        ("  sin(E(X))\n<= E(sin(X))\n", "refuted"),  # sin is neither: no rule, and false
        ("  abs(E(X))\n<= E(abs(X))\n", "inconclusive"),  # true, but |t|'' is no function: not shown
    ],
)
def test_jensen_needs_the_curvature_shown(link, status):
    r = _one("## j\n" + link)
    assert r.status == status, _how(r)
    if status == "proved":
        assert "Jensen's inequality" in _how(r) and "φ''(t)" in _how(r)
