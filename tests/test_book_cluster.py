"""derive --cluster (issue 35 item 3): the links of a book on a Dask LocalCluster (2 worker
processes) give the report -j 1 gives, and a worker killed mid-run loses nothing and counts no link
twice (the scheduler runs its tasks again elsewhere)."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from mathcheck import book
from mathcheck.render import json as rj
from tests.test_book import BOOK

distributed = pytest.importorskip("distributed")
TIMEOUT = 120.0  # a link's budget: the shared 2-core machine runs at a load of 20; no link here needs 1 s idle


@pytest.fixture(scope="module")
def cluster():
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    yield c
    c.close()


@pytest.fixture(scope="module")
def here():
    """The book's report with -j 1, computed (no cache), as JSON."""
    return _json(book.check_book([str(BOOK)], use_cache=False, timeout=TIMEOUT))


def _json(report) -> str:
    return json.dumps(rj.derive_report(report), ensure_ascii=False, indent=2)


def test_the_cluster_gives_the_report_of_j1(here, cluster):
    there = book.check_book([str(BOOK)], cluster=cluster.scheduler_address, use_cache=False, timeout=TIMEOUT)
    assert _json(there).splitlines() == here.splitlines()


def test_a_worker_killed_mid_run_is_retried_nothing_lost_nothing_twice(here, cluster):
    client = distributed.Client(cluster.scheduler_address)
    killed, seen = [], []

    def kill_one_busy_worker(counts):
        seen.append((counts.computed, counts.to_compute))
        if counts.computed != 1 or killed:
            return
        pids = client.run(os.getpid)
        busy = [w for w, tasks in client.processing().items() if tasks]
        assert busy, "no worker had a task in flight to kill"
        os.kill(pids[busy[0]], signal.SIGKILL)
        killed.append(pids[busy[0]])

    try:
        there = book.check_book(
            [str(BOOK)],
            cluster=cluster.scheduler_address,
            use_cache=False,
            timeout=TIMEOUT,
            on_progress=kill_one_busy_worker,
        )
        assert killed, "the run ended before a worker could be killed"
        assert _json(there).splitlines() == here.splitlines()  # nothing lost: every link's result, as -j 1 has it
        computed = [c for c, _ in seen[1:]]
        assert computed == list(range(1, seen[0][1] + 1))  # each task's result taken once, none twice
        deadline = time.monotonic() + 30
        while len(client.scheduler_info()["workers"]) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)  # the nanny restarts the killed worker, for the next test
        assert killed[0] not in client.run(os.getpid).values()
    finally:
        client.close()


def test_a_cluster_whose_workers_run_another_mathcheck_is_refused(cluster, monkeypatch):
    monkeypatch.setattr(book, "fingerprint", lambda: "not the workers' digest")
    from mathcheck.chains import DeriveError

    with pytest.raises(DeriveError, match="runs another mathcheck"):
        book.check_book(
            [str(BOOK / "01_basics" / "exp_log.md")],
            cluster=cluster.scheduler_address,
            use_cache=False,
            timeout=TIMEOUT,
        )
