"""Benchmarks of ``mathcheck check``: start-up of one scalar identity, and a 300-identity batch.

    python bench/check_bench.py            # prints the measured rows as JSON
    python bench/check_bench.py --quick    # fewer runs, the first 60 rows of the corpus

:func:`rows` returns the rows (``bench/run.py`` calls it): each a dict with ``name``, ``value``,
``unit``, ``target``, ``ok`` and ``detail``; every figure is measured in this run.

(a) ``mathcheck check 'x*(x+1)' 'x**2+x'`` against ``python -c "import sympy"``, medians of
    alternating runs, as a ratio (target ≤ 1.5), and whether torch was imported (``-X importtime``);
    both with bytecode caching on, as after ``pip install``;
(b) ``mathcheck check --file bench/identities.tsv -j 2``: wall time of the 300 identities
    (target ≤ 120 s on 2 cores) and whether every verdict is the expected one (rows alternate
    true, false; see bench/make_identities.py).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mathcheck.procs import child_dies_with_parent  # a killed bench leaves no mathcheck run behind

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "identities.tsv"
SCALAR = ("x*(x+1)", "x**2+x")


def _env() -> dict:
    env = dict(os.environ)
    # as after `pip install`: bytecode cached (this machine sets PYTHONDONTWRITEBYTECODE, which would
    # make every run recompile mathcheck's modules while SymPy's come precompiled)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(preexec_fn=child_dies_with_parent, args=cmd, check=True, capture_output=True, env=_env(), cwd=ROOT)
    return time.perf_counter() - t


def scalar_ratio(runs: int = 7) -> dict:
    """(a): medians of alternating runs, so that machine load hits both sides alike."""
    py = sys.executable
    base_cmd = [py, "-c", "import sympy"]
    check_cmd = [py, "-m", "mathcheck", "check", *SCALAR]
    _timed(check_cmd)  # warm the file cache (bytecode) for both
    _timed(base_cmd)
    base, check = [], []
    for _ in range(runs):
        base.append(_timed(base_cmd))
        check.append(_timed(check_cmd))
    b, c = statistics.median(base), statistics.median(check)
    imports = subprocess.run(
        preexec_fn=child_dies_with_parent,
        args=[py, "-X", "importtime", "-m", "mathcheck", "check", *SCALAR],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=ROOT,
    ).stderr
    torch = any(line.rstrip().endswith("| torch") for line in imports.splitlines())
    return {
        "name": "check scalar identity / import sympy",
        "value": round(c / b, 2),
        "unit": "ratio",
        "target": "<= 1.5",
        "ok": c / b <= 1.5 and not torch,
        "detail": f"`mathcheck check '{SCALAR[0]}' '{SCALAR[1]}'` {c:.3f} s vs `python -c \"import sympy\"` "
        f"{b:.3f} s (medians of {runs}); torch imported: {'yes' if torch else 'no'}",
    }


def batch(limit: int | None = None, jobs: int = 2) -> dict:
    """(b): the corpus through ``check --file -j 2``; the verdicts checked against the expected ones."""
    path = CORPUS
    if limit is not None:
        body = [ln for ln in CORPUS.read_text().splitlines() if ln and not ln.startswith("#")][:limit]
        path = Path(tempfile.mkdtemp()) / "identities-quick.tsv"
        path.write_text("\n".join(body) + "\n")
    cmd = [sys.executable, "-m", "mathcheck", "check", "--file", str(path), "-j", str(jobs), "--json"]
    t = time.perf_counter()
    out = subprocess.run(
        preexec_fn=child_dies_with_parent, args=cmd, capture_output=True, text=True, env=_env(), cwd=ROOT
    )
    seconds = time.perf_counter() - t
    if limit is not None:
        path.unlink()
        path.parent.rmdir()
    report = json.loads(out.stdout)
    n = len(report["rows"])
    first = min(r["line"] for r in report["rows"])
    wrong = [
        r["line"] for r in report["rows"] if r["status"] != ("proved" if (r["line"] - first) % 2 == 0 else "refuted")
    ]
    totals = report["totals"]
    target = 120.0 * n / 300
    return {
        "name": f"check --file with {n} identities (-j {jobs})",
        "value": round(seconds, 1),
        "unit": "s",
        "target": f"<= {target:g}",
        "ok": seconds <= target and not wrong,
        "detail": f"{totals['proved']} proved, {totals['refuted']} refuted, {totals['inconclusive']} "
        f"inconclusive, {totals['bad-input']} bad input; {len(wrong)} verdicts not the expected "
        f"one{'' if not wrong else ' (lines ' + ', '.join(map(str, wrong[:10])) + ')'}; "
        f"{os.cpu_count()} CPUs",
    }


def rows(quick: bool = False) -> list[dict]:
    """The measured rows: (a) the scalar-check ratio, (b) the batch time."""
    return [scalar_ratio(runs=3 if quick else 7), batch(limit=60 if quick else None)]


if __name__ == "__main__":
    print(json.dumps(rows(quick="--quick" in sys.argv[1:]), indent=2))
