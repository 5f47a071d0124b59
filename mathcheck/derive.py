"""Derivation files: chains ``e0 = e1 ≤ e2 …`` written as plain text, checked link by link.

A chain, in a ``.derivation`` (or any text) file, or in a ```` ```mathcheck ```` fence of a
Markdown file::

    ## softplus' is the sigmoid
    assume: x=real
      diff(log(1 + exp(x)), x)
    = exp(x)/(1 + exp(x))        # chain rule
    = 1/(1 + exp(-x))            # divide by exp(x)
    = sigmoid(x)

* ``## name`` starts a chain (a file or fence may hold several); ``# text`` after an expression
  is the reason for that link; a line that is only ``# text`` is a comment.
* ``assume: NAME=PROP[,PROP] …`` — the ``--assume`` syntax of ``mathcheck check`` (``x real`` and
  ``n positive,integer`` are read the same way); ``given: lhs REL rhs[; …]`` — hypotheses, e.g.
  ``given: x >= 1`` or ``given: 1 <= j <= n``.
* the first expression, then one line per link starting with ``=``, ``<=``, ``<``, ``>=`` or
  ``>`` (``≤``, ``≥`` too). A chain may not mix ≤ and ≥.

Expressions go through :mod:`mathcheck.parser` (a whitelist ``ast`` parser; nothing is evaluated
as code). Every file is read and every expression parsed before anything is proved, so bad input
is one line ``path:line: what is wrong`` (exit 2). Then each link is checked by
:func:`mathcheck.userexpr.check_relation` (the pipeline ``mathcheck check`` shares: symbolic proof
+ float64 test), every link even after a failing one, and the chain's statement ``first REL last``
gets a numeric check of its own (:func:`mathcheck.userexpr.relation.numeric_side`).

    >>> chains = parse_text("## square\\n  (x + 1)^2\\n= x^2 + 2*x + 1  # expand\\n", "ex.derivation")
    >>> [(c.name, [(s.line, s.relation, s.text, s.reason) for s in c.steps]) for c in chains]
    [('square', [(2, None, '(x + 1)^2', ''), (3, '=', 'x^2 + 2*x + 1', 'expand')])]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from mathcheck.outcome import exit_code, replay, worst

RELATIONS = ("<=", ">=", "==", "~=", "≤", "≥", "≈", "=", "<", ">")  # longest first
_CANON = {"==": "=", "≤": "<=", "≥": ">=", "~=": "≈"}
APPROX = "≈"             # an approximate link: a measured bound, never proved
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*mathcheck\s*$")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class DeriveError(ValueError):
    """Bad input in a derivation file; ``str()`` is the one line ``path:line: message``."""


@dataclass(frozen=True)
class Line:
    """One expression of a chain: where it is, how it relates to the previous one, and why."""

    line: int
    relation: str | None  # None for the first expression; "=", "<=", "<", ">=", ">" or "≈"
    text: str
    reason: str = ""
    source: str = ""  # the link as typeset, for a chain read from LaTeX (mathcheck.latex)


@dataclass(frozen=True)
class Chain:
    """A chain as read (or as another reader built it, e.g. from LaTeX): grammar text throughout.

    ``lets``: ``((line, "mu = Sum(x[i], (i, 1, n))/n"), ...)``, what follows ``let``, in order;
    ``error``: the one line ``path:line: message`` when a line of the chain is bad input (the chain
    is then ``bad-input`` and every other chain is still checked)."""

    name: str
    path: str
    line: int
    assumptions: dict = field(default_factory=dict)  # name -> tuple of properties
    given: tuple = ()                                # ((line, "lhs REL rhs"), ...)
    steps: tuple = ()                                # Line values
    lets: tuple = ()                                 # ((line, "name = body"), ...)
    error: str = ""

    @property
    def relation(self) -> str:
        """``=``, ``<=``, ... composed over the links; ``≈`` as soon as one link is approximate."""
        from mathcheck.claim import compose_relations

        rels = [s.relation for s in self.steps[1:]]
        if APPROX in rels:
            compose_relations(r for r in rels if r != APPROX)  # still one direction
            return APPROX
        return compose_relations(rels)


# --- reading -------------------------------------------------------------------------------------

def _split_relation(text: str) -> tuple[str | None, str]:
    for rel in RELATIONS:
        if text.startswith(rel):
            return _CANON.get(rel, rel), text[len(rel):].strip()
    return None, text


def _split_top(text: str, seps) -> list[tuple[str | None, str]]:
    """Split ``text`` at the top-level (unbracketed) occurrences of ``seps``: [(sep before, part)]."""
    out, depth, start, sep, i = [], 0, 0, None, 0
    while i < len(text):
        c = text[i]
        depth += c in "(["
        depth -= c in ")]"
        if depth == 0:
            hit = next((s for s in seps if text.startswith(s, i)), None)
            if hit is not None:
                out.append((sep, text[start:i].strip()))
                sep, start, i = hit, i + len(hit), i + len(hit)
                continue
        i += 1
    out.append((sep, text[start:].strip()))
    return out


def _assumptions(spec: str, where: str) -> dict:
    """``x=real n=positive,integer`` or ``x real; n positive, integer`` → ``{"x": ("real",), ...}``."""
    from mathcheck.parser import PROPERTIES, ParseError, parse_assumption

    from mathcheck.parser import normalise

    out: dict = {}
    tokens = normalise(spec).replace(";", " ").replace(", ", ",").split()
    name = None
    try:
        for tok in tokens:
            if "=" in tok:
                n, props = parse_assumption(tok)
                out[n], name = tuple(dict.fromkeys(out.get(n, ()) + props)), None
            elif all(p in PROPERTIES for p in tok.strip(",").split(",")) and name is not None:
                props = tuple(p for p in tok.strip(",").split(",") if p)
                out[name] = tuple(dict.fromkeys(out.get(name, ()) + props))
            elif _WORD.fullmatch(tok):
                name = tok
                out.setdefault(name, ())
            else:
                raise ParseError(f"assume: cannot read {tok!r}")
    except ParseError as exc:
        raise DeriveError(f"{where}: {exc}; write e.g. 'assume: x=real n=positive,integer'") from None
    for n, props in out.items():
        if not props:
            raise DeriveError(f"{where}: assume: {n!r} has no property; write e.g. 'assume: {n}=positive' "
                              f"(properties: {', '.join(PROPERTIES)})")
    return out


def parse_text(text: str, path: str, first_line: int = 1) -> list[Chain]:
    """The chains in ``text`` (chain syntax, not Markdown); ``first_line`` numbers its first line.

    A bad line does not stop the reading: its chain gets ``error`` (the line named) and the lines
    up to the next ``##`` header (for a chain without a header: up to the next line that starts a
    chain) are left out; the other chains are read as usual. ``let`` lines before the first chain
    apply to every chain of ``text``; inside a chain, to that chain."""
    chains: list[Chain] = []
    cur: dict | None = None
    shared: list = []     # lets before any chain: scoped to the whole text (a file, a fence)
    skipping = False

    def close():
        nonlocal cur
        if cur is None:
            return
        c, cur = cur, None
        lets = tuple(shared) + tuple(c["lets"])
        where = f"{path}:{c['line']}"
        error = c["error"]
        if not error and not c["steps"]:
            if not c["named"]:
                return
            error = f"{where}: chain {c['name']!r} has no expression"
        elif not error and len(c["steps"]) == 1:
            s = c["steps"][0]
            error = (f"{path}:{s.line}: chain {c['name']!r} has one expression and no link; "
                     f"continue it with a line starting with = (or <=, <, >=, >, ≈)")
        chain = Chain(c["name"], path, c["line"], c["assume"], tuple(c["given"]), tuple(c["steps"]), lets, error)
        if not error and len(chain.steps) > 1:
            try:
                chain.relation
            except ValueError:
                chain = Chain(c["name"], path, c["line"], c["assume"], tuple(c["given"]), tuple(c["steps"]),
                              lets, f"{where}: chain {c['name']!r} mixes ≤ and ≥; a chain goes one way")
        chains.append(chain)

    def new(name: str, line: int, named: bool):
        nonlocal cur
        close()
        cur = {"name": name, "line": line, "named": named, "assume": {}, "given": [], "steps": [],
               "lets": [], "error": ""}

    def starts_new() -> bool:
        return cur is None or bool(cur["steps"]) or bool(cur["error"])

    def read_line(body, reason, rel, expr, number, where):
        word, space, let = body.partition(" ")
        key, colon, rest = body.partition(":")
        if word == "let" and space:
            if cur is None:
                shared.append((number, let.strip()))
            else:
                if starts_new():
                    new(f"line {number}", number, False)
                cur["lets"].append((number, let.strip()))
            return
        if colon and key.strip() in ("assume", "given"):
            if starts_new():
                new(f"line {number}", number, False)
            if key.strip() == "assume":
                for n, props in _assumptions(rest, where).items():
                    cur["assume"][n] = tuple(dict.fromkeys(cur["assume"].get(n, ()) + props))
            else:
                for part in rest.split(";"):
                    if not part.strip():
                        raise DeriveError(f"{where}: given: an empty hypothesis; write e.g. 'given: x >= 1'")
                    cur["given"].append((number, part.strip()))
            return
        if rel is None:
            if starts_new():
                new(f"line {number}", number, False)
            cur["steps"].append(Line(number, None, body, reason))
            return
        if cur is None or not cur["steps"]:
            raise DeriveError(f"{where}: {body[:40]!r} continues a chain that has no first expression; "
                              f"write the expression being derived on the line before")
        if not expr:
            raise DeriveError(f"{where}: nothing after {rel!r}; write '{rel} expression'")
        cur["steps"].append(Line(number, rel, expr, reason))

    for number, raw in enumerate(text.splitlines(), start=first_line):
        where = f"{path}:{number}"
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("##"):
            skipping = False
            name = stripped.lstrip("#").strip()
            if not name:
                new(f"line {number}", number, True)
                cur["error"], skipping = f"{where}: a chain header needs a name: '## my chain'", True
                continue
            new(name, number, True)
            continue
        if stripped.startswith("#"):
            continue  # a comment line
        body, _, reason = stripped.partition("#")
        body, reason = body.strip(), reason.strip()
        rel, expr = _split_relation(body)
        if skipping:
            if cur is not None and (cur["named"] or rel is not None):
                continue
            skipping = False
        try:
            read_line(body, reason, rel, expr, number, where)
        except DeriveError as exc:
            if cur is None or (cur["steps"] and rel is None and not cur["named"]):
                new(f"line {number}", number, False)
            cur["error"], skipping = cur["error"] or str(exc), True
    close()
    return chains


def markdown_chains(text: str, path: str) -> list[Chain]:
    """The chains of every ```` ```mathcheck ```` fence in a Markdown text (line numbers of the file)."""
    chains, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, start, j = m.group(1), i + 1, i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        if j == len(lines):
            raise DeriveError(f"{path}:{i + 1}: a ```mathcheck fence is not closed")
        found = parse_text("\n".join(lines[start:j]), path, first_line=start + 1)
        if not found:
            raise DeriveError(f"{path}:{i + 1}: a ```mathcheck fence holds no chain")
        chains += found
        i = j + 1
    return chains


