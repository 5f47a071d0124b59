"""What `proved` rests on: hypotheses in the statement, rules whose side conditions are checked,
generality computed, budgets that cannot escape, and an independent evaluation of every statement.

The six constructions of issue 9 ("rules that accept a false step") are built through the public
claim API; each must come back refuted or inconclusive, never proved.
"""

import os
import subprocess
import sys

import pytest

from mathcheck import engine, registry
from mathcheck.numeric.holds import holds_at
from mathcheck.symbolic import hypotheses, rules
from mathcheck.symbolic.context import range_hypothesis
from mathcheck.symbolic.decide import zero_test
from mathcheck.symbolic.steps import check_part, check_parts
from mathcheck.claim import Claim, Context, Mutant, Part, Source, Step
from mathcheck.lazy import sympy as sp
from tests.conftest import claim_params
from tests.paths import ROOT

i, j, k, a = sp.symbols("i j k a", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
L = sp.Symbol("L", integer=True, positive=True)
z = sp.IndexedBase("z", real=True)


def claim_of(*parts, context=Context()):
    """A claim around the parts, as a user would build one (the numeric check is not run here)."""
    dummy = (Mutant("m1", "", ()), Mutant("m2", "", ()))
    return Claim("t", "t", Source("§0", "", ""), (), tuple(parts), dummy, "x:y", context)


def not_proved(claim):
    v = engine.check_steps(claim)
    assert v.status in ("refuted", "inconclusive"), [(p.name, p.status, p.notes) for p in v.parts]
    return v


# --- the six constructions ---------------------------------------------------------------------------


def test_lemma_must_be_the_cited_parts_statement():
    """1. Var(q·k) = d_k² 'by part general', which states Var(q·k) = d_k(σ_q²σ_k² + …)."""
    qk = registry.get("qk-variance")
    general = qk.part("general")
    d = sp.Symbol("d_k", integer=True, positive=True)
    var = general.lhs
    bad = Part("bad", (Step(var, "variance"), Step(d**2, "part 'general'", rules.lemma("part 'general'", var, d**2))))
    v = not_proved(claim_of(general, bad, context=qk.context))
    assert v.parts[0].status == "proved"  # the cited part itself is fine
    failing = v.parts[1].failing
    assert "not an instance of part 'general'" in failing.decision.how


def test_lemma_must_cite_a_proved_part():
    x = sp.Symbol("x", positive=True)
    wrong = Part("wrong", (Step(sp.exp(x), ""), Step(sp.Integer(1), "")))
    uses = Part(
        "uses", (Step(sp.exp(x), ""), Step(sp.Integer(1), "part 'wrong'", rules.lemma("part 'wrong'", sp.exp(x), 1)))
    )
    v = not_proved(claim_of(wrong, uses))
    assert "'wrong' is not proved" in v.parts[1].failing.decision.how
    v = not_proved(claim_of(uses))
    assert "not a part of this claim" in v.parts[0].failing.decision.how


def test_substitution_must_follow_from_a_hypothesis():
    """2. exp(x) = 1 'by putting x = 0'."""
    x = sp.Symbol("x", real=True)
    part = Part("p", (Step(sp.exp(x), "e^x"), Step(sp.Integer(1), "put x = 0", rules.substitute({x: 0}, "x = 0"))))
    v = not_proved(claim_of(part))
    assert "does not follow from a hypothesis" in v.parts[0].failing.decision.how
    # with x = 0 among the hypotheses the same step is shown, and the statement printed with it
    ok = Part("p", part.steps, given=(sp.Eq(x, 0),))
    assert engine.check_steps(claim_of(ok)).status == "proved"


def test_exchange_of_a_triangular_sum_is_refused():
    """3. Σ_{k≤L} P_k Σ_{a≤k} V_a swapped as if its bounds were independent."""
    P, V = sp.IndexedBase("P", real=True), sp.IndexedBase("V", real=True)
    tri = sp.Sum(P[k] * sp.Sum(V[a], (a, 1, k)), (k, 1, L))
    as_if_rectangular = sp.Sum(V[a] * sp.Sum(P[k], (k, 1, L)), (a, 1, k))
    part = Part("p", (Step(tri, "triangular"), Step(as_if_rectangular, "exchange", rules.exchange_sums())))
    v = not_proved(claim_of(part))
    assert "not independent" in v.parts[0].failing.decision.how
    # a rectangular sum is exchanged
    rect = Part(
        "r",
        (
            Step(sp.Sum(P[k] * sp.Sum(V[a], (a, 1, n)), (k, 1, L)), ""),
            Step(sp.Sum(V[a] * sp.Sum(P[k], (k, 1, L)), (a, 1, n)), "", rules.exchange_sums()),
        ),
    )
    assert engine.check_steps(claim_of(rect)).status == "proved"


def test_independence_splits_only_factors_of_one_group():
    """4. E[sin(q+k)·k] = E[sin(q+k)]·E[k] (false for standard normal q, k: e⁻¹ against 0)."""
    q, kk = sp.IndexedBase("q"), sp.IndexedBase("k")
    E = rules.E
    lhs = E(sp.sin(q[i] + kk[i]) * kk[i])
    part = Part(
        "p", (Step(lhs, ""), Step(E(sp.sin(q[i] + kk[i])) * E(kk[i]), "independence", rules.linearity((q,), (kk,))))
    )
    v = not_proved(claim_of(part))
    assert "more than one independent group" in v.parts[0].failing.decision.how
    fine = Part("f", (Step(E(q[i] * kk[i]), ""), Step(E(q[i]) * E(kk[i]), "", rules.linearity((q,), (kk,)))))
    assert engine.check_steps(claim_of(fine)).status == "proved"


def test_square_of_sum_needs_a_fresh_index():
    """5. square_of_sum(i) with i the summation variable 'proves' (Σz)² = ΣΣ z_i²."""
    s = sp.Sum(z[i], (i, 1, n))
    part = Part(
        "p", (Step(s**2, ""), Step(sp.Sum(sp.Sum(z[i] ** 2, (i, 1, n)), (i, 1, n)), "", rules.square_of_sum(i)))
    )
    v = not_proved(claim_of(part))
    assert "clashes" in v.parts[0].failing.decision.how


def test_delta_collapses_only_inside_its_range():
    """6. Σ_{k=1}^{n} δ(j, k) z_k = z_j needs 1 ≤ j ≤ n (false at j = 0)."""
    lhs = sp.Sum(sp.KroneckerDelta(j, k) * z[k], (k, 1, n))
    part = Part("p", (Step(lhs, ""), Step(z[j], "δ keeps k = j")))
    not_proved(claim_of(part))
    d = zero_test(lhs - z[j])
    assert d.value is not True
    ranged = Part("p", part.steps, given=(range_hypothesis(j, 1, n),))
    assert engine.check_steps(claim_of(ranged)).status == "proved"
    by_context = claim_of(part, context=Context(indices=((j, 1, n),)))
    assert engine.check_steps(by_context).status == "proved"


def test_witness_must_be_fresh_and_follow_from_a_hypothesis():
    v_ = sp.Symbol("v", positive=True)
    step = Step(sp.exp(z[j] + v_), "", rules.witness(z[i] > z[j], v_))
    part = Part("p", (Step(sp.exp(z[i]), ""), step))
    v = not_proved(claim_of(part))  # no hypothesis z_i > z_j
    assert "is not a hypothesis" in v.parts[0].failing.decision.how
    clash = Part(
        "p",
        (Step(sp.exp(z[i]) + v_, ""), Step(sp.exp(z[j] + v_) + v_, "", rules.witness(z[i] > z[j], v_))),
        given=(z[i] > z[j],),
    )
    v = not_proved(claim_of(clash))
    assert "not fresh" in v.parts[0].failing.decision.how


def test_a_custom_lemma_rule_without_a_check_is_not_trusted():
    x = sp.Symbol("x", positive=True)
    trusted = rules.Rule("by a lemma", "lemma", lambda e: sp.Integer(1))
    v = not_proved(claim_of(Part("p", (Step(sp.exp(x), ""), Step(sp.Integer(1), "", trusted)))))
    assert "side condition not checked" in v.parts[0].failing.decision.how


def test_a_transform_rule_is_used_only_once_shown():
    x = sp.Symbol("x", positive=True)
    lying = rules.Rule("a transform", "transform", lambda e: sp.Integer(1))
    v = engine.check_steps(claim_of(Part("p", (Step(sp.exp(x), ""), Step(sp.Integer(1), "", lying)))))
    assert v.status == "refuted"
    assert "changes the expression" in v.parts[0].failing.decision.how


def test_counterexamples_respect_the_hypotheses():
    """Σ p = 1 ⇒ Σ p = 1 is true; without the hypothesis it is refuted by a point."""
    p = sp.IndexedBase("p", positive=True)
    norm = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)
    stmt = (Step(sp.Sum(p[i], (i, 1, n)), ""), Step(sp.Integer(1), ""))
    assert check_part(Part("p", stmt)).status == "refuted"
    assert check_part(Part("p", stmt, given=(norm,))).status == "proved"


