"""Real implementations run as written: the conform corpus (issue 30).

    python bench/conform_corpus.py build [--mirror /work/.mirror] [--out /tmp/conform4-corpus]
    python bench/conform_corpus.py run   [--out /tmp/conform4-corpus] [--only ID ...] [-j 2] [--full]

The manifest (``bench/conform_corpus.jsonl``, one JSON object a line) holds *pointers* only: each
entry names a source (``owner/repo@commit:path`` of a public repository, or ``installed:module``
for PyTorch and the installed transformers), the definitions it takes from that file, the target,
the kind and the flags (only ``--kind`` and flags that state the author's convention), and what is
expected: ``correct`` code must hold, a ``plant`` entry is a bug planted in a copy of a correct
entry (a text substitution) and must fail with the named property.

``build`` writes each fetched file under ``--out/<owner+repo>/<path>`` from a repository snapshot
(``git show commit:path``): the named top-level definitions taken unchanged, in file order, with the
file's top-level imports that import here (torch, math, typing, einops, …; a package's own imports
such as ``from torchtune.modules import …`` are dropped; nothing else is changed). Third-party text
stays there, never in this repository. ``run`` runs ``mathcheck conform`` in a fresh process per
entry (``--quick`` unless ``--full``) and prints one markdown table: ran with no adapter and held /
false alarm (exit 1 on correct code) / refused (exit 2, with its line) / inconclusive / crash, and for
planted bugs caught (exit 1 naming the property) or missed; then the totals.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mathcheck.procs import child_dies_with_parent  # a killed bench leaves no mathcheck run behind

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = Path(__file__).with_suffix(".jsonl")
OUT = Path("/tmp/conform4-corpus")


def entries(path: Path = MANIFEST) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate ids in the manifest"
    return rows


def _source(entry: dict) -> tuple[str, str, str]:
    """``owner/repo@commit:path`` -> (owner/repo, commit, path); ``installed-file:PATH`` -> ("installed", "", PATH)."""
    if entry["source"].startswith("installed-file:"):
        return "installed", "", entry["source"].removeprefix("installed-file:")
    repo_at, _, path = entry["source"].partition(":")
    repo, _, commit = repo_at.partition("@")
    return repo, commit, path


def local_file(entry: dict, out: Path = OUT) -> Path:
    repo, _, path = _source(entry)
    return out / repo.replace("/", "+") / path


def _importable(stmt: ast.stmt) -> bool:
    """An import statement that runs here (its module installed); a package's own imports are dropped."""
    try:
        exec(compile(ast.Module([stmt], []), "<import>", "exec"), {})  # our own ast node: an import, nothing else
    except Exception:  # noqa: BLE001 - an import that fails in any way is not importable
        return False
    return True


def _defined(decorator: ast.expr, kept: list[str]) -> bool:
    """A decorator whose root name the kept imports define (``torch.jit.script``); a package's own
    registry (``@norms.register('low_precision_layernorm')``, llm-foundry) is dropped with its import:
    it registers the class, it does not change what it computes."""
    root = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and any(
        root.id in k.split() or f"{root.id}," in k or f"{root.id}\n" in k for k in kept + ["torch"]
    )


def extract(text: str, names: list[str]) -> str:
    """The file's importable top-level imports, then the named top-level definitions verbatim."""
    tree = ast.parse(text)
    lines = text.splitlines()
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (  # and try: import … except ImportError: FLAG = …
            isinstance(node, ast.Try) and isinstance(node.body[0], (ast.Import, ast.ImportFrom))
        ):
            if _importable(node):
                keep.append(ast.get_source_segment(text, node))
            continue
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):  # FLASH = 0: a module flag
            keep.append(ast.get_source_segment(text, node))
            continue
        named = getattr(node, "name", None) or next(
            (t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)), None
        )
        if named in names:
            kept = [d for d in getattr(node, "decorator_list", []) if _defined(d, keep)]
            start = min([node.lineno] + [d.lineno for d in kept])
            body = lines[start - 1 : node.end_lineno]
            dropped = [d for d in getattr(node, "decorator_list", []) if d not in kept]
            body = [
                ln for i, ln in enumerate(body, start) if not any(d.lineno - 1 <= i - 1 < d.end_lineno for d in dropped)
            ]
            keep.append("\n".join(body))
    missing = [
        n for n in names if not any(f"def {n}(" in k or f"class {n}" in k or k.startswith(f"{n} =") for k in keep)
    ]
    if missing:
        raise SystemExit(f"extract: no top-level {missing} in the file")
    return "\n\n".join(keep) + "\n"


