"""Every part of every claim, mutated as a statement, is caught by the numeric check alone.

For each part: the left side doubled (an equation whose right side is not 0; a ≤ or <), the right
side times 1 + 1e-6 (an equation whose right side is not 0), the relation flipped (an inequality).
Each makes the statement false somewhere on the check's cases, so the numeric check must refute it:
that it evaluates both sides (and the reference) and that its tolerances are tight enough.
"""

import pytest
import sympy as sp

from mathcheck import registry
from mathcheck.engine import verify
from mathcheck.verify import Options
from tests.conftest import claim_params

FLIP = {">=": "<", ">": "<=", "<=": ">", "<": ">="}
# a relative error of 1e-6 is far below what a Monte Carlo test of 10⁵ draws resolves (it states
# its own detectable error, ~5%): these parts are exempt from the rhs × (1 + 1e-6) mutant only
STATISTICAL = {
    ("qk-variance", "general"),
    ("qk-variance", "standard"),
    ("qk-variance", "scaled"),
    ("scaling-prevents-saturation", "scaled"),
}


def statement_mutants(claim_id: str, eq, part: str):
    op = eq.rel_op
    if op == "==":
        if eq.rhs == 0:  # 2·lhs = 0 and lhs = 0·(1 + 1e-6) are as true as the statement
            return []
        out = [("lhs×2", sp.Eq(2 * eq.lhs, eq.rhs, evaluate=False))]
        if (claim_id, part) not in STATISTICAL:
            out.append(("rhs×(1+1e-6)", sp.Eq(eq.lhs, eq.rhs * sp.Float("1.000001", 30), evaluate=False)))
        return out
    out = [("flipped", sp.Rel(eq.lhs, eq.rhs, FLIP[op], evaluate=False))]
    if op in ("<=", "<"):  # 2·lhs ≥ rhs may stay true (2·KL ≥ 0); 2·lhs ≤ rhs fails where lhs ≈ rhs > 0
        out.append(("lhs×2", sp.Rel(2 * eq.lhs, eq.rhs, op, evaluate=False)))
    return out


# parts whose doubled left side stays true on every case the check draws (checked by hand: the
# statement 2·lhs ≤ rhs holds there), with why
STILL_TRUE = {
    ("mle-equals-cross-entropy", "strictly-decreasing", "lhs×2"): "2·(−1/L) < 0 is true",
    ("mle-equals-cross-entropy", "decreasing", "lhs×2"): "2·(−1/p) < 0 is true",
    ("information-content", "decreasing", "lhs×2"): "2·(−1/p) < 0 is true",
}


@pytest.mark.parametrize("claim_id", claim_params())
def test_statement_mutants_are_caught_numerically(claim_id):
    claim = registry.get(claim_id)
    base = claim.statements()
    missed = []
    for part, eq in base.items():
        for name, mutant in statement_mutants(claim_id, eq, part):
            if STILL_TRUE.get((claim_id, part, name)):
                continue
            verdict = verify(claim, {**base, part: mutant}, Options())
            if verdict.status != "refuted":
                missed.append(f"{part} {name}: {verdict.status} {verdict.details[-1:]}")
    assert not missed, f"{claim_id}: statement mutants the numeric check missed: {missed}"


@pytest.mark.slow
@pytest.mark.xdist_group("qk-variance")
def test_qk_variance_states_its_detectable_error_and_false_alarm_rate():
    # the verdict test_every_claim proved in this worker (the group's), printed as `mathcheck prove` prints
    # it: the ~22 s Monte Carlo is not run a second time (CI time)
    from mathcheck.render.text import claim_verdict
    from tests.conftest import proved

    v = proved("qk-variance")
    assert v.status == "proved"
    test_line = next(line for line in claim_verdict(v) if line.startswith("    test:"))
    assert "family false-alarm rate <= 1e-6" in test_line
    detect = test_line.split("power >= 1 - 1e-6: ")[1]
    small, large = (float(part.split("%")[0]) for part in detect.split(", "))
    assert small <= 5.0 and large <= 10.0  # at d_k <= 512 and at d_k = 4096
