"""Verdicts as terminal text. Colour only through click.style, so tests can read plain text."""

from __future__ import annotations

import click

MARK = {"proved": ("✔", "green"), "refuted": ("✘", "red"), "inconclusive": ("?", "yellow"),
        "error": ("!", "magenta"), "passed": ("✔", "green")}


def _status(s: str, width: int = 12) -> str:
    mark, colour = MARK.get(s, ("·", None))
    return click.style(f"{mark} {s:<{width}}", fg=colour, bold=True)


def _pairs(pairs) -> str:
    return ", ".join(f"{k}={v}" for k, v in pairs)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _err(x) -> str:
    return "n/a" if x is None else f"{x:.3g}"


def _tolerance(n) -> str:
    """The tolerance as the summary states it: derived (the largest per-comparison tolerance, and
    the worst error as a fraction of its own), fixed, or statistical (the test line says it)."""
    if n.comparisons and n.tolerance.startswith("per entry"):
        worst = max((e / t if t > 0 else (0.0 if e == 0 else float("inf"))) for _, e, t in n.comparisons)
        return (f", tolerance derived per comparison from {n.dtype} ε (largest {n.atol:.3g}); "
                f"worst |err|/tol {worst:.2g}")
    if n.atol is not None:
        return f", atol={n.atol:g}, rtol={n.rtol:g}"
    return f"; {n.tolerance}" if n.tolerance else ""


def claim_verdict(v) -> list[str]:
    import sympy as sp

    c = v.claim
    s, n = v.symbolic, v.numeric
    steps = sum(len(p.steps) - 1 for p in s.parts)
    dim = "general dimension" if s.general else "concrete size (general: false)"
    lines = [f"{_status(v.status)} {c.id}  {c.source.section}  {c.title}",
             f"    symbolic: {s.status}, {_n(steps, 'step')} in {_n(len(s.parts), 'part')}, {dim}",
             f"    numeric:  {n.status} against {n.reference}; {n.trials} trials, "
             f"max |err| {_err(n.max_abs_err)}" + _tolerance(n)]
    if n.test:
        lines.append(f"    test:     {n.test}")
    for part, why in n.unevaluated:
        lines.append(f"    left side of {part} not evaluated: {why}")
    failing = s.failing
    if failing is not None:
        d = failing.decision
        lines.append(f"    step {failing.part}[{failing.index}] {failing.status}: {sp.sstr(failing.expr)}")
        lines.append(f"      reason: {failing.reason}; checker: {d.how}")
        if d.counterexample:
            lines.append(f"      counterexample: {_pairs(d.counterexample)}")
    for p in s.parts:
        for note in p.notes:
            if "but" in note:
                lines.append(f"    {p.name}: {note}")
    if n.counterexample:
        lines.append(f"    numeric counterexample: {_pairs(n.counterexample)}")
    if n.status == "error":
        lines.append(f"    numeric error: {'; '.join(n.details)}")
    if v.status != "proved":
        lines.append(f"    replay: {v.replay}")
    return lines


def refute_verdict(r) -> list[str]:
    lines = [f"{r.claim.id}  {r.claim.source.section}  ({len(r.mutants)} mutants)"]
    for m in r.mutants:
        lines.append(f"  {_status(m.status)} {m.name}: {m.mutant.mistake}")
        if m.counterexample:
            lines.append(f"      counterexample: {_pairs(m.counterexample)}")
        if m.symbolic is not None and m.symbolic.value is False and m.numeric.counterexample:
            lines.append(f"      symbolic counterexample: {_pairs(m.symbolic.counterexample)}")
    if not r.all_refuted:
        lines.append(f"    replay: {r.replay}")
    return lines


def summary(verdicts, kind: str) -> str:
    if kind == "prove":
        counts: dict[str, int] = {}
        for v in verdicts:
            counts[v.status] = counts.get(v.status, 0) + 1
        return "claims: " + ", ".join(f"{counts[k]} {k}" for k in ("proved", "refuted", "inconclusive", "error")
                                      if k in counts)
    mutants = [m for r in verdicts for m in r.mutants]
    refuted = sum(m.status == "refuted" for m in mutants)
    return f"mutants: {refuted} of {len(mutants)} refuted"


def claim_description(c) -> list[str]:
    """A claim as text: where it comes from, what it assumes, its steps and its mutants."""
    import sympy as sp

    lines = [f"{c.id}  {c.source.section}  {c.title}",
             f"  seed ({c.source.section}): {c.source.zh}",
             f"  gloss: {c.source.en}",
             f"  verdict on the seed's wording: {c.seed_verdict[0]}" + (f" — {c.seed_verdict[1]}" if c.seed_verdict[1] else ""),
             "  assumptions:"]
    lines += [f"    - {a}" for a in c.assumptions]
    for p in c.parts:
        lines.append(f"  part {p.name}{'' if p.general else ' (general: false)'}:")
        for n, step in enumerate(p.steps):
            rel = "   " if n == 0 else f" {step.relation.replace('>=', '≥').replace('<=', '≤'):<2}"
            rule = f" [{step.rule.name}]" if step.rule is not None else ""
            lines.append(f"   {rel}{sp.sstr(step.expr)}")
            lines.append(f"        ({step.reason}{rule})")
        for sym in p.free_of:
            lines.append(f"    and the result does not depend on {sym}")
    lines.append("  mutants:")
    for m in c.mutants:
        lines.append(f"    - {m.name}: {m.mistake}")
        for name, eq in m.replace:
            lines.append(f"        {name}: {sp.sstr(eq)}")
    lines.append(f"  numeric check: {c.check}")
    return lines
