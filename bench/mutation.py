"""A standing mutation test of the step checker and of the numeric layer.

    python bench/mutation.py [--quick] [--json] [-j N] [--from FILE|MODULE ...] [--write-docs]

**Step mutants.** For every step of every part of every claim (built-in, and ``--from``), the mistakes
of a slipped pen: the step's expression ×2, +1, + a symbol of the step, one additive term negated,
√x → x and x² → x. Each mutated step is checked by the step checker exactly as a claim's step is
(the links into and out of it, with the step's rules and the part's hypotheses). A mutant that comes
back *proved* is confirmed by an independent evaluator (:mod:`mathcheck.symbolic.hypotheses`: mpmath at 30
digits, 40 random points that satisfy the part's hypotheses, sizes instantiated); one it cannot
confirm is a **false proof**.

**Statement mutants.** For every part the numeric check covers: the statement's left side ×2, its
right side ×(1 + 10⁻⁶) and, for inequalities, the relation flipped. Only the numeric check runs; a
mutant that the independent evaluator shows false must be refuted numerically, else it is *missed*
(with the reason, where the check's resolution explains it).

``--json`` prints::

    {"mutants": N, "refuted": N, "inconclusive": N, "proved": N, "false_proofs": [...],
     "errors": [...], "numeric": {"parts": N, "statement_mutants": N, "caught": N, "missed": [...]},
     "claims": {id: {...per-claim counts...}}, "seconds": S}

The same ``--seed`` and options give the same report for any ``-j`` (work items are independent and
reported in a fixed order); only ``seconds`` varies.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

STEP_KINDS = ("x2", "plus1", "plus-symbol", "negate-term", "sqrt-to-x", "square-to-x")
STATEMENT_KINDS = ("lhs-x2", "rhs-x1+1e-6", "relation-flipped")
FLIP = {">=": "<", ">": "<=", "<=": ">", "<": ">="}
QUICK_EVERY = 6  # --quick and the test suite keep every 6th step mutant (a fixed, spread sample)


# --- generating mutants --------------------------------------------------------------------------


def _preorder(e):
    yield e
    for a in getattr(e, "args", ()):
        yield from _preorder(a)


def _replace_first(e, match, make):
    """``e`` with its first subexpression (preorder) satisfying ``match`` replaced by ``make(x)``."""
    from mathcheck.lazy import sympy as sp

    for x in _preorder(e):
        if isinstance(x, sp.Basic) and match(x):
            return e.xreplace({x: make(x)})
    return None


def _bound_symbols(e) -> set:
    from mathcheck.lazy import sympy as sp

    out = set()
    for s in e.atoms(sp.Sum, sp.Product):
        out |= {lim[0] for lim in s.limits}
    return out


def step_mutants(expr) -> list[tuple[str, object]]:
    """The slips of :data:`STEP_KINDS` that apply to ``expr``, as (kind, mutated expression).

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> [k for k, _ in step_mutants(sp.sqrt(x) + x**2)]
    ['x2', 'plus1', 'plus-symbol', 'negate-term', 'sqrt-to-x', 'square-to-x']
    """
    from mathcheck.lazy import sympy as sp

    if isinstance(expr, sp.MatrixBase):  # mutate one entry: the rest of the matrix is unchanged
        out = []
        for kind, m in step_mutants(expr[0, 0]):
            mutated = sp.Matrix(expr)
            mutated[0, 0] = m
            out.append((kind, sp.ImmutableMatrix(mutated)))
        return out
    expr = sp.sympify(expr) if isinstance(expr, (int, float)) else expr  # our own numbers only
    candidates = sorted((s for s in expr.free_symbols - _bound_symbols(expr) if isinstance(s, sp.Symbol)), key=str)
    makers = [
        ("x2", lambda: 2 * expr),
        ("plus1", lambda: expr + 1),
        ("plus-symbol", lambda: expr + candidates[0] if candidates else None),
        (
            "negate-term",
            lambda: _replace_first(
                expr, lambda x: isinstance(x, (sp.Add, sp.MatAdd)), lambda x: x.func(-x.args[0], *x.args[1:])
            ),
        ),
        (
            "sqrt-to-x",
            lambda: _replace_first(expr, lambda x: isinstance(x, sp.Pow) and x.exp == sp.S.Half, lambda x: x.base),
        ),
        ("square-to-x", lambda: _replace_first(expr, lambda x: isinstance(x, sp.Pow) and x.exp == 2, lambda x: x.base)),
    ]
    out = []
    for kind, make in makers:
        try:  # a slip that does not type-check (a matrix plus a scalar) is no mutant of this step
            mutated = make()
        except (TypeError, ValueError, AttributeError):
            continue
        if mutated is not None:
            out.append((kind, mutated))
    return [(k, m) for k, m in out if m != expr]  # a slip that changes nothing is no mutant


@dataclass(frozen=True)
class Item:
    """One unit of work, named by values only (workers rebuild the claim from its id)."""

    claim: str
    part: str
    step: int
    kind: str

    @property
    def label(self) -> str:
        return f"{self.claim}:{self.part}:step {self.step}:{self.kind}"


_CLAIMS: dict = {}


def _claim(claim_id: str):
    from mathcheck import registry

    if claim_id not in _CLAIMS:
        _CLAIMS[claim_id] = registry.get(claim_id)
    return _CLAIMS[claim_id]


def step_items(claim_ids) -> list[Item]:
    items = []
    for cid in claim_ids:
        claim = _claim(cid)
        for part in claim.parts:
            for n, step in enumerate(part.steps[1:], start=1):
                items += [Item(cid, part.name, n, kind) for kind, _ in step_mutants(step.expr)]
    return items


def statement_kinds(part) -> list[str]:
    """The statement mutants that can make ``part`` false. With a right side of 0, doubling the left
    side keeps ``lhs REL 0`` exactly as true (``2x = 0 ⟺ x = 0``) and scaling the right side changes
    nothing, so neither is a mutant; an equation has no flipped relation."""
    zero = getattr(part.rhs, "is_zero", False) is True
    kinds = [] if zero else ["lhs-x2", "rhs-x1+1e-6"]
    return kinds + (["relation-flipped"] if part.relation in FLIP else [])


def statement_items(claim_ids) -> list[Item]:
    items = []
    for cid in claim_ids:
        claim = _claim(cid)
        for part in claim.parts:
            items += [Item(cid, part.name, 0, kind) for kind in statement_kinds(part)]
    return items


def quick_sample(items: list[Item], every: int = QUICK_EVERY) -> list[Item]:
    """A deterministic spread sample: every ``every``-th item, so each claim keeps some, plus the
    first mutant of any kind the stride missed (√x → x is rare), in the items' order."""
    chosen = set(range(0, len(items), every))
    for kind in STEP_KINDS:
        if not any(items[i].kind == kind for i in chosen):
            chosen |= {next((i for i, it in enumerate(items) if it.kind == kind), 0)} if items else set()
    return [items[i] for i in sorted(chosen)]


