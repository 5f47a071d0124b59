"""Unit tests of the symbolic kernel, one section per module: context, sums, signs, decide, steps,
rules (trust classes, who vouches), hypotheses (generality)."""

import ast
import dataclasses
import pathlib

import sympy as sp

from mathcheck.claim import Context, Part, Step
from mathcheck.numeric.holds import ranges
from mathcheck.symbolic import context, decide, hypotheses, rules, signs, sums, steps

i, j, k = sp.symbols("i j k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", real=True)
p, f = sp.IndexedBase("p", positive=True), sp.IndexedBase("f")


# --- context ----------------------------------------------------------------------------------------


def test_the_numeric_kernels_ranges_read_back_what_range_hypothesis_writes():
    assert ranges((context.range_hypothesis(j, 1, n),)) == {j: (1, n)}
    assert ranges((context.range_hypothesis(j, 2, 5),)) == {j: (2, 5)}  # Python ints become SymPy's


def test_index_ranges_take_the_hypotheses_over_the_contexts_range():
    ctx = Context(indices=((j, 1, n), (i, 1, n)), given=(context.range_hypothesis(j, 2, n),))
    assert context.index_ranges(ctx) == {i: (1, n), j: (2, n)}


def test_known_is_three_valued():
    rng = {j: (sp.Integer(1), n)}
    assert context.known(sp.Le(1, j), rng) is True
    assert context.known(sp.Le(j, n + 1), rng) is True
    assert context.known(sp.Le(2, j), rng) is None  # j = 1 is allowed: not shown, not refuted
    assert context.known(sp.false, rng) is False
    assert context.known(sp.Eq(j, 1), rng) is None  # not an order relation


# --- sums -------------------------------------------------------------------------------------------


def test_canonical_sums_make_renamed_sums_equal_at_every_depth():
    a = sp.Sum(sp.Sum(p[i] * f[j], (j, 1, n)), (i, 1, n))
    b = sp.Sum(sp.Sum(p[k] * f[i], (i, 1, n)), (k, 1, n))
    assert a != b and sums.canonical_sums(a) == sums.canonical_sums(b)
    assert sums.canonical_sums(x + 1) == x + 1


def test_combine_sums_merges_only_equal_ranges():
    e = 2 * sp.Sum(p[i], (i, 1, n)) - sp.Sum(p[k], (k, 1, n)) + sp.Sum(p[k], (k, 2, n))
    out = sums.combine_sums(e)
    assert len(out.atoms(sp.Sum)) == 2
    assert sp.expand(sums.combine_sums(sp.Sum(p[i], (i, 1, n)) - sp.Sum(p[k], (k, 1, n))).doit()) == 0


def test_pull_sums_takes_out_what_is_free_of_the_index():
    out = sums.pull_sums(sp.Sum(x * p[k] + 1, (k, 1, n)))
    assert sp.expand(out - (x * sp.Sum(p[k], (k, 1, n)) + n)) == 0


def test_eval_deltas_collapse_only_where_the_range_is_known():
    s = sp.Sum(sp.KroneckerDelta(j, k) * f[k], (k, 1, n))
    assert sums.eval_deltas(s, {j: (sp.Integer(1), n)}) == f[j]
    assert sums.eval_deltas(s).has(sp.Piecewise)  # j may lie outside 1..n: not collapsed


def test_delta_substitute_lets_the_rest_of_the_term_take_the_deltas_value():
    assert sums.delta_substitute(sp.KroneckerDelta(i, j) * f[j]) == sp.KroneckerDelta(i, j) * f[i]


# --- signs ------------------------------------------------------------------------------------------


def test_sign_rules_need_ordered_bounds_for_a_sum_of_squares():
    m = sp.Symbol("m", integer=True)
    assert signs.by_structure(sp.Sum(i**2, (i, 1, n)), strict=False)
    assert decide.sign_test(sp.Sum(i**2, (i, 1, m)), attempt_s=2, total_s=6).value is not True  # −5 at m = −3
    assert signs.by_structure(sp.Sum(i**2, (i, 1, m)), strict=False, rng={m: (sp.Integer(0), n)})


def test_stand_in_keeps_only_known_facts():
    d = signs.stand_in(f[i])
    assert d.is_positive is None and d.is_real is None
    assert signs.stand_in(p[i]).is_positive is True


# --- decide -----------------------------------------------------------------------------------------


