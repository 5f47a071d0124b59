"""Run ``mathcheck derive`` over every ``.md``/``.tex`` file of a directory, unchanged, and print
what became of its displays: chains by status, links read and proved, and every refuted link (to be
read by hand: a refutation that is a misreading is a reader bug).

    python bench/latex_corpus.py DIR [--seed S] [--timeout T] [--json] [--refuted]
    python bench/latex_corpus.py DIR --classes bench/latex_corpus_classes.json   # issue 28's must-show
    python bench/latex_corpus.py DIR --skeleton      # the display relations to classify, as JSON

The files are other people's (d2l-en chapters, cs231n notes, papers): they are fetched, never
committed; this script holds none of their text. Per file, and in all:

* ``chains``: display equations with a relation, each read as a chain, a definition, or bad input;
* ``definition``, ``proved``, ``refuted``, ``inconclusive``, ``bad-input``: chains by status;
* ``links``: the links of the chains that were read (not bad input), ``proved``: those proved;
* ``bad``: the most common first words of the bad-input messages (what is not read yet).

``--classes FILE`` joins the report with a hand classification (``bench/latex_corpus_classes.json``:
file -> [{line, k, relation, label, note}], one entry per relation of every display block, k its
ordinal among the relations of that line inside display math, 0-based; see docs/latex.md, "Real
files, unchanged") and prints, per file and in all, the must-show's figures: the *checkable* links,
of them read (mathcheck checked a link at that line and ordinal), proved, refuted, inconclusive; the
hand *definitions*, of them recognised (mathcheck reported that link ``definition``); ``unlabelled``,
mathcheck's links in display math on no hand label (a join mismatch, to fix), and ``unplaced``, its
links outside display math (definitions read from inline ``$…$``); the links labelled
``not-checkable:probability`` in a table of their own (issue 29: read, proved, refuted,
inconclusive, definition — read is any of those); then the checkable links not
read, counted by what the reader says (the bad input of the chain they fall in). Then, each to read
by hand: every refuted checkable link (the author's error, or a misreading), and every link proved,
refuted or read as a definition on another label. A relation is keyed by its own position, found by
:func:`display_relations` for the hand labels and for mathcheck's links alike (each link's typeset
``source`` located on its line), so both sides count the same relations.
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

# The relations a hand label is given: between two expressions, outside braces, brackets and
# parentheses (so ``\sum_{i=1}`` and ``P(Y=y)`` hold none). Membership, maps and limits
# (``\in``, ``\to``, ``\mapsto``) and connectives (``\Rightarrow``) are not relations between
# expressions a reader checks; ``\stackrel{..}{=}``/``\overset{..}{=}`` are one relation.
_REL_WORDS = set(
    "le leq leqslant lt ge geq geqslant gt approx ne neq sim simeq propto equiv coloneqq triangleq"
    " leftarrow gets ll gg".split()
)
_REL_TOKEN = re.compile(
    r"\\(?:stackrel|overset)\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}\{=\}|\\[A-Za-z]+|\\.|:=|[=<>]|[{}()\[\]]"
)
_DISPLAY = re.compile(
    r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|```math\n(.+?)```"
    r"|\\begin\{(equation|align|gather|multline|eqnarray|flalign|alignat|displaymath)(\*?)\}(.+?)\\end\{\4\5\}",
    re.S,
)
_FENCE = re.compile(r"^ {0,3}(```+|~~~+)(?!math\b).*?^ {0,3}\1[ \t]*$", re.S | re.M)
_TEX_COMMENT = re.compile(r"(?<!\\)%.*")


def display_relations(text: str, markdown: bool) -> dict:
    """``{line: [(column, relation), ...]}``: the relations of the display math of a file, in order.

    Display math is ``$$ … $$``, ``\\[ … \\]``, a ```` ```math ```` fence and the display environments
    (code fences of Markdown and comments of LaTeX blanked first, offsets kept); a relation counts
    outside ``{}``, ``()`` and ``[]`` of its line only. For ``$$ a = b \\le c $$`` on line 3:
    ``{3: [(5, '='), (9, '\\le')]}``.
    """
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731 - keep offsets and lines
    text = _FENCE.sub(blank, text) if markdown else _TEX_COMMENT.sub(blank, text)
    out: dict = {}
    for m in _DISPLAY.finditer(text):
        body = next(g for g in (m.group(1), m.group(2), m.group(3), m.group(6)) if g is not None)
        start = m.start(6) if m.group(6) is not None else m.start(next(i for i in (1, 2, 3) if m.group(i) is not None))
        line = text.count("\n", 0, start) + 1
        col0 = start - (text.rfind("\n", 0, start) + 1)
        for n, row in enumerate(body.split("\n")):
            rels = _relations(_TEX_COMMENT.sub("", row))  # % starts a comment in math (MathJax too)
            if rels:
                out.setdefault(line + n, []).extend((c + (col0 if n == 0 else 0), r) for c, r in rels)
    return out


def _relations(row: str) -> list:
    """The relations of one row of display math at depth 0: ``[(column, token)]``."""
    depth, out = 0, []
    for t in _REL_TOKEN.finditer(row):
        tok = t.group(0)
        if tok in "{([":
            depth += 1
        elif tok in "})]":
            depth = max(depth - 1, 0)
        elif depth == 0 and (tok in ("=", "<", ">", ":=") or tok.startswith(("\\stackrel", "\\overset"))):
            out.append((t.start(), "def=" if tok.startswith("\\") else tok))
        elif depth == 0 and tok[1:] in _REL_WORDS:
            out.append((t.start(), tok))
    return out


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


def mathcheck_links(path: pathlib.Path, report) -> tuple:
    """``({(line, k): (status, expr)}, [unplaced], [(line, status, gist)])``: mathcheck's links keyed
    as the hand labels are, and each chain's first line with its status (and bad input's gist).

    A link's key is its line and the ordinal of its relation among :func:`display_relations` of that
    line: its typeset ``source`` (which starts at its relation) is found on the line, left to right.
    A definition is its chain's one link, ``definition``. A link whose source is not found in display
    math (a definition read from inline ``$…$``, or a reading this bench cannot place) is unplaced.
    """
    text = path.read_text(errors="replace")
    lines, rels = text.split("\n"), display_relations(text, path.suffix == ".md")
    keyed, unplaced, cursor, starts = {}, [], {}, []
    for _, chains in report.files:
        for c in chains:
            starts.append((c.chain.line, c.status, c.message if c.status == "bad-input" else ""))
            for s in c.steps[1:] if c.status != "bad-input" else ():
                row = lines[s.line - 1] if 0 < s.line <= len(lines) else ""
                at = _find(row, s.source, cursor.get(s.line, 0))
                at = _find(row, s.source, 0) if at < 0 else at
                cols = [col for col, _ in rels.get(s.line, [])]
                if at < 0 or not cols or at < cols[0]:
                    unplaced.append((s.line, s.status, s.expr))
                    continue
                cursor[s.line] = at + 1
                k = sum(col <= at for col in cols) - 1
                if (s.line, k) in keyed:  # two links on one relation: a join this bench cannot make
                    unplaced.append((s.line, s.status, f"{s.expr} (a second link at ordinal {k})"))
                keyed.setdefault((s.line, k), (s.status, s.expr))
    return keyed, unplaced, sorted(starts)


def _why_not_read(line: int, starts: list) -> str:
    """Why a labelled link at ``line`` has no mathcheck link: the gist of the bad input of the chain
    that starts last at or before it (a display block is one chain), else ``no link read there``."""
    before = [s for s in starts if s[0] <= line]
    if not before or before[-1][1] != "bad-input":
        return "no link read there"
    text = re.sub(r"^.*?:\d+(?::\d+)?:\s*", "", before[-1][2].splitlines()[0] if before[-1][2] else "")
    text = re.sub(r"^.*? appears? first here", "NAMES appear first here", text)  # one kind, whatever
    text = re.sub(r"^\S+ is defined on line \d+", "NAME is defined on line N", text)  # the names
    return text.split(";")[0][:60]


def _find(row: str, source: str, start: int) -> int:
    """Where ``source`` (its first line) begins in ``row`` at or after ``start``, spaces ignored (the
    reader keeps a link's source with its spacing normalised); -1 if nowhere."""
    want = re.sub(r"\s+", "", (source or "").split("\n")[0]).lstrip("&")
    # a relation that ends its row (statnotes' logistic.tex:58, `=\\` then the expression on the next row):
    # the link's source runs on past the row break, so only what precedes it is on the relation's line
    want = want.split("\\\\")[0] if want.startswith(("=", "\\")) else want
    # the reader keeps a trailing \label{…} with the link's source, spaces normalised, though the author
    # wrote it on the next row (backprop.tex:151, :172): the relation is placed by the math before it
    want = re.sub(r"(?:\\label\{[^{}]*\})+$", "", want)
    cols = [i for i, ch in enumerate(row) if not ch.isspace() and i >= start]
    packed = "".join(row[i] for i in cols)
    at = packed.find(want) if want else -1
    return cols[at] if at >= 0 else -1


def classify(path: pathlib.Path, labels: list, seed: int, timeout: float) -> dict:
    """One file's must-show figures: the hand labels joined with mathcheck's links (module docstring)."""
    from mathcheck import derive

    try:
        report = derive.check_files([str(path)], seed=seed, timeout=timeout)
        keyed, unplaced, starts = mathcheck_links(path, report)
    except Exception:  # noqa: BLE001 - a file refused whole (no display math read): every label not read
        keyed, unplaced, starts = {}, [], []
    row = collections.Counter()
    review, needs, refuted_links, joined = [], [], [], []
    why_not = collections.Counter()
    for lab in labels:
        got = keyed.pop((lab["line"], lab["k"]), None)
        status = got[0] if got else "not read"
        joined.append({**lab, "mathcheck": status, "expr": got[1] if got else ""})
        where = f"{path.name}:{lab['line']}#{lab['k']}"
        if lab["label"] == "checkable":
            row["checkable"] += 1
            row["read"] += got is not None
            if got is None:
                why_not[_why_not_read(lab["line"], starts) or "the file is refused whole"] += 1
            row[status] += status in ("proved", "refuted", "inconclusive")
            if status == "refuted":  # each read by hand: the author's error, or a misreading (a bug)
                (needs if lab.get("note", "").startswith("needs") else refuted_links).append(
                    f"{where}  {lab.get('note') or 'checkable'}  refuted: {got[1]}"
                )
        elif lab["label"] == "definition":
            row["definitions"] += 1
            row["recognised"] += status == "definition"
        elif lab["label"] == PROBABILITY:  # issue 29's figure, apart from issue 28's checkable links
            row["probability"] += 1
            read = status in ("proved", "refuted", "inconclusive") or status == "definition" and got[1] != "(not read)"
            row["p_read"] += read
            row[f"p_{status}"] += read
        if lab["label"] != "checkable" and status in ("proved", "refuted", "inconclusive"):
            review.append(f"{where}  {lab['label']}  {status}: {got[1]}")
        if lab["label"] != "definition" and status == "definition":
            review.append(f"{where}  {lab['label']}  read as a definition: {got[1]}")
    mismatch = [f"{path.name}:{ln}#{k}  {st}: {ex}" for (ln, k), (st, ex) in sorted(keyed.items())]
    inline = [f"{path.name}:{ln}  {st}: {ex}" for ln, st, ex in unplaced]
    return {
        "file": path.name,
        **row,
        "unlabelled": mismatch,
        "unplaced": inline,
        "review": review,
        "needs": needs,
        "refuted_links": refuted_links,
        "links": joined,
        "why_not_read": dict(why_not),
    }


CLASS_COLUMNS = ("checkable", "read", "proved", "refuted", "inconclusive", "definitions", "recognised")

# Issue 29's must-show: "the probability links of your real-files corpus: >= 60% read, 0 false". The
# relations labelled so (statements about random variables or distributions) are kept out of issue 28's
# checkable count and reported on their own: read = a verdict at that relation (proved, refuted,
# inconclusive: an inconclusive link says what would decide it, e.g. the fact the prose states) or
# a definition whose right side is read; each refuted one is to read by hand (in ``review``).
PROBABILITY = "not-checkable:probability"
PROB_COLUMNS = ("probability", "p_read", "p_proved", "p_refuted", "p_inconclusive", "p_definition")


def prob_table(rows: list) -> str:
    """Issue 29's table: the probability links per file (those with any), then all."""
    head = ["file", "probability", "read", "proved", "refuted", "inconclusive", "definition"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    total = collections.Counter()
    for r in rows:
        if not r.get("probability"):
            continue
        vals = [r.get(c, 0) for c in PROB_COLUMNS]
        total.update(dict(zip(PROB_COLUMNS, vals)))
        out.append("| " + " | ".join([r["file"]] + [str(v) for v in vals]) + " |")
    out.append("| **all** | " + " | ".join(str(total[c]) for c in PROB_COLUMNS) + " |")
    n = total["probability"]
    out.append(
        f"\nprobability links read {100 * total['p_read'] / n:.0f}%, proved {100 * total['p_proved'] / n:.0f}%"
        if n
        else "\nno probability links"
    )
    return "\n".join(out)


def class_table(rows: list) -> str:
    """The must-show's table: per file, then all, with the ratios the issue states."""
    head = ["file", *CLASS_COLUMNS, "unlabelled", "unplaced"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    total = collections.Counter()
    for r in rows:
        vals = [r.get(c, 0) for c in CLASS_COLUMNS] + [len(r["unlabelled"]), len(r["unplaced"])]
        total.update(dict(zip(head[1:], vals)))
        out.append("| " + " | ".join([r["file"]] + [str(v) for v in vals]) + " |")
    out.append("| **all** | " + " | ".join(str(total[h]) for h in head[1:]) + " |")
    pct = lambda a, b: f"{100 * total[a] / total[b]:.0f}%" if total[b] else "-"  # noqa: E731
    out.append(
        f"\ncheckable links read {pct('read', 'checkable')}, proved {pct('proved', 'checkable')}; "
        f"definitions recognised {pct('recognised', 'definitions')}"
    )
    return "\n".join(out)


def skeleton(path: pathlib.Path) -> list:
    """The entries a classification of ``path`` needs, labels left ``?`` (to fill by hand)."""
    rels = display_relations(path.read_text(errors="replace"), path.suffix == ".md")
    return [
        {"line": ln, "k": k, "relation": r, "label": "?", "note": ""}
        for ln in sorted(rels)
        for k, (_, r) in enumerate(rels[ln])
    ]


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
    ap.add_argument("--classes", metavar="FILE", help="join with a hand classification (issue 28's must-show)")
    ap.add_argument("--skeleton", action="store_true", help="print the relations to classify, as JSON")
    args = ap.parse_args(argv)
    files = sorted(p for p in pathlib.Path(args.dir).iterdir() if p.suffix in (".md", ".tex"))
    if not files:
        print(f"{args.dir}: no .md or .tex file", file=sys.stderr)
        return 2
    if args.skeleton:
        print(json.dumps({p.name: skeleton(p) for p in files}, indent=1))
        return 0
    if args.classes:
        return _classes(files, args)
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


def _classes(files: list, args) -> int:
    """``--classes``: the must-show's table, then every link to read by hand."""
    try:
        classes = json.loads(pathlib.Path(args.classes).read_text())["files"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"{args.classes}: not a classification ({exc}); see bench/latex_corpus_classes.json", file=sys.stderr)
        return 2
    missing = [p.name for p in files if p.name not in classes]
    if missing:
        print(f"{args.classes}: no labels for {', '.join(missing)}; add them (--skeleton)", file=sys.stderr)
        return 2
    rows = [classify(p, classes[p.name], args.seed, args.timeout) for p in files]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(class_table(rows))
    print("\nprobability links (issue 29; not in the checkable figures above):")
    print(prob_table(rows))
    why = sum((collections.Counter(r["why_not_read"]) for r in rows), collections.Counter())
    print("\ncheckable links not read, by what the reader says (bad input's gist):")
    for gist, n in why.most_common():
        print(f"  {n:3d}  {gist}")
    for kind, what in (
        ("refuted_links", "a checkable link refuted: the author's error, or a misreading"),
        ("review", "proved, refuted or read as a definition on a label other than checkable"),
        ("needs", "refuted; its label notes a hypothesis it needs"),
        ("unlabelled", "mathcheck link on no hand label"),
        ("unplaced", "mathcheck link outside display math"),
    ):
        for r in rows:
            for line in r[kind]:
                print(f"{kind.replace('_links', '')}: {line}    ({what})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
