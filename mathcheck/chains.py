"""Derivation chains: the values a derivation file holds, and the reader of text and Markdown.

The format is :mod:`mathcheck.derive`'s (docs/derive.md): ``## name``, ``assume:``, ``given:``,
``let``, the first expression, then one line per link. Reading builds :class:`Chain` values only: no expression is parsed here (that is
:mod:`mathcheck.derive`, which also reads ``.tex`` through :mod:`mathcheck.latex`, whose reader
builds these same values).

    >>> chains = parse_text("## square\\n  (x + 1)^2\\n= x^2 + 2*x + 1  # expand\\n", "ex.derivation")
    >>> [(c.name, [(s.line, s.relation, s.text, s.reason) for s in c.steps]) for c in chains]
    [('square', [(2, None, '(x + 1)^2', ''), (3, '=', 'x^2 + 2*x + 1', 'expand')])]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mathcheck import relations

# a link's relation in the text grammar: the spellings (symbols; the words are LaTeX's) of a step's
# relations and of ≈ in mathcheck.relations' one table, longest first so that `<=` is not read as `<`
RELATIONS = tuple(
    sorted(
        (
            s
            for r in relations.TABLE
            if r.op in relations.STEP + (relations.APPROX,)
            for s in (r.op, *r.spellings)
            if not s.isalpha()
        ),
        key=len,
        reverse=True,
    )
)
CANON = {s: relations.of(s).op for s in RELATIONS if relations.of(s).op != s}
APPROX = relations.APPROX  # an approximate link: a measured bound, never proved
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*mathcheck\s*$")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_KNOWN = "the directives are 'assume: x=real', 'given: x >= 1' and 'let mu = expression'"
_KEYED = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\s*:")  # assume: ..., given: ...
_DEFINES = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\s+[A-Za-z][A-Za-z0-9_]*\s*(\([^)]*\))?\s*=(?!=)")  # let a = ...


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
    ``definition``: the chain is a definition (LaTeX's ``s := …``, ``\\sigma(z) = …`` of a fresh name),
    reported ``definition`` and unfolded by later chains' ``lets``;
    ``error``: the one line ``path:line: message`` when a line of the chain is bad input (the chain
    is then ``bad-input`` and every other chain is still checked)."""

    name: str
    path: str
    line: int
    assumptions: dict = field(default_factory=dict)  # name -> tuple of properties
    given: tuple = ()  # ((line, "lhs REL rhs"), ...)
    steps: tuple = ()  # Line values
    lets: tuple = ()  # ((line, "name = body"), ...)
    error: str = ""
    definition: str = ""  # "name = body": the chain defines name (steps: name, body); never checked
    notes: tuple = ()  # what a reader says about its reading (LaTeX: "let: \\sigma is sigmoid")
    unknown: tuple = ()  # unknown functions (LaTeX's f(x), L(\\theta)): a link holds for every one
    implicit: tuple = ()  # those read from a derivative alone (dz/dx): never refuted where constant works
    facts: tuple = ()  # ((line, "X, Y independent"), ...): assume: lines about random variables
    unread: str = ""  # a definition whose right side is not read (LaTeX): what was not read; never unfolded
    # a definition of a function of the table (LaTeX's \operatorname{sigmoid}(x) = …) that agrees with it:
    # the table's name, reported a definition, never unfolded (the table's function is the same)
    table: str = ""
    # LaTeX: the words of the section's prose that state facts about the random variables of a chain
    # that states none (d2l's "drawn independently … zero mean"): a refutation is then inconclusive
    prose_facts: str = ""
    # LaTeX: a hypothesis the prose states in words (d2l's "y is a one-hot vector": sum_j y_j = 1), as
    # "given text\tthe line to state\twhat the prose says": a link refuted without it and not refuted
    # under it is inconclusive, naming the line to state (derive); refuted under it, it stays refuted
    prose_given: str = ""

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


def near_directive(word: str) -> str | None:
    """The directive ``word`` is (``assume``, ``given``, ``let``) or is spelled almost like
    (``asume``, ``givn``, ``Let``), or None: ``near_directive("Asume") == "assume"``."""
    import difflib

    w = word.lower()
    for d in ("assume", "given", "let"):
        if w == d or (len(w) > 2 and difflib.SequenceMatcher(None, w, d).ratio() >= 0.8):
            return d
    return None


def _unknown_directive(body: str, where: str) -> None:
    """A line shaped like a directive whose word is not one (``asume: x=real``, ``Let a = 1``,
    ``define a = 1``): one line naming it and the known ones. No expression has ``:``, or a
    name then ``=``, so such a line was never going to be read as mathematics."""
    m = _KEYED.match(body) or _DEFINES.match(body)
    if not m:
        return
    word, near = m.group(1), near_directive(m.group(1))
    hint = f" (did you mean '{near}'?)" if near and near != word else ""
    shape = f"{word}:" if body[m.end(1) :].lstrip().startswith(":") else word
    raise DeriveError(f"{where}: unknown directive {shape!r}{hint}; {_KNOWN}")


