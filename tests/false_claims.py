"""A deliberately false claim (and its numeric check) for testing that mathcheck says "no"."""

import sympy as sp
import torch

from mathcheck.claim import Body, Mutant, Part, Step
from mathcheck.verify._compare import Comparison
from mathcheck.numeric.evaluate import evaluate

META = dict(
    id="test-false-square",
    title="(x + 1)² = x² + 1 (false)",
    section="§0",
    zh="测试",
    en="test",
    check="tests.false_claims:check",
)


def build() -> Body:
    x = sp.Symbol("x", real=True)
    part = Part("square", (Step((x + 1) ** 2, "start"), Step(x**2 + 1, "forgot the cross term")), general=False)
    return Body(
        assumptions=("x real",),
        parts=(part,),
        mutants=(
            Mutant("m1", "x² − 1", (("square", sp.Eq(part.lhs, x**2 - 1)),)),
            Mutant("m2", "x²", (("square", sp.Eq(part.lhs, x**2)),)),
        ),
    )


def check(statements, options):
    cmp = Comparison("torch float64 arithmetic", options, atol=1e-12, rtol=1e-12)
    g = torch.Generator().manual_seed(options.seed)
    xs = torch.randn(16, generator=g, dtype=torch.float64)
    for name, eq in statements.items():
        (x,) = eq.lhs.free_symbols
        cmp.compare(name, evaluate(eq.lhs, {x: xs}), evaluate(eq.rhs, {x: xs}))
    return cmp.verdict()