def read(path: str) -> list[Chain]:
    """The chains of one file: Markdown fences for ``.md``/``.markdown``, the whole file otherwise."""
    from mathcheck.userexpr import read_user_file

    text = read_user_file(path, DeriveError)
    suffix = Path(path).suffix.lower()
    if suffix == ".tex":
        from mathcheck import latex

        return latex.chains(text, path)
    if suffix in (".md", ".markdown"):
        chains = markdown_chains(text, path)
        if "$$" in text or "\\begin{" in text:  # display math: LaTeX chains too (mathcheck.latex)
            from mathcheck import latex

            chains = sorted(chains + latex.chains(text, path, markdown=True), key=lambda c: c.line)
        return chains
    return parse_text(text, path)


# --- validating (before any proving) ----------------------------------------------------------------

GIVEN_RELATIONS = ("!=", "≠") + tuple(r for r in RELATIONS if r not in ("~=", "≈"))


def _hypothesis(lhs, rhs, rel: str):
    """A ``given:`` relation as SymPy: ``Ne`` for ``!=``, else :func:`mathcheck.claim.relation`."""
    from mathcheck.claim import relation
    from mathcheck.lazy import sympy as sp

    return sp.Ne(lhs, rhs, evaluate=False) if rel == "!=" else relation(lhs, rhs, rel)