# --- running one mutant --------------------------------------------------------------------------


def _mutated_links(part, n: int, mutated):
    """The part cut down to the links into and out of step ``n``, with step ``n`` mutated (the
    part's hypotheses kept, no generality expected of the window)."""
    from mathcheck.claim import Part, Step

    steps = list(part.steps)
    steps[n] = replace(steps[n], expr=mutated)
    window = [Step(steps[n - 1].expr, "the previous step, as derived")] + steps[n : n + 2]
    return Part(part.name, tuple(window), general=None, given=getattr(part, "given", ()))


def _earlier_parts(claim, part) -> tuple:
    """What a lemma in ``part`` may cite: the claim's parts before it, as the checker records them."""
    from mathcheck.symbolic import hypotheses as hyp

    out = []
    for p in claim.parts:
        if p.name == part.name:
            break
        out.append((p.name, p.statement, hyp.hypotheses(p, claim.context)))
    return tuple(out)


def _check(claim, part, window):
    from mathcheck.symbolic import steps

    return steps.check_part(
        window, claim.context, proved=_earlier_parts(claim, part), names=tuple(p.name for p in claim.parts)
    )


def confirm(prev, expr, rel: str, part, ctx, points: int = 40, dps: int | None = None, seed: int = 0):
    """Does ``prev REL expr`` hold under ``part``'s hypotheses? (True, False or None, and a note.)

    Independent of the step checker: :func:`mathcheck.symbolic.hypotheses.part_points` draws points that
    satisfy the hypotheses (sizes instantiated; the numeric kernel's constructive draw) and
    :func:`mathcheck.numeric.holds.holds_at` evaluates both sides with mpmath at ``dps`` digits
    (``numeric.PRECISION_DIGITS`` by default). True needs all ``points`` points decided and holding."""
    from mathcheck.claim import Part, Step
    from mathcheck.numeric import PRECISION_DIGITS
    from mathcheck.numeric.holds import holds_at
    from mathcheck.symbolic import hypotheses as hyp

    dps = PRECISION_DIGITS if dps is None else dps
    given = hyp.hypotheses(part, ctx)
    link = Part(part.name, (Step(prev, ""), Step(expr, "", relation=rel)), general=None, given=given)
    statement = hyp.statement_of(link, ctx)
    verdicts = [holds_at(statement, given, pt, dps) for pt in hyp.part_points(link, ctx, count=points, seed=seed)]
    failing = sum(v is False for v in verdicts)
    decided = sum(v is not None for v in verdicts)
    if failing:
        return False, f"fails at {failing} of {decided} points (mpmath, {dps} digits)"
    if decided < points:
        return None, f"only {decided} of {points} points could be drawn and evaluated"
    return True, f"holds at {points} points (mpmath, {dps} digits)"