def test_zero_test_answers_are_three_valued_and_distinct():
    shown = decide.zero_test(sp.log(2 * x) - sp.log(2) - sp.log(x))
    assert (shown.value, shown.status) == (True, "proved")
    assert shown.how in {s.value for s in decide.Strategy} | {decide.SIMPLIFY}
    wrong = decide.zero_test(sp.log(2 * x) - sp.log(x))
    assert (wrong.value, wrong.status, wrong.how) == (False, "refuted", decide.COUNTEREXAMPLE)
    assert "difference" in dict(wrong.counterexample) and "x" in dict(wrong.counterexample)


def test_zero_test_undecided_is_none_not_false(monkeypatch):
    monkeypatch.setattr(decide, "plan", lambda e, hypotheses=(): [("nothing", lambda e, r: e)])
    d = decide.zero_test(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, attempt_s=2, total_s=4)
    assert (d.value, d.status, d.counterexample) == (None, "inconclusive", ())


def test_a_sympy_exception_makes_a_strategy_undecided_with_a_note(monkeypatch):
    def boom(e, r):
        raise ValueError("SymPy could not")

    monkeypatch.setattr(decide, "plan", lambda e, hypotheses=(): [("boom", boom)])
    d = decide.zero_test(x - x + 0 * y + sp.Symbol("z"), attempt_s=2, total_s=4)
    assert d.value is None
    assert any(note.startswith("boom: SymPy raised ValueError") for note in d.notes)


def test_plan_is_keyed_by_strategies_and_prints_their_text():
    hows = [how for how, _ in decide.plan(sp.log(x) + sp.Sum(p[i], (i, 1, n)))]
    assert hows[:2] == [decide.Strategy.STRUCTURAL.value, decide.Strategy.EXPAND.value]
    assert (
        hows.index(decide.Strategy.EXPAND_LOG.value)
        < hows.index(decide.COUNTEREXAMPLE)
        < hows.index(decide.Strategy.DOIT_EXPAND.value)
    )
    assert hows[-2:] == [decide.SIMPLIFY, decide.PROVED_BY]  # the provers (symbolic/cases.py) last
    assert len(hows) == len(set(hows)) == len(decide.Strategy) + 3
    assert set(decide.REWRITE) == set(decide.Strategy)
    norm = sp.Eq(sp.Sum(p[i], (i, 1, n)), 1)
    with_h = [how for how, _ in decide.plan(sp.Sum(p[k], (k, 1, n)) - 1, (norm,))]
    assert decide.Strategy.EXPAND.value + decide.USING_HYPOTHESES in with_h


def test_sign_and_relation_tests():
    assert decide.sign_test(x - 1 - sp.log(x)).value is True
    assert decide.sign_test(x - 1 - sp.log(x), strict=True).value is not True  # 0 at x = 1
    bad = decide.sign_test(sp.log(x))
    assert bad.value is False and bad.how == decide.COUNTEREXAMPLE
    assert decide.relation_test(x, x + 1, "<").value is True
    assert decide.relation_test(x + 1, x, "<=").value is False
    assert decide.relation_test(sp.exp(x), x + 1, ">=").how.startswith("sign")


def test_difference_of_matrices_is_entrywise():
    m = sp.Matrix([[x, 1], [0, x]])
    d = decide.zero_test(decide.difference(m, m.T.T))
    assert d.value is True and d.how.startswith("entrywise")
    bad = decide.zero_test(decide.difference(m, sp.eye(2) * x))
    assert bad.value is False and bad.how == "counterexample (entry 0,1)"


# --- steps ------------------------------------------------------------------------------------------


def _part(*steps, given=()):
    return Part("p", tuple(steps), given=given)


def test_check_part_proves_refutes_and_leaves_undecided_apart():
    proved = steps.check_part(_part(Step(sp.log(2 * x), "start"), Step(sp.log(2) + sp.log(x), "log of a product")))
    assert proved.status == "proved" and proved.failing is None
    assert [s.status for s in proved.steps] == ["given", "proved"]
    refuted = steps.check_part(_part(Step(sp.log(2 * x), "start"), Step(2 * sp.log(x), "wrong")))
    assert refuted.status == "refuted" and refuted.failing.index == 1
    assert refuted.failing.decision.counterexample