def _given_relations(text: str, where: str):
    """``"1 <= j <= n"`` → [("1", "<=", "j"), ("j", "<=", "n")]; ``a != 1`` (or ``≠``) too."""
    parts = _split_top(text, GIVEN_RELATIONS)
    if len(parts) < 2:
        raise DeriveError(f"{where}: given: {text!r} is not a relation; write e.g. 'given: x >= 1'")
    out = []
    for (_, a), (rel, b) in zip(parts, parts[1:]):
        if not a or not b:
            raise DeriveError(f"{where}: given: {text!r}: a side of {rel!r} is empty")
        out.append((a, {"≠": "!="}.get(rel, _CANON.get(rel, rel)), b))
    return out


def _used(assumptions: dict, *texts) -> dict:
    from mathcheck.parser import normalise

    words = {w for t in texts for w in _WORD.findall(normalise(t))}
    return {k: v for k, v in assumptions.items() if k in words}


def notes(chain: Chain) -> list[str]:
    """One line for each name the chain gives a meaning other than the grammar's (a shadowed constant)."""
    from mathcheck.parser import EULER, normalise

    out = []
    if EULER in {normalise(k) for k in chain.assumptions}:
        out.append("e is a variable in this chain (assume: e=...), not Euler's number: e^x is not exp(x)")
    return out