def _through_original(original, mutated, rel: str, side: str, part, ctx):
    """Confirm a link of the mutated step through the original step, whose links are proved.

    The original chain shows ``prev REL orig`` (and ``orig REL next``); so ``prev REL mutated`` follows
    from ``orig = mutated`` (or, for an inequality, ``orig ≤ mutated`` under ≤, ``orig ≥ mutated``
    under ≥), and likewise on the other side. The comparison is evaluated as ``mutated − orig REL 0``,
    so what the two share (an abstract f, an expectation) cancels before evaluation."""
    if rel == "=":
        op = "="
    elif rel in ("<=", "<"):
        op = ">=" if side == "in" else "<="
    else:
        op = "<=" if side == "in" else ">="
    from mathcheck.lazy import sympy as sp

    return confirm(mutated - original, sp.Integer(0), op, part, ctx)


def _confirmed_true(claim, part, window, original) -> tuple[bool, str]:
    """Every link of the mutated ``window`` holds at 40 random points satisfying the hypotheses
    (mpmath, numeric.PRECISION_DIGITS = 50 digits), evaluated directly or, where a side cannot be evaluated (E, Var, an
    abstract function), through the original step (the claim's proved chain)."""
    steps = window.steps
    notes = []
    for n in range(1, len(steps)):
        prev, cur, rel = steps[n - 1].expr, steps[n].expr, steps[n].relation
        verdict, note = confirm(prev, cur, rel, part, claim.context)
        if verdict is None:  # the mutated step is steps[1]: its link in (n = 1) or out (n = 2)
            side = "in" if n == 1 else "out"
            verdict, via = _through_original(original, steps[1].expr, rel, side, part, claim.context)
            note = f"through the proved original step: {via}"
        if verdict is not True:
            return False, note
        notes.append(note)
    return True, "; ".join(dict.fromkeys(notes))


def run_step_item(item: Item) -> dict:
    try:
        claim = _claim(item.claim)
        part = claim.part(item.part)
        mutated = dict(step_mutants(part.steps[item.step].expr))[item.kind]
        window = _mutated_links(part, item.step, mutated)
        result = _check(claim, part, window)
        out = {"item": item.label, "claim": item.claim, "status": result.status}
        if result.status == "proved":
            ok, note = _confirmed_true(claim, part, window, part.steps[item.step].expr)
            out["confirmed"] = ok
            out["note"] = note
        return out
    except Exception as exc:  # noqa: BLE001 - an error of the machinery is reported, never hidden
        line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return {"item": item.label, "claim": item.claim, "status": "error", "note": line}