def test_a_rule_whose_side_condition_fails_leaves_the_step_inconclusive():
    step = Step(x + 2, "x = 1", rules.substitute({x: 1}, "x is one"))
    r = steps.check_part(_part(Step(x + x + 1, "start"), step))
    assert r.status == "inconclusive"
    assert r.failing.decision.how.startswith("side condition not met")
    ok = steps.check_part(
        _part(
            Step(x + x + 1, "start"),
            Step(sp.Integer(3), "x = 1", rules.substitute({x: 1}, "x is one")),
            given=(sp.Eq(x, 1),),
        )
    )
    assert ok.status == "proved" and sp.Eq(x, 1) in ok.given


def test_a_rule_built_by_hand_is_used_only_once_its_output_is_shown_equal():
    liar = rules.Rule("x is 0", "calculus", lambda e: e.xreplace({x: 0}))
    assert not rules.vouched(liar) and not rules.trusted(liar)
    r = steps.check_part(_part(Step(x + 1, "start"), Step(sp.Integer(1), "by fiat", liar)))
    assert r.status == "refuted"
    assert "changes the expression" in r.failing.decision.how


def test_a_checked_kind_without_a_check_is_refused():
    bare = rules.Rule("an assumption", "assumption", lambda e: e)
    r = steps.check_part(_part(Step(x, "start"), Step(x, "assumed", bare)))
    assert r.status == "inconclusive" and r.failing.decision.how.startswith("side condition not checked")


def test_check_parts_lets_a_lemma_cite_an_earlier_proved_part_and_replay_applies_rules():
    first = Part("first", (Step(sp.log(2 * x), ""), Step(sp.log(2) + sp.log(x), "")))
    second = Part(
        "second",
        (
            Step(sp.log(2 * x) + 1, ""),
            Step(
                sp.log(2) + sp.log(x) + 1,
                "part 'first'",
                rules.lemma("part 'first'", sp.log(2 * x), sp.log(2) + sp.log(x)),
            ),
        ),
    )
    assert [r.status for r in steps.check_parts((first, second))] == ["proved", "proved"]
    assert [r.status for r in steps.check_parts((second,))][0] == "inconclusive"  # nothing proved to cite
    d = Part("d", (Step(sp.Derivative(x**2, x), ""), Step(2 * x, "", rules.differentiate(x))))
    assert steps.replay(d, sp.Derivative(x**3, x)) == 3 * x**2


# --- rules: the trust classes beside the kinds, and who vouches --------------------------------------


def test_every_submodules_constructors_are_vouched_for_and_a_copy_is_not():
    t = sp.Symbol("t", integer=True)
    built = (
        rules.differentiate(x),
        rules.substitute({x: 1}, "s"),
        rules.exchange_sums(),
        rules.split_last(t),
        rules.linearity((p,)),
        rules.limit_laws(),
        rules.small_remainder(j, n),
    )
    assert all(rules.vouched(r) for r in built)
    assert not any(rules.vouched(dataclasses.replace(r, name="mine")) for r in built)


def test_trust_classes():
    assert set(rules.STATED_KINDS) <= set(rules.TRUSTED_KINDS)
    assert not set(rules.CHECKED_KINDS) & set(rules.TRUSTED_KINDS)
    assert rules.trusted(rules.Rule("H", "definition", lambda e: e))  # printed among the hypotheses
    assert rules.trusted(rules.differentiate(x))  # calculus, built by the package
    assert rules.trusted(rules.exchange_sums())  # a law with its side conditions checked
    assert not rules.trusted(rules.Rule("law", "law", lambda e: e, check=lambda e, env: None))


# --- hypotheses: generality -------------------------------------------------------------------------


def test_generality_is_computed_three_valued():
    total = sp.Sum(p[i], (i, 1, n))
    symbolic = _part(Step(total, ""), Step(total, ""))
    concrete = _part(Step(sp.Sum(p[i], (i, 1, 3)), ""), Step(p[1] + p[2] + p[3], ""))
    scalar = _part(Step(sp.log(2 * x), ""), Step(sp.log(2) + sp.log(x), ""))
    fixed = _part(Step(total, ""), Step(total, ""), given=(sp.Eq(n, 3),))
    assert hypotheses.generality(symbolic)[0] is True
    assert hypotheses.generality(concrete)[0] is False
    assert hypotheses.generality(scalar)[0] is None
    assert hypotheses.generality(fixed) == (False, "a hypothesis fixes a size: Eq(n, 3)")
    assert hypotheses.claim_generality((symbolic, scalar)) is True
    assert hypotheses.claim_generality((symbolic, concrete)) is False
    assert hypotheses.claim_generality((scalar,)) is False
    assert steps.check_part(concrete).general is False


