"""Verdicts as terminal text. Colour only through click.style, so tests can read plain text."""

from __future__ import annotations

import click

from mathcheck import relations
from mathcheck.outcome import status


def mark(word: str) -> tuple[str, str | None]:
    """A status word's terminal mark and colour (:class:`mathcheck.outcome.Status`); an unknown word
    is a bug of ours (``KeyError``), never a silent "·"."""
    s = status(word)
    return s.mark, s.colour


def _status(s: str, width: int = 12) -> str:
    symbol, colour = mark(s)
    return click.style(f"{symbol} {s:<{width}}", fg=colour, bold=True)


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
        return (
            f", tolerance derived per comparison from {n.dtype} ε (largest {n.atol:.3g}); worst |err|/tol {worst:.2g}"
        )
    if n.atol is not None:
        return f", atol={n.atol:g}, rtol={n.rtol:g}"
    return f"; {n.tolerance}" if n.tolerance else ""


def claim_verdict(v, verbose: bool = False) -> list[str]:
    """A claim's verdict; ``verbose`` adds every step with its reason and how it was shown, and
    the numeric check's dtype, device and cases (sizes)."""
    c = v.claim
    s, n = v.symbolic, v.numeric
    steps = sum(len(p.steps) - 1 for p in s.parts)
    dim = "general dimension" if s.general else "concrete size (general: false)"
    lines = [
        f"{_status(v.status)} {c.id}  {c.source.section}  {c.title}",
        f"    symbolic: {s.status}, {_n(steps, 'step')} in {_n(len(s.parts), 'part')}, {dim}",
        f"    numeric:  {n.status} against {n.reference}; {n.trials} trials, "
        f"max |err| {_err(n.max_abs_err)}" + _tolerance(n),
    ]
    if n.test:
        lines.append(f"    test:     {n.test}")
    if verbose:
        lines += _verbose_steps(s) + _verbose_numeric(n)
    for part, why in n.unevaluated:
        lines.append(f"    left side of {part} not evaluated: {why}")
    failing = s.failing
    if failing is not None:
        d = failing.decision
        lines.append(f"    step {failing.part}[{failing.index}] {failing.status}: {math(failing.expr)}")
        lines.append(f"      reason: {failing.reason}; checker: {d.how}")
        if d.counterexample:
            lines.append(f"      counterexample: {_pairs(d.counterexample)}")
    for p in s.parts:
        for note in p.notes:
            if "but" in note:
                lines.append(f"    {p.name}: {note}")
    from mathcheck.symbolic.hypotheses import relied_on

    for p in c.parts if hasattr(c, "parts") else ():
        given = tuple(p.given) + relied_on(p, c.context)  # the part's own, and the axioms it cites
        if given:
            lines.append(f"    {p.name}: given {', '.join(math(h) for h in given)}")
    if n.counterexample:
        lines.append(f"    numeric counterexample: {_pairs(n.counterexample)}")
    if n.status == "error":
        lines.append(f"    numeric error: {'; '.join(n.details)}")
    if v.status != "proved":
        lines.append(f"    replay: {v.replay}")
    return lines


def _verbose_steps(s) -> list[str]:
    lines = []
    for p in s.parts:
        lines.append(f"    part {p.name}: {math(p.statement)}")
        for st in p.steps:
            rel = "  " if st.decision is None else f"{_REL.get(st.relation, st.relation):<2}"
            lines.append(f"      {rel} {math(st.expr)}")
            how = "" if st.decision is None else f" {_mark(st.status)} {st.decision.how}"
            rule = f" [{st.rule}]" if st.rule else ""
            lines.append(f"           ({st.reason}{rule}){how}")
    return lines


def _verbose_numeric(n) -> list[str]:
    lines = [f"    numeric check: {n.trials} cases in {n.dtype} on {n.device}, seed {n.seed}"]
    shown = list(n.details[:8])
    lines += [f"      {d}" for d in shown]
    if len(n.details) > len(shown):
        lines.append(f"      … {len(n.details) - len(shown)} more cases")
    return lines


