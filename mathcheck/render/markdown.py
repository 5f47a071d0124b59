r"""Claims and verdicts as Markdown with math that GitHub (and Jupyter) render.

Math is inline: ``$`…`$`` on GitHub, ``$…$`` in Jupyter (``style="jupyter"``), always printed by
:func:`mathcheck.render.latex.math` (SymPy's printer). A derivation is a table (relation,
expression, reason), so prose never sits inside math, where renderers disagree on escaping.

The catalog is deterministic: no timings, no dates, no full versions, and a passed comparison's
error as "within tolerance" (the exact figure moves with the order of a CPU's reductions); the PDF
carries the exact figures.
"""

from __future__ import annotations

import re

from mathcheck.outcome import status
from mathcheck.render import accounts
from mathcheck.render.latex import _n, covers_the_article
from mathcheck.render.tex import _EMPH, REL, math, sci, segments, statement


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>$|~])")


def prose(s: str, style: str = "github") -> str:
    """Text as Markdown that shows what it says: ``*emphasis*`` kept, math written in it (``d_k``,
    ``R^{d_k}``, ``1e-12``: :func:`mathcheck.render.latex.segments`) as inline math, every other
    special escaped (``__matmul__`` must not turn bold, nor ``$`` start math)."""
    pieces = [_prose(p, style) for p in _EMPH.split(s)]  # odd pieces were between asterisks
    return "".join(f"*{p}*" if n % 2 else p for n, p in enumerate(pieces))


def _prose(s: str, style: str) -> str:
    return "".join(
        inline(piece, style) if kind == "math" else _MD_SPECIAL.sub(r"\\\1", piece) for kind, piece in segments(s)
    )


def inline(tex: str, style: str = "github") -> str:
    return f"$`{tex}`$" if style == "github" else f"${tex}$"


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def anchor(claim) -> str:
    return f"claim-{claim.id}"


def chain(steps, style: str = "github") -> str:
    """Steps as a table: the relation, the expression (inline math), and the reason as prose, so
    no renderer has to set text inside math. A ``|`` in math is escaped for the table."""
    rows = ["| | step | why |", "|---|---|---|"]
    for n, s in enumerate(steps):
        rel = "" if n == 0 else inline(REL[s.relation], style)
        reason = prose(s.reason, style)
        rule = getattr(s, "rule", None)
        rule_name = rule if isinstance(rule, str) else getattr(rule, "name", "")
        if rule_name:
            reason += f" [{prose(rule_name, style)}]"
        status = getattr(s, "status", "given")
        if status not in ("given", "proved"):
            reason += f" (**{status}**)"
        rows.append(f"| {rel} | {_cell(inline(math(s.expr), style))} | {_cell(reason)} |")
    return "\n".join(rows)


def claim_body(claim, style: str = "github") -> list[str]:
    """What the claim says (from the Claim alone): seed, assumptions, derivation, mutants."""
    src = claim.source
    seed = (
        f"**Beyond the article, {src.section}** — {prose(src.paper, style)}. The seed's pointer:"
        if getattr(src, "paper", "")
        else f"**Seed, {src.section}:**"
    )
    out = [
        f"> {seed} {prose(src.zh, style)}",
        ">",
        f"> *In English:* {prose(src.en, style)}",
        "",
        "**Assumptions**",
        "",
    ]
    out += [f"- {prose(a, style)}" for a in claim.assumptions] or ["- none stated"]
    from mathcheck.symbolic.hypotheses import claim_generality

    out += [
        "",
        "**Derivation** — "
        + (
            "for a general dimension (symbolic sizes)."
            if claim_generality(claim.parts, claim.context)
            else "for a concrete size (not a general dimension)."
        ),
        "",
    ]
    for p in claim.parts:
        out += [f"*Part `{p.name}`*", ""]
        if given(p, style):
            out += [f"Given {given(p, style)}:", ""]
        out += [chain(p.steps, style), ""]
        for sym in p.free_of:
            out += [f"and the result does not depend on {inline(math(sym), style)} (checked on the last step).", ""]
    return out


