"""`mathcheck model hf:<type>` on every causal-LM and masked-LM type transformers has (issue 31).

One fresh process per type, under a memory limit (``resource.setrlimit(RLIMIT_AS)``) and a time
limit, ``nice``d; each result is appended to a JSONL file as it comes, so a re-run skips the types
already done (``--redo OUTCOME`` runs those again). The outcome of a type:

* ``hold``        every expected property holds (exit 0)
* ``false alarm`` a property fails (exit 1) on an architecture believed correct: each to investigate
* ``inconclusive`` a derived side could not be evaluated (exit 3)
* ``refused``     bad input, one line naming what the type lacks (exit 2)
* ``crash``       a traceback inside mathcheck or transformers (any other exception)
* ``oom``         MemoryError, or killed by a signal under the memory limit
* ``timeout``     past the time limit

    nice -n 15 python bench/model_sweep.py --out /tmp/sweep.jsonl -j 2       # every type, resumable
    python bench/model_sweep.py --out /tmp/sweep.jsonl --only llama,gpt2     # a sample
    python bench/model_sweep.py --out /tmp/sweep.jsonl --table               # the markdown table

Each row: type, outcome, seconds (wall), cpu_s, peak_mb (the worker's max RSS), line (the refusal,
failure or traceback's last line), failures (module and property).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEM_LIMIT_GB = 6.0
TIME_LIMIT_S = 300  # CPU seconds per type
WALL_FACTOR = 6  # and at most 6× that in wall time
NICE = 15

WORKER = r"""
import json, resource, sys, time, traceback
from mathcheck.procs import die_with_parent
die_with_parent(int(sys.argv[2]))  # a killed sweep leaves no worker behind
t0 = time.perf_counter()
row = {"type": sys.argv[1]}
try:
    from mathcheck.conform.spec import BadInput
    from mathcheck.model.run import check_model
    try:
        report = check_model("hf:" + sys.argv[1])
        row["outcome"] = {"holds": "hold", "fails": "false alarm"}.get(report.status, report.status)
        row["failures"] = report.failures()
        row["line"] = "; ".join(report.failures())[:300]
        if report.status == "inconclusive":  # which property could not be judged, and why
            row["line"] = "; ".join(report.inconclusive())[:400]
        row["precision"] = report.config.get("precision", "float64")
        row["attn"] = report.config.get("attn_implementation")
        row["dtype"] = report.config.get("dtype")
    except BadInput as exc:
        row["outcome"], row["line"] = "refused", str(exc)[:400]
except MemoryError:
    row["outcome"], row["line"] = "oom", "MemoryError"
except BaseException as exc:
    tb = traceback.extract_tb(exc.__traceback__)
    inner = [f for f in tb if "mathcheck" in f.filename]
    where = inner[-1] if inner else (tb[-1] if tb else None)
    row["outcome"] = "crash"
    row["line"] = (f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                   + (f" at {where.filename.split('/')[-1]}:{where.lineno}" if where else ""))[:400]
    row["traceback"] = traceback.format_exc()[-3000:]
row["seconds"] = round(time.perf_counter() - t0, 2)
ru = resource.getrusage(resource.RUSAGE_SELF)
row["cpu_s"] = round(ru.ru_utime + ru.ru_stime, 2)
row["peak_mb"] = round(ru.ru_maxrss / 1024, 1)
print("@@ROW" + json.dumps(row), flush=True)
"""


def all_types() -> list[str]:
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    return sorted(set(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES) | set(MODEL_FOR_MASKED_LM_MAPPING_NAMES))


def _limits(mem_gb: float, cpu_s: float):
    def apply():
        cap = int(mem_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        # the time limit is CPU seconds (SIGXCPU): on a shared machine the wall time is mostly waiting
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_s), int(cpu_s) + 5))
        os.nice(max(0, NICE - os.nice(0)))  # NICE in all: the sweep itself may already run niced

    return apply


def run_type(model_type: str, mem_gb: float, time_s: float) -> dict:
    """One type in a fresh process; the row it printed, or oom/timeout/crash from how it ended."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", WORKER, model_type, str(os.getpid())],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=WALL_FACTOR * time_s,
            preexec_fn=_limits(mem_gb, time_s),
        )
    except subprocess.TimeoutExpired:
        return {
            "type": model_type,
            "outcome": "timeout",
            "line": f"past {WALL_FACTOR * time_s:.0f} s wall",
            "seconds": round(time.perf_counter() - start, 2),
        }
    if (
        proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
        and "@@ROW" not in proc.stdout
        and "MemoryError" not in proc.stderr
    ):
        return {
            "type": model_type,
            "outcome": "timeout",
            "line": f"past {time_s:.0f} CPU s",
            "seconds": round(time.perf_counter() - start, 2),
        }
    rows = [line[5:] for line in proc.stdout.splitlines() if line.startswith("@@ROW")]
    if rows:
        row = json.loads(rows[-1])
        if row["outcome"] == "crash" and "MemoryError" in row.get("traceback", ""):
            row["outcome"] = "oom"
        return row
    tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
    outcome = "oom" if proc.returncode < 0 or "MemoryError" in proc.stderr or "bad_alloc" in proc.stderr else "crash"
    return {
        "type": model_type,
        "outcome": outcome,
        "line": f"exit {proc.returncode}: {tail}"[:400],
        "seconds": round(time.perf_counter() - start, 2),
    }