def _mark(word: str) -> str:
    symbol, colour = mark(word)
    return click.style(symbol, fg=colour)


_REL = {r.op: r.text for r in relations.TABLE}  # mathcheck.relations: the one table


def refute_verdict(r) -> list[str]:
    lines = [f"{r.claim.id}  {r.claim.source.section}  ({len(r.mutants)} mutants)"]
    if r.error:  # a claim that could not be built (its builder raised or exited): no mutant was tried
        lines.append(f"  {_status('error')} {r.error}")
    for m in r.mutants:
        lines.append(f"  {_status(m.status)} {m.name}: {m.mutant.mistake}")
        for name, eq in m.mutant.replace:
            shown = math(eq)  # the whole statement is in `show`; here enough to recognise it
            lines.append(f"      {name}: {shown if len(shown) <= 160 else shown[:157] + '...'}")
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
        return "claims: " + ", ".join(
            f"{counts[k]} {k}" for k in ("proved", "refuted", "inconclusive", "error") if k in counts
        )
    mutants = [m for r in verdicts for m in r.mutants]
    refuted = sum(m.status == "refuted" for m in mutants)
    return f"mutants: {refuted} of {len(mutants)} refuted"


def claim_description(c) -> list[str]:
    """A claim as text: where it comes from, what it assumes, its steps and its mutants."""
    lines = [
        f"{c.id}  {c.source.section}  {c.title}",
        *([f"  beyond the article; paper: {c.source.paper}"] if c.source.paper else []),
        f"  seed ({'its pointer to the papers' if c.source.paper else c.source.section}): {c.source.zh}",
        f"  gloss: {c.source.en}",
        f"  verdict on the seed's wording: {c.seed_verdict[0]}"
        + (f" — {c.seed_verdict[1]}" if c.seed_verdict[1] else ""),
        "  assumptions:",
    ]
    lines += [f"    - {a}" for a in c.assumptions]
    from mathcheck.symbolic.hypotheses import generality, hypotheses, relied_on

    for p in c.parts:
        general = generality(p, c.context)[0]
        size = {True: "", False: " (concrete size)", None: " (no size)"}[general]
        lines.append(f"  part {p.name}{size}:")
        hyps = hypotheses(p, c.context) + relied_on(p, c.context)
        if hyps:
            lines.append(f"    given {'; '.join(math(h) for h in hyps)}:")
        for n, step in enumerate(p.steps):
            rel = "   " if n == 0 else f" {_REL.get(step.relation, step.relation):<2}"
            rule = f" [{step.rule.name}]" if step.rule is not None else ""
            lines.append(f"   {rel}{math(step.expr)}")
            lines.append(f"        ({step.reason}{rule})")
        for sym in p.free_of:
            lines.append(f"    and the result does not depend on {sym}")
    lines.append("  mutants:")
    for m in c.mutants:
        lines.append(f"    - {m.name}: {m.mistake}")
        for name, eq in m.replace:
            lines.append(f"        {name}: {math(eq)}")
    lines.append(f"  numeric check: {_check_name(c)}")
    return lines


def _check_name(c) -> str:
    from mathcheck import registry

    if c.check != registry.GENERIC_CHECK:
        return c.check
    text = "generic: both sides of each part in torch float64 at n ∈ {1, 2, 3, 8, 33} (diff by autograd)"
    try:
        ref = registry.entry(c.id).reference
    except registry.UnknownClaim:
        ref = None
    if ref is not None:
        import inspect

        refs = ref.items() if isinstance(ref, dict) else [(None, ref)]
        for part, fn in refs:
            doc = fn if isinstance(fn, str) else ((inspect.getdoc(fn) or "").splitlines() or [fn.__qualname__])[0]
            text += f"; reference{f' ({part})' if part else ''}: {doc}"
    return text


