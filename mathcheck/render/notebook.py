"""Jupyter display: claims and verdicts as Markdown and MathJax, registered with IPython's
display formatters (the values themselves know nothing of rendering).

:func:`register` (called by ``import mathcheck`` when IPython is loaded) registers
:func:`markdown` for ``text/markdown`` and :func:`latex` for ``text/latex`` on :class:`~mathcheck.claim.Claim`,
:class:`~mathcheck.verdict.ClaimVerdict` and :class:`~mathcheck.verdict.RefuteVerdict` (by name:
nothing is imported until an object is shown), so in a notebook::

    from mathcheck.registry import get
    get("softmax-jacobian")            # shows source, assumptions, derivation and mutants

Outside IPython, :func:`markdown` and :func:`latex` are plain functions (``None`` for an object
they do not render, as IPython expects).
"""

from __future__ import annotations

import re

from mathcheck.outcome import status
from mathcheck.render.markdown import (
    chain,
    claim_body,
    given,
    mutants,
    numeric_evidence,
    prose,
    seed_wording,
    symbolic_summary,
)
from mathcheck.render.tex import REL, mark, math

TYPES = (("mathcheck.claim", "Claim"), ("mathcheck.verdict", "ClaimVerdict"), ("mathcheck.verdict", "RefuteVerdict"))


def markdown(obj) -> str | None:
    """``text/markdown`` of a claim, a claim's verdict or a refute verdict."""
    kind = type(obj).__name__
    if kind == "Claim":
        return notebook_claim(obj)
    if kind == "ClaimVerdict":
        return notebook_verdict(obj)
    if kind == "RefuteVerdict":
        return notebook_refute(obj)
    return None


def latex(obj) -> str | None:
    """``text/latex`` (MathJax) of a claim or a claim's verdict; None for a refute verdict (its
    Markdown shows it)."""
    kind = type(obj).__name__
    if kind == "Claim":
        return mathjax_claim(obj)
    if kind == "ClaimVerdict":
        return mathjax_verdict(obj)
    return None


def register(shell=None) -> bool:
    """Register the formatters with ``shell`` (default: the running IPython); False without one."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None:
        return False
    formatters = shell.display_formatter.formatters
    for module, name in TYPES:
        formatters["text/markdown"].for_type_by_name(module, name, markdown)
        if name != "RefuteVerdict":
            formatters["text/latex"].for_type_by_name(module, name, latex)
    return True


def notebook_claim(claim) -> str:
    return "\n".join(
        [f"### {claim.source.section} · {prose(claim.title, 'jupyter')}", "", f"`{claim.id}`", ""]
        + claim_body(claim, "jupyter")
        + mutants(claim, None, "jupyter")
        + seed_wording(claim, "jupyter")
    )


def notebook_verdict(v) -> str:
    c = v.claim
    out = [
        f"### {c.source.section} · {prose(c.title, 'jupyter')}",
        "",
        f"`{c.id}` — **{status(v.status).mark} {v.status}**",
        "",
    ]
    if v.error:
        return "\n".join(out + [f"**Building the claim failed:** {v.error}"])
    out += [f"Symbolic: {symbolic_summary(v.symbolic)}.", ""]
    out += ["Numeric evidence:", ""] + numeric_evidence(v.numeric, None, "jupyter") + [""]
    for p in c.parts:
        out += [f"*Part `{p.name}`*", ""] + ([f"Given {given(p, 'jupyter')}:", ""] if given(p) else [])
        out += [chain(p.steps, "jupyter"), ""]
    return "\n".join(out)


def notebook_refute(r) -> str:
    if r.error:
        return f"### {r.claim.id}: mutants\n\n**Refuting the mutants failed:** {r.error}"
    return "\n".join([f"### {r.claim.id}: mutants", ""] + mutants(r.claim, r, "jupyter"))


def mathjax_claim(claim) -> str:
    r"""The claim's parts as one MathJax display (``text/latex``): ``aligned`` chains, reasons as ``\text``."""
    blocks = []
    for p in claim.parts:
        rows = []
        for n, s in enumerate(p.steps):
            rel = "" if n == 0 else REL[s.relation]
            rows.append(rf"&{rel} {math(s.expr)} && \text{{{_mathjax_text(s.reason)}}}")
        blocks.append(rf"\text{{{_mathjax_text(p.name)}:}} && \\" + "\n" + " \\\\\n".join(rows))
    return "$$\\begin{aligned}\n" + " \\\\[1ex]\n".join(blocks) + "\n\\end{aligned}$$"


def _mathjax_text(s: str) -> str:
    """Prose inside MathJax's ``\\text{}``: Unicode is fine, only the specials are escaped."""
    return re.sub(r"([\\{}$&#%_^])", lambda m: r"\backslash " if m.group(1) == "\\" else "\\" + m.group(1), s)


def mathjax_verdict(v) -> str:
    symbol = mark(v.status)
    head = rf"\text{{{_mathjax_text(v.claim.id)}: {v.status}}}\ {symbol}"
    if v.error or not getattr(v.claim, "parts", ()):
        return f"$${head}$$"
    body = mathjax_claim(v.claim)
    return f"$${head}$$\n" + body
