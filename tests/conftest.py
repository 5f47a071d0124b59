import functools

import pytest

from mathcheck import registry
from mathcheck.engine import verdict
from mathcheck.verify import Options
from tests.xdist_groups import pytest_collection_modifyitems  # noqa: F401 - a hook: one group, one worker


@functools.lru_cache(maxsize=None)
def proved(claim_id: str, seed: int = 0):
    return verdict(registry.entry(claim_id), "prove", Options(seed=seed))


@functools.lru_cache(maxsize=None)
def refuted(claim_id: str, seed: int = 0):
    return verdict(registry.entry(claim_id), "refute", Options(seed=seed))


CLAIM_IDS = [e.id for e in registry.entries()]

# The fast run's sample of the catalog: one claim of each kind that proves and refutes in seconds
# (linear algebra, probability, calculus, information theory, §9). A per-claim sweep runs these in
# the default run and every other claim under `-m slow` (docs/performance.md, "The test suite").
SMOKE = (
    "scaling-prevents-saturation",
    "softmax-simplex",
    "chain-rule-linear-layer",
    "cross-entropy-decomposition",
    "logsumexp-shift",
)


def claim_params(ids=None) -> list:
    """``ids`` (default: every claim) as pytest params for a per-claim sweep: each in its claim's
    xdist group (`--dist loadgroup`: one worker proves and refutes a claim once per run, not once
    per test), marked ``slow`` unless it is in :data:`SMOKE`."""
    return [
        pytest.param(c, marks=[pytest.mark.xdist_group(c)] + ([] if c in SMOKE else [pytest.mark.slow]))
        for c in (CLAIM_IDS if ids is None else ids)
    ]


@pytest.fixture(params=claim_params())
def claim_id(request):
    return request.param


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    # Tests prove claims afresh: a cache shared with the user's runs would test the cache instead.
    import os

    os.environ["MATHCHECK_CACHE_DIR"] = str(tmp_path_factory.mktemp("mathcheck-cache"))


@pytest.fixture(autouse=True)
def _conform_quick(request, monkeypatch):
    # The fast run holds conform targets with --quick (input-dtypes to L = 129, past-1024-keys not
    # run: most tests are about other properties); a test marked slow, or one that asks for the full
    # ladder with the `conform_full` fixture, runs it as a user's conform does.
    from mathcheck.conform.spec import QUICK_ENV

    if request.node.get_closest_marker("slow") is None and "conform_full" not in request.fixturenames:
        monkeypatch.setenv(QUICK_ENV, "1")


@pytest.fixture
def conform_full(monkeypatch):
    """conform without --quick: input-dtypes to L = 1025 and past-1024-keys (docs/conform.md)."""
    from mathcheck.conform.spec import QUICK_ENV

    monkeypatch.delenv(QUICK_ENV, raising=False)
