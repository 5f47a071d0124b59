"""The standing mutation test (bench/mutation.py) on a deterministic sample, in the test suite.

The full run (``python bench/mutation.py``) covers every step; here every 10th step mutant (~110 of
~1100, every claim and every kind of slip kept; the bench's ``--quick`` takes every 5th), split into
chunks so xdist spreads them, and the left-hand-side-×2 statement mutants of the exact claims. Every
10th, not 5th: CI has 20 minutes, and the 5th-stride sample alone took 216 s of it.
"""

from __future__ import annotations

import sys

import pytest
from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import mutation

from mathcheck import registry

EVERY = 10
CHUNKS = 4


def _ids():
    return [e.id for e in registry.entries()]


def _sample():
    return mutation.quick_sample(mutation.step_items(_ids()), EVERY)


def test_the_sample_is_large_and_covers_every_claim():
    sample = _sample()
    assert len(sample) >= 100
    assert {i.claim for i in sample} == set(_ids())
    assert {i.kind for i in sample} == set(mutation.STEP_KINDS)


def test_step_mutants_of_one_expression():
    from mathcheck.lazy import sympy as sp

    x, y = sp.symbols("x y", positive=True)
    got = dict(mutation.step_mutants(sp.sqrt(x) + y**2))
    assert got["x2"] == 2 * sp.sqrt(x) + 2 * y**2
    assert got["plus1"] == sp.sqrt(x) + y**2 + 1
    assert got["plus-symbol"] == sp.sqrt(x) + y**2 + x
    assert got["sqrt-to-x"] == x + y**2
    assert got["square-to-x"] == sp.sqrt(x) + y
    assert got["negate-term"] in (-sp.sqrt(x) + y**2, sp.sqrt(x) - y**2)
    assert "x2" not in dict(mutation.step_mutants(sp.Integer(0)))  # 2·0 = 0 changes nothing


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_no_false_proof_and_no_error_on_the_sample(chunk):
    items = _sample()[chunk::CHUNKS]
    results = [mutation.run_step_item(i) for i in items]
    report = mutation.report(results, [], _ids(), 0.0)
    assert report["errors"] == []
    assert report["false_proofs"] == []
    assert report["refuted"] > 0.8 * len(items)  # the checker refutes slips; it does not only shrug


def test_a_checker_that_proves_everything_is_caught(monkeypatch):
    """The bench must be able to fail: a checker that says `proved` to a false step is a false proof."""
    from mathcheck.symbolic import steps

    real = steps.check_part

    def credulous(part, *args, **kwargs):
        r = real(part, *args, **kwargs)
        return type(r)(**{**r.__dict__, "status": "proved"})

    monkeypatch.setattr(steps, "check_part", credulous)
    items = [i for i in _sample() if i.claim == "softmax-jacobian"][:3]
    report = mutation.report([mutation.run_step_item(i) for i in items], [], _ids(), 0.0)
    assert len(report["false_proofs"]) == len(items)


EXACT = (
    "softmax-jacobian",
    "cross-entropy-decomposition",
    "layernorm-statistics",
    "adam-update",
    "attention-permutation-equivariance",
    "sinusoidal-relative-position",
    "kl-distillation",
    "mask-negative-infinity",
)


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", EXACT)
def test_lhs_doubled_is_caught_numerically(claim_id):
    items = [i for i in mutation.statement_items([claim_id]) if i.kind == "lhs-x2"]
    results = [mutation.run_statement_item(i, 0) for i in items]
    report = mutation.report([], results, [claim_id], 0.0)
    assert report["errors"] == []
    assert report["numeric"]["missed"] == []
    assert report["numeric"]["caught"] >= 1
