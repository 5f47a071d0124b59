"""A pytest hook of the test suite (tests/conftest.py imports it): tests/system/test_xdist_groups.py runs it
in a project of its own."""

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Keep each ``xdist_group`` on one worker under pytest 9. pytest-xdist's ``--dist loadgroup``
    (setup.cfg's addopts) suffixes a grouped test's node id with ``@group`` through ``item._nodeid``,
    which pytest 9 no longer reads (its id is ``item._id``): every group was split across the workers,
    and what a group shares was computed once per worker — the derive corpus twice (~150 s each) in
    one CI run, a claim proved by every worker that ran one of its tests. Older pytest: a no-op."""
    if not getattr(config.option, "loadgroup", False):  # set in xdist's workers for --dist loadgroup
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest < 9: xdist's own suffix works
        return
    for item in items:
        names = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")
        }
        suffix = "@" + "_".join(sorted(names))
        if names and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            item._id = NodeId.parse(item.nodeid + suffix)