# --- generality ----------------------------------------------------------------------------------


def test_generality_is_computed():
    symbolic = Part("s", (Step(sp.Sum(z[i], (i, 1, n)), ""), Step(sp.Sum(z[k], (k, 1, n)), "")))
    concrete = Part("c", (Step(sp.Sum(z[i], (i, 1, 3)), ""), Step(z[1] + z[2] + z[3], "")))
    scalar = Part(
        "x", (Step(sp.log(sp.Symbol("y", positive=True) ** 2), ""), Step(2 * sp.log(sp.Symbol("y", positive=True)), ""))
    )
    assert hypotheses.generality(symbolic)[0] is True
    assert hypotheses.generality(concrete)[0] is False
    assert hypotheses.generality(scalar)[0] is None
    fixed = Part("f", symbolic.steps, given=(sp.Eq(n, 3),))
    assert hypotheses.generality(fixed)[0] is False
    assert [p.general for p in check_parts((symbolic, concrete, scalar))] == [True, False, None]
    assert engine.check_steps(claim_of(symbolic, scalar)).general is True
    assert engine.check_steps(claim_of(symbolic, concrete)).general is False


def test_a_declared_generality_that_does_not_hold_is_an_error():
    concrete = Part("c", (Step(sp.Sum(z[i], (i, 1, 3)), ""), Step(z[1] + z[2] + z[3], "")), general=True)
    v = engine.check_steps(claim_of(concrete))
    assert v.status == "error"
    assert any("declared general=True" in note for note in v.parts[0].notes)


