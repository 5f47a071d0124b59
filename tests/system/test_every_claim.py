"""Every registered claim: proved for a general dimension, and every mutant refuted."""

import pytest

from mathcheck.claim import SEED_VERDICTS
from mathcheck import registry
from tests.conftest import proved, refuted


def test_claim_is_proved(claim_id):
    v = proved(claim_id)
    assert v.status == "proved", v.symbolic.failing or v.numeric.counterexample or v.numeric.details
    assert v.symbolic.status == "proved"
    assert v.numeric.status == "passed"
    assert v.numeric.trials > 0


def test_claim_metadata(claim_id):
    c = registry.get(claim_id)
    assert c.source.section.startswith("§")
    assert c.source.zh and c.source.en
    assert len(c.mutants) >= 2
    assert c.seed_verdict[0] in SEED_VERDICTS


def test_every_mutant_is_refuted_by_the_numeric_check(claim_id):
    r = refuted(claim_id)
    assert not r.error
    for m in r.mutants:
        assert m.status == "refuted", m.name
        assert m.numeric.status == "refuted", m.name
        assert m.numeric.counterexample, m.name


def test_every_mutant_the_symbolic_side_can_derive_is_refuted_symbolically(claim_id):
    for m in refuted(claim_id).mutants:
        if m.symbolic is not None:
            assert m.symbolic.value is False, (m.name, m.symbolic)
            assert m.symbolic.counterexample


@pytest.mark.slow
def test_headline_claims_are_general():
    for cid in ("qk-variance", "softmax-jacobian", "cross-entropy-decomposition", "sinusoidal-relative-position"):
        assert proved(cid).symbolic.general is True