# --- expressions as compact one-line math ---------------------------------------------------------

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_RELATION = {r.rel_op: r.text for r in relations.TABLE if r.rel_op}  # SymPy's rel_op → how it prints


def _printer():
    from sympy.printing.str import StrPrinter

    class Compact(StrPrinter):
        """SymPy's ``sstr`` with the notation of a blackboard: z_i, δ_ij, Σ_{k=1}^{n}, ∂/∂x, a·b,
        x², √x, and relations as ``lhs = rhs``. One line, so chains and mutants line up."""

        printmethod = "_compactstr"  # not "_sympystr": Indexed would print itself as z[i]

        def parenthesize(self, item, level, strict=False):
            if getattr(item, "is_Relational", False) is False and type(item).__name__ == "Sum" and level >= 40:
                return f"({self._print(item)})"  # (Σ_k a_k)·b and (Σ_k a_k)², never ambiguous
            return super().parenthesize(item, level, strict)

        def _print_MatrixBase(self, e):
            rows = "; ".join(", ".join(self._print(e[r, c]) for c in range(e.cols)) for r in range(e.rows))
            return f"[{rows}]"

        _print_ImmutableDenseMatrix = _print_MutableDenseMatrix = _print_ImmutableMatrix = _print_MatrixBase
        _print_Matrix = _print_MutableSparseMatrix = _print_ImmutableSparseMatrix = _print_MatrixBase

        def _print_Mul(self, e):
            nested = any(a.is_Mul or (a.is_Pow and a.exp == -1 and a.base.is_Mul) for a in e.args)
            if not nested:  # an evaluated product: SymPy's own layout
                return super()._print_Mul(e)
            # a product built with evaluate=False (a step in the form its author wrote): keep
            # its factors, one fraction bar, and no doubled parentheses
            den = [a.base if a.exp == -1 else a.base**-a.exp for a in e.args if a.is_Pow and a.exp.is_negative]
            num = [a for a in e.args if not (a.is_Pow and a.exp.is_negative)]

            def factor(x) -> str:
                if x.is_Add:
                    return f"({self._print(x)})"
                return self._print(x) if x.is_Mul else self.parenthesize(x, 50)

            def join(xs) -> str:
                return "*".join(factor(x) for x in xs) or "1"

            out = join(num)
            if den:
                d = join(den)
                out += "/" + (d if len(den) == 1 and not (den[0].is_Mul or den[0].is_Add) else f"({d})")
            return out

        def _print_IndexedBase(self, e):
            return self._print(e.label)

        def _print_Indexed(self, e):
            idx = [self._print(i) for i in e.indices]
            simple = all(len(i) == 1 for i in idx)
            return f"{self._print(e.base)}_{''.join(idx)}" if simple else f"{self._print(e.base)}[{', '.join(idx)}]"

        def _print_KroneckerDelta(self, e):
            a, b = (self._print(x) for x in e.args)
            return f"δ_{a}{b}" if len(a) == len(b) == 1 else f"δ({a}, {b})"

        def _print_Sum(self, e):
            f = self.parenthesize(e.function, 45)  # above Add: "Σ (a + b)", below Mul: "Σ a·b"
            for var, lo, hi in e.limits:
                f = f"Σ_{{{self._print(var)}={self._print(lo)}}}^{{{self._print(hi)}}} {f}"
            return f

        def _print_Derivative(self, e):
            out = self._print(e.expr)
            out = out if e.expr.is_Atom or e.expr.is_Function else f"({out})"
            den = "".join(
                f"∂{self._print(v)}" + (str(int(c)).translate(_SUPERSCRIPT) if c != 1 else "")
                for v, c in e.variable_count
            )
            order = sum(int(c) for _, c in e.variable_count)
            return f"∂{str(order).translate(_SUPERSCRIPT) if order > 1 else ''}{out}/{den}"

        def _print_Pow(self, e, rational=False):
            from sympy import Rational, S

            if e.exp == S.Half:
                arg = self._print(e.base)
                return f"√{arg}" if e.base.is_Atom else f"√({arg})"
            if e.exp.is_Integer and 1 < int(e.exp) < 10:
                return self.parenthesize(e.base, 60) + str(int(e.exp)).translate(_SUPERSCRIPT)
            if e.exp == -1 or (isinstance(e.exp, Rational) and e.exp < 0):
                return super()._print_Pow(e, rational)
            return super()._print_Pow(e, rational)

        def _print_Relational(self, e):
            return f"{self._print(e.lhs)} {_RELATION.get(e.rel_op, e.rel_op)} {self._print(e.rhs)}"

        def _print_Exp1(self, e):
            return "e"

        def _print_Pi(self, e):
            return "π"

        def _print_Infinity(self, e):
            return "∞"

    return Compact({"order": None})


