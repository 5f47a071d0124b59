"""The suite's ``xdist_group``s hold under pytest 9 (tests/xdist_groups.py): the tests of one group
run in one worker, so what they share (the whole catalog proved, the derive corpus derived) is
computed once per run. Before the hook every group was split across workers."""

import os
import subprocess
import sys
import textwrap
from tests.paths import ROOT


def test_the_tests_of_one_group_run_in_one_worker(tmp_path):
    (tmp_path / "conftest.py").write_text("from xdist_groups import pytest_collection_modifyitems  # noqa: F401\n")
    (tmp_path / "test_g.py").write_text(
        textwrap.dedent("""
        import os
        import pytest

        @pytest.mark.parametrize("k", range(8))
        @pytest.mark.xdist_group("one")
        def test_grouped(k, tmp_path_factory):
            (tmp_path_factory.getbasetemp().parent / f"pid-{k}").write_text(str(os.getpid()))

        @pytest.mark.parametrize("k", range(8))
        def test_free(k):
            pass
        """)
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-q",
            "-p",
            "no:cacheprovider",
            "--basetemp",
            str(tmp_path / "base"),
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    pids = {p.read_text() for p in (tmp_path / "base").glob("pid-*")}
    assert len(list((tmp_path / "base").glob("pid-*"))) == 8 and len(pids) == 1, pids