def mutants(claim, refuted=None, style: str = "github") -> list[str]:
    """The mutants: the mistake, its statement, and (given the RefuteVerdict) how each was refuted."""
    results = {m.name: m for m in refuted.mutants} if refuted is not None and not refuted.error else {}
    out = ["**Mutants** (mistakes people make)", ""]
    for m in claim.mutants:
        eqs = "; ".join(
            f"part `{name}`: {_given_of(claim, name, style)}{inline(statement(eq), style)}" for name, eq in m.replace
        )
        out.append(f"- **{m.name}**: {prose(m.mistake, style)}. {eqs}")
        if m.name in results:
            out.append(f"  <br>{_mutant_result(results[m.name])}")
    if refuted is not None and refuted.error:
        out += ["", f"**Refuting the mutants failed:** {refuted.error}"]
    return out + [""]


def given(part, style: str = "github") -> str:
    """A part's hypotheses as inline math, comma-separated (empty when it has none)."""
    return ", ".join(inline(math(h), style) for h in getattr(part, "given", ()))


def _given_of(claim, part_name: str, style: str) -> str:
    part = next((p for p in claim.parts if p.name == part_name), None)
    return f"given {given(part, style)}: " if part is not None and given(part, style) else ""


def seed_wording(claim, style: str = "github") -> list[str]:
    kind, note = claim.seed_verdict
    return [f"**The seed's wording: {kind}.** {prose(note, style)}".rstrip(), ""]


def largest_error(n, style: str = "github") -> str:
    """What the catalog says about the numeric error, deterministically: a passed comparison is
    "within tolerance" (its exact figure moves with the order of a CPU's reductions; the PDF has
    it); a statistic (no tolerance) or a failed check gives 3 significant digits."""
    if n.max_abs_err is None:
        return "n/a"
    tol = f"atol {inline(sci(n.atol), style)}, rtol {inline(sci(n.rtol), style)}" if n.atol is not None else ""
    if n.atol is not None and n.status == "passed":
        return f"within tolerance ({tol})"
    err = sci(f"{n.max_abs_err:.3g}")
    return (inline(err, style) if "10^" in err else err) + (f" ({tol})" if tol else "")


def _pairs(pairs) -> str:
    return ", ".join(f"`{k}` = `{v}`" for k, v in pairs)


