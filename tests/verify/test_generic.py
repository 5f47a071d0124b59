"""The generic check's integer draws reach the points a side condition names (issue 32, item 3):
the hypotheses' constants and the range ends ± 1, large values, and dimensions drawn apart so one
sum's bounds cross (Karr's reversed range) — not only −5..5 and one common size."""

from __future__ import annotations

import torch

from mathcheck import engine, registry
from mathcheck.lazy import sympy as sp
from mathcheck.numeric.sampling import named_integers, tensor_integer
from mathcheck.verify import Options

REVERSED = """
from mathcheck.claim import Body, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim

@claim(id="generic-reversed-delta", title="t", section="§9.99", zh="用户", en="user")
def build():
    f = sp.IndexedBase("f", real=True)
    k, a, t, u = sp.symbols("k a t u", integer=True)
    s = sp.Sum(f[k] * sp.KroneckerDelta(k, u), (k, a, t))
    # false: for a > t + 1 the range is reversed, −Σ_{k=t+1}^{a−1}, and holds u when t < u < a
    return Body(assumptions=("f real",), parts=(Part("p", (Step(s, "s"), Step(sp.Integer(0), "gone")),
                                                     given=(sp.Lt(t, u),)),),
                mutants=(Mutant("one", "1", (("p", sp.Eq(s, 1)),)), Mutant("two", "2", (("p", sp.Eq(s, 2)),))))
"""


def test_named_integers_are_the_constants_and_ends_plus_minus_one_and_large_values():
    n = sp.Symbol("n", integer=True, nonnegative=True)
    assert named_integers(n, (3,)) == [2, 3, 4, 40, 1000]
    z = sp.Symbol("z", integer=True)
    assert named_integers(z, (0,)) == [-1000, -40, -1, 0, 1, 40, 1000]
    g = torch.Generator().manual_seed(0)
    drawn = {tensor_integer(z, g, (7,)) for _ in range(400)}
    assert {6, 7, 8, 1000, -1000} <= drawn and drawn & set(range(-5, 6))


def test_the_generic_check_reaches_a_reversed_range(tmp_path):
    # before: every dimension at one common size (a = t), u in −5..5: "passed, 9 trials"
    path = tmp_path / "reversed_delta.py"
    path.write_text(REVERSED)
    (cid,) = registry.load_from(str(path))
    claim = registry.entry(cid).build()
    numeric = engine.verify(claim, claim.statements(), Options(seed=0))
    assert numeric.status == "refuted", numeric
