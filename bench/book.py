"""A whole book through ``mathcheck derive``: what it reads, and how fast with -j 1, -j 2, a
2-worker Dask LocalCluster, and a re-run after editing one file (issue 35; docs/derive.md,
"Whole books").

    python bench/book.py DIR            # e.g. /tmp/book/d2l (a book fetched, never committed)
    python bench/book.py DIR --edit FILE  # the file to edit for the re-run (default: the first with a link)

Every run is a fresh ``mathcheck derive DIR --json`` process (imports included). The runs, in
order: -j 1 (its cache folder empty: it fills it), -j 2 and the cluster (both ``--no-cache``, each
checking every link), then the re-run with -j 1 on the filled cache after one link of one file is
edited (a chain appended: its links are the only ones to check). The table gives files, chains,
links, read, proved, refuted, the wall times and ratios, and whether the three JSON reports are
identical (``"seconds"`` keys aside: derive's report has none). Targets: -j 2 ≥ 1.7× -j 1; the
re-run ≤ 10% of the first; the JSON identical.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mathcheck.procs import child_dies_with_parent  # a killed bench leaves no mathcheck run behind

ROOT = Path(__file__).resolve().parents[1]
APPENDED = "\n\n```mathcheck\n## bench: an edit\nassume: x=real\n  (x + 1)^2\n= x^2 + 2*x + 1\n```\n"


def derive(book: Path, *args: str, cache: Path) -> tuple[float, int, str]:
    """``mathcheck derive BOOK --json ARGS`` from the book's parent folder: wall seconds, exit code, stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), MATHCHECK_CACHE_DIR=str(cache))
    start = time.perf_counter()
    p = subprocess.run(
        preexec_fn=child_dies_with_parent,
        args=[sys.executable, "-m", "mathcheck", "derive", book.name, "--json", *args],
        cwd=book.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - start
    if p.returncode not in (0, 1, 2, 3) or not p.stdout.strip():
        raise SystemExit(f"derive {' '.join(args)} failed (exit {p.returncode}): {p.stderr.strip()[-500:]}")
    return took, p.returncode, p.stdout


def _first_with_a_link(report: dict) -> str:
    for f in report["files"]:
        if f["path"].endswith(".md") and any(c["status"] == "proved" for c in f["chains"]):
            return f["path"]
    raise SystemExit("no Markdown file with a proved chain to edit")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--edit", help="the file (relative to DIR's parent) to edit for the re-run")
    ap.add_argument("--no-cluster", action="store_true", help="skip the LocalCluster run")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each kind, interleaved; the table gives the median (default 3: a "
        "2-core machine is noisy, one run of a few seconds says little)",
    )
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="mathcheck-book-"))
    # the cluster's workers are processes of their own: they must import this checkout, not another
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    try:
        book = work / args.dir.resolve().name
        shutil.copytree(args.dir, book)  # the edit is made in a copy
        times, outs = {}, {}
        for r in range(args.repeat):  # interleaved, so that a slow spell of the machine hits both kinds
            t, code, out = derive(book, "-j", "1", cache=work / f"cache-{r}")  # each its own, empty
            times.setdefault("-j 1", []).append(t)
            outs.setdefault("-j 1", set()).add(out)
            t, _, out = derive(book, "-j", "2", "--no-cache", cache=work / "unused")
            outs.setdefault("-j 2", set()).add(out)
            times.setdefault("-j 2", []).append(t)
        if not args.no_cluster:
            from distributed import LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
                for r in range(args.repeat):
                    t, _, out = derive(book, "--cluster", c.scheduler_address, "--no-cache", cache=work / "unused")
                    outs.setdefault("cluster", set()).add(out)
                    times.setdefault("cluster (2 workers)", []).append(t)
        first_report = next(iter(outs["-j 1"]))
        report = json.loads(first_report)
        edit = args.edit or _first_with_a_link(report)
        with open(book.parent / edit, "a", encoding="utf-8") as f:
            f.write(APPENDED)
        name = f"re-run after editing {edit}"
        for r in range(args.repeat):  # each on the cache its own first run filled
            t, _, after = derive(book, "-j", "1", cache=work / f"cache-{r}")
            times.setdefault(name, []).append(t)
        rows = {k: statistics.median(v) for k, v in times.items()}
        counts = report["counts"]
        links = counts["links"]
        print(f"book: {args.dir}  ({counts['files']} files with a chain; exit {code})")
        print(
            f"chains {counts['chains']['total']}, links {links['total']}, read {links['read']}, "
            f"proved {links.get('proved', 0)}, refuted {links.get('refuted', 0)}, "
            f"inconclusive {links.get('inconclusive', 0)}, definition {links.get('definition', 0)}, "
            f"bad-input {links.get('bad-input', 0)}"
        )
        first = rows["-j 1"]
        print(f"{'run (median of ' + str(args.repeat) + ')':<60} {'wall s':>8} {'vs -j 1':>8}  runs")
        for row, s in rows.items():
            print(
                f"{row:<60} {s:8.1f} {first / s if 're-run' not in row else s / first:8.2f}"
                + ("  (fraction of -j 1)" if "re-run" in row else "  (speed-up)")
                + "  "
                + " ".join(f"{t:.1f}" for t in times[row])
            )
        same = {k: v == {first_report} for k, v in outs.items()}  # every run of every kind
        print("JSON identical to -j 1 (every run): " + ", ".join(f"{k}: {v}" for k, v in same.items()))
        again = json.loads(after)["counts"]["links"]
        print(f"after the edit: links {again['total']} (was {links['total']})")
        print(
            f"targets: -j 2 >= 1.7x: {first / rows['-j 2'] >= 1.7}; re-run <= 10%: "
            f"{rows[name] / first <= 0.10}; identical: {all(same.values())}"
        )
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
