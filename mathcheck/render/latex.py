r"""Claims and verdicts as a standalone LaTeX document for pdflatex.

Renderers compute nothing. Expressions and prose are escaped by :mod:`mathcheck.render.tex`
(SymPy's printer; :func:`~mathcheck.render.tex.text` for prose). Chinese runs are set with
CJKutf8 (``\begin{CJK}{UTF8}{gbsn}``).

A step chain is a displayed ``aligned`` (scaled down by adjustbox when wider than the line): the
relation of each link, the expression, and the reason beside it::

    &\mathrel{\phantom{=}} e_0 && \parbox[t]{0.36\linewidth}{what is derived}\\
    &= e_1 && \parbox[t]{0.36\linewidth}{why e_0 = e_1}
"""

from __future__ import annotations

import re

from mathcheck.lazy import sympy as sp
from mathcheck.render.tex import REL, mark, math, sci, statement, text


# --- pieces -------------------------------------------------------------------------------------


def _label(claim_id: str) -> str:
    return f"claim:{claim_id}"


def _width(e) -> float:
    """A rough printed width of a SymPy expression, in characters (scripts count 0.6, a fraction
    its wider line, a matrix its widest row): enough to tell whether a reason fits beside it."""
    if isinstance(e, sp.MatrixBase):
        return sum(max((_width(e[r, c]) for r in range(e.rows)), default=0) + 2 for c in range(e.cols)) + 2
    if isinstance(e, (sp.Symbol, sp.Number, sp.Indexed, sp.NumberSymbol)):
        return max(1.0, 0.8 * len(re.sub(r"[{}_^ ]", "", re.sub(r"\\[a-zA-Z]+", "x", math(e)))))
    if isinstance(e, sp.Add):
        return sum(_width(a) + 2 for a in e.args)
    if isinstance(e, sp.Mul):
        num, den = e.as_numer_denom()
        if den != 1:
            return max(_width(num), _width(den)) + 1
        return sum(_width(a) for a in e.args) + 0.5 * len(e.args)
    if isinstance(e, sp.Pow):
        return _width(e.base) + 0.6 * _width(e.exp) + 1
    if isinstance(e, (sp.Sum, sp.Product)):
        return 3 + _width(e.function)
    if isinstance(e, sp.Derivative):
        return 4 + _width(e.expr)
    if isinstance(e, sp.KroneckerDelta):
        return 2.0
    if isinstance(e, sp.Basic) and e.args:
        return min(len(type(e).__name__), 4) * 0.8 + 2 + sum(_width(a) + 1 for a in e.args)
    return len(str(e))


WIDE = 60  # math wider than this (see _width) leaves no room for the reason beside it


def _reason(s) -> str:
    reason = text(s.reason)
    rule = getattr(s, "rule", None)
    rule_name = rule if isinstance(rule, str) else getattr(rule, "name", "")
    if rule_name:
        reason += r" \textsf{[" + text(rule_name) + "]}"
    status = getattr(s, "status", "given")
    if status not in ("given", "proved"):
        reason += rf" \textbf{{({text(status)})}}"
    return reason


def chain(steps) -> str:
    r"""Steps (claim.Step or checker.StepResult values) as a displayed ``aligned`` chain, scaled
    down when wider than the line: the relation, the expression, and the reason beside it (or
    above it, in small italics, when the expressions are too wide to leave room)."""
    exprs = [math(s.expr) for s in steps]
    wide = max(_width(s.expr) for s in steps) > WIDE
    rows = []
    for n, (s, e) in enumerate(zip(steps, exprs)):
        rel = r"\mathrel{\phantom{=}}" if n == 0 else REL[s.relation]
        if wide:
            rows.append(rf"  &\parbox[t]{{0.8\linewidth}}{{\raggedright\small\itshape {_reason(s)}}}")
            rows.append(rf"  &{rel} {e}")
        else:
            rows.append(rf"  &{rel} {e} && \parbox[t]{{0.36\linewidth}}{{\raggedright\small {_reason(s)}}}")
    body = "\\\\\n".join(rows)
    return (
        r"\[\adjustbox{max width=\linewidth}{$\displaystyle\begin{aligned}" + "\n" + body + "\n" + r"\end{aligned}$}\]"
    )


def displayed(tex: str) -> str:
    """Display math, scaled down when wider than the line."""
    return rf"\[\adjustbox{{max width=\linewidth}}{{$\displaystyle {tex}$}}\]"