def _statement_mutant(part, kind: str):
    from mathcheck.claim import relation

    lhs, rhs, rel = part.lhs, part.rhs, part.relation
    if kind == "lhs-x2":
        return relation(2 * lhs, rhs, rel), 2 * lhs, rhs, rel
    if kind == "rhs-x1+1e-6":
        from mathcheck.lazy import sympy as sp

        factor = 1 + sp.Rational(1, 10**6)
        return relation(lhs, rhs * factor, rel), lhs, rhs * factor, rel
    return relation(lhs, rhs, FLIP[rel]), lhs, rhs, FLIP[rel]


def run_statement_item(item: Item, seed: int) -> dict:
    from mathcheck import engine
    from mathcheck.verify import Options

    try:
        claim = _claim(item.claim)
        part = claim.part(item.part)
        stmt, lhs, rhs, rel = _statement_mutant(part, item.kind)
        holds, note = confirm(lhs, rhs, rel, part, claim.context)
        false = {True: False, False: True, None: None}[holds]
        numeric = engine.verify(claim, {part.name: stmt}, Options(seed=seed))  # the mutated part alone
        if numeric.status == "error":  # a check that needs its other parts: give it all of them
            statements = claim.statements()
            statements[part.name] = stmt
            numeric = engine.verify(claim, statements, Options(seed=seed))
        out = {
            "item": item.label,
            "claim": item.claim,
            "false": false,
            "numeric": numeric.status,
            "caught": numeric.status == "refuted",
        }
        if not out["caught"]:
            out["note"] = _why_missed(numeric, part.name, false, note)
        return out
    except Exception as exc:  # noqa: BLE001 - an error of the machinery is reported, never hidden
        line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return {
            "item": item.label,
            "claim": item.claim,
            "false": None,
            "numeric": "error",
            "caught": False,
            "note": line,
        }


def _why_missed(numeric, part: str, false, note: str) -> str:
    """One line: why the numeric check let a statement mutant through."""
    import re

    if numeric.status == "error":
        return "the check errs: " + "; ".join(numeric.details)[:200]
    resolution = [
        re.search(r"detects a relative error ≥ [0-9.]+%", d) for d in numeric.details if d.startswith(f"{part}:")
    ]
    resolution = sorted({m.group(0) for m in resolution if m})
    if resolution:
        return f"below the statistical test's resolution (it {resolution[-1]}, power 1 − 1e-6)"
    for part_name, why in getattr(numeric, "unevaluated", ()):
        if part_name == part:
            return f"the left side is not evaluated: {why}"
    if false is None:
        return f"not shown false by the independent evaluator ({note}); the check passed it"
    return "the check passed a statement the independent evaluator shows false"


# --- the whole run -------------------------------------------------------------------------------


def _worker_init(parent=None):
    from mathcheck.procs import die_with_parent

    die_with_parent(parent)  # a killed bench leaves no worker behind
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def _run(fn, items, jobs: int, *args):
    if jobs <= 1:
        return [fn(i, *args) for i in items]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=mp.get_context("fork"), initializer=_worker_init, initargs=(os.getpid(),)
    ) as pool:
        return list(pool.map(fn, items, *([a] * len(items) for a in args), chunksize=4))


