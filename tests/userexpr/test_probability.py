"""Probability in derive (issue 29): expectations, variances, named distributions, KL, densities.

The must-show examples are our own transcriptions (tests/probability_corpus/) of textbook identities
(Var = E[X²] − E[X]², the Bernoulli and Categorical moments, Vaswani et al.'s 1/√d_k argument, the
KL of two Gaussians, the Gaussian NLL, H(p, q) = H(p) + KL(p‖q), log p(x) = ELBO + KL(q ‖ p(z | x))); each is followed by a planted
mistake, whose chain is named ``planted: …`` in the text file and follows a "Planted" sentence in
the note, and must be refuted with a counterexample.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathcheck import derive
from mathcheck.chains import parse_text
from mathcheck.lazy import sympy as sp
from mathcheck.numeric.distributions import Facts, draw, value
from mathcheck.parser import ParseError, parse_many
from mathcheck.render import accounts
from mathcheck.symbolic.expectation import Unsupported, lower
from mathcheck.userexpr.probability import FactError, read_facts
from tests.paths import TESTS

CORPUS = TESTS / "probability_corpus"
TIMEOUT = 120.0  # per link; a passing link takes seconds, but the suite runs on a loaded machine
E, Var = sp.Function("E"), sp.Function("Var")


def _run(text: str, name: str = "t.derivation", seed: int = 0):
    chains = parse_text(text, name)
    return [derive.check_chain(c, seed=seed, timeout=TIMEOUT) for c in chains]


def _planted(path: Path, chains) -> list[bool]:
    """Which chains are planted mistakes: by name in a text file, by the prose before them otherwise."""
    if path.suffix == ".derivation":
        return [c.name.startswith("planted") for c in chains]
    lines = path.read_text().splitlines()
    out = []
    for c in chains:
        before = [
            ln
            for ln in lines[: c.line - 1]
            if ln.strip() and not ln.strip().startswith(("$$", "%", "\\")) and "=" not in ln
        ]
        out.append(bool(before) and "planted" in before[-1].lower())
    return out


def test_must_show_text_chains_proved_and_planted_mistakes_refuted():
    path = CORPUS / "must_show.derivation"
    ((_, chains),) = derive.load([path])
    reports = [derive.check_chain(c, seed=0, timeout=TIMEOUT) for c in chains]
    planted = _planted(path, chains)
    assert sum(planted) == 9 and len(chains) == 20
    for c, r, bad in zip(chains, reports, planted):
        assert r.status == ("refuted" if bad else "proved"), (c.name, r.status, r.failing)
        if bad:
            assert r.failing.counterexample, c.name


def test_must_show_note_and_tex_proved_and_planted_mistakes_refuted():
    """Both files through ``derive``'s own path, as ``mathcheck derive must_show.tex must_show.md``
    runs them: the .tex is the note's transcription, so where the note's chains read the same, their
    verdicts come from the proof cache the .tex filled (this session's private one) — a chain the
    note reads otherwise is checked afresh."""
    from mathcheck import book

    report = book.check_book([str(CORPUS / "must_show.tex"), str(CORPUS / "must_show.md")], seed=0, timeout=TIMEOUT)
    ((_, in_note),) = derive.load([CORPUS / "must_show.md"])  # the .tex is the note's transcription, in order
    planted = _planted(CORPUS / "must_show.md", in_note)
    assert len(in_note) == 20 and sum(planted) == 9
    assert [Path(path).name for path, _ in report.files] == ["must_show.tex", "must_show.md"]
    for path, reports in report.files:
        assert [r.status for r in reports] == ["refuted" if p else "proved" for p in planted], path


def test_a_counterexample_is_a_distribution():
    (r,) = _run("## wrong\n  E(X)^2\n>= E(X^2)\n")
    assert r.status == "refuted"
    shown = r.failing.counterexample["X"]
    assert "w.p." in shown or shown.startswith("uniform on {")
    # the printed distribution really violates it: E[X]² < E[X²] unless X is constant
    assert r.failing.values["lhs"] < r.failing.values["rhs"]


def test_same_seed_same_counterexample_other_seed_may_differ():
    (a,) = _run("## wrong\n  Var(X)\n= E(X^2)\n", seed=3)
    (b,) = _run("## wrong\n  Var(X)\n= E(X^2)\n", seed=3)
    assert a.status == b.status == "refuted"
    assert a.failing.counterexample == b.failing.counterexample


# --- side conditions: no rule without its hypothesis -------------------------------------------------


def test_independence_is_never_assumed():
    """E[XY] = E[X]E[Y] without a declaration is false (X = Y): never proved, and refuted by a joint law."""
    (r,) = _run("## not stated\n  E(X*Y)\n= E(X)*E(Y)\n")
    assert r.status == "refuted"
    (r,) = _run("## stated\nassume: X, Y independent\n  E(X*Y)\n= E(X)*E(Y)\n")
    assert r.status == "proved"


def test_variance_of_a_sum_needs_independence():
    (bad,) = _run("## no\n  Var(X + Y)\n= Var(X) + Var(Y)\n")
    (good,) = _run("## yes\nassume: X, Y independent\n  Var(X + Y)\n= Var(X) + Var(Y)\n")
    assert bad.status == "refuted" and good.status == "proved"


def test_two_independence_statements_say_nothing_across():
    """X ⊥ Y and U ⊥ V: E[XU] is one joint expectation, not E[X]E[U]."""
    X, Y, U = sp.symbols("X Y U", real=True)
    f = Facts(independent=(frozenset({"X", "Y"}), frozenset({"U", "V"})))
    low, _ = lower(E(X * U), f)
    assert low.is_Symbol and str(low) in ("E[U*X]", "E[X*U]")  # one joint moment, not a product
    low, rules = lower(E(X * Y), f)
    assert low == sp.Symbol("E[X]", real=True) * sp.Symbol("E[Y]", real=True)
    assert any("independence of X, Y" in r for r in rules)


def test_a_sum_with_a_non_integer_bound_is_not_split():
    X = sp.Symbol("X", real=True)
    i, t = sp.Symbol("i", integer=True), sp.Symbol("t", real=True)
    x = sp.IndexedBase("x")
    with pytest.raises(Unsupported):
        lower(E(sp.Sum(x[i] * X, (i, 1, t))), Facts(random=frozenset({"X", "x"})))


def test_kl_needs_positive_variances():
    (r,) = _run("## kl\n  KL(Normal(m1, v1), Normal(m2, v2))\n= log(v2/v1)/2 + (v1 + (m1 - m2)^2)/(2*v2) - 1/2\n")
    assert r.status == "inconclusive"
    assert "not known to be positive" in accounts.link(r.failing)
    (r,) = _run(
        "## kl\nassume: v1=positive v2=positive\n  KL(Normal(m1, v1), Normal(m2, v2))\n"
        "= log(v2/v1)/2 + (v1 + (m1 - m2)^2)/(2*v2) - 1/2\n"
    )
    assert r.status == "proved"


def test_zero_mean_unit_variance_are_facts_not_defaults():
    (r,) = _run("## no facts\n  E(X^2)\n= 1\n")
    assert r.status == "refuted"
    (r,) = _run("## facts\nassume: X zero mean, unit variance\n  E(X^2)\n= 1\n")
    assert r.status == "proved"


def test_continuous_families_compare_within_the_quadrature_tolerance():
    """A KL is evaluated by Gauss quadrature (float64 nodes): a true closed form must not be
    'refuted' at the exact tolerance (a bug once: the tolerance was chosen before evaluation)."""
    (r,) = _run("## kl\nassume: s=positive\n  KL(Normal(0, s^2), Normal(0, 1))\n= (s^2 - 1)/2 - log(s)\n")
    assert r.status == "proved"
    assert "Gauss quadrature" in accounts.statement(r.statement)["how"]


# --- reading ----------------------------------------------------------------------------------------


def test_facts_read_and_bad_facts_one_line():
    f = read_facts("q_i, k_i independent, zero mean, unit variance; X ~ Bernoulli(p)")
    assert f.independent == (frozenset({"q", "k"}),) and f.components == {"q", "k"}
    assert f.zero_mean == f.unit_variance == {"q", "k"}
    assert f.distributions["X"][0] == "Bernoulli"
    for bad in ("X ~ Poisson(2)", "X ~ Normal(0)", "X, Y independant", "1x independent"):
        with pytest.raises(FactError) as e:
            read_facts(bad)
        assert "\n" not in str(e.value)


def test_a_bad_fact_is_bad_input_of_its_chain():
    (r,) = _run("## bad\nassume: X ~ Poisson(2)\n  E(X)\n= 2\n")
    assert r.status == "bad-input" and "Poisson" in r.message and "t.derivation:2" in r.message


def test_parser_reads_operators_with_their_arity():
    (e,) = parse_many(["E(X^2) + Var(X) + Cov(X, Y)"])
    assert {type(a).__name__ for a in e.atoms(sp.core.function.AppliedUndef)} == {"E", "Var", "Cov"}
    with pytest.raises(ParseError, match="Cov takes 2"):
        parse_many(["Cov(X)"])
    assert parse_many(["E + 1"])[0] == sp.E + 1  # E alone is still Euler's number


def test_latex_operators_read_and_subscripted_expectation_refused():
    from mathcheck import latex

    text = r"$$\mathbb{E}[X^2] = \mathrm{Var}(X) + \mathbb{E}[X]^2 + \mathrm{Cov}(X, X) - \operatorname{Var}[X]$$"
    (c,) = latex.chains(text, "n.md", markdown=True)
    assert [s.text for s in c.steps] == ["E(X^2)", "Var(X) + E(X)^2 + Cov(X, X) - Var(X)"]
    (c,) = latex.chains(r"$$\mathbb{E}_{x \sim \mathcal{N}(0, 1)}[x] = 0$$", "n.md", markdown=True)
    assert "an expectation over some variables only" in c.error
    (c,) = latex.chains(r"$$\mathbb{E}_{x \sim p}[x] = 0$$", "n.md", markdown=True)  # under a law: declare it
    assert [s.text for s in c.steps] == ["E_p(x, x)", "0"]
    with pytest.raises(derive.DeriveError, match="E_p.*no declared law"):
        derive.validate(c)
    (c,) = latex.chains(r"$$\mathcal{N}(y \mid \mu, s) = \mathcal{N}(y; \mu, s)$$", "n.md", markdown=True)
    assert [s.text for s in c.steps] == ["normal_pdf(y, mu, s)", "normal_pdf(y, mu, s)"]


def test_latex_facts_become_the_chains_facts():
    from mathcheck import latex

    text = (
        "$$\n% assume: X, Y \\text{ independent}\n% assume: Z \\sim \\mathcal{N}(0, 1)\n"
        "\\mathbb{E}[X Y] = \\mathbb{E}[X]\\mathbb{E}[Y]\n$$\n"
    )
    (c,) = latex.chains(text, "n.md", markdown=True)
    assert [t for _, t in c.facts] == ["X, Y independent", "Z ~ Normal(0, 1)"]


def test_numeric_side_evaluates_by_definition():
    """The drawn distributions give Var by E[(X − E[X])²], independently of the rules."""
    X = sp.Symbol("X", real=True)
    f = Facts(random=frozenset({"X"}))
    for t in range(5):
        inst = draw(f, [X], seed=1, trial=t)
        (w_atoms) = inst.blocks[0]
        mean = sum(w * a[X] for w, a in w_atoms)
        assert value(Var(X), inst) == sum(w * (a[X] - mean) ** 2 for w, a in w_atoms)


def test_a_joint_moment_never_loses_its_indices():
    """E[q_i q_j] of a family whose components are not declared independent depends on i and j: as
    one symbol a double sum would count it d² times; the rules leave it undecided instead."""
    q = sp.IndexedBase("q")
    i, j = sp.symbols("i j", integer=True)
    d = sp.Symbol("d", integer=True, positive=True)
    with pytest.raises(Unsupported, match="symbolic indices"):
        lower(E(sp.Sum(q[i] * q[j], (i, 1, d), (j, 1, d))), Facts(random=frozenset({"q"})))
    (r,) = _run(
        "## no independence\nassume: q_i zero mean, unit variance\nassume: d=positive,integer\n"
        "  Var(Sum(q[i], (i, 1, d)))\n= d\n"
    )
    assert r.status != "proved"


def test_a_named_law_and_a_moment_fact_conflict():
    with pytest.raises(FactError, match="law"):
        read_facts("X ~ Normal(1, 2); X zero mean")


def test_a_non_polynomial_over_a_continuous_law_is_never_judged_by_its_gauss_rule():
    """E|X| = σ√(2/π) for X ~ N(0, σ²) is true; the 24-node Hermite rule misses it by ~1e-3, so the
    numeric side must say it cannot judge (never refute a true statement)."""
    (r,) = _run("## mean absolute value\nassume: X ~ Normal(0, s^2)\nassume: s=positive\n  E(abs(X))\n= s*sqrt(2/pi)\n")
    assert r.status == "proved"  # by the density (symbolic) and Monte Carlo (numeric): docs/probability.md
    assert "Monte Carlo" in accounts.link(r.steps[1]) and "Gauss" not in accounts.link(r.steps[1])
    # not one mean (the square of an estimate): neither the Gauss rule nor Monte Carlo judges it
    (r,) = _run("## squared\nassume: X ~ Normal(0, s^2)\nassume: s=positive\n  E(abs(X))^2\n= 2*s^2/pi\n")
    assert r.status == "inconclusive"
    assert "not a polynomial" in accounts.link(r.steps[1])


def test_a_variable_named_like_a_property_is_not_a_fact():
    from mathcheck.userexpr.probability import is_fact

    assert not is_fact("mean_0=positive") and not is_fact("random_seed=integer")
    assert is_fact("X, Y independent") and is_fact("X zero mean, unit variance") and is_fact("X ~ Normal(0, 1)")


def _latex(tmp_path, text: str):
    from click.testing import CliRunner

    from mathcheck.cli import main

    p = tmp_path / "e.md"
    p.write_text(text)
    r = CliRunner().invoke(main, ["derive", str(p), "--timeout", "120", "--json"])
    import json

    return r, json.loads(r.output)["files"][0]


@pytest.mark.parametrize(
    "tex, status",
    [
        # d2l (chapter_appendix-mathematics-for-deep-learning/random-variables.md) writes a plain E; our own
        # transcriptions in its style. Read as Euler's number times X², the correct variance was refuted.
        (r"\textrm{Var}(X) = E\left[(X-E[X])^2\right] = E[X^2] - E[X]^2", "proved"),
        (r"E(X - \theta) = E(X) - \theta", "proved"),
        (r"E[X]^2 \ge E[X^2]", "refuted"),  # Jensen the wrong way round
        # X takes x_i with probability p_i, in prose: nothing ties x, p to X, so it is left undecided
        (r"E[X] = \sum_i x_i p_i", "inconclusive"),
        # mu is E[X] in prose; read free, it only shows that a free number is not the mean
        (r"\textrm{Var}(X) = E\left[(X-\mu)^2\right]", "inconclusive"),
        (r"\textrm{Var}(2X) = 4\textrm{Var}(X)", "proved"),  # \textrm{Var} after a factor is a product
        (r"\textrm{Var}(2X) = 2\textrm{Var}(X)", "refuted"),
    ],
)
def test_a_plain_E_before_a_bracket_is_the_expectation(tmp_path, tex, status):
    r, got = _latex(tmp_path, f"$$ {tex} $$\n")
    assert [c["status"] for c in got["chains"]] == [status], r.output


def test_a_plain_E_alone_is_bad_input_never_eulers_number(tmp_path):
    # used, never defined (a row `E = m c^2 + 1` would define it: tests/latex/test_reader_calculus.py)
    r, got = _latex(tmp_path, "$$ E + 1 = 1 + E $$\n")
    assert [c["status"] for c in got["chains"]] == ["bad-input"], r.output
    assert "Euler's number is e" in r.output


def test_independence_stated_in_prose_leaves_a_document_undecided(tmp_path):
    """d2l's random-variables.md: "if X and Y are two independent random variables then Var(X+Y) =
    Var(X) + Var(Y)" — the condition is prose. Read from the document the link is inconclusive, with
    the fact to state; stated, proved; in a chain written for mathcheck, refuted (tested above)."""
    r, got = _latex(tmp_path, "$$ \\textrm{Var}(X+Y) = \\textrm{Var}(X) + \\textrm{Var}(Y) $$\n")
    assert [c["status"] for c in got["chains"]] == ["inconclusive"], r.output
    assert "% assume: X, Y independent" in r.output
    r, got = _latex(
        tmp_path,
        "$$\n% assume: X, Y \\text{ independent}\n\\textrm{Var}(X+Y) = \\textrm{Var}(X) + \\textrm{Var}(Y)\n$$\n",
    )
    assert [c["status"] for c in got["chains"]] == ["proved"], r.output


# --- the probability of an event: P(X = x), \Pr(A), P(A | B) ----------------------------------------

Pr = sp.Function("Pr")


def test_events_read_in_the_text_grammar_and_bad_events_one_line():
    """``P(X = 1)`` would be a keyword argument to Python's ast: the grammar rewrites an event first."""
    X, Y, a = sp.symbols("X Y a", real=True)
    got = parse_many(["P(X = 1)", "Pr(X <= a | Y > 0)", "P(0 < X <= 1, Y >= 2)"])
    assert got[0] == Pr(sp.Tuple(sp.Eq(X, 1)), sp.Tuple())
    assert got[1] == Pr(sp.Tuple(sp.Le(X, a)), sp.Tuple(sp.Gt(Y, 0)))
    assert got[2] == Pr(sp.Tuple(sp.Lt(0, X), sp.Le(X, 1), sp.Ge(Y, 2)), sp.Tuple())
    for bad, said in (
        ("P(X = )", "an event is comparisons"),
        ("P(X = 1", "not closed"),
        ("P(X != 1)", "'!=' in an event"),
        ("P(X = 1 | Y = 0 | X = 0)", "one | at most"),
        ("P(X = 1, Y)", "an event is comparisons"),
        ("P(1 = 1)", "whatever the random variables are"),
        ("x = 1", "not allowed"),  # a comparison outside an event is no formula
    ):
        with pytest.raises(ParseError, match=said) as e:
            parse_many([bad])
        assert "\n" not in str(e.value)


def test_latex_events_read_into_the_text_grammar():
    from mathcheck import latex

    text = r"$$\Pr(X = 1) + P(X \le 0 \mid Y = 1) = \mathbb{P}\left(X > 0\right) + \Pr[0 < X \leq 1, Y \geq 2]$$"
    (c,) = latex.chains(text, "n.md", markdown=True)
    assert [s.text for s in c.steps] == ["P(X = 1) + P(X <= 0 | Y = 1)", "P(X > 0) + P(0 < X <= 1, Y >= 2)"]
    for bad, said in ((r"\Pr(X = ) = p", "an event is comparisons"), (r"\Pr(X = 1 = p", "bracket is not closed")):
        (c,) = latex.chains(f"$${bad}$$", "n.md", markdown=True)
        assert said in c.error and "\n" not in c.error


def test_event_rules_and_their_side_conditions():
    X, Y, s, t = sp.symbols("X Y s t", real=True)
    lam, q = sp.Symbol("lam", positive=True), sp.Symbol("q", real=True)
    exp = Facts(random=frozenset({"X"}), distributions={"X": ("Exponential", (lam,))})
    st = sp.symbols("s t", positive=True)
    memoryless = Pr(sp.Tuple(sp.Gt(X, st[0] + st[1])), sp.Tuple(sp.Gt(X, st[0])))
    low, rules = lower(memoryless - Pr(sp.Tuple(sp.Gt(X, st[1])), sp.Tuple()), exp)
    assert sp.simplify(low) == 0 and any("P(A | B) = P(A, B)/P(B)" in r for r in rules)
    with pytest.raises(Unsupported, match="order of the bounds"):  # s, t of unknown sign: X > s + t ⊂ X > s?
        lower(Pr(sp.Tuple(sp.Gt(X, s + t)), sp.Tuple(sp.Gt(X, s))), exp)
    laws = {"X": ("Bernoulli", (q,)), "Y": ("Bernoulli", (q,))}
    two = Facts(random=frozenset({"X", "Y"}), distributions=laws)
    with pytest.raises(Unsupported, match="joint law of X, Y is not known"):
        lower(Pr(sp.Tuple(sp.Eq(X, 1), sp.Eq(Y, 1)), sp.Tuple()), two)
    apart = Facts(random=frozenset({"X", "Y"}), independent=(frozenset({"X", "Y"}),), distributions=laws)
    with pytest.raises(Unsupported, match="P\\(B\\) > 0"):  # q may be 0
        lower(Pr(sp.Tuple(sp.Eq(X, 1)), sp.Tuple(sp.Eq(Y, 1))), apart)
    low, rules = lower(Pr(sp.Tuple(sp.Eq(X, 1), sp.Eq(Y, 0)), sp.Tuple()), apart)
    assert sp.expand(low - q * (1 - q)) == 0 and any("independence of X, Y" in r for r in rules)
    with pytest.raises(Unsupported, match="X has no declared law"):
        lower(Pr(sp.Tuple(sp.Eq(X, 1)), sp.Tuple()), Facts(random=frozenset({"X"})))
    normal = Facts(random=frozenset({"X"}), distributions={"X": ("Normal", (sp.Integer(0), sp.Integer(1)))})
    assert lower(Pr(sp.Tuple(sp.Eq(X, 0)), sp.Tuple()), normal)[0] == 0  # no atoms


def test_event_probabilities_by_definition_at_a_draw():
    """The numeric side sums a finite law's weights where the event holds, and integrates a
    continuous law's density over the event's interval (mpmath): never the rules' closed forms."""
    X, p = sp.Symbol("X", real=True), sp.Symbol("p", real=True)
    f = Facts(random=frozenset({"X"}), distributions={"X": ("Bernoulli", (p,))})
    inst = draw(f, [X, p], seed=0, trial=0)
    assert value(Pr(sp.Tuple(sp.Eq(X, 1)), sp.Tuple()), inst) == inst.values[p]
    assert value(Pr(sp.Tuple(sp.Le(X, sp.Rational(1, 2))), sp.Tuple()), inst) == 1 - inst.values[p]
    g = Facts(random=frozenset({"X"}), distributions={"X": ("Normal", (sp.Integer(0), sp.Integer(1)))})
    inst = draw(g, [X], seed=0, trial=0)
    assert abs(value(Pr(sp.Tuple(sp.Le(X, 1)), sp.Tuple()), inst) - (1 + sp.erf(1 / sp.sqrt(2))) / 2) < 1e-25
    assert value(Pr(sp.Tuple(sp.Eq(X, 0)), sp.Tuple()), inst) == 0


_EVENTS = {
    "e.md": (
        "Bernoulli.\n\n$$\n% assume: X \\sim \\mathrm{Bernoulli}(p)\nP(X = 1) = p\n$$\n\n"
        "Planted.\n\n$$\n% assume: X \\sim \\mathrm{Bernoulli}(p)\n\\Pr(X = 1) = 1 - p\n$$\n\n"
        "Categorical.\n\n$$\n% assume: X \\sim \\mathrm{Categorical}(p, K)\n% given: \\sum_{k=1}^{K} p_k = 1\n"
        "\\sum_{k=1}^{K} \\Pr(X = k) = 1\n$$\n\n"
        "Normal.\n\n$$\n% assume: X \\sim \\mathcal{N}(0, 1)\n\\Pr[X \\le 0] = \\frac{1}{2}\n$$\n",
        ["proved", "refuted", "proved", "proved"],
    ),
    "e.tex": (
        "\\begin{equation}\n% assume: X \\sim \\mathrm{Bernoulli}(p)\nP(X = 1) = p\n\\end{equation}\n"
        "\\begin{equation}\n% assume: X \\sim \\mathrm{Bernoulli}(p)\n\\Pr(X = 1) = 1 - p\n\\end{equation}\n"
        "\\begin{equation}\n% assume: X \\sim \\mathrm{Categorical}(p, K)\n% given: \\sum_{k=1}^{K} p_k = 1\n"
        "\\sum_{k=1}^{K} k \\Pr(X = k) = \\mathbb{E}[X]\n\\end{equation}\n",
        ["proved", "refuted", "proved"],
    ),
    "e.derivation": (
        "## Bernoulli\nassume: X ~ Bernoulli(p)\n  P(X = 1)\n= p\n\n"
        "## planted\nassume: X ~ Bernoulli(p)\n  P(X = 1)\n= 1 - p\n\n"
        "## memoryless\nassume: X ~ Exponential(lam)\nassume: lam=positive s=positive t=positive\n"
        "  Pr(X > s + t | X > s)\n= P(X > t)\n\n"
        "## no law\n  P(X = 1)\n= 1/2\n",
        ["proved", "refuted", "proved", "inconclusive"],
    ),
}


@pytest.mark.parametrize("name", sorted(_EVENTS))
def test_probabilities_of_events_in_a_note_a_tex_file_and_text(tmp_path, name):
    """Our own examples: P(X = 1) = p for X ∼ Bernoulli(p) proved, 1 − p refuted by a drawn law; a
    Categorical's masses summed over its support; N(0, 1)'s CDF at 0; an exponential law's memory;
    an event of a variable without a law inconclusive, saying what to declare — never guessed."""
    import json

    from click.testing import CliRunner

    from mathcheck.cli import main

    text, statuses = _EVENTS[name]
    (tmp_path / name).write_text(text)
    r = CliRunner().invoke(main, ["derive", str(tmp_path / name), "--timeout", "120", "--json"])
    chains = json.loads(r.output)["files"][0]["chains"]
    assert [c["status"] for c in chains] == statuses, r.output
    assert '"X": "Bernoulli(' in json.dumps(chains[1]), r.output  # the counterexample is the law
    assert "declare it" in r.output or "no law" not in text.lower()