def _itemize(items) -> str:
    if not items:
        return ""
    return "\\begin{itemize}\n" + "\n".join(rf"  \item {x}" for x in items) + "\n\\end{itemize}\n"


def claim_body(claim) -> str:
    r"""The seed sentence, the assumptions and the derivation of every part, from the Claim alone."""
    src = claim.source
    seed = (
        rf"\paragraph{{Beyond the article, {text(src.section)}.}} {text(src.paper)}. The seed's pointer: "
        if src.paper
        else rf"\paragraph{{The seed, {text(src.section)}.}} "
    )
    out = [
        seed + text(src.zh),
        "",
        rf"\emph{{In English:}} {text(src.en)}",
        "",
        r"\paragraph{Assumptions.}",
        _itemize([text(a) for a in claim.assumptions]) or "None stated.\n",
    ]
    from mathcheck.symbolic.hypotheses import claim_generality, generality

    out.append(
        r"\paragraph{Derivation.}"
        + (
            " For a general dimension (symbolic sizes)."
            if claim_generality(claim.parts, claim.context)
            else " For a concrete size (not a general dimension)."
        )
    )

    for p in claim.parts:
        out.append(rf"\subsubsection*{{Part \texttt{{{text(p.name)}}}}}")
        if given(p):
            out.append(rf"\noindent Given {given(p)}:")
        out.append(chain(p.steps))
        notes = []
        if generality(p, claim.context)[0] is False:  # computed, not declared
            notes.append("concrete size: not claimed for a general dimension")
        for sym in p.free_of:
            notes.append(rf"the result does not depend on ${math(sym)}$ (checked on the last step)")
        if notes:
            out.append("\\noindent " + "; ".join(n[0].upper() + n[1:] for n in notes) + ".\n")
    return "\n".join(out) + "\n"


def mutants(claim, refuted=None) -> str:
    """The mutants: the mistake, its statement, and (given the RefuteVerdict) how each was refuted."""
    results = {m.name: m for m in refuted.mutants} if refuted is not None and not refuted.error else {}
    items = []
    for m in claim.mutants:
        eqs = "".join(
            rf"part \texttt{{{text(name)}}}: {_given_of(claim, name)}{displayed(statement(eq))}"
            for name, eq in m.replace
        )
        item = rf"\textbf{{{text(m.name)}}}: {text(m.mistake)}. \newline {eqs}"
        if m.name in results:
            item += _mutant_result(results[m.name])
        items.append(item)
    out = r"\paragraph{Mutants (mistakes people make).}" + "\n" + _itemize(items)
    if refuted is not None and refuted.error:
        out += rf"\paragraph{{Refuting the mutants failed.}} {text(refuted.error)}" + "\n"
    return out


def _given_of(claim, part_name: str) -> str:
    """``given …: `` for the part a mutant replaces (its hypotheses still hold)."""
    part = next((p for p in claim.parts if p.name == part_name), None)
    return f"given {given(part)}: " if part is not None and given(part) else ""


def seed_wording(claim) -> str:
    kind, note = claim.seed_verdict
    return rf"\paragraph{{The seed's wording: {text(kind)}.}} {text(note)}" + "\n"


def claim_latex(claim) -> str:
    """Everything the Claim itself says, in LaTeX (what the snapshot tests keep stable)."""
    return claim_body(claim) + mutants(claim) + seed_wording(claim)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _pairs(pairs) -> str:
    return ", ".join(rf"{text(str(k))}\,=\,{text(str(v))}" for k, v in pairs)


def _err(x) -> str:
    return "n/a" if x is None else rf"${sci(f'{x:.3g}')}$"


def given(part) -> str:
    """A part's hypotheses as math, ``Σ_i p_i = 1, z_i > z_j`` (empty when it has none)."""
    return ", ".join(f"${math(h)}$" for h in getattr(part, "given", ()))


def numeric_evidence(n, versions: dict | None = None) -> str:
    rows = [
        rf"\item[Status] {text(n.status)}",
        rf"\item[Reference] {text(n.reference)}",
        rf"\item[Trials] {n.trials}, {text(n.dtype)} on {text(n.device)}, seed {n.seed}",
        rf"\item[Largest error] {_err(n.max_abs_err)}"
        + (rf" (tolerances: atol $= {sci(n.atol)}$, rtol $= {sci(n.rtol)}$)" if n.atol is not None else ""),
    ]
    if n.test:
        rows.append(rf"\item[Test] {text(n.test)}")
    if n.counterexample:
        rows.append(rf"\item[Counterexample] {_pairs(n.counterexample)}")
    if n.status == "error":
        rows.append(rf"\item[Error] {text('; '.join(n.details))}")
    if versions:
        rows.append(r"\item[Versions] " + ", ".join(f"{text(k)} {text(v)}" for k, v in versions.items()))
    return "\\begin{description}\n" + "\n".join("  " + r for r in rows) + "\n\\end{description}\n"