def definitions(chain: Chain) -> tuple:
    """The chain's ``let`` lines as :class:`mathcheck.parser.Definition` values, each checked
    (alone and expanded) so that a bad one is named by its own line."""
    from mathcheck.parser import ParseError, expand, parse_definition

    out = []
    for line, text in chain.lets:
        try:
            out.append(parse_definition(text))
            expand(out)
        except ParseError as exc:
            raise DeriveError(f"{chain.path}:{line}: {exc}") from None
    return tuple(out)


def validate(chain: Chain):
    """Parse every expression and hypothesis of ``chain`` (one shared set of symbols, its ``let``
    definitions expanded); return ``(expressions, hypotheses)`` as SymPy objects or raise
    :class:`DeriveError` naming the bad line."""
    from mathcheck.parser import ParseError, parse_many

    if chain.error:
        raise DeriveError(chain.error)
    defs = definitions(chain)
    givens = [(line, rels) for line, text in chain.given
              for rels in [_given_relations(text, f"{chain.path}:{line}")]]
    texts = [s.text for s in chain.steps] + [x for _, rels in givens for a, _, b in rels for x in (a, b)]
    lines = [s.line for s in chain.steps] + [line for line, rels in givens for _ in rels for _ in (0, 1)]
    try:
        parsed = parse_many(texts, chain.assumptions, defs=defs, unused_ok=True)
    except ParseError as whole:
        for text, line in zip(texts, lines):  # only now one at a time, so the error names its line
            try:
                parse_many([text], chain.assumptions, defs=defs, unused_ok=True)
            except ParseError as exc:
                raise DeriveError(f"{chain.path}:{line}: {exc}") from None
        raise DeriveError(f"{chain.path}:{chain.line}: chain {chain.name!r}: {whole}") from None
    exprs, rest = parsed[:len(chain.steps)], iter(parsed[len(chain.steps):])
    hyps = tuple(_hypothesis(next(rest), next(rest), rel) for _, rels in givens for _a, rel, _b in rels)
    return exprs, hyps


