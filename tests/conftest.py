import functools

import pytest

from mathcheck import registry
from mathcheck.engine import verdict
from mathcheck.verify import Options


@functools.lru_cache(maxsize=None)
def proved(claim_id: str, seed: int = 0):
    return verdict(registry.entry(claim_id), "prove", Options(seed=seed))


@functools.lru_cache(maxsize=None)
def refuted(claim_id: str, seed: int = 0):
    return verdict(registry.entry(claim_id), "refute", Options(seed=seed))


CLAIM_IDS = [e.id for e in registry.entries()]


# Every test of one claim runs on the same xdist worker (`--dist loadgroup`), so the claim is
# proved and refuted once per run, not once per test.
@pytest.fixture(params=[pytest.param(c, marks=pytest.mark.xdist_group(c)) for c in CLAIM_IDS])
def claim_id(request):
    return request.param


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    # Tests prove claims afresh: a cache shared with the user's runs would test the cache instead.
    import os

    os.environ["MATHCHECK_CACHE_DIR"] = str(tmp_path_factory.mktemp("mathcheck-cache"))
