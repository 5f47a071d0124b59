"""§9 (beyond the article): what is specific to these claims beyond tests/system/test_every_claim.py.

The checks catch wrong statements with PyTorch's own functions (not only the registered mutants),
the finite-sum rules they cite (rules.py) refuse to show false steps, the PyTorch conventions the claims pin
(label_smoothing's ε/C, repeat_interleave's head order, logsumexp at ±1e4) hold in this torch, and
``mathcheck audit`` lists the ten claims as beyond the article with their papers.
"""

import importlib
import json

import pytest
import sympy as sp
import torch
import torch.nn.functional as F
from click.testing import CliRunner

from mathcheck import registry
from mathcheck.symbolic import rules
from mathcheck.symbolic.steps import check_part
from mathcheck.claim import Context, Part, Step
from mathcheck.cli import main
from mathcheck.derivations import _beyond as derivations
from mathcheck.verify import Options
from mathcheck.verify import attention_variants as checks
from mathcheck.verify import normalisation

IDS = (
    "online-softmax",
    "kv-cache-equivalence",
    "grouped-query-attention",
    "rmsnorm-statistics",
    "linear-attention-associativity",
    "alibi-distance-bias",
    "label-smoothing-decomposition",
    "perplexity-exp-cross-entropy",
    "logsumexp-shift",
    "causal-mask-autoregressive",
)


def check_of(cid):
    module, name = registry.get(cid).check.split(":")  # §9's checks live in one module per topic
    return getattr(importlib.import_module(module), name)


def statements(cid, **replace):
    out = registry.get(cid).statements()
    out.update(replace)
    return out


def test_the_ten_ids_are_section_9_after_the_article_in_order():
    ids = [e.id for e in registry.entries()]
    nine = [i for i in ids if registry.entry(i).section.startswith("§9")]
    assert nine == list(IDS)
    assert ids[-len(IDS) :] == list(IDS)  # after §8 and everything before it; §9.10 after §9.9


@pytest.mark.parametrize("cid", ("online-softmax", "logsumexp-shift", "rmsnorm-statistics"))
def test_the_tolerance_is_derived_and_printed(cid):
    v = check_of(cid)(statements(cid), Options())
    assert v.status == "passed"
    # the statements' sides: derived per comparison; PyTorch against PyTorch: 16·N·eps, stated
    assert v.tolerance.startswith("per entry") and "where not derived: atol=" in v.tolerance
    assert "16·N·eps" in v.reference
    tols = [t for _, _, t in v.comparisons]
    assert min(tols) > 0 and max(tols) == v.atol and v.rtol == 0.0
    assert len(set(tols)) > len(tols) // 4  # one per comparison, not one blanket value
    eps32 = torch.finfo(torch.float32).eps
    v32 = check_of(cid)(statements(cid), Options(dtype="float32"))
    assert v32.status == "passed" and v32.atol > v.atol * eps32 / torch.finfo(torch.float64).eps / 100


def test_a_merge_without_rescaling_is_caught_and_propagates_through_the_loop():
    c = registry.get("online-softmax")
    part = c.part("merge-output")
    # the same merge, with the second block's factor forgotten: a mistake no registered mutant makes
    wrong = part.lhs.xreplace({sp.exp(sp.Symbol("m_B", real=True) - sp.Symbol("m", real=True)): 1})
    assert wrong != part.lhs
    v = checks.online_softmax(statements("online-softmax", **{"merge-output": sp.Eq(wrong, part.rhs)}), Options())
    assert v.status == "refuted" and "merge-output" in dict(v.counterexample)["case"]
    assert any(d.startswith("blockwise loop") and "max |error| 0" not in d for d in v.details)


def test_a_wrong_merge_step_is_not_shown_symbolically():
    c = registry.get("online-softmax")
    part = c.part("merge-sum")
    m, mA = sp.Symbol("m", real=True), sp.Symbol("m_A", real=True)
    bad_steps = list(part.steps)
    bad_steps[2] = Step(bad_steps[2].expr.xreplace({m: mA}), "rescaled to the wrong shift")
    r = check_part(Part("bad", tuple(bad_steps), given=part.given), c.context)
    assert r.status == "refuted"


def _status(steps, given=(), ctx=Context()):
    """The checker's verdict on a two-step part citing a rule in its second step."""
    return check_part(Part("p", tuple(steps), given=given), ctx).status


F_, K_ = sp.IndexedBase("f", real=True), sp.Symbol("k", integer=True)


def test_join_ranges_needs_adjacent_ranges_and_their_order_from_the_hypotheses():
    f, k = F_, K_
    b, c = sp.symbols("b c", integer=True, positive=True)
    gap = sp.Sum(f[k], (k, 1, b)) + sp.Sum(f[k], (k, b + 2, c))  # not adjacent: k = b + 1 is missing
    assert rules.join_ranges().apply(gap) == gap
    joined = Step(sp.Sum(f[k], (k, 1, c)), "joined", rules.join_ranges())
    assert _status((Step(gap, "two ranges"), joined), (sp.Le(b, c),)) != "proved"
    adjacent = sp.Sum(f[k], (k, 1, b)) + sp.Sum(f[k], (k, b + 1, c))
    assert _status((Step(adjacent, "two ranges"), joined), (sp.Le(b, c),)) == "proved"
    # nothing says b ≤ c: Σ_{b+1}^{c} may run backwards, and the law is not used
    r = check_part(Part("p", (Step(adjacent, "two ranges"), joined)), Context())
    assert r.status == "inconclusive" and "side condition not met" in r.failing.decision.how