def numeric_evidence(n, versions: dict | None = None, style: str = "github") -> list[str]:
    out = [
        f"- status: **{n.status}** against {prose(n.reference, style)}",
        f"- trials: {n.trials}, {n.dtype} on {n.device}, seed {n.seed}",
        f"- largest error: {largest_error(n, style)}",
    ]
    if n.test:
        out.append(f"- test: {prose(n.test, style)}")
    if n.counterexample:
        out.append(f"- counterexample: {_pairs(n.counterexample)}")
    if n.status == "error":
        out.append(f"- error: {prose('; '.join(n.details), style)}")
    if versions:
        out.append("- versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    return out


def symbolic_summary(s) -> str:
    links = sum(max(len(p.steps) - 1, 0) for p in s.parts)
    out = f"{_n(links, 'link')} in {_n(len(s.parts), 'part')}, {s.status}"
    f = s.failing
    if f is not None:
        out += f"; part `{f.part}`, step {f.index} is {f.status}"
        if f.decision is not None and f.decision.counterexample:
            out += f" (counterexample {_pairs(f.decision.counterexample)})"
    return out


def _mutant_result(m) -> str:
    line = f"{status(m.status).mark} **{m.status}**"
    if m.counterexample:
        line += f"; counterexample: {_pairs(m.counterexample)}"
    if m.symbolic is not None:
        line += f"; symbolically {m.symbolic.status}"
    return line


def claim_section(item, versions: dict | None = None, images=(), style: str = "github") -> list[str]:
    """One claim with its verdict; ``images`` are (relative path, caption) pairs."""
    c, v, r = item.claim, item.proved, item.refuted
    out = [
        f'<a id="{anchor(c)}"></a>',
        "",
        f"## {c.source.section} · {prose(c.title)}",
        "",
        f"`{c.id}` — verdict: **{status(v.status).mark} {v.status}**",
        "",
    ]
    if v.error:
        return out + [f"**Building the claim failed:** {v.error}", ""]
    out += [
        f"Symbolic: {symbolic_summary(v.symbolic)}. Numeric: {v.numeric.status} against "
        f"{prose(v.numeric.reference)}. Replay: `{v.replay}`.",
        "",
    ]
    out += claim_body(c, style)
    out += ["**Numeric evidence**", ""] + numeric_evidence(v.numeric, versions) + [""]
    for path, caption in images:
        out += [f"![{caption}]({path})", ""]
    return out + mutants(c, r, style) + seed_wording(c)


def catalog(
    items, versions: dict | None = None, images: dict | None = None, seed: int = 0, command: str | None = None
) -> str:
    """The whole catalog: a summary table linking to every claim, then the claims in the seed's
    order. ``command`` names the command that regenerates it (the committed docs/ catalog)."""
    images = images or {}
    about = (
        "Every claim is derived step by step by SymPy, checked numerically against PyTorch in float64, "
        "and ships mutants that the same machinery refutes."
    )
    if command:
        head = (
            f"Generated by `{command}` (seed {seed}); do not edit by hand. {about} "
            "The PDF, with the exact errors and the plots: [catalog.pdf](catalog.pdf)."
        )
    else:
        head = f"Written by `mathcheck writeup` (seed {seed}). {about}"
    out = ["# The mathcheck catalog", "", head, ""]
    if versions:
        out += ["Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".", ""]
    out += ["| claim | § | verdict | mutants refuted | the seed's wording |", "|---|---|---|---|---|"]
    for it in items:
        r = it.refuted
        refuted = sum(m.status == "refuted" for m in r.mutants)
        out.append(
            f"| [{it.claim.id}](#{anchor(it.claim)}) | {it.claim.source.section} | "
            f"{status(it.proved.status).mark} {it.proved.status} | {refuted}/{len(r.mutants)} | "
            f"{_cell(it.claim.seed_verdict[0])} |"
        )
    out.append("")
    whole = covers_the_article(items)
    if whole:
        out += [
            "The article sentence by sentence — every sentence of §1–§8 that states mathematics, judged: "
            "[the audit](#the-article-sentence-by-sentence).",
            "",
        ]
    for it in items:
        out += claim_section(it, None, images.get(it.claim.id, ()))
    if whole:
        out += audit_section(items)
    return "\n".join(out).rstrip() + "\n"


# --- the sentence audit (mathcheck.audit) ----------------------------------------------------------


def _quote(zh: str) -> str:
    """The seed's words as written: Markdown specials escaped, nothing read as math."""
    return _MD_SPECIAL.sub(r"\\\1", zh)


def _escaped_cell(s: str) -> str:
    """Already-escaped Markdown as one table cell: a bare ``|`` escaped, an escaped one left alone."""
    return re.sub(r"(?<!\\)\|", r"\\|", s).replace("\n", " ")


def _support(entry) -> str:
    links = [f"[{c}](#claim-{c})" for c in entry.claims]
    if entry.check:
        links.append(f"`{entry.check_command}` → {entry.check[2]}")
    return ", ".join(links)


def audit_counts_table() -> list[str]:
    """Sentences judged per section and verdict (``mathcheck.audit.counts``) as a Markdown table."""
    from mathcheck import audit

    out = ["| § | " + " | ".join(audit.VERDICTS) + " | sentences |", "|---" * (len(audit.VERDICTS) + 2) + "|"]
    for key, row in audit.counts().items():
        name = "**all**" if key == "all" else key
        out.append(f"| {name} | " + " | ".join(str(row[v]) for v in audit.VERDICTS) + f" | {sum(row.values())} |")
    return out


def audit_section(items=(), style: str = "github") -> list[str]:
    """The audit of the article's sentences: the counts, each imprecise or wrong sentence with its
    reason and the claim that refutes its wording, then every sentence by section."""
    from mathcheck import audit

    out = [
        '<a id="the-article-sentence-by-sentence"></a>',
        "",
        "## The article, sentence by sentence",
        "",
        "Every sentence of §1–§8 of the article that states mathematics — an equation, a shape, a count, a "
        "growth rate, a 'means' or 'is equivalent to' — with its verdict: *exact*, *holds-with-conditions*, "
        "*imprecise*, *wrong*, or *not-mathematics* (it mentions mathematics but states none). The table is "
        "`mathcheck/audit.py`; `mathcheck audit --all` prints it. The seed's words are quoted exactly "
        "(…… joins the lines of one passage).",
        "",
    ]
    out += audit_counts_table() + [""]
    out += ["### Imprecise and wrong", ""]
    for e in audit.ENTRIES:
        if e.verdict in ("imprecise", "wrong"):
            out += [
                f"- **{e.section} · {e.verdict}.** {_quote(e.zh)}\\",
                f"  *{prose(e.en, style)}*\\",
                f"  Why: {prose(e.reason, style)}." + (f" Shown by: {_support(e)}." if _support(e) else ""),
            ]
    out.append("")
    for section, entries in audit.by_section().items():
        out += [
            f"### {section} {audit.SECTIONS[section]}",
            "",
            "| verdict | the seed | in English | why | shown by |",
            "|---|---|---|---|---|",
        ]
        for e in entries:
            out.append(
                f"| {e.verdict} | {_escaped_cell(_quote(e.zh))} | {_escaped_cell(prose(e.en, style))} | "
                f"{_escaped_cell(prose(e.reason, style))} | {_escaped_cell(_support(e))} |"
            )
        out.append("")
    return out


def derive_writeup(report, style: str = "github") -> str:
    """A checked derivation file as Markdown: per chain its verdict, then a table of its links —
    line, the link as typeset (its LaTeX source; the text grammar for a text chain), the verdict,
    the author's reason and, for a failing link, the counterexample. ``mathcheck derive --writeup``."""
    out = [f"# Derivations checked by mathcheck (seed {report.seed})", ""]
    for path, chains in report.files:
        for r in chains:
            c = r.chain
            out += [
                f"## {_cell(prose(c.name, style))} — {status(r.status).markdown}",
                "",
                f"`{path}:{c.line}`"
                + (
                    "; assume " + ", ".join(f"`{k}`: {', '.join(v)}" for k, v in c.assumptions.items())
                    if c.assumptions
                    else ""
                ),
                "",
            ]
            if r.status == "bad-input":
                out += [f"bad input: `{_cell(r.message or r.statement.get('how', ''))}`", ""]
                continue
            out += ["| line | step | verdict | why |", "|---|---|---|---|"]
            for s in r.steps:
                shown = (
                    inline(s.source, style)
                    if s.source
                    else f"`{s.expr}`"
                    if s.relation is None
                    else f"`{s.relation} {s.expr}`"
                )
                verdict = "" if s.relation is None else status(s.status).markdown
                why = _MD_SPECIAL.sub(r"\\\1", s.reason)  # the author's words, shown as written
                if s.status in ("refuted", "inconclusive"):
                    why += f" — {prose(accounts.link(s), style)}"
                    if s.counterexample:
                        why += " at " + ", ".join(
                            f"`{k} = {v:.6g}`" if isinstance(v, float) else f"`{k} = {v}`"
                            for k, v in s.counterexample.items()
                        )
                out.append(f"| {s.line} | {_cell(shown)} | {verdict} | {_cell(why)} |")
            st = accounts.statement(r.statement)
            out += ["", f"Statement (first {st['relation']} last): {st['status']}, {prose(st['how'], style)}.", ""]
    return "\n".join(out).rstrip() + "\n"