def test_catalog_generality():
    def general(cid):
        c = registry.get(cid)
        return hypotheses.claim_generality(c.parts, c.context)

    catalog = [e.id for e in registry.entries() if general(e.id)]
    assert len(catalog) >= 23, sorted(set(e.id for e in registry.entries()) - set(catalog))
    assert not general("information-content")  # scalar statements only


# --- the independent evaluator --------------------------------------------------------------------


def test_holds_at_finds_the_false_statement_of_issue_9():
    """zero-weight without its hypothesis a = 0 is false (at a = 1.723 the sides differ by 0.293)."""
    c = registry.get("mask-negative-infinity")
    part = c.part("zero-weight")
    bare = Part("bare", part.steps)
    st = hypotheses.statement_of(bare, c.context)
    found = [
        holds_at(st, hypotheses.hypotheses(bare, c.context), pt)
        for pt in hypotheses.part_points(bare, c.context, 10, seed=0)
    ]
    assert False in found
    found = [
        holds_at(st, hypotheses.hypotheses(part, c.context), pt)
        for pt in hypotheses.part_points(part, c.context, 10, seed=0)
    ]
    assert found and all(found)


def test_holds_at_answers_plain_booleans():
    """`is False` is how callers read a counterexample: a SymPy BooleanFalse would pass for "holds"."""
    c = registry.get("mask-negative-infinity")
    bare = Part("bare", c.part("zero-weight").steps)
    st = hypotheses.statement_of(bare, c.context)
    found = [
        holds_at(st, hypotheses.hypotheses(bare, c.context), pt)
        for pt in hypotheses.part_points(bare, c.context, 10, seed=0)
    ]
    assert any(r is False for r in found)
    assert all(r is None or type(r) is bool for r in found)


def test_part_points_satisfy_the_hypotheses():
    c = registry.get("entropy-bounds")
    part = c.part("upper-bound")
    pts = hypotheses.part_points(part, c.context, 10, seed=3, sizes={"n": 4})
    assert len(pts) == 10
    for pt in pts:
        total = sum(v for x, v in pt.items() if isinstance(x, sp.Indexed) and x.base.label.name == "p")
        assert total == 1


# statements about undefined operators only: the evaluator cannot give them a value
NOT_EVALUABLE = {
    "qkv-projection-shapes": "Rows, Cols",
    "qk-variance": "E, Var",
    "attention-permutation-equivariance": "σ, an arbitrary permutation",
}


@pytest.mark.parametrize("claim_id", claim_params())
def test_every_printed_statement_holds_at_40_points(claim_id):
    """Each part's statement, exactly as printed with its hypotheses, at 40 random points that
    satisfy them (mpmath, numeric.PRECISION_DIGITS = 50 digits): no counterexample; and the evaluation is not vacuous."""
    c = registry.get(claim_id)
    evaluated = {}
    for part in c.parts:
        given = hypotheses.hypotheses(part, c.context)
        st = hypotheses.statement_of(part, c.context)
        pts = hypotheses.part_points(part, c.context, 40, seed=11)
        assert len(pts) == 40, f"{claim_id}/{part.name}: only {len(pts)} points satisfy the hypotheses"
        results = [holds_at(st, given, pt) for pt in pts]
        bad = [pt for pt, r in zip(pts, results) if r is False]
        assert not bad, f"{claim_id}/{part.name}: false at {bad[0]}"
        evaluated[part.name] = results.count(True)
    if claim_id not in NOT_EVALUABLE:
        assert max(evaluated.values()) >= 30, evaluated