def test_causal_mask_needs_t_in_the_range_and_a_masked_summand():
    f, k = F_, K_
    t, n = sp.symbols("t n", integer=True)
    causal = sp.Function("causal")
    masked = sp.Sum(causal(t, k) * f[k], (k, 1, n))
    rule = rules.causal_mask(t)
    assert rule.apply(masked) == sp.Sum(f[k], (k, 1, t))
    inside = (sp.Le(1, t), sp.Le(t, n))
    assert _status((Step(masked, "masked"), Step(sp.Sum(f[k], (k, 1, t)), "mask", rule)), inside) == "proved"
    assert _status((Step(masked, "masked"), Step(sp.Sum(f[k], (k, 1, n)), "all keys", rule)), inside) == "refuted"
    # t unplaced (it may exceed n) or a summand the mask does not multiply: not shown
    assert _status((Step(masked, "masked"), Step(sp.Sum(f[k], (k, 1, t)), "mask", rule))) == "inconclusive"
    loose = sp.Sum(causal(t, k) + f[k], (k, 1, n))
    assert _status((Step(loose, "mask added"), Step(sp.Sum(1 + f[k], (k, 1, t)), "mask", rule)), inside) != "proved"


def test_delta_outside_needs_the_index_outside_the_range_from_the_hypotheses():
    f, k = F_, K_
    t, u = sp.symbols("t u", integer=True)
    s = sp.Sum(f[k] * sp.KroneckerDelta(k, u), (k, 1, t))
    rule = rules.delta_outside()
    zero = Step(sp.Integer(0), "δ outside", rule)
    assert _status((Step(s, "sum"), zero), (sp.Le(1, t), sp.Lt(t, u))) == "proved"
    for given in ((), (sp.Le(1, u), sp.Le(u, t)), (sp.Le(t, u),)):  # u unplaced, inside, possibly = t
        assert _status((Step(s, "sum"), zero), given) != "proved", given


def test_factor_in_and_out_refuse_a_factor_that_depends_on_the_index():
    a, b = sp.IndexedBase("a", real=True), sp.IndexedBase("b", real=True)
    k, c = sp.symbols("k c", integer=True)
    n, d = sp.symbols("n d", integer=True, positive=True)
    outer = sp.Sum(sp.Sum(a[k, c], (c, 1, d)) * b[c], (k, 1, n))  # b_c outside Σ_c: a free c, not the bound one
    wrong_in = Step(sp.Sum(sp.Sum(a[k, c] * b[c], (c, 1, d)), (k, 1, n)), "b enters Σ_c", rules.factor_in())
    assert _status((Step(outer, "sum"), wrong_in)) != "proved"
    inner = sp.Sum(a[k, c] * b[k], (k, 1, n))
    wrong_out = Step(b[k] * sp.Sum(a[k, c], (k, 1, n)), "b_k leaves Σ_k", rules.factor_out())
    assert _status((Step(inner, "sum"), wrong_out)) != "proved"
    right_out = Step(b[c] * sp.Sum(a[k, c], (k, 1, n)), "b_c leaves Σ_k", rules.factor_out())
    assert _status((Step(sp.Sum(a[k, c] * b[c], (k, 1, n)), "sum"), right_out)) == "proved"


def test_product_as_exp_sum_needs_positive_factors():
    t = sp.Symbol("t", integer=True)
    T = sp.Symbol("T", integer=True, positive=True)
    x = sp.IndexedBase("x", real=True)  # real, not positive: log x_t is not real
    rule = rules.product_as_exp_sum()
    step = Step(sp.exp(sp.Sum(sp.log(x[t]), (t, 1, T))), "logs", rule)
    r = check_part(Part("p", (Step(sp.Product(x[t], (t, 1, T)), "product"), step)), Context())
    assert r.status == "inconclusive" and "positive" in r.failing.decision.how
    assert _status((Step(sp.Product(x[t], (t, 1, T)), "product"), step), (sp.Gt(x[t], 0),)) == "proved"


def test_the_local_rules_are_not_trusted_kinds():
    for rule in (
        rules.join_ranges(),
        rules.causal_mask(sp.Symbol("t", integer=True)),
        rules.delta_outside(),
        rules.factor_in(),
        rules.factor_out(),
        rules.product_as_exp_sum(),
    ):
        assert rule.kind not in rules.TRUSTED_KINDS and rule.check is not None


def test_hypotheses_print_no_trivially_true_conjunct():
    for cid in IDS:
        for part in registry.get(cid).parts:
            assert all(h not in (sp.true, sp.false) for h in part.given), (cid, part.name, part.given)