def report(step_results: list[dict], statement_results: list[dict], claim_ids, seconds: float) -> dict:
    counts = {s: sum(r["status"] == s for r in step_results) for s in ("refuted", "inconclusive", "proved")}
    false_proofs = [
        f"{r['item']}: {r['note']}" for r in step_results if r["status"] == "proved" and not r.get("confirmed")
    ]
    errors = [f"{r['item']}: {r['note']}" for r in step_results if r["status"] == "error"]
    errors += [f"{r['item']}: {r['note']}" for r in statement_results if r["numeric"] == "error"]
    counted = [r for r in statement_results if r["false"] is not False]  # false, or not decidable
    missed = [f"{r['item']}: {r.get('note') or 'not refuted'}" for r in counted if not r["caught"]]
    per_claim = {}
    for cid in claim_ids:
        mine = [r for r in step_results if r["claim"] == cid]
        stmts = [r for r in counted if r["claim"] == cid]
        per_claim[cid] = {
            "mutants": len(mine),
            **{s: sum(r["status"] == s for r in mine) for s in ("refuted", "inconclusive", "proved")},
            "false_proofs": sum(r["status"] == "proved" and not r.get("confirmed") for r in mine),
            "statement_mutants": len(stmts),
            "caught": sum(r["caught"] for r in stmts),
        }
    return {
        "mutants": len(step_results),
        **counts,
        "false_proofs": false_proofs,
        "errors": errors,
        "numeric": {
            "parts": sum(len(_claim(cid).parts) for cid in claim_ids),
            "statement_mutants": len(counted),
            "caught": sum(r["caught"] for r in counted),
            "missed": missed,
        },
        "claims": per_claim,
        "seconds": round(seconds, 1),
    }


def mutation_run(
    claim_ids=None, quick: bool = False, jobs: int = 1, seed: int = 0, numeric: bool = True, steps: bool = True
) -> dict:
    from mathcheck import registry

    claim_ids = list(claim_ids) if claim_ids is not None else [e.id for e in registry.entries()]
    start = time.perf_counter()
    items = step_items(claim_ids) if steps else []
    if quick:
        items = quick_sample(items)
    step_results = _run(run_step_item, items, jobs)
    stmt_items = statement_items(claim_ids) if numeric else []
    statement_results = _run(run_statement_item, stmt_items, jobs, seed)
    return report(step_results, statement_results, claim_ids, time.perf_counter() - start)


def markdown_table(result: dict) -> str:
    lines = [
        "| claim | step mutants | refuted | inconclusive | proved (confirmed true) | false proofs "
        "| statement mutants | caught numerically |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cid, c in result["claims"].items():
        lines.append(
            f"| `{cid}` | {c['mutants']} | {c['refuted']} | {c['inconclusive']} | "
            f"{c['proved'] - c['false_proofs']} | {c['false_proofs']} | {c['statement_mutants']} | "
            f"{c['caught']} |"
        )
    n = result["numeric"]
    lines += [
        "",
        f"Total: {result['mutants']} step mutants — {result['refuted']} refuted, "
        f"{result['inconclusive']} inconclusive, {result['proved']} proved "
        f"({len(result['false_proofs'])} false proofs), {len(result['errors'])} errors; "
        f"{n['statement_mutants']} statement mutants over {n['parts']} parts, {n['caught']} caught "
        f"numerically, {len(n['missed'])} missed. Run time {result['seconds']} s.",
    ]
    if n["missed"]:
        lines += ["", "Missed statement mutants (and why):", ""] + [f"- {m}" for m in n["missed"]]
    return "\n".join(lines)


BEGIN, END = "<!-- mutation:begin -->", "<!-- mutation:end -->"


def write_docs(result: dict, path: Path = ROOT / "docs" / "soundness.md") -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else "# Soundness\n"
    block = f"{BEGIN}\n{markdown_table(result)}\n{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = (
            text.rstrip("\n") + "\n\n## The mutation test (`python bench/mutation.py --write-docs`)\n\n" + block + "\n"
        )
    path.write_text(text, encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"every {QUICK_EVERY}th step mutant")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--from", dest="from_", action="append", default=[], metavar="FILE|MODULE")
    ap.add_argument("--write-docs", action="store_true", help="rewrite the table in docs/soundness.md")
    args = ap.parse_args(argv)
    from mathcheck import registry

    ids = None
    if args.from_:
        ids = [e.id for e in registry.entries()]
        for spec in args.from_:
            ids += registry.load_from(spec)
    result = mutation_run(ids, quick=args.quick, jobs=args.jobs, seed=args.seed)
    if args.write_docs:
        write_docs(result)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(markdown_table(result))
    bad = result["false_proofs"] or result["errors"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
