"""Cost of `mathcheck model`: each row runs the command in a fresh process (imports of torch,
SymPy and transformers included, as a user runs it) and reports the median wall and CPU time and
the exit code. Target: ≤ 60 s per model on 2 cores (issue 20).

    python bench/model_bench.py              # prints the rows (3 runs each; --quick: 1)
    from bench.model_bench import rows       # bench/run.py includes them in docs/performance.md
"""

from __future__ import annotations

import os
import sys

if __package__:  # imported as bench.model_bench
    from ._timing import measure
else:  # run as a script, or imported by bench/run.py with bench/ on sys.path
    from _timing import measure

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


def rows(quick: bool = False) -> list[dict]:
    out = []
    for name, args in CASES:
        row = measure(["model", *args], runs=1 if quick else 3)
        out.append(
            {
                "case": name,
                **row,
                "target_s": TARGET_S,
                "cores": os.cpu_count(),
                "within_target": row["max_s"] <= TARGET_S,
            }
        )
    return out


if __name__ == "__main__":
    for row in rows(quick="--quick" in sys.argv):
        print(row)