def test_pytorch_label_smoothing_puts_eps_over_c_on_every_class():
    z = torch.tensor([[2.0, -1.0, 0.5, 0.0]], dtype=torch.float64)
    y, eps, C = torch.tensor([2]), 0.2, 4
    target = (1 - eps) * F.one_hot(y, C).to(torch.float64) + eps / C
    assert torch.allclose(F.cross_entropy(z, y, label_smoothing=eps), F.cross_entropy(z, target), rtol=1e-15, atol=0)
    other = (1 - eps) * F.one_hot(y, C).to(torch.float64) + eps / (C - 1) * (1 - F.one_hot(y, C).to(torch.float64))
    assert abs(float(F.cross_entropy(z, y, label_smoothing=eps) - F.cross_entropy(z, other))) > 1e-3


def test_repeat_interleave_not_repeat_matches_enable_gqa():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, 6, 3, 4, generator=g, dtype=torch.float64)
    k, v = (torch.randn(1, 2, 5, 4, generator=g, dtype=torch.float64) for _ in range(2))
    gqa = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    interleaved = F.scaled_dot_product_attention(q, k.repeat_interleave(3, 1), v.repeat_interleave(3, 1))
    tiled = F.scaled_dot_product_attention(q, k.repeat(1, 3, 1, 1), v.repeat(1, 3, 1, 1))
    assert torch.allclose(gqa, interleaved, rtol=0, atol=1e-15)
    assert not torch.allclose(gqa, tiled, atol=1e-3)


def test_logsumexp_at_1e4_the_naive_side_overflows_and_the_shifted_side_does_not():
    v = normalisation.logsumexp_shift(statements("logsumexp-shift"), Options())
    facts = [d for d in v.details if d.startswith("fact:")]
    assert any("naive log Σ e^x is not finite" in d and "±1e4" in d for d in facts)
    assert any("±1e4 c=" in d and " rhs" in d for d in v.details)
    assert v.status == "passed"


def test_kv_cache_checks_decode_against_causal_sdpa_and_catches_attending_before_append():
    c = registry.get("kv-cache-equivalence")
    dec = c.part("decode-step")
    s, v = sp.IndexedBase("s", real=True), sp.IndexedBase("v", real=True)
    k, t = sp.Symbol("k", integer=True), sp.Symbol("t", integer=True)
    stale = sp.Eq(dec.lhs, derivations.attention_row(s, v, k, 1, t - 1))  # the cache read before appending
    r = checks.kv_cache_equivalence(statements("kv-cache-equivalence", **{"decode-step": stale}), Options())
    cex = dict(r.counterexample)
    assert r.status == "refuted" and cex["case"].startswith("decode-step") and "rhs" in cex["relation"]


def test_causal_check_sees_a_leak_that_autograd_finds():
    c = registry.get("causal-mask-autoregressive")
    part = c.part("future-score")
    s, k, t, u = (
        sp.IndexedBase("s", real=True),
        sp.Symbol("k", integer=True),
        sp.Symbol("t", integer=True),
        sp.Symbol("u", integer=True),
    )
    # a "causal" row that leaks key t+1: its derivative in s_u is not 0 for u = t + 1
    v = sp.IndexedBase("v", real=True)
    leaky = derivations.attention_row(s, v, k, 1, t + 1)
    wrong = sp.Eq(sp.Derivative(leaky, s[u]), 0)
    r = checks.causal_mask_autoregressive(
        statements("causal-mask-autoregressive", **{"future-score": wrong}), Options()
    )
    assert r.status == "refuted" and "future-score" in dict(r.counterexample)["case"]
    assert part.given  # the hypothesis u > t is on the part, not hidden in a rule


def test_audit_lists_section_9_as_beyond_the_article_with_papers():
    runner = CliRunner()
    r = runner.invoke(main, ["audit", "--json"])
    assert r.exit_code == 0
    rows = json.loads(r.output)["claims"]
    beyond = [row for row in rows if row["beyond_article"]]
    assert [row["id"] for row in beyond] == list(IDS)
    assert all(row["paper"] and row["section"].startswith("§9") for row in beyond)
    assert not any(row["paper"] for row in rows if not row["beyond_article"])
    text = runner.invoke(main, ["audit"]).output
    lines = text.splitlines()
    start = lines.index("beyond the article (each checks a paper's statement, not a seed sentence):")
    assert "§9.1  online-softmax: exact (beyond the article)" in lines[start + 1]
    for cite in (
        "Dao et al. 2022",
        "Milakov & Gimelshein 2018",
        "Ainslie et al. 2023",
        "Shazeer 2019",
        "Zhang & Sennrich 2019",
        "Katharopoulos et al. 2020",
        "Press, Smith & Lewis 2022",
        "Szegedy et al. 2016",
    ):
        assert cite in "\n".join(lines[start:]), cite
    assert lines[-1].startswith("verdicts: ") and lines[-1].endswith("(10 beyond the article)")
