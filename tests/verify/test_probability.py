"""§3 probability claims: what is specific to them beyond tests/system/test_every_claim.py.

The float facts the checks pin (naive exp overflows, softmax and the likelihood product underflow),
PyTorch's reductions, the temperature plot, and the local rules (splitting a sum, the limit laws)
refusing to show false steps.
"""

import pytest
import sympy as sp
import torch
import torch.nn.functional as F

from mathcheck import registry
from mathcheck.symbolic import rules, steps
from mathcheck.symbolic.hypotheses import claim_generality
from mathcheck.claim import Part, Step
from mathcheck.derivations import probability as derivations
from mathcheck.verify import Options
from mathcheck.verify import probability as checks

IDS = ("softmax-simplex", "cross-entropy-softmax-gradient", "mle-equals-cross-entropy", "temperature-sharpness")
CHECKS = {
    "softmax-simplex": checks.softmax_simplex,
    "cross-entropy-softmax-gradient": checks.cross_entropy_softmax_gradient,
    "mle-equals-cross-entropy": checks.mle_equals_cross_entropy,
    "temperature-sharpness": checks.temperature_sharpness,
}


def statements(cid, **replace):
    out = registry.get(cid).statements()
    out.update(replace)
    return out


@pytest.mark.parametrize("cid", IDS)
def test_metadata_and_seed_verdict(cid):
    c = registry.get(cid)
    assert c.source.section.startswith("§3.")
    assert claim_generality(c.parts, c.context), [p.name for p in c.parts if not p.general]
    kind, note = c.seed_verdict
    assert kind in ("exact", "holds-with-conditions", "imprecise") and len(note) > 40
    assert c.check == f"mathcheck.verify.probability:{CHECKS[cid].__name__}"


def test_the_float_facts_the_seed_glosses_over_hold_in_this_torch():
    z = torch.full((3,), 1000.0, dtype=torch.float64) + torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    naive = torch.exp(z) / torch.exp(z).sum()
    assert torch.isnan(naive).all()
    assert torch.allclose(F.softmax(z, 0), torch.exp(z - z.max()) / torch.exp(z - z.max()).sum(), atol=0, rtol=1e-15)
    assert torch.equal(
        F.softmax(torch.tensor([0.0, -1000.0], dtype=torch.float64), 0), torch.tensor([1.0, 0.0], dtype=torch.float64)
    )
    # the checks record the same facts as comparisons that can fail
    v = checks.softmax_simplex(statements("softmax-simplex"), Options())
    facts = [d for d in v.details if d.startswith("fact:")]
    assert any("naive exp(z)/Σ exp(z) is not finite" in d for d in facts)
    assert any("float32" in d for d in facts) and any("2.72" in d for d in facts)
    v = checks.mle_equals_cross_entropy(statements("mle-equals-cross-entropy"), Options())
    assert any("underflows to 0.0" in d for d in v.details)


def test_the_seeds_ratio_is_e_not_a_ratio_of_scores():
    s = F.softmax(torch.tensor([2.0, 3.0], dtype=torch.float64), 0)
    assert abs(float(s[1] / s[0]) - torch.e) < 1e-15 and round(float(s[1] / s[0]), 2) == 2.72


def test_mean_reduction_is_not_the_sequence_loss():
    """F.cross_entropy's default reduction='mean' is the sum over T: a statement mixing them fails."""
    c = registry.get("mle-equals-cross-entropy")
    mean = c.part("mean-reduction")
    wrong = sp.Eq(mean.lhs, -sp.log(sp.Function("Likelihood")(sp.IndexedBase("p", positive=True))), evaluate=False)
    v = checks.mle_equals_cross_entropy(statements("mle-equals-cross-entropy", **{"mean-reduction": wrong}), Options())
    assert v.status == "refuted" and "mean" in dict(v.counterexample)["case"]


def test_relations_are_checked_entry_by_entry():
    """A reversed inequality is refuted numerically: the relation checks can fail."""
    c = registry.get("softmax-simplex")
    order = c.part("order-preserving")
    v = checks.softmax_simplex(
        statements("softmax-simplex", **{"order-preserving": sp.Lt(order.lhs, 0, evaluate=False)}), Options()
    )
    assert v.status == "refuted" and "order-preserving" in dict(v.counterexample)["case"]
    t = registry.get("temperature-sharpness")
    v = checks.temperature_sharpness(
        statements("temperature-sharpness", **{"sharpness": sp.Le(t.part("sharpness").lhs, 0, evaluate=False)}),
        Options(),
    )
    assert v.status == "refuted"


def test_temperature_attaches_an_entropy_plot_that_rises():
    v = checks.temperature_sharpness(statements("temperature-sharpness"), Options())
    assert v.status == "passed"
    (plot,) = v.plots
    assert plot.name == "entropy-vs-temperature" and plot.logx and len(plot.series) == 3
    for label, xs, ys in plot.series:
        assert len(xs) == len(ys) == 26 and list(xs) == sorted(xs)
        assert all(b >= a - 1e-12 for a, b in zip(ys, ys[1:])), label
        assert ys[-1] > ys[0]


def test_limit_laws_do_not_evaluate_an_indeterminate_form():
    """∞/∞ as T → 0⁺ is left unevaluated, so a false step citing the rule is not shown."""
    z, _, i, _, k, n = derivations.logits()
    T = sp.Symbol("T", positive=True)
    rule = rules.limit_laws()
    naive = sp.Limit(sp.exp(z[i] / T) / sp.Sum(sp.exp(z[k] / T), (k, 1, n)), T, 0, "+")
    assert rule.apply(naive) == naive
    part = Part("wrong-limit", (Step(naive, "p_i as T → 0⁺"), Step(1 / n, "claimed uniform", rule)))
    assert steps.check_part(part).status != "proved"
    hot = sp.Limit(sp.exp(z[i] / T) / sp.Sum(sp.exp(z[k] / T), (k, 1, n)), T, sp.oo)
    assert rule.apply(hot) == 1 / n


def test_split_rule_cannot_prove_a_false_bound():
    z, s, i, _, k, n = derivations.logits()
    total = sp.Sum(sp.exp(z[k]), (k, 1, n))
    rest = sp.Sum(sp.exp(z[k]), (k, 1, i - 1)) + sp.Sum(sp.exp(z[k]), (k, i + 1, n))
    part = Part(
        "too-strong",
        (
            Step(sp.exp(z[i]) / total, "s_i"),
            Step(sp.exp(z[i]) / (sp.exp(z[i]) + rest), "split", derivations.split_at(i)),
            Step(sp.Rational(1, 2), "claimed ≤ 1/2", relation="<="),
        ),
    )
    ctx = registry.get("softmax-simplex").context
    assert steps.check_part(part, ctx).status == "refuted"


def test_cross_entropy_gradient_of_the_mean_reduction_is_divided_by_the_batch():
    z = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(0)).requires_grad_()
    y = torch.tensor([0, 5, 2, 2])
    (g_sum,) = torch.autograd.grad(F.cross_entropy(z, y, reduction="sum"), z)
    (g_mean,) = torch.autograd.grad(F.cross_entropy(z, y), z)
    expected = F.softmax(z.detach(), -1) - F.one_hot(y, 6).to(torch.float64)
    assert torch.allclose(g_sum, expected, atol=1e-15, rtol=0)
    assert torch.allclose(g_mean * 4, expected, atol=1e-15, rtol=0)