# --- layering: the kernel imports only what lies below it, and no circle inside it ------------------


def _imports_of_symbolic() -> dict:
    """Module → the mathcheck modules and top-level packages it imports (module- and function-level)."""
    import ast
    import pathlib

    root = pathlib.Path(steps.__file__).parent
    out = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
        out[name] = found
    return out


def test_the_symbolic_kernel_imports_nothing_above_it_and_has_no_circle():
    """symbolic sits on numeric (the constructive draw, the reader of hypotheses, holds_at) and on
    the values; numeric never imports symbolic (tests/numeric/test_kernel.py's layering test)."""
    graph = _imports_of_symbolic()
    above = (
        "mathcheck.verify",
        "mathcheck.userexpr",
        "mathcheck.conform",
        "mathcheck.render",
        "mathcheck.engine",
        "mathcheck.derivations",
        "mathcheck.registry",
        "torch",
    )
    for mod, found in graph.items():
        assert not [m for m in found if m.startswith(above)], mod
    # what symbolic takes from numeric imports no torch at module level (derivations never import torch)
    numeric = pathlib.Path(steps.__file__).parents[1] / "numeric"
    for name in {
        m.split(".")[2]
        for found in graph.values()
        for m in found
        if m.startswith("mathcheck.numeric.") and m.count(".") >= 2
    }:
        path = numeric / f"{name}.py"
        if path.exists():
            top = [n for n in ast.parse(path.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
            assert not [n for n in top if "torch" in ast.dump(n)], name
    inner = {m: {d for d in graph if d != m and d in found and d != "mathcheck.symbolic"} for m, found in graph.items()}
    seen: dict = {}

    def visit(m, path):
        assert m not in path, " -> ".join(path + (m,))
        if seen.get(m):
            return
        for d in sorted(inner[m]):
            visit(d, path + (m,))
        seen[m] = True

    for m in sorted(inner):
        visit(m, ())


# --- one place for a proving strategy (docs/design.md, "Where to add…") -----------------------------


def _square_of_sum(e, rel, hypotheses):
    """A toy prover: (Σ_i a_i)² = Σ_i Σ_j a_i a_j (j fresh), then the bound variables renamed by depth
    and the difference expanded to 0. Sound: it is the product of two sums over the same range."""

    def double(power):
        ((v, lo, hi),) = power.base.limits
        w = sp.Dummy("w", integer=True)
        inner = power.base.function * power.base.function.xreplace({v: w})
        return sp.Sum(sp.Sum(inner, (w, lo, hi)), (v, lo, hi))

    out = e.replace(
        lambda t: t.is_Pow and t.exp == 2 and isinstance(t.base, sp.Sum) and len(t.base.limits) == 1, double
    )
    return out != e and sp.expand(sums.canonical_sums(out)) == 0


def test_a_prover_added_in_one_place_is_used_by_check_and_by_a_claims_step(monkeypatch):
    from mathcheck.parser import parse_many
    from mathcheck.userexpr import check_relation

    toy = decide.Prover("toy: the square of a sum as a double sum", ("=",), lambda e, h: e.has(sp.Sum), _square_of_sum)
    L, R = parse_many(["Sum(x[i], (i, 1, n))^2", "Sum(Sum(x[i]*x[j], (j, 1, n)), (i, 1, n))"])
    xs = sp.IndexedBase("x")
    step = _part(
        Step(sp.Sum(xs[i], (i, 1, n)) ** 2, "start"),
        Step(sp.Sum(sp.Sum(xs[i] * xs[j], (j, 1, n)), (i, 1, n)), "a product of two sums"),
    )
    assert check_relation(L, R, "=", {}, timeout=10).status == "inconclusive"  # no strategy of ours shows it
    assert steps.check_part(step, step_s=6).status == "inconclusive"

    monkeypatch.setattr(decide, "PROVERS", decide.PROVERS + [toy])  # the one place
    r = check_relation(L, R, "=", {}, timeout=20)
    assert r.status == "proved" and r.how == toy.name
    part = steps.check_part(step, step_s=12)
    assert part.status == "proved" and part.steps[1].decision.how == toy.name
    monkeypatch.undo()
    assert toy not in decide.PROVERS