# --- budgets --------------------------------------------------------------------------------------


def test_a_sympy_exception_makes_a_strategy_undecided(monkeypatch):
    from mathcheck.symbolic import decide

    def boom(e, r):
        raise RuntimeError("generator raised StopIteration")

    monkeypatch.setattr(decide, "plan", lambda e, hypotheses=(): [("expand", boom), ("simplify", boom)])
    x = sp.Symbol("x", positive=True)
    d = decide.zero_test(sp.log(2 * x) - sp.log(2) - sp.log(x))
    assert d.value is None
    assert any("RuntimeError: generator raised StopIteration" in note for note in d.notes)


def test_the_alarm_waits_outside_a_weakref_callback():
    """An alarm due inside WeakKeyDictionary's callback (weakref.py) is deferred, not raised there."""
    import signal
    import weakref

    from mathcheck import budget

    frames = []

    class Key:
        def __hash__(self):
            return 1

        def __eq__(self, other):
            frames.append(sys._getframe(1))  # a frame of weakref.py's remove callback
            return self is other

    d = weakref.WeakKeyDictionary()
    k1, k2 = Key(), Key()
    d[k1], d[k2] = 1, 2
    del k1  # the callback removes k1's entry, comparing keys on the way
    assert any(f.f_code.co_filename.endswith("weakref.py") for f in frames)
    callback = next(f for f in frames if f.f_code.co_filename.endswith("weakref.py"))
    with budget.budget(0.0):
        budget._on_alarm(signal.SIGALRM, callback)  # due, but deferred: no exception here
    with pytest.raises(budget.BudgetExceeded):
        with budget.budget(0.0):
            budget._on_alarm(signal.SIGALRM, sys._getframe())


def test_a_swallowed_alarm_comes_again():
    """Code that swallows the budget's exception once is still stopped."""
    from mathcheck.budget import attempt

    def stubborn():
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001 — what a careless callback does
            pass
        while True:
            pass

    import time

    start = time.perf_counter()
    assert attempt(stubborn, 0.1) == (False, None)
    assert time.perf_counter() - start < 2.0


@pytest.mark.slow
@pytest.mark.xdist_group("catalog-under-xdist")
def test_catalog_under_xdist_prints_no_exception_ignored(tmp_path):
    """The whole catalog as pytest items on two xdist workers: no "Exception ignored" anywhere."""
    root = str(ROOT)
    env = dict(
        os.environ,
        MATHCHECK_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--mathcheck",
            "-n",
            "2",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "error::pytest.PytestUnraisableExceptionWarning",
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
        cwd=tmp_path,
    )
    out = r.stdout + r.stderr
    assert "Exception ignored" not in out, out[-3000:]
    assert r.returncode == 0, out[-3000:]


def test_a_lemma_instantiated_carries_its_hypotheses_instantiated():
    """Cited at w, a lemma proved under y = 1 needs w = 1, not y = 1."""
    y, w = sp.symbols("y w", real=True)
    lem = Part("lem", (Step(y + 1, ""), Step(sp.Integer(2), "")), given=(sp.Eq(y, 1),))
    step = Step(sp.Integer(2), "part 'lem'", rules.lemma("part 'lem'", w + 1, 2))
    uses = Part("uses", (Step(w + 1, ""), step), given=(sp.Eq(y, 1),))
    v = not_proved(claim_of(lem, uses))
    assert v.parts[0].status == "proved"
    assert "assumes Eq(w, 1)" in v.parts[1].failing.decision.how
    ok = Part("uses", uses.steps, given=(sp.Eq(w, 1),))
    assert engine.check_steps(claim_of(lem, ok)).status == "proved"


def test_a_lemma_is_instantiated_only_where_its_symbols_assumptions_hold():
    y = sp.Symbol("y", positive=True)
    r = sp.Symbol("r", real=True)
    lem = Part("lem", (Step(sp.sqrt(y**2), ""), Step(y, "")))
    uses = Part("uses", (Step(sp.sqrt(r**2), ""), Step(r, "part 'lem'", rules.lemma("part 'lem'", sp.sqrt(r**2), r))))
    v = not_proved(claim_of(lem, uses))
    assert v.parts[0].status == "proved"
    assert "not an instance" in v.parts[1].failing.decision.how
