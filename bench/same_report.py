"""Whether two JSON reports say the same, timings aside: ``python bench/same_report.py A B``.

Prints ``identical`` (exit 0) or the first differing paths (exit 1). A key that names a duration —
containing ``seconds``, ``time``, ``elapsed`` or ``wall`` (``"seconds"``, ``"wall_s"``,
``"timed_out"`` is *not* one: see :func:`timing`) — is dropped from both sides before comparing,
so a run on a busier machine compares equal. Used to show that a refactoring of the prover left
``prove --all --json`` and ``refute --all --json`` unchanged (issue 34).

    >>> diff({"a": 1, "seconds": 2.0}, {"a": 1, "seconds": 9.5})
    []
    >>> diff({"a": [1, 2]}, {"a": [1, 3]})
    ['$.a[1]: 2 != 3']
"""

from __future__ import annotations

import json
import sys

SHOWN = 10  # differing paths printed


def timing(key: str) -> bool:
    """A key naming a duration; ``timed_out`` says whether a budget ran out, which is a result."""
    k = key.lower()
    return k != "timed_out" and any(w in k for w in ("seconds", "time", "elapsed", "wall"))


def diff(a, b, path: str = "$") -> list[str]:
    """The paths where ``a`` and ``b`` differ, timing keys dropped."""
    if isinstance(a, dict) and isinstance(b, dict):
        ka = {k for k in a if not timing(k)}
        kb = {k for k in b if not timing(k)}
        out = [f"{path}.{k}: only in {'A' if k in ka else 'B'}" for k in sorted(ka ^ kb)]
        for k in sorted(ka & kb):
            out += diff(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = [] if len(a) == len(b) else [f"{path}: {len(a)} items != {len(b)}"]
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {str(a)[:200]} != {str(b)[:200]}"]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python bench/same_report.py A.json B.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as fa, open(argv[1], encoding="utf-8") as fb:
        found = diff(json.load(fa), json.load(fb))
    if not found:
        print("identical")
        return 0
    print(f"{len(found)} differing path(s); the first:")
    print("\n".join(found[:SHOWN]))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
