"""Numeric checks for §9, the losses: label smoothing (§9.7) and perplexity (§9.8).

Each statement's left side AND right side is compared with PyTorch's own implementation of the
variant, three-way, as set out in :mod:`mathcheck.verify._beyond` (float64 by default, seeded,
tolerances derived per entry).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options
from mathcheck.verify._beyond import _comparison, _sides
from mathcheck.verify._compare import dtype, generator
from mathcheck.numeric.evaluate import evaluate
from mathcheck.numeric.symbols import bind
from mathcheck.verify.probability import _fact, _relation


# --- label-smoothing-decomposition -----------------------------------------------------------------------

SMOOTHING = (0.0, 0.1, 0.3, 1.0)
CLASSES = (2, 10, 1000)


def label_smoothing_decomposition(statements: dict, options: Options) -> NumericVerdict:
    """Both sides (p = softmax(z)) against ``F.cross_entropy(z, y, label_smoothing=ε, reduction='none')``
    for ε ∈ {0, 0.1, 0.3, 1} and C ∈ {2, 10, 1000}, three rows each."""
    dt = dtype(options)
    cmp = _comparison("F.cross_entropy(label_smoothing=ε, reduction='none')", options, max(CLASSES))
    g = generator(options, salt=907)
    for C in CLASSES:
        Z = torch.randn(3, C, generator=g, dtype=dt) * 3
        Y = torch.randint(0, C, (3,), generator=g)
        P = F.softmax(Z, dim=-1)
        for eps in SMOOTHING:
            ref = F.cross_entropy(Z, Y, label_smoothing=eps, reduction="none")
            for part, eq in statements.items():
                if part != "decomposition":
                    raise KeyError(f"label_smoothing_decomposition: no numeric check for part {part!r}")
                for row in range(3):
                    env = bind(eq, p=P[row], y=int(Y[row]) + 1, C=C, epsilon=eps)
                    _sides(cmp, f"{part} C={C} eps={eps} row {row}", eq, ref[row], env, None, dt, C=C, eps=eps, row=row)
    return cmp.verdict()


# --- perplexity-exp-cross-entropy ---------------------------------------------------------------------

PPL_CASES = ((1, 50), (8, 50), (64, 1000))  # (T tokens, V vocabulary)


def perplexity_exp_cross_entropy(statements: dict, options: Options) -> NumericVerdict:
    """``exp(F.cross_entropy(logits, w))`` as perplexity. ``exp-cross-entropy``: both sides (Π by
    ``torch.prod``) against it; ``uniform``: both sides against it for all-zero logits (uniform over V);
    ``at-least-one``: both sides against log of it, and the relation ≥ on the per-token losses."""
    dt = dtype(options)
    cmp = _comparison("torch.exp(F.cross_entropy(logits, targets))", options, max(T for T, _ in PPL_CASES))
    g = generator(options, salt=908)
    for T, Vocab in PPL_CASES:
        logits = torch.randn(T, Vocab, generator=g, dtype=dt) * 2
        w = torch.randint(0, Vocab, (T,), generator=g)
        p = F.softmax(logits, -1)[torch.arange(T), w]
        ppl = torch.exp(F.cross_entropy(logits, w))
        where = {"T": T, "V": Vocab}
        for part, eq in statements.items():
            if part == "exp-cross-entropy":
                # Π p_t is ≈ 1e-192 at T = 64, V = 1000: below float32's range (≈ 1e-38), so the
                # product form is evaluated in float64 whatever --dtype (the reference stays as run).
                _sides(
                    cmp,
                    f"{part} T={T} V={Vocab}",
                    eq,
                    ppl.double(),
                    bind(eq, p=p.double(), T=T),
                    None,
                    torch.float64,
                    **where,
                )
            elif part == "uniform":
                ref = torch.exp(F.cross_entropy(torch.zeros(T, Vocab, dtype=dt), w))
                _sides(cmp, f"{part} T={T} V={Vocab}", eq, ref, bind(eq, T=T, V=Vocab), None, dt, **where)
            elif part == "at-least-one":
                u = F.cross_entropy(logits, w, reduction="none")
                env = bind(eq, u=u, T=T)
                lhs = evaluate(eq.lhs, env, dtype=dt)
                cmp.compare(f"{part} T={T} V={Vocab} lhs", torch.log(ppl), lhs, **where)
                _relation(cmp, f"{part} T={T} V={Vocab}", eq, lhs, evaluate(eq.rhs, env, dtype=dt), **where)
                _fact(cmp, f"perplexity {float(ppl):.4g} ≥ 1 at T={T}, V={Vocab}", float(ppl) >= 1.0)
            else:
                raise KeyError(f"perplexity_exp_cross_entropy: no numeric check for part {part!r}")
    return cmp.verdict()
