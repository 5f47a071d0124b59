"""Cost of `mathcheck conform`: each row runs the command in a fresh process (imports included, as a
user runs it) three times and reports the median wall time, the exit code, and the target.

    python bench/conform_bench.py            # prints the rows
    from bench.conform_bench import rows     # bench/run.py includes them in docs/performance.md
"""

from __future__ import annotations

import os
import statistics

if __package__:  # imported as bench.conform_bench
    from ._timing import measure
else:  # run as a script, or imported by bench/run.py with bench/ on sys.path
    from _timing import measure

CASES = [
    (
        "correct causal attention (examples/gpt_attention.py)",
        ["examples/gpt_attention.py:attention", "--kind", "attention", "--causal"],
        10.0,
    ),
    (
        "F.scaled_dot_product_attention",
        ["torch.nn.functional:scaled_dot_product_attention", "--kind", "attention"],
        10.0,
    ),
    (
        "zoo: scale 1/d (five properties fail and shrink)",
        ["examples/bug_zoo.py:scale_by_d", "--kind", "attention"],
        10.0,
    ),
    (
        "GPT block, mha (examples/gpt_attention.py)",
        ["examples/gpt_attention.py:make_block", "--kind", "mha", "--causal"],
        None,
    ),
    ("F.softmax", ["torch.nn.functional:softmax", "--kind", "softmax"], None),
    (
        "zoo: LayerNorm with the unbiased variance",
        ["examples/bug_zoo.py:make_unbiased_layernorm", "--kind", "layernorm"],
        None,
    ),
    (
        "zoo: keys after the 16th dropped (fails long-sequence at L=80, shrinks to L=17)",
        ["examples/bug_zoo.py:drop_keys_after_16", "--kind", "attention"],
        10.0,
    ),
    (
        "HF LlamaRMSNorm (measured float32)",
        ["transformers.models.llama.modeling_llama:LlamaRMSNorm", "--kind", "rmsnorm"],
        10.0,
    ),
    ("torch.nn:LayerNorm", ["torch.nn:LayerNorm", "--kind", "layernorm"], 10.0),
    (
        "corpus: Annotated Transformer MHA, causal (keeps self.attn)",
        ["tests/conform_corpus/annotated.py:make_causal_mha", "--kind", "mha", "--causal"],
        10.0,
    ),
]


def rows(runs: int = 3) -> list[dict]:
    out = []
    for name, args, target in CASES:
        row = measure(["conform", *args], runs)
        out.append(
            {
                "case": name,
                **row,
                "target_s": target,
                "cores": os.cpu_count(),
                "within_target": None if target is None else row["max_s"] <= target,
            }
        )
    medians = [r["median_s"] for r in out]
    out.append(
        {
            "case": "median over the cases above",
            "command": "",
            "exit": [],
            "median_s": round(statistics.median(medians), 2),
            "max_s": round(max(r["max_s"] for r in out), 2),
            "median_cpu_s": round(statistics.median(r["median_cpu_s"] for r in out), 2),
            "target_s": 10.0,
            "cores": os.cpu_count(),
            "within_target": statistics.median(medians) <= 10.0,
        }
    )
    return out


if __name__ == "__main__":
    for row in rows():
        print(row)