def load_rows(path: Path) -> dict:
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row["type"]] = row  # the latest row of a type wins (re-runs append)
    return rows


def sweep(path: Path, types, redo, mem_gb, time_s, jobs: int = 1, reverse: bool = False):
    """Each type not yet in ``path`` (or whose outcome is in ``redo``), ``jobs`` processes at a time;
    a row is appended as soon as its type ends."""
    import random
    from concurrent.futures import ThreadPoolExecutor
    from threading import Lock

    done = load_rows(path)
    todo = [t for t in types if t not in done or done[t]["outcome"] in redo]
    random.Random(0).shuffle(todo)  # a sweep cut short is a seeded random sample, not the first letters
    if reverse:  # a second sweep on the same file works from the other end
        todo.reverse()
    lock, count = Lock(), [0]

    def one(t):
        row = run_type(t, mem_gb, time_s)
        with lock:
            count[0] += 1
            with path.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(
                f"[{count[0]}/{len(todo)}] {t}: {row['outcome']} {row.get('seconds')} s "
                f"{row.get('peak_mb', '?')} MB {row.get('line', '')[:160]}",
                flush=True,
            )

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(one, todo))


ORDER = ("hold", "false alarm", "inconclusive", "refused", "crash", "oom", "timeout")


def table(path: Path) -> str:
    rows = load_rows(path)
    counts = {o: sum(r["outcome"] == o for r in rows.values()) for o in ORDER}
    n = len(rows)
    checked = [r for r in rows.values() if r["outcome"] in ("hold", "false alarm", "inconclusive")]
    secs = [r["seconds"] for r in checked]
    cpus = [r["cpu_s"] for r in checked if "cpu_s" in r]
    peaks = [r["peak_mb"] for r in rows.values() if "peak_mb" in r]
    out = [
        f"{n} types: "
        + ", ".join(f"{counts[o]} {o}" for o in ORDER if counts[o])
        + (f" ({100 * counts['hold'] / n:.1f}% hold)" if n else ""),
        (
            f"median per checked type: {statistics.median(cpus):.1f} CPU s, {statistics.median(secs):.1f} s wall"
            if cpus
            else ""
        ),
        f"peak memory (max RSS) median {statistics.median(peaks):.0f} MB, largest {max(peaks):.0f} MB" if peaks else "",
        "",
        "| type | outcome | CPU s | wall s | MB | line |",
        "|---|---|---|---|---|---|",
    ]
    for t, r in sorted(rows.items(), key=lambda kv: (ORDER.index(kv[1]["outcome"]), kv[0])):
        line = r.get("line", "").replace("|", "\\|").replace("\n", " ")[:220]
        out.append(
            f"| {t} | {r['outcome']} | {r.get('cpu_s', '')} | {r.get('seconds', '')} | "
            f"{r.get('peak_mb', '')} | {line} |"
        )
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "model_sweep.jsonl")
    ap.add_argument("--only", default="", help="comma-separated model types (default: every one)")
    ap.add_argument("--redo", default="", help="comma-separated outcomes to run again, e.g. 'crash,false alarm'")
    ap.add_argument("--mem-gb", type=float, default=MEM_LIMIT_GB)
    ap.add_argument("--time-s", type=float, default=TIME_LIMIT_S)
    ap.add_argument("-j", "--jobs", type=int, default=1, help="types run at once (each one process)")
    ap.add_argument("--reverse", action="store_true", help="the other end of the order (a second sweep process)")
    ap.add_argument("--table", action="store_true", help="print the table of the rows so far and stop")
    args = ap.parse_args(argv)
    if args.table:
        print(table(args.out))
        return
    types = [t for t in args.only.split(",") if t] or all_types()
    sweep(
        args.out,
        types,
        {o.strip() for o in args.redo.split(",") if o.strip()},
        args.mem_gb,
        args.time_s,
        args.jobs,
        args.reverse,
    )


if __name__ == "__main__":
    main()
