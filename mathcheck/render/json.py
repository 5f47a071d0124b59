"""Verdicts as JSON-ready dicts. The documented fields are a contract (see docs/json.md).

Every timing is under a key named ``seconds``; :func:`without_timings` drops them, which is what
"same seed, same report" compares.
"""

from __future__ import annotations

import math

from mathcheck import __version__


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
    return {"status": d.status, "how": d.how, "counterexample": _pairs(d.counterexample),
            "timed_out": d.timed_out, "seconds": round(d.seconds, 4)}


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
        parts.append({"name": p.name, "status": p.status, "general": p.general,
                      "relation": p.relation,
                      "given": [_expr(h) for h in getattr(p, "given", ())],
                      "statement": _expr(p.statement), "notes": list(p.notes)})
        for r in p.steps:
            d = decision(r.decision)
            steps.append({
                "part": r.part, "index": r.index, "relation": r.relation, "expr": _expr(r.expr)["text"],
                "latex": _expr(r.expr)["latex"], "reason": r.reason, "rule": r.rule or None,
                "status": r.status, "how": d["how"] if d else None,
                "counterexample": d["counterexample"] if d else None,
                "seconds": d["seconds"] if d else 0.0,
            })
    return {"status": s.status, "general": s.general, "parts": parts, "steps": steps,
            "seconds": round(s.seconds, 4)}


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
    out = {"id": r.claim.id, "title": r.claim.title, "section": r.claim.source.section,
           "mutants": [mutant_verdict(m) for m in r.mutants], "replay": r.replay}
    if r.error:
        out["error"] = r.error
    return out


def report(verdicts, kind: str, seed: int) -> dict:
    render = claim_verdict if kind == "prove" else refute_verdict
    return {"mathcheck": __version__, "command": kind, "seed": seed,
            "claims": [render(v) for v in verdicts]}


def without_timings(obj):
    """The report with every ``seconds`` key removed (for "same seed, same report")."""
    if isinstance(obj, dict):
        return {k: without_timings(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [without_timings(v) for v in obj]
    return obj