def symbolic_summary(s) -> str:
    steps = sum(max(len(p.steps) - 1, 0) for p in s.parts)
    out = rf"{_n(steps, 'link')} in {_n(len(s.parts), 'part')}, {text(s.status)}"
    failing = s.failing
    if failing is not None:
        d = failing.decision
        out += rf"; part \texttt{{{text(failing.part)}}}, step {failing.index} is {text(failing.status)}"
        if d is not None:
            out += f" ({text(d.how)})"
            if d.counterexample:
                out += rf", counterexample {_pairs(d.counterexample)}"
    return out


def _mutant_result(m) -> str:
    line = rf"${mark(m.status)}$ \textbf{{{text(m.status)}}}"
    if m.counterexample:
        line += rf"; counterexample: {_pairs(m.counterexample)}"
    if m.symbolic is not None:
        line += rf". Symbolically: {text(m.symbolic.status)}"
        if m.symbolic.value is False and m.symbolic.counterexample and m.numeric.counterexample:
            line += rf" at {_pairs(m.symbolic.counterexample)}"
    return line + "."


def figure(path: str, caption: str) -> str:
    return (
        "\\begin{figure}[!htbp]\n  \\centering\n"
        f"  \\includegraphics[width=0.75\\linewidth]{{{path}}}\n"
        f"  \\caption{{{text(caption)}}}\n\\end{{figure}}\n"
    )


def claim_section(item, versions: dict | None = None, figures=()) -> str:
    """One claim of the catalog: title, verdict, what it says, the evidence, the mutants, the plots.

    ``item`` has ``claim``, ``proved`` (ClaimVerdict) and ``refuted`` (RefuteVerdict);
    ``figures`` are (path, caption) pairs of plot files already written."""
    c, v, r = item.claim, item.proved, item.refuted
    title = rf"\texorpdfstring{{{text(c.title)}}}{{{c.id}}}"
    out = [
        rf"\section{{{title}}}\label{{{_label(c.id)}}}",
        rf"\noindent\texttt{{{text(c.id)}}} \hfill {text(c.source.section)} \hfill "
        rf"verdict: \textbf{{{text(v.status)}}} ${mark(v.status)}$",
        "",
    ]
    if v.error:
        out.append(rf"\paragraph{{Building the claim failed.}} {text(v.error)}")
        return "\n".join(out) + "\n"
    out.append(
        rf"\noindent Symbolic: {symbolic_summary(v.symbolic)}. "
        rf"Numeric: {text(v.numeric.status)} against {text(v.numeric.reference)}. "
        rf"Replay: \texttt{{{text(v.replay)}}}."
    )
    out.append(claim_body(c))
    out.append(r"\paragraph{Numeric evidence.}")
    out.append(numeric_evidence(v.numeric, versions))
    out.extend(figure(path, caption) for path, caption in figures)
    out.append(mutants(c, r))
    out.append(seed_wording(c))
    return "\n".join(out) + "\n"


PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage{CJKutf8}
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\usepackage{adjustbox}
\usepackage[margin=2.2cm]{geometry}
\usepackage[hidelinks]{hyperref}
\allowdisplaybreaks
\sloppy
\setcounter{secnumdepth}{1}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.4em}
"""


def document(
    items,
    versions: dict | None = None,
    figures: dict | None = None,
    seed: int = 0,
    title: str = "mathcheck: the claims",
) -> str:
    """A standalone document: every item's section, a table of contents when there are several."""
    figures = figures or {}
    out = [PREAMBLE, rf"\title{{{text(title)}}}", r"\author{}", r"\date{}", r"\begin{document}", r"\maketitle"]
    out.append(
        "Each claim below was derived step by step by SymPy for a general dimension (unless stated), "
        "checked numerically against PyTorch's own functions in float64, and ships mutants "
        rf"(mistakes people make) that the same machinery refutes. Seed {seed}; replay any claim with "
        r"\texttt{mathcheck prove ID --seed " + str(seed) + "}."
    )
    if versions:
        out.append(r"\par Versions: " + ", ".join(f"{text(k)} {text(v)}" for k, v in versions.items()) + ".")
    if len(items) > 1:
        out += [r"\par", _summary_table(items), r"\tableofcontents", r"\clearpage"]
    for n, item in enumerate(items):
        if n:
            out.append(r"\clearpage")
        out.append(claim_section(item, versions, figures.get(item.claim.id, ())))
    if covers_the_article(items):
        out += [r"\clearpage", audit_section()]
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"


