"""The contracts every claim's numeric check keeps, each tested once over the whole registry
(the generic check's claims included), never copied per branch:

* a check refuses a part it does not know (a part added to a claim without a comparison of its
  own fails loudly instead of being compared by a check not written for it) — cheap (no check runs
  a part), so over conftest's ``CLAIM_IDS`` in the fast run;
* the same seed gives the same verdict — on conftest's smoke sample, in each claim's xdist group, so
  the engine's verdict it is compared with is the one the claim's other sweeps share. The whole
  catalog's reproduction is ``system/test_reproducible.py``'s (``prove --all`` and ``refute --all``
  twice, ``-j 1`` and ``-j 2``): running every claim's check once more here cost CI 95 s for no
  claim it does not already hold.
"""

import pytest
from mathcheck import registry
from mathcheck.engine import verify
from mathcheck.verify import Options, resolve
from tests.conftest import CLAIM_IDS, SMOKE, claim_params, proved


def _run_check(claim, statements):
    """Call ``claim``'s check as the engine does (the generic check also takes the claim)."""
    fn = resolve(claim.check)
    if getattr(fn, "wants_claim", False):
        return fn(statements, Options(), claim=claim)
    return fn(statements, Options())


@pytest.mark.parametrize("cid", CLAIM_IDS)
def test_a_check_refuses_a_part_it_does_not_know(cid):
    """A check fed a part name it has no comparison for raises KeyError, never passes it: e.g.
    ``softmax_simplex({"no-such-part": <its first statement>})`` → KeyError."""
    claim = registry.get(cid)
    statement = next(iter(claim.statements().values()))
    with pytest.raises(KeyError, match="no-such-part"):
        _run_check(claim, {"no-such-part": statement})


@pytest.mark.parametrize("claim_id", claim_params(SMOKE))
def test_the_same_seed_gives_the_same_verdict(claim_id):
    """The check run again at seed 0 (on one thread, as the engine runs it) repeats the engine's
    numeric verdict field for field: status, evidence, largest error, counterexample."""
    claim = registry.get(claim_id)
    first, again = proved(claim_id).numeric, verify(claim, claim.statements(), Options(seed=0))
    fields = ("status", "trials", "max_abs_err", "atol", "rtol", "counterexample", "details", "test")
    assert [getattr(again, f) for f in fields] == [getattr(first, f) for f in fields]
