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

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mathcheck import relations
from mathcheck.chains import APPROX, RELATIONS, WORD, Chain, DeriveError, Line, markdown_chains, parse_text, split_top
from mathcheck.outcome import ExitByStatus, replay, worst

if TYPE_CHECKING:  # annotations only: SymPy and the probability reader are imported where used
    from mathcheck.lazy import sympy as sp
    from mathcheck.userexpr.probability import Facts


def read(path: str, preamble: tuple[str, str] | None = None) -> list[Chain]:
    """The chains of one file: Markdown fences for ``.md``/``.markdown``, LaTeX for ``.tex``, the
    Markdown cells of a notebook (``.ipynb``, each cell read as Markdown), the whole file otherwise.
    ``preamble``: ``(path, text)`` of a macros file (``--macros``) the LaTeX is read with."""
    from mathcheck.userexpr import read_user_file

    text = read_user_file(path, DeriveError)
    suffix = Path(path).suffix.lower()
    if suffix == ".tex":
        from mathcheck import latex

        return latex.chains(text, path, preamble=preamble)
    if suffix in (".md", ".markdown"):
        return _markdown(text, path, preamble)
    if suffix == ".ipynb":
        return [c for where, cell in notebook_cells(text, path) for c in _markdown(cell, where, preamble)]
    return parse_text(text, path)


def _markdown(text: str, path: str, preamble: tuple[str, str] | None = None) -> list[Chain]:
    chains = markdown_chains(text, path)
    if "$$" in text or "\\begin{" in text or "\\[" in text:  # display math: LaTeX chains too (mathcheck.latex)
        from mathcheck import latex

        chains = sorted(chains + latex.chains(text, path, markdown=True, preamble=preamble), key=lambda c: c.line)
    return chains