def _summary_table(items) -> str:
    rows = []
    for it in items:
        r = it.refuted
        refuted = sum(m.status == "refuted" for m in r.mutants)
        rows.append(
            rf"\hyperref[{_label(it.claim.id)}]{{\texttt{{{text(it.claim.id)}}}}} & "
            rf"{text(it.claim.source.section)} & {text(it.proved.status)} & "
            rf"{refuted}/{len(r.mutants)} & {text(it.claim.seed_verdict[0])} \\"
        )
    return (
        "\\begin{center}\\small\n\\begin{tabular}{llllp{0.22\\linewidth}}\n"
        "claim & \\S & verdict & mutants refuted & the seed's wording \\\\ \\hline\n"
        + "\n".join(rows)
        + "\n\\end{tabular}\n\\end{center}\n"
    )


# --- the sentence audit (mathcheck.audit) ----------------------------------------------------------


def covers_the_article(items) -> bool:
    """Whether ``items`` hold every claim the sentence audit cites: a catalog of the whole article,
    which then ends with the audit (a writeup of a few claims does not)."""
    from mathcheck import audit

    ids = {it.claim.id for it in items}
    return len(items) > 1 and all(c in ids for e in audit.ENTRIES for c in e.claims)


def _support(entry) -> str:
    shown = [rf"\hyperref[{_label(c)}]{{\texttt{{{text(c)}}}}}" for c in entry.claims]
    if entry.check:
        shown.append(rf"\texttt{{{text(entry.check_command)}}} gives {text(entry.check[2])}")
    return (" Shown by: " + ", ".join(shown) + ".") if shown else ""


def _audit_item(entry, head: str) -> str:
    return (
        rf"\item[{head}] {text(entry.zh)}\newline \emph{{{text(entry.en)}}}\newline "
        rf"{text(entry.reason)}.{_support(entry)}"
    )


def audit_section() -> str:
    """The audit of the article's sentences: the counts per section and verdict, each imprecise or
    wrong sentence with its reason and refuting claim, then every sentence by section."""
    from mathcheck import audit

    counts = audit.counts()
    rows = [
        (r"\textbf{all}" if key == "all" else text(key))
        + " & "
        + " & ".join(str(row[v]) for v in audit.VERDICTS)
        + rf" & {sum(row.values())} \\"
        for key, row in counts.items()
    ]
    out = [
        r"\section{The article, sentence by sentence}\label{audit}",
        "Every sentence of sections 1--8 of the article that states mathematics (an equation, a shape, a count, "
        "a growth rate, a `means' or `is equivalent to') with its verdict: exact, holds-with-conditions, "
        "imprecise, wrong, or not-mathematics (it mentions mathematics but states none); the reason; and the "
        r"claim or check that shows it. The table is \texttt{mathcheck/audit.py}; \texttt{mathcheck audit --all} "
        "prints it.",
        r"\begin{center}\small",
        r"\begin{tabular}{l" + "r" * (len(audit.VERDICTS) + 1) + "}",
        r"\S & " + " & ".join(text(v) for v in audit.VERDICTS) + r" & sentences \\ \hline",
        *rows,
        r"\end{tabular}",
        r"\end{center}",
        r"\subsection*{Imprecise and wrong}",
        r"\begin{description}",
    ]
    out += [
        _audit_item(e, rf"{text(e.section)}, {text(e.verdict)}")
        for e in audit.ENTRIES
        if e.verdict in ("imprecise", "wrong")
    ]
    out.append(r"\end{description}")
    for section, entries in audit.by_section().items():
        out += [rf"\subsection*{{{text(section)}}}", text(audit.SECTIONS[section]), r"\begin{description}"]
        out += [_audit_item(e, text(e.verdict)) for e in entries]
        out.append(r"\end{description}")
    return "\n".join(out) + "\n"