def given_texts(chain: Chain) -> tuple[str, ...]:
    """The hypotheses as ``"lhs REL rhs"`` strings, one relation each."""
    return tuple(f"{a} {rel} {b}" for line, text in chain.given
                 for a, rel, b in _given_relations(text, f"{chain.path}:{line}"))


def load(paths, optional=()) -> list[tuple[str, list[Chain]]]:
    """Read every file; raise :class:`DeriveError` when a file cannot be read or holds no chain.

    A bad line does not raise: its chain carries the error (see :func:`parse_text`) and is
    reported ``bad-input`` while the others are checked. A file named in ``optional`` (one a glob
    such as ``docs/**/*.md`` matched) may hold no chain: it is left out."""
    out = []
    for path in paths:
        chains = read(str(path))
        if not chains and str(path) in optional:
            continue
        if not chains:
            if Path(path).suffix.lower() == ".tex":
                raise DeriveError(f"{path}: no display math with a relation; see docs/latex.md")
            where = "no ```mathcheck fence" if Path(path).suffix.lower() in (".md", ".markdown") else "no chain"
            raise DeriveError(f"{path}: {where}; see docs/derive.md for the syntax")
        out.append((str(path), chains))
    return out


# --- checking ---------------------------------------------------------------------------------------

def _check_link(lhs: str, rhs: str, relation: str, assumptions: dict, given=(), seed: int = 0,
                timeout: float = 30.0):
    """Decide ``given ⇒ lhs RELATION rhs`` for two strings in the parser's grammar.

    Parses them (and the hypotheses, ``"1 <= j <= n"`` style) with :mod:`mathcheck.parser`, then
    hands them to :func:`mathcheck.userexpr.check_relation`, the pipeline ``check`` shares: a
    :class:`~mathcheck.userexpr.relation.CheckResult` (``bad-input`` with a one-line message if a
    string does not parse).

        >>> _check_link("x^2 + 1", "2*x", ">=", {}).status          # doctest: +SKIP
        'proved'
    """
    from mathcheck.parser import ParseError, parse_many
    from mathcheck.userexpr.relation import CheckResult

    given = tuple(given)
    try:
        rels = [r for g in given for r in _given_relations(g, "given")]  # "1 <= j <= n": two
        texts = [lhs, rhs] + [x for a, _, b in rels for x in (a, b)]
        used = _used(assumptions, *texts)
        parsed = parse_many(texts, used)
    except (ParseError, DeriveError) as exc:
        return CheckResult("bad-input", lhs, rhs, dict(assumptions), seed, message=str(exc),
                           relation=relation, given=given)
    hyps = tuple(_hypothesis(parsed[2 + 2 * k], parsed[3 + 2 * k], r) for k, (_, r, _) in enumerate(rels))
    return _relation(parsed[0], parsed[1], relation, used, hyps, seed, timeout, lhs, rhs)


def _relation(L, R, relation: str, assumptions: dict, hyps, seed: int, timeout: float, lhs: str, rhs: str):
    from mathcheck.userexpr import check_relation

    return check_relation(L, R, relation, assumptions, hyps, seed, timeout, lhs_text=lhs, rhs_text=rhs)


def _how(r) -> str:
    """How a link was decided, for the report: which side refuted it, or both sides' account."""
    if r.status == "bad-input":
        return r.message
    if r.status == "refuted":
        side = "symbolic" if r.symbolic.get("status") == "refuted" else "numeric"
        return f"{side}: {r.how}"
    return f"{r.symbolic.get('how', '')}; {_numeric_summary(r.numeric)}"


