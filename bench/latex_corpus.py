"""Run ``mathcheck derive`` over every ``.md``/``.tex`` file of a directory, unchanged, and print
what became of its displays: chains by status, links read and proved, and every refuted link (to be
read by hand: a refutation that is a misreading is a reader bug).

    python bench/latex_corpus.py DIR [--seed S] [--timeout T] [--json] [--refuted]

The files are other people's (d2l-en chapters, cs231n notes, papers): they are fetched, never
committed; this script holds none of their text. Per file, and in all:

* ``chains``: display equations with a relation, each read as a chain, a definition, or bad input;
* ``definition``, ``proved``, ``refuted``, ``inconclusive``, ``bad-input``: chains by status;
* ``links``: the links of the chains that were read (not bad input), ``proved``: those proved;
* ``bad``: the most common first words of the bad-input messages (what is not read yet).
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import sys
import time

STATUSES = ("definition", "proved", "refuted", "inconclusive", "bad-input")


def measure(path: pathlib.Path, seed: int, timeout: float) -> dict:
    """One file's figures (see the module docstring)."""
    from mathcheck import derive

    start = time.perf_counter()
    try:
        report = derive.check_files([str(path)], seed=seed, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - a whole file refused is counted, not a crash of the bench
        return {
            "file": path.name,
            "error": f"{type(exc).__name__}: {exc}"[:200],
            "chains": 0,
            **{s: 0 for s in STATUSES},
            "links": 0,
            "links_proved": 0,
            "refuted_links": [],
            "bad": {},
        }
    counts = collections.Counter()
    links = proved = 0
    refuted, bad = [], collections.Counter()
    for _, chains in report.files:
        for c in chains:
            counts[c.status] += 1
            if c.status == "bad-input":
                msg = (c.message if hasattr(c, "message") else "") or ""
                bad[_gist(msg)] += 1
                continue
            if c.status == "definition":
                continue
            for s in c.steps[1:]:
                links += 1
                proved += s.status == "proved"
                if s.status == "refuted":
                    refuted.append(f"{path.name}:{s.line}  {s.expr}")
    return {
        "file": path.name,
        "chains": sum(counts.values()),
        **{s: counts[s] for s in STATUSES},
        "links": links,
        "links_proved": proved,
        "refuted_links": refuted,
        "bad": dict(bad.most_common()),
        "seconds": round(time.perf_counter() - start, 1),
    }


def _gist(message: str) -> str:
    """A bad-input message's notation: its text after ``path:line:col:``, cut at the first ``;``."""
    text = re.sub(r"^.*?:\d+(?::\d+)?:\s*", "", message.splitlines()[0] if message else "")
    return text.split(";")[0][:60]


def table(rows: list) -> str:
    head = ["file", "chains", *STATUSES, "links", "proved links"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    total = collections.Counter()
    for r in rows:
        vals = [r["chains"], *(r[s] for s in STATUSES), r["links"], r["links_proved"]]
        total.update(dict(zip(head[1:], vals)))
        lines.append(
            "| " + " | ".join([r["file"] + (" (refused)" if r.get("error") else "")] + [str(v) for v in vals]) + " |"
        )
    lines.append("| **all** | " + " | ".join(str(total[h]) for h in head[1:]) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--refuted", action="store_true", help="list every refuted link (to check by hand)")
    args = ap.parse_args(argv)
    files = sorted(p for p in pathlib.Path(args.dir).iterdir() if p.suffix in (".md", ".tex"))
    if not files:
        print(f"{args.dir}: no .md or .tex file", file=sys.stderr)
        return 2
    rows = [measure(p, args.seed, args.timeout) for p in files]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(table(rows))
    if args.refuted:
        for r in rows:
            for line in r["refuted_links"]:
                print("refuted:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
