"""The contract every claim's numeric check keeps, tested once over the whole registry
(conftest's ``CLAIM_IDS``: every registered claim, the generic check's included), never copied per
branch: a check refuses a part it does not know (a part added to a claim without a comparison of
its own fails loudly instead of being compared by a check not written for it).

It is cheap (no check runs a part), so it runs in the fast run for every claim rather than through
``claim_id``'s slow sweep, which marks all but a smoke sample slow."""

import pytest
from mathcheck import registry
from mathcheck.verify import Options, resolve
from tests.conftest import CLAIM_IDS


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

