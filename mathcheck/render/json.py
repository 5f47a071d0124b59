"""Verdicts as JSON-ready dicts. The documented fields are a contract (see docs/json.md).

Every timing is under a key named ``seconds``; :func:`without_timings` drops them, which is what
"same seed, same report" compares.
"""

from __future__ import annotations

import math
from typing import Any

from mathcheck.version import __version__


def _num(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else str(x)


def _pairs(pairs) -> dict | None:
    return dict(pairs) if pairs else None


def _expr(e) -> dict:
    import sympy as sp

    return {"text": sp.sstr(e), "latex": sp.latex(e)}


def decision(d) -> dict | None:
    if d is None:
        return None
    return {
        "status": d.status,
        "how": d.how,
        "counterexample": _pairs(d.counterexample),
        "timed_out": d.timed_out,
        "seconds": round(d.seconds, 4),
    }


def numeric(n) -> dict:
    return {
        "status": n.status,
        "reference": n.reference,
        "trials": n.trials,
        "max_abs_err": _num(n.max_abs_err),
        "atol": n.atol,
        "rtol": n.rtol,
        "seed": n.seed,
        "dtype": n.dtype,
        "device": n.device,
        "test": n.test or None,
        "counterexample": _pairs(n.counterexample),
        "details": list(n.details),
        "tolerance": n.tolerance or None,
        "power": n.power or None,
        "unevaluated": _pairs(n.unevaluated),
        "comparisons": [{"case": c, "max_abs_err": _num(e), "tolerance": _num(t)} for c, e, t in n.comparisons],
        "seconds": round(n.seconds, 4),
    }


def symbolic(s) -> dict:
    steps, parts = [], []
    for p in s.parts:
        parts.append(
            {
                "name": p.name,
                "status": p.status,
                "general": p.general,
                "relation": p.relation,
                "given": [_expr(h) for h in getattr(p, "given", ())],
                "statement": _expr(p.statement),
                "notes": list(p.notes),
            }
        )
        for r in p.steps:
            d = decision(r.decision)
            steps.append(
                {
                    "part": r.part,
                    "index": r.index,
                    "relation": r.relation,
                    "expr": _expr(r.expr)["text"],
                    "latex": _expr(r.expr)["latex"],
                    "reason": r.reason,
                    "rule": r.rule or None,
                    "status": r.status,
                    "how": d["how"] if d else None,
                    "counterexample": d["counterexample"] if d else None,
                    "seconds": d["seconds"] if d else 0.0,
                }
            )
    return {"status": s.status, "general": s.general, "parts": parts, "steps": steps, "seconds": round(s.seconds, 4)}


def claim_verdict(v) -> dict:
    c = v.claim
    out = {
        "id": c.id,
        "title": c.title,
        "section": c.source.section,
        "source": {"section": c.source.section, "zh": c.source.zh, "en": c.source.en},
        "status": v.status,
        "symbolic": symbolic(v.symbolic),
        "numeric": numeric(v.numeric),
        "seed_verdict": {"verdict": c.seed_verdict[0], "note": c.seed_verdict[1]},
        "replay": v.replay,
    }
    if v.error:
        out["error"] = v.error
    return out


def mutant_verdict(m) -> dict:
    return {
        "name": m.name,
        "mistake": m.mutant.mistake,
        "status": m.status,
        "counterexample": _pairs(m.counterexample),
        "symbolic": decision(m.symbolic),
        "numeric": numeric(m.numeric),
    }


def refute_verdict(r) -> dict:
    out = {
        "id": r.claim.id,
        "title": r.claim.title,
        "section": r.claim.source.section,
        "mutants": [mutant_verdict(m) for m in r.mutants],
        "replay": r.replay,
    }
    if r.error:
        out["error"] = r.error
    return out


def report(verdicts, kind: str, seed: int) -> dict:
    render = claim_verdict if kind == "prove" else refute_verdict
    return {"mathcheck": __version__, "command": kind, "seed": seed, "claims": [render(v) for v in verdicts]}


def without_timings(obj) -> Any:
    """The report with every ``seconds`` key removed (for "same seed, same report")."""
    if isinstance(obj, dict):
        return {k: without_timings(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [without_timings(v) for v in obj]
    return obj


# --- mathcheck check (one identity, and --file) ---------------------------------------------------

#: the keys of a check's sides, in the order the JSON prints them (a field that is None, not reported,
#: is left out; ``max_abs_err`` is always printed, null when nothing was measured)
SYMBOLIC_KEYS = ("difference", "status", "how", "seconds", "lowered")
NUMERIC_KEYS = (
    "status",
    "points",
    "skipped",
    "max_abs_err",
    "unconfirmed",
    "draws",
    "passed",
    "evaluator",
    "reference",
    "note",
    "summary",
)


def check_side(side, keys, always=()) -> dict:
    """A :class:`~mathcheck.userexpr.relation.SymbolicSide` or ``NumericSide`` as a JSON object
    (``{}`` for a side that did not run)."""
    if side is None:
        return {}
    return {k: getattr(side, k) for k in keys if getattr(side, k) is not None or k in always}


def check_result(r, timings: bool = True) -> dict:
    """A :class:`~mathcheck.userexpr.relation.CheckResult`; ``timings=False`` leaves out the seconds
    (for batches that are byte-identical for any ``-j``)."""
    sym = check_side(r.symbolic, SYMBOLIC_KEYS if timings else [k for k in SYMBOLIC_KEYS if k != "seconds"])
    out = {
        "status": r.status,
        "lhs": r.lhs,
        "rhs": r.rhs,
        "relation": r.relation,
        "assumptions": {k: list(v) for k, v in r.assumptions.items()},
        "given": list(r.given),
        "seed": r.seed,
        "how": r.how,
        "evaluator": r.evaluator,
        "symbolic": sym,
        "numeric": check_side(r.numeric, NUMERIC_KEYS, always=("max_abs_err",)),
        "counterexample": r.counterexample,
        "values": r.values,
        "message": r.message,
        "replay": r.replay,
    }
    if timings:
        out["seconds"] = round(r.seconds, 3)
    return out


def check_batch(rows, results, totals: dict) -> dict:
    """``{"rows": [check's JSON without timings + "line"], "totals": {...}}`` (``totals``: the rows
    counted by status, ``userexpr.batch.totals``)."""
    return {
        "rows": [{"line": row.line, **check_result(r, timings=False)} for row, r in zip(rows, results)],
        "totals": totals,
    }


# --- mathcheck derive -----------------------------------------------------------------------------


def derive_step(s) -> dict:
    from mathcheck.render import accounts

    out = {
        "line": s.line,
        "expr": s.expr,
        "relation": s.relation,
        "reason": s.reason,
        "status": s.status,
        "how": accounts.link(s),
        "counterexample": s.counterexample,
        "values": s.values,
    }
    if s.relation == "≈":
        out["bound"] = s.bound  # as read: {"text", "exact", "value", "relative"}, or null when none is stated
    if s.measured is not None:
        out["measured"] = s.measured
    if s.source:
        out["source"] = s.source
    return out


def derive_chain(r) -> dict:
    """A chain's report, ``derive.ChainReport`` (docs/derive.md lists the fields)."""
    from mathcheck.render import accounts

    c = r.chain
    out = {
        "name": c.name,
        "line": c.line,
        "status": r.status,
        "assumptions": {k: list(v) for k, v in c.assumptions.items()},
        "given": list(r.given),
        "let": [t for _, t in c.lets],
        "definitions": list(r.definitions),
        "notes": list(r.notes),
        "facts": [t for _, t in c.facts],
        "relation": r.relation,
        "statement": accounts.statement(r.statement),
        "steps": [derive_step(s) for s in r.steps],
    }
    if r.message:
        out["message"] = r.message
    if getattr(c, "unread", ""):  # a definition whose right side is not read: what was not read
        out["unread"] = c.unread
    if _cell(c) is not None:  # a notebook's Markdown cell: "line" counts from the cell's first line
        out["cell"] = _cell(c)
    return out


def derive_report(report) -> dict:
    return {
        "files": [
            {"path": path, "chains": [derive_chain(c) for c in chains], "counts": counts}
            for (path, chains), counts in zip(report.files, report.file_counts())
        ],
        "status": report.status,
        "seed": report.seed,
        "replay": report.replay,
        "counts": report.counts(),
    }


def derive_lines(path: str, r) -> list[dict]:
    """``derive --jsonl``: one object per link of a checked chain, then one for its statement
    (``"kind": "link"`` / ``"statement"``), each naming its file, chain and chain's status."""
    from mathcheck.render import accounts

    head = {"path": path, "chain": r.chain.name, "chain_line": r.chain.line, "chain_status": r.status}
    cell = _cell(r.chain)
    if cell is not None:
        head["cell"] = cell
    out = [{"kind": "link", **head, **derive_step(s)} for s in r.steps[1:]]
    return out + [{"kind": "statement", **head, **accounts.statement(r.statement)}]


def derive_summary_line(report) -> dict:
    """``derive --jsonl``'s last line: the run's status, counts and replay line."""
    return {
        "kind": "summary",
        "status": report.status,
        "seed": report.seed,
        "replay": report.replay,
        "counts": report.counts(),
    }


def _cell(chain):
    """The notebook cell a chain is in (its path ``nb.ipynb:cell 3``), else None."""
    head, sep, n = chain.path.rpartition(":cell ")
    return int(n) if sep and n.isdigit() else None


# --- mathcheck conform and mathcheck model ---------------------------------------------------------


def _finite(x):
    return None if x is None or x != x or x in (float("inf"), -float("inf")) else x


def conform_result(r) -> dict:
    """One property's :class:`~mathcheck.conform.run.Result`."""
    return {
        "name": r.name,
        "claim": r.claim,
        "expected": r.expected,
        "status": r.status,
        "max_abs_err": _finite(r.max_abs_err),
        "tolerance": _finite(r.tolerance),
        "counterexample": r.counterexample,
        "note": r.note or None,
    }


def conform_report(report) -> dict:
    return {
        "target": report.target,
        "kind": report.kind,
        "variant": report.variant.flags(),
        "seed": report.seed,
        "precision": report.precision,
        "setting": report.setting,
        "nondeterministic": report.nondeterministic or None,
        "properties": [conform_result(r) for r in report.results],
        "status": report.status,
    }


def model_report(report) -> dict:
    """A :class:`~mathcheck.model.report.ModelReport`: per module path and kind, then the model's own."""
    modules = [
        {
            "path": m.path,
            "kind": m.kind,
            "setting": m.setting,
            "properties": [conform_result(r) for r in m.properties],
            "status": m.status,
        }
        for m in report.modules
    ]
    props = [
        {
            "name": r.name,
            "claim": r.claim,
            "status": r.status,
            "expected": r.expected,
            "max_abs_err": _finite(r.max_abs_err),
            "tolerance": _finite(r.tolerance),
            "note": r.note or None,
            "counterexample": r.counterexample,
        }
        for r in report.properties
    ]
    return {
        "model": report.model,
        "config": report.config,
        "seed": report.seed,
        "notes": report.notes,
        "modules": modules,
        "properties": props,
        "status": report.status,
    }
