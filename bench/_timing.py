"""Timing a `mathcheck` command as a user runs it: a fresh process each run (imports of torch, SymPy
and transformers included), its wall time, its CPU time and its exit code, and the median over runs.

Shared by bench/conform_bench.py and bench/model_bench.py. CPU seconds (user + system of the child)
are the steadier figure on a loaded machine: the wall time grows with the waiting, the CPU time does not.

    >>> row = measure(["list"], runs=1)                       # doctest: +SKIP
    >>> row["exit"], row["median_s"] > 0                      # doctest: +SKIP
    ([0], True)
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mathcheck.procs import child_dies_with_parent  # a killed bench leaves no mathcheck run behind

ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(args: list[str]) -> tuple[float, float, int]:
    """``mathcheck ARGS`` in a fresh process, from the repository root: wall seconds, CPU seconds, exit code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cpu, start = _cpu(), time.perf_counter()
    proc = subprocess.run(
        preexec_fn=child_dies_with_parent,
        args=[sys.executable, "-m", "mathcheck", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - start, _cpu() - cpu, proc.returncode


def measure(args: list[str], runs: int) -> dict:
    """``runs`` runs of ``mathcheck ARGS``: the exit codes seen, the median and largest wall time and
    the median CPU time, in seconds rounded to 10 ms."""
    times, cpus, codes = [], [], set()
    for _ in range(runs):
        t, c, rc = run(args)
        times.append(t)
        cpus.append(c)
        codes.add(rc)
    return {
        "command": "mathcheck " + " ".join(args),
        "exit": sorted(codes),
        "median_s": round(statistics.median(times), 2),
        "max_s": round(max(times), 2),
        "median_cpu_s": round(statistics.median(cpus), 2),
    }