def _commented_directive(comment: str, where: str) -> None:
    """``# assume: x=real`` or ``# asume: …``: a directive in a comment is not read, which would
    silently drop it; said instead. ``# Source: …`` and other prose comments pass."""
    m = _KEYED.match(comment) or _DEFINES.match(comment)
    near = near_directive(m.group(1)) if m else None
    if near:
        raise DeriveError(
            f"{where}: '# {comment[: m.end()].strip()}' is a comment, so this {near} is not read; "
            f"write the directive without '#' ({_KNOWN}), or reword the comment"
        )


def _split_relation(text: str) -> tuple[str | None, str]:
    for rel in RELATIONS:
        if text.startswith(rel):
            return CANON.get(rel, rel), text[len(rel) :].strip()
    return None, text


def split_top(text: str, seps) -> list[tuple[str | None, str]]:
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
            elif WORD.fullmatch(tok):
                name = tok
                out.setdefault(name, ())
            else:
                raise ParseError(f"assume: cannot read {tok!r}")
    except ParseError as exc:
        raise DeriveError(f"{where}: {exc}; write e.g. 'assume: x=real n=positive,integer'") from None
    for n, props in out.items():
        if not props:
            raise DeriveError(
                f"{where}: assume: {n!r} has no property; write e.g. 'assume: {n}=positive' "
                f"(properties: {', '.join(PROPERTIES)})"
            )
    return out


def _is_fact(text: str) -> bool:
    """``X, Y independent``, ``X ~ Normal(0, 1)``: a statement about random variables (docs/probability.md)."""
    from mathcheck.userexpr.probability import is_fact

    return is_fact(text)


def parse_text(text: str, path: str, first_line: int = 1) -> list[Chain]:
    """The chains in ``text`` (chain syntax, not Markdown); ``first_line`` numbers its first line.

    A bad line does not stop the reading: its chain gets ``error`` (the line named) and the lines
    up to the next ``##`` header (for a chain without a header: up to the next line that starts a
    chain) are left out; the other chains are read as usual. ``let`` lines before the first chain
    apply to every chain of ``text``; inside a chain, to that chain."""
    chains: list[Chain] = []
    cur: dict | None = None
    shared: list = []  # lets before any chain: scoped to the whole text (a file, a fence)
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
            error = (
                f"{path}:{s.line}: chain {c['name']!r} has one expression and no link; "
                f"continue it with a line starting with = (or <=, <, >=, >, ≈)"
            )
        chain = Chain(
            c["name"],
            path,
            c["line"],
            c["assume"],
            tuple(c["given"]),
            tuple(c["steps"]),
            lets,
            error,
            facts=tuple(c["facts"]),
        )
        if not error and len(chain.steps) > 1:
            try:
                chain.relation
            except ValueError:
                chain = Chain(
                    c["name"],
                    path,
                    c["line"],
                    c["assume"],
                    tuple(c["given"]),
                    tuple(c["steps"]),
                    lets,
                    f"{where}: chain {c['name']!r} mixes ≤ and ≥; a chain goes one way",
                    facts=tuple(c["facts"]),
                )
        chains.append(chain)

    def new(name: str, line: int, named: bool):
        nonlocal cur
        close()
        cur = {
            "name": name,
            "line": line,
            "named": named,
            "assume": {},
            "given": [],
            "steps": [],
            "lets": [],
            "error": "",
            "facts": [],
        }

    def starts_new() -> bool:
        return cur is None or bool(cur["steps"]) or bool(cur["error"])

    def read_line(body, reason, rel, expr, number, where):
        word, space, let = body.partition(" ")
        if rel is None and not (word == "let" and space) and body.partition(":")[0].strip() not in ("assume", "given"):
            _unknown_directive(body, where)
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
            if key.strip() == "assume" and _is_fact(rest):  # about random variables: userexpr.probability
                cur["facts"].append((number, rest.strip()))
            elif key.strip() == "assume":
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
            raise DeriveError(
                f"{where}: {body[:40]!r} continues a chain that has no first expression; "
                f"write the expression being derived on the line before"
            )
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
        if stripped.startswith("#"):  # a comment line, unless it hides a directive
            try:
                _commented_directive(stripped.lstrip("#").strip(), where)
            except DeriveError as exc:
                if cur is None or (cur["steps"] and not cur["named"]):
                    new(f"line {number}", number, False)
                cur["error"], skipping = cur["error"] or str(exc), True
            continue
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