def notebook_cells(text: str, path: str) -> list[tuple[str, str]]:
    """The Markdown cells of a Jupyter notebook as ``("FILE:cell N", text)``, N counting every
    cell from 1 (the position Jupyter shows), so a line is reported ``FILE.ipynb:cell N:LINE``.
    Code and raw cells are not read (nothing is ever run). A file that is not a notebook's JSON
    is bad input.

        >>> notebook_cells('{"cells": [{"cell_type": "code", "source": "1"},'
        ...                ' {"cell_type": "markdown", "source": ["# t", " x"]}]}', "nb.ipynb")
        [('nb.ipynb:cell 2', '# t x')]
    """
    import json

    try:
        cells = json.loads(text)["cells"]
        if not isinstance(cells, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise DeriveError(
            f'{path}: not a Jupyter notebook (JSON with a list of "cells"); '
            f"save it from Jupyter, or give the .md it was made from"
        ) from None
    out = []
    for n, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if not isinstance(source, str) or not all(isinstance(x, str) for x in cell.get("source", [])):
            raise DeriveError(f"{path}: cell {n}: its source is not text; save the notebook from Jupyter")
        out.append((f"{path}:cell {n}", source))
    return out


# --- validating (before any proving) ----------------------------------------------------------------

GIVEN_RELATIONS = ("!=", "≠") + tuple(r for r in RELATIONS if r not in ("~=", "≈"))


def _hypothesis(lhs, rhs, rel: str):
    """A ``given:`` relation as SymPy: ``Ne`` for ``!=``, else :func:`mathcheck.claim.relation`."""
    from mathcheck.claim import relation
    from mathcheck.lazy import sympy as sp

    return sp.Ne(lhs, rhs, evaluate=False) if rel == "!=" else relation(lhs, rhs, rel)


def _given_relations(text: str, where: str):
    """``"1 <= j <= n"`` → [("1", "<=", "j"), ("j", "<=", "n")]; ``a != 1`` (or ``≠``) too."""
    parts = split_top(text, GIVEN_RELATIONS)
    if len(parts) < 2:
        raise DeriveError(f"{where}: given: {text!r} is not a relation; write e.g. 'given: x >= 1'")
    out = []
    for (_, a), (rel, b) in zip(parts, parts[1:]):
        if not a or not b:
            raise DeriveError(f"{where}: given: {text!r}: a side of {rel!r} is empty")
        out.append((a, relations.of(rel).op, b))
    return out


def _used(assumptions: dict, *texts) -> dict:
    from mathcheck.parser import normalise

    words = {w for t in texts for w in WORD.findall(normalise(t))}
    return {k: v for k, v in assumptions.items() if k in words}


def notes(chain: Chain) -> list[str]:
    """One line for each name the chain gives a meaning other than the grammar's (a shadowed constant)."""
    from mathcheck.parser import EULER, normalise

    out = list(chain.notes)
    if EULER in {normalise(k) for k in chain.assumptions}:
        out.append("e is a variable in this chain (assume: e=...), not Euler's number: e^x is not exp(x)")
    return out


def definitions(chain: Chain) -> tuple:
    """The chain's ``let`` lines as :class:`mathcheck.parser.Definition` values, each read alone,
    then all expanded together (in dependency order, so their order does not matter), so that a bad
    one, or one of a cycle, is named by its own line."""
    from mathcheck.parser import DefinitionError, ParseError, expand, parse_definition

    out, lines = [], {}
    for line, text in chain.lets:
        try:
            d = parse_definition(text)
        except ParseError as exc:
            raise DeriveError(f"{chain.path}:{line}: {exc}") from None
        earlier = next((x for x in out if x.name == d.name), None)
        if earlier is not None and _same_meaning(earlier, d):
            continue  # the prose's $\mu = …$ restated as a % let: with another index: one definition
        out.append(d)
        lines.setdefault(d.name, line)
        if earlier is not None:
            raise DeriveError(
                f"{chain.path}:{line}: let {d.name}: {d.name} is already defined "
                f"(line {lines[d.name]}); choose another name"
            )
    try:
        expand(out)
    except DefinitionError as exc:
        raise DeriveError(f"{chain.path}:{lines.get(exc.name, chain.line)}: {exc}") from None
    except ParseError as exc:
        raise DeriveError(f"{chain.path}:{chain.line}: {exc}") from None
    return tuple(out)


def _same_meaning(a, b) -> bool:
    """Whether two definitions of one name say the same thing: the same parameters and bodies equal
    up to the names of their bound indices (Σ_i a_i and Σ_k a_k). Anything else is a redefinition."""
    from mathcheck.parser import ParseError, parse
    from mathcheck.symbolic.sums import canonical_sums

    if a.params != b.params:
        return False
    try:
        return canonical_sums(parse(a.body)) == canonical_sums(parse(b.body))
    except ParseError:
        return False


def resolved(chain: Chain) -> list[dict]:
    """Each ``let`` as read and as it is substituted: its other definitions put in (in dependency
    order) and any index renamed to avoid a capture, for the report. ``[]`` when a let is bad.

        >>> c = Chain("c", "t", 1, lets=((2, "a = b + 1"), (3, "b = 5")))
        >>> [d["expanded"] for d in resolved(c)]
        ['5 + 1', '5']
    """
    import ast
    import copy

    from mathcheck.parser import ParseError, _rename_free, expand

    try:
        defs = definitions(chain)
        table = expand(defs)
    except (DeriveError, ParseError):
        return []
    out = []
    for d in defs:
        params, tree, shown = table[d.name]
        tree = copy.deepcopy(tree)
        for fresh, written in zip(params, shown):
            _rename_free(tree, fresh, written)
        head = f"{d.name}({', '.join(shown)})" if shown else d.name
        out.append(
            {
                "name": d.name,
                "params": list(shown),
                "as_read": f"{head} = {d.body}",
                "expanded": ast.unparse(tree).replace(" ** ", "^"),
            }
        )
    return out


def bounds(chain: Chain) -> tuple:
    """The bound each link states (:func:`mathcheck.userexpr.approx.read_bound`; None for a link
    that is not ``≈`` or states none): a bad bound is a :class:`DeriveError` naming its line."""
    from mathcheck.userexpr.approx import BoundError, read_bound

    out = []
    for s in chain.steps[1:]:
        try:
            out.append(read_bound(s.reason) if s.relation == APPROX else None)
        except BoundError as exc:
            raise DeriveError(f"{chain.path}:{s.line}: {exc}") from None
    return tuple(out)


def validate(chain: Chain) -> tuple[tuple[sp.Basic, ...], tuple[sp.Basic, ...]]:
    """Parse every expression and hypothesis of ``chain`` (one shared set of symbols, its ``let``
    definitions expanded); return ``(expressions, hypotheses)`` as SymPy objects or raise
    :class:`DeriveError` naming the bad line."""
    from mathcheck.parser import ParseError, parse_many

    if chain.error:
        raise DeriveError(chain.error)
    if chain.unread or chain.table:  # a right side not read, or the table's function: nothing checked
        return (), ()
    if chain.definition:  # it must read, with the definitions before it; nothing is checked
        definitions(replace(chain, lets=chain.lets + ((chain.line, chain.definition),)))
        return (), ()
    bounds(chain)
    defs = definitions(chain)
    givens = [(line, rels) for line, text in chain.given for rels in [_given_relations(text, f"{chain.path}:{line}")]]
    texts = [s.text for s in chain.steps] + [x for _, rels in givens for a, _, b in rels for x in (a, b)]
    lines = [s.line for s in chain.steps] + [line for line, rels in givens for _ in rels for _ in (0, 1)]
    known = facts(chain)  # a bad fact is bad input before anything is read
    laws = dict(known.laws) if known else {}  # p(x, z), p(z | x): symbolic/laws.py
    unknown = tuple(u for u in chain.unknown if u not in laws)
    try:
        parsed = parse_many(texts, chain.assumptions, defs=defs, unused_ok=True, unknown=unknown, laws=laws)
    except ParseError as whole:
        for text, line in zip(texts, lines):  # only now one at a time, so the error names its line
            try:
                parse_many([text], chain.assumptions, defs=defs, unused_ok=True, unknown=unknown, laws=laws)
            except ParseError as exc:
                raise DeriveError(f"{chain.path}:{line}: {_composition(chain, exc)}") from None
        raise DeriveError(f"{chain.path}:{chain.line}: chain {chain.name!r}: {_composition(chain, whole)}") from None
    _entry_assumptions(chain, texts)
    facts(chain)  # a bad fact is bad input before anything is proved
    exprs, rest = parsed[: len(chain.steps)], iter(parsed[len(chain.steps) :])
    hyps = tuple(_hypothesis(next(rest), next(rest), rel) for _, rels in givens for _a, rel, _b in rels)
    return exprs, hyps


def _composition(chain: Chain, exc) -> str:
    r"""The parser's "y is used both as a function and as a value", said as the reader's case it is: y read
    as an unknown function from its derivative (dy/dx) and a variable of another (dz/dy) —
    ``\frac{dz}{dx} = \frac{dz}{dy} \frac{dy}{dx}`` with nothing said of z and y is the chain rule of a
    composition z(y(x)) the document never states; with ``$y = g(x)$`` and ``$z = f(y)$`` before the
    display it is read and checked."""
    import re

    m = re.match(r"(\w+) is used both as a function", str(exc))
    if not (m and m.group(1) in chain.implicit):
        return str(exc)
    y = m.group(1)
    return (
        f"{y} is a function here (d{y}/d…, read from its derivative) and the variable of another derivative "
        f"(d…/d{y}): a composition the document does not state; state it before the display, e.g. with "
        f"$y = g(x)$ and $z = f(y)$"
    )


def _entry_assumptions(chain: Chain, texts) -> None:
    """``assume: x_1=positive`` is about the name ``x_1`` only; where the chain writes no ``x_1`` but
    indexes ``x[...]``, the author meant an entry, which a property cannot name (it would be every
    entry's): bad input, with the hypothesis to write instead."""
    import re

    from mathcheck.parser import normalise

    joined = normalise(" ".join(texts))
    words = set(WORD.findall(joined))
    indexed = set(re.findall(r"([A-Za-z][A-Za-z0-9_]*)\s*\[", joined))
    for name, props in chain.assumptions.items():
        base, _, sub = name.rpartition("_")
        if name not in words and base in indexed and sub:
            raise DeriveError(
                f"{chain.path}:{chain.line}: assume: {name} is a name of its own, which the chain "
                f"does not use, not the entry {base}[{sub}]; state a property of one entry as a "
                f"hypothesis, e.g. 'given: {base}[{sub}] > 0'"
            )


def defined_elsewhere(chain: Chain, chains) -> None:
    """A name the chain uses that only another chain's ``let`` defines is bad input: that ``let``
    holds for its own chain (one before the first chain holds for all), so here the name would be
    a free variable while the author meant the definition."""
    from mathcheck.parser import normalise

    if (chain.definition or chain.unread or chain.table) and len(chain.steps) == 2:
        # a definition alone asserts nothing: the names of its body are references, which may be
        # defined after it (the Layer Norm paper's σ² = (1/H) Σ (a_i − μ)² "with μ = …")
        return
    # a definition the LaTeX reader unfolds into a chain's lets is the document's, in force over the
    # span the reader gives it (its section, or the file), not one chain's: d2l's a(w, x, y, z) = …
    # under "Multivariate Chain Rule" made the scalar a of a later section's d/dx(x a x) bad input
    documents = {normalise(c.definition) for c in chains if c.definition}

    def names(c, mine=True):
        return {
            normalise(t).split("=")[0].split("(")[0].strip(): line
            for line, t in c.lets
            if mine or normalise(t) not in documents
        }

    own = names(chain)
    if chain.definition:  # a definition read from LaTeX defines its own name: later chains carry it as a let
        own |= names(replace(chain, lets=((chain.line, chain.definition),)))
    words = {w for s in chain.steps for w in WORD.findall(normalise(s.text))}
    words |= {w for _, g in chain.given for w in WORD.findall(normalise(g))}
    for other in chains:
        for name, line in names(other, mine=False).items():
            if other is not chain and name not in own and name in words:
                raise DeriveError(
                    f"{chain.path}:{chain.line}: {name} is defined by the let on line {line}, "
                    f"which holds for chain {other.name!r} only; repeat the let in this chain "
                    f"or move it before the first chain to share it"
                )


def given_texts(chain: Chain) -> tuple[str, ...]:
    """The hypotheses as ``"lhs REL rhs"`` strings, one relation each."""
    return tuple(
        f"{a} {rel} {b}" for line, text in chain.given for a, rel, b in _given_relations(text, f"{chain.path}:{line}")
    )


def load(paths, optional=()) -> list[tuple[str, list[Chain]]]:
    """Read every file; raise :class:`DeriveError` when a file cannot be read or holds no chain.

    A bad line does not raise: its chain carries the error (see :func:`parse_text`) and is
    reported ``bad-input`` while the others are checked. A file named in ``optional`` (one a glob
    such as ``docs/**/*.md`` matched) may hold no chain: it is left out."""
    out = []
    for path in paths:
        chains = load_one(path, str(path) in optional)
        if chains is not None:
            out.append((str(path), chains))
    return out


def load_one(path, optional: bool = False, preamble: tuple[str, str] | None = None) -> list[Chain] | None:
    """One file's chains for :func:`load`: None for an ``optional`` file without a chain."""
    chains = read(str(path), preamble)
    if not chains and optional:
        return None
    if not chains:
        if Path(path).suffix.lower() == ".tex":
            raise DeriveError(f"{path}: no display math with a relation; see docs/latex.md")
        where = "no ```mathcheck fence" if Path(path).suffix.lower() in (".md", ".markdown") else "no chain"
        raise DeriveError(f"{path}: {where}; see docs/derive.md for the syntax")
    return chains


# --- checking ---------------------------------------------------------------------------------------


def _check_link(lhs: str, rhs: str, relation: str, assumptions: dict, given=(), seed: int = 0, timeout: float = 30.0):
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
        return CheckResult(
            "bad-input", lhs, rhs, dict(assumptions), seed, message=str(exc), relation=relation, given=given
        )
    hyps = tuple(_hypothesis(parsed[2 + 2 * k], parsed[3 + 2 * k], r) for k, (_, r, _) in enumerate(rels))
    return _relation(parsed[0], parsed[1], relation, used, hyps, seed, timeout, lhs, rhs)


def _relation(
    L,
    R,
    relation: str,
    assumptions: dict,
    hyps,
    seed: int,
    timeout: float,
    lhs: str,
    rhs: str,
    implicit=(),
    facts=None,
    prose=False,
):
    from mathcheck.userexpr import check_relation
    from mathcheck.userexpr import unknown

    if facts is not None:  # a link about random variables (docs/probability.md)
        from mathcheck.userexpr import probability

        return probability.check(
            L, R, relation, assumptions, hyps, facts, seed, timeout, lhs_text=lhs, rhs_text=rhs, prose=prose
        )
    if unknown.unknowns(L, R, *hyps):  # f(x): proved only for every function
        return unknown.check(
            L, R, relation, assumptions, hyps, seed, timeout, lhs_text=lhs, rhs_text=rhs, implicit=implicit
        )

    # patient: a refuted link's account (symbolic or numeric) must not depend on the machine's load,
    # so that -j N, a cluster and a re-run print what -j 1 printed
    return check_relation(L, R, relation, assumptions, hyps, seed, timeout, lhs_text=lhs, rhs_text=rhs, patient=True)


def facts(chain: Chain, exprs=()) -> Facts | None:
    """The chain's facts about random variables (:func:`mathcheck.userexpr.probability.read_facts`),
    or None for a chain that has no expectation and states no such fact: it is checked as any other.
    A fact that cannot be read is a :class:`DeriveError` naming its line."""
    from mathcheck.symbolic.expectation import has_probability
    from mathcheck.userexpr.probability import FactError, Facts, check_laws, read_facts

    if not chain.facts and not has_probability(*exprs):
        return None
    out = Facts()
    for line, text in chain.facts:
        try:
            out = read_facts(text, out)
        except FactError as exc:
            raise DeriveError(f"{chain.path}:{line}: {exc}") from None
    try:
        check_laws(out)
    except FactError as exc:
        raise DeriveError(f"{chain.path}:{chain.facts[0][0]}: {exc}") from None
    return _assumed_parameters(out, chain.assumptions)


def _assumed_parameters(facts: Facts, assume: dict) -> Facts:
    """A law's parameters with the chain's ``assume:`` properties (``lam=positive`` for ``Exponential(lam)``):
    a parameter the link does not write (P(X > t) of that law) keeps them too."""
    import dataclasses

    from mathcheck.lazy import sympy as sp
    from mathcheck.parser import ParseError, _symbol_assumptions

    def with_props(p):
        if not isinstance(p, sp.Basic) or isinstance(p, sp.IndexedBase):
            return p
        rep = {}
        for s in p.atoms(sp.Symbol):
            if s.name in assume and not s.is_integer:
                try:
                    rep[s] = sp.Symbol(s.name, **_symbol_assumptions(s.name, assume[s.name], False))
                except ParseError:
                    continue
        return p.xreplace(rep)

    dists = {n: (fam, tuple(with_props(p) for p in params)) for n, (fam, params) in facts.distributions.items()}
    return dataclasses.replace(facts, distributions=dists)


def _account(r) -> dict:
    """How a link was decided, as plain data (the proof cache and ``-j``'s workers carry it;
    :mod:`mathcheck.render.accounts` words it): the
    :class:`~mathcheck.userexpr.relation.CheckResult`'s own ``how`` and ``message`` and the fields
    of its sides that the words use."""
    sym = r.symbolic
    return {
        "how": r.how,
        "message": r.message,
        "symbolic": None if sym is None else {"status": sym.status, "how": sym.how},
        "numeric": _numeric(r.numeric),
    }


def _numeric(num) -> dict | None:
    """A :class:`~mathcheck.userexpr.relation.NumericSide` (None: not run) as the fields its words use."""
    return None if num is None else {k: getattr(num, k) for k in ("status", "points", "skipped", "note", "summary")}


@dataclass(frozen=True)
class StepReport:
    line: int
    expr: str
    relation: str | None
    reason: str
    status: str  # "start" for the first expression
    how: str = ""
    counterexample: dict | None = None
    values: dict | None = None
    measured: dict | None = None  # a ≈ link: largest error, where, the bound and the points searched
    source: str = ""  # as typeset, for a chain read from LaTeX
    bound: dict | None = None  # a ≈ link: its bound as read ({"text", "exact", "value", "relative"})
    account: dict | None = None  # a checked link: :func:`_account` (``how`` is then empty)


@dataclass(frozen=True)
class ChainReport:
    """A checked chain, with what the reports print about it read once here (:func:`chain_report`),
    so a renderer only prints values."""

    chain: Chain
    status: str
    steps: tuple
    statement: dict  # the numeric check of first REL last
    message: str = ""  # bad input: the one line naming the bad line
    given: tuple = ()  # the hypotheses, one relation each: ("1 <= j", "j <= n")
    relation: str | None = None  # the chain's relation; None for one that has no link or mixes them
    notes: tuple = ()  # :func:`notes`
    definitions: tuple = ()  # :func:`resolved`: each let as read and as substituted

    @property
    def failing(self) -> StepReport | None:
        return next((s for s in self.steps if s.status in ("refuted", "inconclusive", "bad-input")), None)


def chain_report(chain: Chain, status: str, steps: tuple, statement: dict, message: str = "") -> ChainReport:
    """The :class:`ChainReport` of ``chain`` with its hypotheses, relation, notes and definitions
    as the reports show them (a hypothesis that cannot be split is shown as written)."""
    try:
        given, relation = given_texts(chain), chain.relation if len(chain.steps) > 1 else None
    except (DeriveError, ValueError):
        given, relation = tuple(g for _, g in chain.given), None
    return ChainReport(
        chain, status, steps, statement, message, given, relation, tuple(notes(chain)), tuple(resolved(chain))
    )


def _status(statuses) -> str:
    """The worst status (:func:`mathcheck.outcome.worst`): bad-input, refuted, inconclusive, then
    holds-within (a chain with a ≈ link is never proved)."""
    return worst(statuses).word


def replay_line(paths, seed: int = 0, timeout: float = 30.0) -> str:
    """``mathcheck derive FILE... --seed S`` (and ``--timeout T`` when not the default)."""
    return replay(
        "derive", [str(p) for p in paths], [("--seed", seed), ("--timeout", None if timeout == 30.0 else timeout)]
    )


def bad_chain(chain: Chain, message: str) -> ChainReport:
    """The report of a chain with a bad line: ``bad-input``, the line named, nothing checked."""
    steps = tuple(
        StepReport(s.line, s.text, s.relation, s.reason, "start" if s.relation is None else "bad-input")
        for s in chain.steps
    )
    statement = {"relation": None, "status": "bad-input", "how": message, "counterexample": None, "values": None}
    return chain_report(chain, "bad-input", steps, statement, message)


def defined(chain: Chain) -> ChainReport:
    """The report of a definition: ``definition``, never proved or refuted; later chains unfold it."""
    first, body = chain.steps[0], chain.steps[-1]
    name = chain.definition.split("=")[0].strip() if chain.definition else first.text
    # a right side not read (LaTeX's \hat{y} = \mathbf{w}^\top \mathbf{x} + b): said, and never unfolded
    unread = ", never unfolded: its right side is not read" if chain.unread else ""
    if chain.unread and chain.steps[-1].text != "(not read)":  # read, but not in its arguments (latex/blocks.py)
        unread = f", never unfolded: {chain.unread}"
    if chain.table:  # \operatorname{sigmoid}(x) = \frac{1}{1 + \exp(-x)}: the author defines the table's function
        name, unread = first.text, f", the function table's {chain.table}, which it agrees with"
    steps = (
        StepReport(first.line, first.text, None, first.reason, "start", "the name defined", source=first.source),
        StepReport(
            body.line,
            body.text,
            body.relation,
            body.reason,
            "definition",
            f"defines {name}{unread or ', unfolded where it is used later'}",
            source=body.source,
        ),
    )
    statement = {
        "relation": body.relation,
        "status": "definition",
        "how": f"defines {name}{unread}",
        "counterexample": None,
        "values": None,
    }
    return chain_report(chain, "definition", steps, statement)


def _approx_step(cur: Line, L, R, hyps, seed: int, bound=None) -> StepReport:
    from mathcheck.userexpr.approx import measure

    try:
        m = measure(L, R, seed, hyps, bound)
    except Exception as exc:  # noqa: BLE001 - a measurement that fails is inconclusive, never a crash
        m = {"status": "inconclusive", "how": f"the measurement failed: {type(exc).__name__}: {exc}"[:300]}
    cex = m.get("where") if m["status"] == "refuted" else None
    read = (
        None
        if bound is None
        else {"text": bound.text, "exact": str(bound.exact), "value": bound.value, "relative": bound.relative}
    )
    return StepReport(
        cur.line,
        cur.text,
        cur.relation,
        cur.reason,
        m["status"],
        m["how"],
        cex,
        m.get("values") if cex else None,
        {k: v for k, v in m.items() if k not in ("status", "how")},
        bound=read,
    )


def check_chain(chain: Chain, seed: int = 0, timeout: float = 30.0, parsed=None) -> ChainReport:
    """Check every link of ``chain`` (:func:`mathcheck.userexpr.check_relation`; a ``≈`` link by
    :func:`mathcheck.userexpr.approx.measure`) and its statement ``first REL last`` (the same
    pipeline's numeric side). A chain with a bad line is ``bad-input``, never an exception: the
    entry point for chains built by any reader (text, Markdown, LaTeX). ``parsed``: what
    :func:`validate` returned for it, when the caller has already parsed it.

    The same three pieces :mod:`mathcheck.book` runs one link at a time, in other processes:
    :func:`check_link` for each link, :func:`check_statement`, then :func:`assemble`."""
    try:
        parsed = validate(chain) if parsed is None else parsed
        if chain.definition or chain.unread or chain.table:
            return defined(chain)
        bounds(chain)
    except DeriveError as exc:
        return bad_chain(chain, str(exc))
    steps = [check_link(chain, k, seed, timeout, parsed) for k in range(1, len(chain.steps))]
    return assemble(chain, steps, check_statement(chain, seed, timeout, parsed))


def check_link(chain: Chain, k: int, seed: int = 0, timeout: float = 30.0, parsed=None) -> StepReport:
    """Link ``k`` (1 ≤ k < len(chain.steps)): ``steps[k-1] REL steps[k]`` under the chain's
    assumptions, hypotheses and definitions, for a chain :func:`validate` accepts. It depends on
    the chain's text and the options only, never on another link's result, so links may be
    checked in any order, in any process."""
    exprs, hyps = validate(chain) if parsed is None else parsed
    prev, cur = chain.steps[k - 1], chain.steps[k]
    L, R = exprs[k - 1], exprs[k]
    if cur.relation == APPROX:
        return replace(_approx_step(cur, L, R, hyps, seed, bounds(chain)[k - 1]), source=cur.source)
    # a law's parameter the link does not name keeps its assumption (X ~ Exponential(lambda), lambda > 0)
    facts_texts = (t for _, t in chain.facts)
    used = _used(chain.assumptions, prev.text, cur.text, *given_texts(chain), *(t for _, t in chain.lets), *facts_texts)
    r = _relation(
        L,
        R,
        cur.relation,
        used,
        hyps,
        seed,
        timeout,
        prev.text,
        cur.text,
        chain.implicit,
        facts(chain, exprs),
        chain.prose_facts or bool(cur.source),
    )  # source: read from a document, its prose unread (prose_facts: what it says of the variables)
    example = _worked_example(L, R, prev.text, cur.text) if r.status == "refuted" and cur.source else None
    if r.status == "refuted" and chain.prose_given and not example:
        example = _under_prose_given(chain, k - 1, k, cur.relation, seed, timeout)
    if example:
        return StepReport(cur.line, cur.text, cur.relation, cur.reason, "inconclusive", example, source=cur.source)
    return StepReport(
        cur.line,
        cur.text,
        cur.relation,
        cur.reason,
        r.status,
        counterexample=r.counterexample,
        values=r.values,
        source=cur.source,
        account=_account(r),
    )


def _under_prose_given(chain: Chain, i: int, j: int, relation: str, seed: int, timeout: float) -> str | None:
    r"""What to say of a link (or statement: expressions ``i``, ``j``) refuted without the hypothesis its
    document's prose states in words (``Chain.prose_given``: d2l's "y is a one-hot vector", \sum_j y_j = 1):
    checked again under it, numerically (never a proof: the hypothesis is the prose's, not written), one
    line saying what to state when it passes there; None where it does not (a mistake at a one-hot y, or
    no point checked): that refutation stands. The sum is made to hold by construction, each y[j] read
    as y[j] / \sum_k y[k] (every family summing to 1 is its own such quotient): no point is rejected."""
    import sympy as sp

    from mathcheck.userexpr.relation import numeric_side

    given, line, words, *positive = chain.prose_given.split("\t")
    try:
        if given.startswith("range "):  # 0 < pi_i < 1: each entry read as sigmoid(pi_i), onto (0, 1)
            exprs, hyps = validate(replace(chain, prose_given=""))
            name = given.split()[1]

            def normed(e):
                return e.replace(
                    lambda x: isinstance(x, sp.Indexed) and str(x.base) == name, lambda x: 1 / (1 + sp.exp(-x))
                )

        elif given.startswith("simplex "):  # a vector of probabilities: pi[j] read as a softmax over 1..k
            exprs, hyps = validate(replace(chain, prose_given=""))
            _, name, size = given.split()
            sizes = {str(x): x for e in exprs for x in e.free_symbols}
            if size not in sizes:
                return None
            m = sp.Dummy("m", integer=True)

            def normed(e, size=sizes[size]):
                def soft(x):
                    return sp.exp(x) / sp.Sum(sp.exp(x.base[m]), (m, 1, size))

                return e.replace(lambda x: isinstance(x, sp.Indexed) and str(x.base) == name, soft)

        else:  # sum_j y_j = 1: each y[j] read as y[j] / sum_k y[k]
            exprs, hyps = validate(replace(chain, given=(*chain.given, (chain.line, given)), prose_given=""))
            total = hyps[-1].lhs if isinstance(hyps[-1], sp.Equality) else None
            if not (isinstance(total, sp.Sum) and isinstance(total.function, sp.Indexed)):
                return None
            hyps = hyps[:-1]

            def normed(e, base=total.function.base, total=total):
                return e.replace(lambda x: isinstance(x, sp.Indexed) and x.base == base, lambda x: x / total)

    except DeriveError:
        return None

    try:
        again = numeric_side(normed(exprs[i]), normed(exprs[j]), relation, seed, hyps, "auto", timeout)
    except DeriveError:
        return None
    if again["status"] != "passed":  # refuted there, or no point of it checked: the refutation stands
        return None
    if positive:  # probabilities: what the directives can say is every entry positive; does the link need more?
        name = given.split()[1]

        def exped(e):
            return e.replace(lambda x: isinstance(x, sp.Indexed) and str(x.base) == name, sp.exp)

        try:
            pos = numeric_side(exped(exprs[i]), exped(exprs[j]), relation, seed, hyps, "auto", timeout)
        except DeriveError:
            pos = {"status": "error"}
        # every entry positive is enough where it passes with no more points off the reals than the prose's
        # range had (d2l's log ∏_j π_j^{y_j}); log(1 - π_i) needs π_i < 1 too: the line says what, in words
        if pos["status"] == "passed" and pos.get("skipped", 0) <= again.get("skipped", 0):
            return (
                f"refuted without the hypothesis the prose states ({words}), passed under it; every entry "
                f"positive is all it needs: state it, {positive[0]}"
            )
        return (
            f"refuted without the hypothesis the prose states ({words}), passed under it; it needs {line}, "
            f"which mathcheck cannot take as a hypothesis yet ({positive[0]} states the lower bound only)"
        )
    return f"refuted without the hypothesis the prose states ({words}), passed under it: state it, {line}"


def _worked_example(L, R, *texts: str) -> str | None:
    """What a document's link evaluates, when one side is a number and the other's names all come from
    the document's definitions (none written in the link): the statnotes' ``\\textrm{PPV} =
    \\frac{0.00099}{0.00099 + 0.04995}`` after ``\\textrm{PPV} = \\frac{TP}{TP + FP}`` is PPV at the example's
    TP and FP, values its prose gives — a worked example, not a claim for every TP and FP, so its
    refutation would be a misreading: ``inconclusive``, saying what to state. None otherwise.

        >>> from sympy import Rational, symbols
        >>> tp, fp = symbols("TP FP", positive=True)
        >>> _worked_example(tp / (tp + fp), Rational(1, 50), "PPV", "0.02")[:41]
        'a worked example: PPV at values of FP, TP'
    """
    from mathcheck.parser import normalise

    written = {w for t in texts for w in WORD.findall(normalise(t))}
    for side, number in ((L, R), (R, L)):
        free = {str(x) for x in side.free_symbols}
        if number.free_symbols or not free or free & written:
            continue
        names = ", ".join(sorted(free))
        shown = next((w for w in WORD.findall(normalise(texts[0 if side is L else 1]))), "it")
        return (
            f"a worked example: {shown} at values of {names} its prose gives (not read), not a claim for "
            f"every {names}; state them to check it (% let: {sorted(free)[0]} = …)"
        )
    return None


def check_statement(chain: Chain, seed: int = 0, timeout: float = 30.0, parsed=None) -> dict:
    """The chain's statement ``first REL last``, numerically (a ``≈`` chain: measured against the
    sum of its links' bounds, exact when every one is absolute)."""
    from mathcheck.userexpr.approx import Bound
    from mathcheck.userexpr.relation import NumericSide, numeric_side

    exprs, hyps = validate(chain) if parsed is None else parsed
    if chain.relation == APPROX:  # the statement's bound: the links' bounds add up (triangle inequality)
        stated = bounds(chain)
        given_bounds = [b for s, b in zip(chain.steps[1:], stated) if s.relation == APPROX]
        total = None
        if all(b is not None and not b.relative for b in given_bounds):  # exact: 1/1000 + 1/1000 is 1/500
            total = Bound(" + ".join(b.text for b in given_bounds), sum(b.exact for b in given_bounds), False)
        st = _approx_step(
            Line(chain.steps[-1].line, APPROX, chain.steps[-1].text, ""), exprs[0], exprs[-1], hyps, seed, total
        )
        return {
            "relation": APPROX,
            "status": st.status,
            "how": st.how,
            "counterexample": st.counterexample,
            "values": st.values,
            "bound": st.bound,
        }
    from mathcheck.userexpr import unknown

    known = facts(chain, exprs)
    if known is not None:  # drawn distributions, by definition (userexpr.probability)
        from mathcheck.userexpr import probability

        num = probability.numeric(
            exprs[0],
            exprs[-1],
            chain.relation,
            hyps,
            probability.facts_for((exprs[0], exprs[-1], *hyps), known, every=bool(chain.prose_facts)),
            seed,
            timeout,
            chain.prose_facts or bool(chain.steps[0].source),
        )
    elif unknown.unknowns(exprs[0], exprs[-1], *hyps):
        num = unknown.numeric_statement(exprs[0], exprs[-1], chain.relation, seed, hyps, timeout, chain.implicit)
    else:
        num = numeric_side(exprs[0], exprs[-1], chain.relation, seed, hyps, "auto", timeout)
    first, last = chain.steps[0], chain.steps[-1]
    example = _worked_example(exprs[0], exprs[-1], first.text, last.text) if first.source else None
    if num["status"] == "refuted" and chain.prose_given and not example:
        example = _under_prose_given(chain, 0, -1, chain.relation, seed, timeout)
    if num["status"] == "refuted" and example:
        num = {"status": "inconclusive", "points": 0, "skipped": 0, "note": None, "summary": example}
    side = NumericSide.of({k: v for k, v in num.items() if k not in ("counterexample", "values")})
    return {
        "relation": chain.relation,
        "status": num["status"],
        "how": "",  # in words by render.accounts.statement, from:
        "numeric": _numeric(side),
        "counterexample": num.get("counterexample"),
        "values": num.get("values"),
    }


def assemble(chain: Chain, links, statement: dict) -> ChainReport:
    """The chain's report from its links' reports and its statement's: the worst link, made
    ``refuted`` by a refuted statement and ``inconclusive`` by a statement not passed under
    proved links (a ``≈`` statement is measured: only its refutation counts)."""
    first = chain.steps[0]
    steps = (
        StepReport(
            first.line, first.text, None, first.reason, "start", "the expression being derived", source=first.source
        ),
        *links,
    )
    status = _status([s.status for s in steps[1:]])
    approx = statement["relation"] == APPROX
    if statement["status"] == "refuted" and (status != "bad-input" or not approx):
        status = "refuted"
    elif not approx and status == "proved" and statement["status"] != "passed":
        status = "inconclusive"
    return chain_report(chain, status, steps, statement)


@dataclass(frozen=True)
class DeriveReport(ExitByStatus):
    files: tuple  # ((path, (ChainReport, ...)), ...)
    seed: int = 0
    timeout: float = 30.0
    specs: tuple = ()  # what the user named (files, directories, globs): the replay line names these

    @property
    def status(self) -> str:
        found = [c.status for _, chains in self.files for c in chains]
        checked = [s for s in found if s != "definition"]
        return _status(checked) if checked or not found else "definition"

    @property
    def replay(self) -> str:
        return replay_line(self.specs or [path for path, _ in self.files], self.seed, self.timeout)

    def counts(self) -> dict:
        """Files, chains and links by status: ``{"files": 2, "chains": {"total": 3, "proved": 3},
        "links": {"total": 7, "read": 7, "proved": 7}}``; ``read`` counts the links read into the
        grammar (every one but ``bad-input``). A definition's one link counts as ``definition``."""
        return counts(self.files)

    def file_counts(self) -> tuple[dict, ...]:
        """:meth:`counts` of each file alone, in the order of ``files``."""
        return tuple(counts([f]) for f in self.files)


def counts(files) -> dict:
    """:meth:`DeriveReport.counts` of ``((path, chain reports), ...)`` (a file's own: one pair)."""
    chains, links = {"total": 0}, {"total": 0, "read": 0}
    for _, reports in files:
        for r in reports:
            chains["total"] += 1
            chains[r.status] = chains.get(r.status, 0) + 1
            for s in r.steps[1:]:
                links["total"] += 1
                links["read"] += s.status != "bad-input"
                links[s.status] = links.get(s.status, 0) + 1
    return {"files": len(files), "chains": chains, "links": links}


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
                defined_elsewhere(chain, chains)
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
