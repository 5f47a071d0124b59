"""Cost of `mathcheck model`: each row runs the command in a fresh process (imports of torch,
SymPy and transformers included, as a user runs it) and reports the median wall and CPU time and
the exit code. Target: ≤ 60 s per model on 2 cores (issue 20).

    python bench/model_bench.py              # prints the rows (3 runs each; --quick: 1)
    from bench.model_bench import rows       # bench/run.py includes them in docs/performance.md
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 60.0

CASES = [
    ("hf:llama (RMSNorm, GQA, rotary)", ["hf:llama"]),
    ("hf:mistral", ["hf:mistral"]),
    ("hf:qwen2", ["hf:qwen2"]),
    ("hf:gpt2 (LayerNorm, learned positions)", ["hf:gpt2"]),
    ("hf:bert (bidirectional)", ["hf:bert"]),
    ("examples/tiny_gpt.py (manual attention)", ["examples/tiny_gpt.py:factory"]),
    ("zoo: a mask that sees the next token (fails, shrinks)", ["examples/tiny_gpt_zoo.py:sees_next_token"]),
]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(args: list[str]) -> tuple[float, float, int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cpu, start = _cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mathcheck", "model", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    return time.perf_counter() - start, _cpu() - cpu, proc.returncode


def rows(quick: bool = False) -> list[dict]:
    out = []
    for name, args in CASES:
        times, cpus, codes = [], [], set()
        for _ in range(1 if quick else 3):
            t, c, rc = _run(args)
            times.append(t)
            cpus.append(c)
            codes.add(rc)
        out.append({"case": name, "command": "mathcheck model " + " ".join(args), "exit": sorted(codes),
                    "median_s": round(statistics.median(times), 2), "max_s": round(max(times), 2),
                    "median_cpu_s": round(statistics.median(cpus), 2), "target_s": TARGET_S,
                    "cores": os.cpu_count(), "within_target": max(times) <= TARGET_S})
    return out


if __name__ == "__main__":
    for row in rows(quick="--quick" in sys.argv):
        print(row)