def math(e) -> str:
    """``e`` as one line of readable math, e.g. ``∂z_j(exp(z_i)/Σ_{k=1}^{n} exp(z_k))``,
    ``(δ_ij − s_j)·s_i``, ``Eq(a, b)`` as ``a = b``. Not for parsing back: for reading."""
    if isinstance(e, str):
        return e
    s = _printer().doprint(e)
    return s.replace("**", "^").replace("*", "·")


# --- derivation files (mathcheck derive) ---------------------------------------------------------


def _point(cex: dict | None, values: dict | None) -> list[str]:
    out = []
    if cex:
        out.append("counterexample: " + ", ".join(f"{k} = {_num(v)}" for k, v in cex.items()))
    if values:
        out.append("  where " + ", ".join(f"{k} = {_num(v)}" for k, v in values.items() if "float64" not in k))
    return out


def _num(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def derive_chain(path: str, r, verbose: bool = False) -> list[str]:
    """One checked chain: each link with its reason and mark; the failing links with their point;
    with ``verbose``, how each link was shown. Expressions are printed as the author wrote them."""
    c = r.chain
    lines = [f"{_status(r.status)} {path}:{c.line}  {c.name}"]
    if c.assumptions:
        lines.append("    assume: " + " ".join(f"{k}={','.join(v)}" for k, v in c.assumptions.items()))
    for _, fact in c.facts:  # about random variables (docs/probability.md)
        lines.append(f"    assume: {fact}")
    for g in c.given:
        lines.append(f"    given: {g[1]}")
    from mathcheck.render import accounts

    expanded = {d["as_read"]: d["expanded"] for d in r.definitions} if verbose else {}
    for _, let in getattr(c, "lets", ()):
        lines.append(f"    let {let}")
        shown = next((v for k, v in expanded.items() if " ".join(k.split()) == " ".join(let.split())), None)
        if shown is not None and " ".join(shown.split()) != " ".join(let.partition("=")[2].split()):
            lines.append(f"        read as: {shown}")  # what is substituted: others put in, indices renamed

    lines += [f"    note: {x}" for x in r.notes]
    if r.status == "bad-input":
        return lines + [f"    error: {getattr(r, 'message', '') or r.statement.get('how', '')}"]
    width = min(max(len(s.expr) for s in r.steps), 60)
    for s in r.steps:
        rel = "  " if s.relation is None else f"{_REL.get(s.relation, s.relation):<2}"
        mark = "" if s.relation is None else f" {_mark(s.status)}"
        reason = f"  # {s.reason}" if s.reason else ""
        lines.append(f"    {rel} {s.expr:<{width}}{mark}{reason}".rstrip())
        if getattr(s, "source", ""):  # read from LaTeX: where and how it is typeset
            lines.append(f"         {path}:{s.line}  {s.source}")
        if s.relation is not None and (verbose or s.status not in ("proved", "definition")):
            lines.append(f"         line {s.line}: {s.status}: {accounts.link(s)}")
            lines += [f"         {x}" for x in _point(s.counterexample, s.values)]
        if verbose and s.relation == "≈":  # the bound as read, so a misread one shows
            b = getattr(s, "bound", None)
            lines.append(
                "         bound: "
                + (
                    f"within {b['text']} = {b['exact']} ({'relative' if b['relative'] else 'absolute'})"
                    if b
                    else "none stated"
                )
            )
    st = accounts.statement(r.statement)
    if r.status == "definition" and (getattr(c, "unread", "") or getattr(c, "table", "")):  # never unfolded
        return lines + [f"    {st['how']}"]
    if r.status == "definition":  # nothing to check: it says what the name means from here on
        return lines + [f"    {st['how']}, unfolded where it is used later"]
    rel = _REL.get(st["relation"], st["relation"])
    lines.append(f"    statement (first {rel} last): {st['status']}, {st['how']}")
    if st["status"] == "refuted":
        lines += [f"      {x}" for x in _point(st.get("counterexample"), st.get("values"))]
    return lines


def derive_summary(report) -> str:
    counts: dict[str, int] = {}
    for _, chains in report.files:
        for c in chains:
            counts[c.status] = counts.get(c.status, 0) + 1
    total = sum(counts.values())
    order = ("definition", "proved", "holds-within", "refuted", "inconclusive", "bad-input")
    parts = ", ".join(f"{counts[k]} {k}" for k in order if k in counts)
    unread = sum(bool(getattr(c.chain, "unread", "")) for _, chains in report.files for c in chains)
    if unread:  # definitions whose right side is not read: never unfolded, said apart
        parts = parts.replace(
            f"{counts['definition']} definition", f"{counts['definition']} definition ({unread} not read)", 1
        )
    c = report.counts()
    links = ", ".join(f"{c['links'][k]} {k}" for k in order if c["links"].get(k))
    files = f"{c['files']} file{'s' if c['files'] != 1 else ''}"
    return (
        f"links: {links} (of {c['links']['total']}, {c['links']['read']} read, in {files})\n"
        f"chains: {parts} (of {total}, seed {report.seed})"
    )


class DeriveProgress:
    """``derive``'s progress line on a terminal (stderr): files, links done, proved and refuted so
    far, and the time left at the pace of the links computed so far (cached ones cost nothing)."""

    def __init__(self, stream):
        import time

        self.stream, self.start, self.clock, self.width = stream, time.monotonic(), time.monotonic, 0

    def __call__(self, c) -> None:
        elapsed = self.clock() - self.start
        left = c.to_compute - c.computed
        eta = f", about {elapsed / c.computed * left:.0f} s left" if c.computed and left else ""
        line = f"{c.files} files, links {c.done}/{c.links}: {c.proved} proved, {c.refuted} refuted{eta}"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


# --- mathcheck check (one identity, and --file) ---------------------------------------------------


def check_result(r) -> list[str]:
    """A :class:`~mathcheck.userexpr.relation.CheckResult` as terminal text (the replay line unless proved)."""
    if r.status == "bad-input":
        return [f"error: {r.message}"]
    from mathcheck.numeric.tolerance import SCREEN_ATOL, SCREEN_RTOL

    s, n = r.symbolic, r.numeric
    given = f"  (given {', '.join(r.given)})" if r.given else ""
    out = [
        f"{r.status}: {r.lhs} {r.relation} {r.rhs}{given}",
        f"  symbolic: {s and s.status} ({s.how if s else ''}); difference: {(s and s.difference) or ''}",
    ]
    err = n and n.max_abs_err
    what = "max |lhs − rhs|" if r.relation == "=" else "largest failure"
    evaluator = "float64" if n is None or n.evaluator is None else n.evaluator
    out.append(
        f"  numeric:  {n and n.status}; {_n(n.points if n else 0, 'point')} in "
        f"{evaluator} ({n.skipped if n else 0} undefined skipped), {what} "
        f"{'n/a' if err is None else f'{err:.3g}'}, atol={SCREEN_ATOL:g}, rtol={SCREEN_RTOL:g}"
    )
    if n and n.note:
        out.append(f"            {n.note}")
    if r.counterexample is not None:
        where = ", ".join(f"{k} = {v}" for k, v in r.counterexample.items())
        out.append(f"  counterexample: {where}")
        if r.values:
            out.append("    " + ", ".join(f"{k} = {v}" for k, v in r.values.items()))
    if r.status != "proved" and r.replay:
        out.append(f"  replay: {r.replay}")
    return out


def check_batch(rows, results, totals: dict) -> list[str]:
    """``check --file`` as terminal text: one line a row (two for a counterexample), then the totals
    (the rows counted by status, ``userexpr.batch.totals``)."""
    out = []
    for row, r in zip(rows, results):
        if r.status == "bad-input":
            out.append(f"line {row.line}: bad-input: {r.message}")
            continue
        out.append(f"line {row.line}: {r.status}: {r.lhs} = {r.rhs}  ({r.how})")
        if r.counterexample is not None:
            where = ", ".join(f"{k} = {v}" for k, v in r.counterexample.items())
            out.append(f"    counterexample: {where}")
    t = totals
    out.append(
        f"{_n(len(results), 'row')}: {t['proved']} proved, {t['refuted']} refuted, "
        f"{t['inconclusive']} inconclusive, {t['bad-input']} bad input"
    )
    return out


# --- mathcheck conform and mathcheck model ---------------------------------------------------------

LABEL = {
    "holds": "holds",
    "fails": "FAILS",
    "not expected to hold": "not expected to hold",
    "reported": "reported",
    "inconclusive": "inconclusive",
}
UNSTABLE = {"finite-large-logits"}  # fails alone: the formula is right, its evaluation overflows


def _g3(x) -> str:
    """Three significant digits, ``-`` for none."""
    return "-" if x is None else f"{x:.3g}"


def _pair(a, b) -> tuple[str, str]:
    """The derived value and yours with enough digits to tell them apart (3 unless they print equal)."""
    if a is None or b is None:
        return _g3(a), _g3(b)
    for digits in range(3, 18):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            return x, y
    return x, y


def conform_report(report) -> list[str]:
    """A :class:`~mathcheck.conform.run.Report`: the setting, one line a property (failures with
    the smallest input found, the worst entry, the claim and the replay line), the status."""
    flags = " ".join(report.variant.flags())
    out = [f"conform {report.target}  kind {report.kind}{'  ' + flags if flags else ''}  seed {report.seed}"]
    out += [f"  {line}" for line in report.setting]
    if report.nondeterministic:
        out.append(f"status: inconclusive ({report.nondeterministic})")
        return out
    wn = max(len(r.name) for r in report.results)
    wc = max(len(r.claim) for r in report.results)
    for r in report.results:
        head = f"  {LABEL[r.status]:<20}  {r.name:<{wn}}  {r.claim:<{wc}}"
        if (
            r.status in ("holds", "fails")
            and r.tolerance is not None
            and r.max_abs_err is not None
            and r.expected == "holds"
            and (r.tolerance or r.max_abs_err)
        ):
            head += f"  max |err| {_g3(r.max_abs_err)}, tolerance {_g3(r.tolerance)}"
        out.append(head.rstrip())
        if r.note:
            out.append(f"      {r.note}")
        cx = r.counterexample
        if r.status == "fails" and cx:
            sizes = " ".join(f"{k}={v}" for k, v in cx["sizes"].items())
            out.append(f"      property: {r.doc}")
            out.append(f"      smallest input found: {sizes} ({cx['values']} values)")
            if cx.get("compared"):
                out.append(f"      compared: {cx['compared']}")
            if cx.get("entry") is not None:
                derived, yours = _pair(cx["derived"], cx["user"])
                out.append(
                    f"      worst entry {tuple(cx['entry'])} (largest |err|/tol): derived {derived}, yours {yours}"
                )
            out.append(f"      claim: {r.claim} (mathcheck show {r.claim})")
            out.append(f"      replay: {cx['replay']}")
    n_fail = len(report.failed)
    if report.status == "fails" and set(report.failed) <= UNSTABLE:
        out.append(
            f"status: fails (numerically unstable: {', '.join(report.failed)} fails at large logits "
            f"while the formula holds at ordinary ones)"
        )
        return out
    tail = {
        "holds": "every expected property holds",
        "fails": f"{n_fail} propert{'y' if n_fail == 1 else 'ies'} fail{'s' if n_fail == 1 else ''}: "
        + ", ".join(report.failed),
        "inconclusive": "inconclusive: a derived side could not be evaluated",
    }[report.status]
    out.append(f"status: {report.status} ({tail})")
    return out


def model_report(report) -> list[str]:
    """A :class:`~mathcheck.model.report.ModelReport`: each module path and kind with its tally
    (failures in detail), the model-level properties, the status."""
    cfg = ", ".join(f"{k} {v}" for k, v in report.config.items())
    out = [f"model {report.model}  seed {report.seed}", f"  config: {cfg}"] + [f"  note: {n}" for n in report.notes]
    wp = max([len(m.path) for m in report.modules] + [10])
    wk = max([len(m.kind) for m in report.modules] + [9])
    for m in report.modules:
        out.append(f"  {m.path:<{wp}}  {m.kind:<{wk}}  {LABEL[m.status]} {m.tally()}")
        if m.status != "holds":
            out += [f"      {line}" for line in m.setting]
        for r in m.properties:
            if r.status in ("fails", "inconclusive"):
                out += _model_detail(r, report.replay, "      ")
    out.append("  model-level properties:")
    wn = max(len(r.name) for r in report.properties)
    wc = max(len(r.claim) for r in report.properties)
    for r in report.properties:
        head = f"    {LABEL[r.status]:<20}  {r.name:<{wn}}  {r.claim:<{wc}}"
        if r.status in ("holds", "fails") and r.tolerance is not None and r.max_abs_err is not None:
            head += f"  max |err| {_g3(r.max_abs_err)}, tolerance {_g3(r.tolerance)}"
        out.append(head.rstrip())
        if r.note:
            out.append(f"        {r.note}")
        if r.status == "fails" and r.counterexample:
            cx = r.counterexample
            if cx.get("compared"):
                out.append(f"        compared: {cx['compared']}")
            out.append(
                f"        claim: {r.claim} (mathcheck show {r.claim})"
                if r.claim != "-"
                else "        claim: none (an engineering property)"
            )
            out.append(f"        replay: {cx.get('replay', report.replay)}")
    fails = report.failures()
    tail = {
        "holds": "every expected property holds",
        "fails": f"{len(fails)} failing: " + ", ".join(fails),
        "inconclusive": "inconclusive: a derived side could not be evaluated",
    }[report.status]
    out.append(f"status: {report.status} ({tail})")
    return out


def _model_detail(r, replay, pad) -> list[str]:
    out = [
        f"{pad}{LABEL[r.status]}  {r.name}  {r.claim}"
        + (f"  max |err| {_g3(r.max_abs_err)}, tolerance {_g3(r.tolerance)}" if r.tolerance is not None else "")
    ]
    out.append(f"{pad}  property: {r.doc}")
    if r.note:
        out.append(f"{pad}  {r.note}")
    cx = r.counterexample or {}
    if cx.get("sizes"):
        out.append(
            f"{pad}  smallest input found: {' '.join(f'{k}={v}' for k, v in cx['sizes'].items())} "
            f"({cx.get('values', 'standard normal')} values)"
        )
    if cx.get("compared"):
        out.append(f"{pad}  compared: {cx['compared']}")
    if cx.get("entry") is not None:
        out.append(
            f"{pad}  first differing entry {tuple(cx['entry'])}: derived {_g3(cx.get('derived'))}, "
            f"yours {_g3(cx.get('user'))}"
        )
    if r.claim != "-":
        out.append(f"{pad}  claim: {r.claim} (mathcheck show {r.claim})")
    out.append(f"{pad}  replay: {replay}")
    return out