def _numeric_summary(num: dict) -> str:
    if num.get("status") == "passed":
        notes = [num["note"]] if num.get("note") else []
        if num.get("skipped"):  # counted and shown, never silently dropped
            notes.append(f"{num['skipped']} more where a side is not real")
        extra = f" ({'; '.join(notes)})" if notes else ""
        return f"float64 agrees at {num['points']} points{extra}"
    if num.get("status") == "refuted":
        return "float64 disagrees at a point, confirmed at 50 digits"
    return f"numeric {num.get('status')}" + (f" ({num['note']})" if num.get("note") else "")


@dataclass(frozen=True)
class StepReport:
    line: int
    expr: str
    relation: str | None
    reason: str
    status: str               # "start" for the first expression
    how: str = ""
    counterexample: dict | None = None
    values: dict | None = None
    measured: dict | None = None   # a ≈ link: largest error, where, the bound and the points searched
    source: str = ""               # as typeset, for a chain read from LaTeX


@dataclass(frozen=True)
class ChainReport:
    chain: Chain
    status: str
    steps: tuple
    statement: dict            # the numeric check of first REL last

    @property
    def failing(self) -> StepReport | None:
        return next((s for s in self.steps if s.status in ("refuted", "inconclusive", "bad-input")), None)

    message: str = ""          # bad input: the one line naming the bad line


def _status(statuses) -> str:
    """The worst status (:func:`mathcheck.outcome.worst`): bad-input, refuted, inconclusive, then
    holds-within (a chain with a ≈ link is never proved)."""
    return worst(statuses).word


def replay_line(paths, seed: int = 0, timeout: float = 30.0) -> str:
    """``mathcheck derive FILE... --seed S`` (and ``--timeout T`` when not the default)."""
    return replay("derive", [str(p) for p in paths], [("--seed", seed),
                                                      ("--timeout", None if timeout == 30.0 else timeout)])


def bad_chain(chain: Chain, message: str) -> ChainReport:
    """The report of a chain with a bad line: ``bad-input``, the line named, nothing checked."""
    steps = tuple(StepReport(s.line, s.text, s.relation, s.reason, "start" if s.relation is None else "bad-input")
                  for s in chain.steps)
    statement = {"relation": None, "status": "bad-input", "how": message, "counterexample": None, "values": None}
    return ChainReport(chain, "bad-input", steps, statement, message)


def _approx_step(cur: Line, L, R, hyps, seed: int, bound=None) -> StepReport:
    from mathcheck.userexpr.approx import measure, stated_bound

    try:
        m = measure(L, R, seed, hyps, bound if bound is not None else stated_bound(cur.reason))
    except Exception as exc:  # noqa: BLE001 - a measurement that fails is inconclusive, never a crash
        m = {"status": "inconclusive", "how": f"the measurement failed: {type(exc).__name__}: {exc}"[:300]}
    cex = m.get("where") if m["status"] == "refuted" else None
    return StepReport(cur.line, cur.text, cur.relation, cur.reason, m["status"], m["how"], cex,
                      m.get("values") if cex else None, {k: v for k, v in m.items() if k not in ("status", "how")})