def build(mirror: Path, out: Path) -> None:
    files: dict[Path, tuple[dict, set]] = {}
    for e in entries():
        if e["source"].startswith("installed:") or "plant" in e:
            continue  # (a "harness": our own lines appended, calling the definitions; the entry is an adapter run)
        files.setdefault(local_file(e, out), (e, set()))[1].update(e.get("defs", [e["target"].split(".")[0]]))
    for path, (e, names) in sorted(files.items()):
        repo, commit, src = _source(e)
        if repo == "installed":  # a file of an installed package (transformers), read where it is installed
            import importlib.util

            top = Path(importlib.util.find_spec(src.split("/")[0]).origin).parent.parent
            text = (top / src).read_text()
        else:
            git = mirror / repo.replace("/", "+") / "repo"
            text = subprocess.run(
                preexec_fn=child_dies_with_parent,
                args=["git", "-C", str(git), "show", f"{commit}:{src}"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        path.parent.mkdir(parents=True, exist_ok=True)
        order = [n for n in _order(text) if n in names]
        harness = "".join(x.get("harness", "") for x in entries() if local_file(x, out) == path and "plant" not in x)
        path.write_text((extract(text, order) if "*" not in names else text) + harness)
        print(f"wrote {path} ({', '.join(sorted(names))})")
    for e in entries():
        if "plant" in e:
            plant(e, out)


def _order(text: str) -> list[str]:
    return [
        getattr(n, "name", None) or next((t.id for t in getattr(n, "targets", []) if isinstance(t, ast.Name)), "")
        for n in ast.parse(text).body
    ]


def plant(entry: dict, out: Path) -> Path:
    """A copy of the correct entry's file with one substitution: the planted bug (never committed)."""
    base = next(e for e in entries() if e["id"] == entry["plant"]["from"])
    src = local_file(base, out)
    text = src.read_text()
    old, new = entry["plant"]["replace"]
    if text.count(old) < 1:
        raise SystemExit(f"plant {entry['id']}: {old!r} not in {src}")
    dst = out / "planted" / f"{entry['id']}.py"
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(text.replace(old, new, entry["plant"].get("count", 1)))
    return dst


def target_of(entry: dict, out: Path) -> str:
    if entry["source"].startswith("installed:"):
        return f"{entry['source'].removeprefix('installed:')}:{entry['target']}"
    if "plant" in entry:
        return f"{out / 'planted' / (entry['id'] + '.py')}:{entry['target']}"
    return f"{local_file(entry, out)}:{entry['target']}"


def run_one(entry: dict, out: Path, full: bool) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "mathcheck",
        "conform",
        target_of(entry, out),
        "--kind",
        entry["kind"],
        *entry.get("flags", []),
        *([] if full else ["--quick"]),
        "--json",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    t = time.monotonic()
    try:
        p = subprocess.run(
            preexec_fn=child_dies_with_parent, args=cmd, capture_output=True, text=True, env=env, timeout=600
        )
        rc, stdout, stderr = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, stdout, stderr = -1, "", "timed out after 600 s"
    failed, detected = [], []
    if stdout.strip().startswith("{"):
        rep = json.loads(stdout)
        failed = [r["name"] for r in rep["properties"] if r["status"] == "fails"]
        detected = [
            s
            for s in rep.get("setting", [])
            if s.startswith(("convention", "constructor", "label", "targets", "arguments"))
        ]
    line = (stderr.strip().splitlines() or [""])[-1]
    return {
        "id": entry["id"],
        "rc": rc,
        "failed": failed,
        "line": line,
        "seconds": time.monotonic() - t,
        "detected": detected,
        "cmd": " ".join(cmd[2:-1]),
    }


def outcome(entry: dict, r: dict) -> str:
    rc = r["rc"]
    if "plant" in entry:
        want = entry["expect"]
        if rc == 1 and want in r["failed"]:
            return "caught"
        if rc == 2:
            return "refused (not run)"  # the call itself was refused: the bug was never exercised
        return "caught, other property" if rc == 1 else "MISSED"
    return {0: "held", 1: "FALSE ALARM", 2: "refused", 3: "inconclusive"}.get(rc, "crash")


def run(out: Path, only: list[str], jobs: int, full: bool) -> int:
    todo = [e for e in entries() if not only or e["id"] in only]
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda e: run_one(e, out, full), todo))
    print("| id | source | target | kind, flags | outcome | detail |")
    print("|---|---|---|---|---|---|")
    tally: dict[str, int] = {}
    for e, r in zip(todo, results):
        o = outcome(e, r)
        if "harness" in e:
            o += " (harness)"  # our own call around it: not counted among the runs with no adapter
        tally[o] = tally.get(o, 0) + 1
        detail = {
            "held": "; ".join(r["detected"]),
            "refused": r["line"],
            "crash": r["line"],
            "inconclusive": r["line"],
            "refused (not run)": r["line"],
        }.get(o, ", ".join(r["failed"]))
        src = e["source"].replace("installed:", "")
        print(
            f"| {e['id']} | {src} | {e['target']} | {' '.join([e['kind'], *e.get('flags', [])])} | {o} | "
            f"{detail.replace('|', '/')} |"
        )
    correct = [e for e in todo if "plant" not in e and "harness" not in e]
    planted = [e for e in todo if "plant" in e]
    noadapt = sum(1 for e, r in zip(todo, results) if e in correct and r["rc"] == 0)
    print()
    print(
        f"correct: {len(correct)}; ran with no adapter and held: {noadapt} of {len(correct)} "
        f"({100 * noadapt / max(len(correct), 1):.0f}%); false alarms: {tally.get('FALSE ALARM', 0)}; "
        f"refused: {tally.get('refused', 0)}; inconclusive: {tally.get('inconclusive', 0)}; "
        f"crash: {tally.get('crash', 0)}"
    )
    print(
        f"planted bugs: {len(planted)}; caught with the property named: {tally.get('caught', 0)}; "
        f"caught, other property: {tally.get('caught, other property', 0)}; "
        f"refused (not run): {tally.get('refused (not run)', 0)}; missed: {tally.get('MISSED', 0)}"
    )
    print(f"seconds (sum over entries): {sum(r['seconds'] for r in results):.0f}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("build", "run"))
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="without --quick (the full input-dtypes ladder)")
    a = ap.parse_args(argv)
    if a.what == "build":
        build(a.mirror, a.out)
        return 0
    return run(a.out, a.only, a.j, a.full)


if __name__ == "__main__":
    sys.exit(main())