def check_chain(chain: Chain, seed: int = 0, timeout: float = 30.0, parsed=None) -> ChainReport:
    """Check every link of ``chain`` (:func:`mathcheck.userexpr.check_relation`; a ``≈`` link by
    :func:`mathcheck.userexpr.approx.measure`) and its statement ``first REL last`` (the same
    pipeline's numeric side). A chain with a bad line is ``bad-input``, never an exception: the
    entry point for chains built by any reader (text, Markdown, LaTeX). ``parsed``: what
    :func:`validate` returned for it, when the caller has already parsed it."""
    from mathcheck.userexpr.approx import stated_bound
    from mathcheck.userexpr.relation import numeric_side

    if parsed is None:
        try:
            parsed = validate(chain)
        except DeriveError as exc:
            return bad_chain(chain, str(exc))
    exprs, hyps = parsed
    first = chain.steps[0]
    steps = [StepReport(first.line, first.text, None, first.reason, "start", "the expression being derived",
                        source=first.source)]
    givens = given_texts(chain)
    lets = [t for _, t in chain.lets]
    for (prev, cur), (L, R) in zip(zip(chain.steps, chain.steps[1:]), zip(exprs, exprs[1:])):
        if cur.relation == APPROX:
            steps.append(replace(_approx_step(cur, L, R, hyps, seed), source=cur.source))
            continue
        used = _used(chain.assumptions, prev.text, cur.text, *givens, *lets)
        r = _relation(L, R, cur.relation, used, hyps, seed, timeout, prev.text, cur.text)
        steps.append(StepReport(cur.line, cur.text, cur.relation, cur.reason, r.status, _how(r),
                                r.counterexample, r.values, source=cur.source))
    status = _status([s.status for s in steps[1:]])
    if chain.relation == APPROX:  # the statement's bound: the links' bounds add up (triangle inequality)
        bounds = [stated_bound(s.reason) if s.relation == APPROX else (0.0, False) for s in chain.steps[1:]]
        total = None
        if all(b is not None and not b[1] for b in bounds):
            total = (sum(b[0] for b in bounds), False)
        st = _approx_step(Line(chain.steps[-1].line, APPROX, chain.steps[-1].text, ""), exprs[0], exprs[-1],
                          hyps, seed, total)
        statement = {"relation": APPROX, "status": st.status, "how": st.how,
                     "counterexample": st.counterexample, "values": st.values}
        if st.status == "refuted" and status != "bad-input":
            status = "refuted"
        return ChainReport(chain, status, tuple(steps), statement)
    num = numeric_side(exprs[0], exprs[-1], chain.relation, seed, hyps, "auto", timeout)
    statement = {"relation": chain.relation, "status": num["status"], "how": _numeric_summary(num),
                 "counterexample": num.get("counterexample"), "values": num.get("values")}
    if num["status"] == "refuted":
        status = "refuted"
    elif status == "proved" and num["status"] != "passed":
        status = "inconclusive"
    return ChainReport(chain, status, tuple(steps), statement)


@dataclass(frozen=True)
class DeriveReport:
    files: tuple   # ((path, (ChainReport, ...)), ...)
    seed: int = 0
    timeout: float = 30.0

    @property
    def status(self) -> str:
        return _status(c.status for _, chains in self.files for c in chains)

    @property
    def exit_code(self) -> int:
        return exit_code(self.status)

    @property
    def replay(self) -> str:
        return replay_line([path for path, _ in self.files], self.seed, self.timeout)


def check_files(paths, seed: int = 0, timeout: float = 30.0, on_chain=None, loaded=None) -> DeriveReport:
    """Read every file and parse every chain (an unreadable file raises :class:`DeriveError` before
    any proving; a chain with a bad line is reported ``bad-input`` and the others are checked),
    then check every chain; ``on_chain(path, report)`` is called as each chain is decided.
    ``loaded``: what :func:`load` returned for ``paths``, when the caller has read them already
    (each file is read once, each expression parsed once)."""
    from mathcheck.userexpr.relation import _seconds_ok

    if not _seconds_ok(timeout):
        raise DeriveError(f"timeout {timeout!r} is not a number of seconds; give a finite number above 0")
    loaded = load(paths) if loaded is None else loaded
    parsed = {}
    for _, chains in loaded:  # all the parsing first, so bad input costs no proving
        for chain in chains:
            try:
                parsed[id(chain)] = validate(chain)
            except DeriveError as exc:
                parsed[id(chain)] = str(exc)
    files = []
    for path, chains in loaded:
        reports = []
        for chain in chains:
            p = parsed[id(chain)]
            r = bad_chain(chain, p) if isinstance(p, str) else check_chain(chain, seed, timeout, p)
            reports.append(r)
            if on_chain:
                on_chain(path, r)
        files.append((path, tuple(reports)))
    return DeriveReport(tuple(files), seed, timeout)
