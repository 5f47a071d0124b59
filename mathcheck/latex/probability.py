r"""Probability's notation read into the text grammar (docs/probability.md); the reader's hook.

* ``\mathbb{E}[X^2]``, ``\mathbb{E}(X)``, ``\operatorname{E}[X]`` → ``E(X^2)``;
* ``\mathrm{Var}(X)``, ``\operatorname{Var}[X]``, ``\mathbb{V}[X]`` → ``Var(X)``;
  ``\mathrm{Cov}(X, Y)`` → ``Cov(X, Y)``;
* ``\mathcal{N}(x \mid \mu, \sigma^2)`` and ``\mathcal{N}(x; \mu, \sigma^2)`` (a density) →
  ``normal_pdf(x, mu, sigma^2)``; ``\mathcal{N}(\mu, \sigma^2)`` (a distribution) → ``Normal(mu, sigma^2)``,
  likewise ``\mathrm{Bernoulli}(p)``, ``\mathrm{Uniform}(a, b)``, ``\mathrm{Exponential}(\lambda)``,
  ``\mathrm{Laplace}(\mu, b)``;
* ``\mathrm{KL}(P \,\|\, Q)`` (also ``D_{\mathrm{KL}}``-free spellings ``\mathrm{KL}(P \parallel Q)``)
  → ``KL(P, Q)``;
* ``% assume: X, Y \text{ independent}``, ``% assume: X \sim \mathcal{N}(0, 1)``: :func:`fact`.

An expectation with a subscript (``\mathbb{E}_{x \sim p}``) integrates over some variables only;
it is refused with the spelling to use (a fact ``% assume: x \sim …`` and ``\mathbb{E}[…]``).

    >>> from mathcheck.latex import chains
    >>> [s.text for s in chains("$$\\mathbb{E}[X^2] = \\mathrm{Var}(X) + \\mathbb{E}[X]^2$$", "n.md",
    ...                          markdown=True)[0].steps]
    ['E(X^2)', 'Var(X) + E(X)^2']
"""

from __future__ import annotations

import re

OPERATORS = {"E": "E", "Var": "Var", "V": "Var", "Cov": "Cov", "KL": "KL", "D_KL": "KL", "DKL": "KL"}
FAMILIES = {
    "N": "Normal",
    "Normal": "Normal",
    "Gaussian": "Normal",
    "Bernoulli": "Bernoulli",
    "Bern": "Bernoulli",
    "Uniform": "Uniform",
    "U": "Uniform",
    "Exponential": "Exponential",
    "Exp": "Exponential",
    "Laplace": "Laplace",
    "Categorical": "Categorical",
    "Cat": "Categorical",
}
DENSITIES = {"Normal": "normal_pdf"}
_EXAMPLES = {"E": "\\mathbb{E}[X]", "Var": "\\mathrm{Var}(X)", "Cov": "\\mathrm{Cov}(X, Y)"}
_WRAPPERS = ("mathbb", "mathrm", "operatorname", "text", "mathsf", "mathcal", "textrm", "mathbf")
_FACT = re.compile(
    r"\\sim\b|\b(independent|zero[ ~]mean|mean[ ~]0|unit[ ~]variance|variance[ ~]1|random)"
    r"(?=\s*(?:[,;}]|$))"
)


# a declared law, p(x, z), q(z) \text{ laws}, or its positivity, p(x, z) > 0 (symbolic/laws.py)
_LAW_FACT = re.compile(
    r"^\s*[A-Za-z]\w*\s*\([^()]*\)(?:\s*,\s*[A-Za-z]\w*\s*\([^()]*\))*\s*(?:\\text\s*\{\s*laws?\s*\}|laws?)\s*$"
)
_LAW_POSITIVE = re.compile(r"^\s*[A-Za-z]\w*\s*\([^()]*\)\s*>\s*0\s*$")


# a random variable defined as a function of another, Y = \sigma X + \mu (the change of variables)
_TRANSFORM = re.compile(r"^\s*[A-Z][A-Za-z0-9]*\s*=(?!=)(?=.*(?<![\\A-Za-z])[A-Z])")


def is_fact(raw: str) -> bool:
    """Whether a ``% assume:`` item is about random variables or declared laws."""
    return bool(_FACT.search(raw) or _LAW_FACT.match(raw) or _LAW_POSITIVE.match(raw) or _TRANSFORM.match(raw))


def law_expectation(reader, t, word: str) -> str | None:
    r"""``\mathbb{E}_{z \sim q}[f]``, ``\mathbb{E}_{q(z)}[f]``, ``\mathbb{E}_{q}[f]``: the expectation
    under the law q (declared: ``% assume: p(x, z), q(z) \text{ laws}``) → ``E_q(f)``; None for another
    subscript (the caller refuses it). At the ``_``, not yet taken."""
    from mathcheck.latex.tokens import _group

    toks, j = _group(reader.t, reader.i + 1, reader.src, "_")
    toks = [x for x in toks if not (x.kind == "cmd" and x.text in (",", ";", ":", "!", " ", "quad"))]
    letters = [x for x in toks if x.kind == "ch" and x.text.isalpha()]
    name, var = None, None
    if len(toks) == 1 and letters:  # E_q
        name = toks[0].text
    elif len(toks) == 4 and toks[1].kind == "ch" and toks[1].text == "(" and toks[3].text == ")":  # E_{q(z)}
        name = toks[0].text if toks[0].kind == "ch" and toks[0].text.isalpha() else None
        var = toks[2]
    elif len(toks) >= 3 and toks[1].kind == "cmd" and toks[1].text == "sim" and toks[2].kind == "ch":
        rest = toks[2:]  # E_{z \sim q} or E_{z \sim q(z)}
        if len(rest) == 1 or len(rest) == 4 and rest[1].text == "(" and rest[3].text == ")":
            name = rest[0].text if rest[0].text.isalpha() else None
            var = toks[0]
            if len(rest) == 4 and rest[2].text != var.text:
                name = None
    elif len(toks) >= 7 and toks[0].text == "(" and _sim_after_tuple(toks) and toks[-1].kind == "ch":
        name = toks[-1].text if toks[-1].text.isalpha() else None  # E_{(x, y) \sim P}: under the joint law
    if name is not None and len(name) == 1 and name.isupper() and name not in ("E", "V"):
        # d2l: "X ∼ P with a p.d.f. or a p.m.f. p(x)": the law P is written by its density or mass p, and
        # E_{x \sim P}[\log p(x)] is the expectation under p (docs/probability.md)
        name = name.lower()
    if var is not None and not (var.kind == "ch" and var.text.isalpha()):
        name = None
    if name is None or word != "E":
        return None
    reader.i = j
    if not reader.at("ch", "(", "["):
        reader.fail(t, f"\\mathbb{{E}}_{{{name}}} takes its argument in brackets: \\mathbb{{E}}_{{z \\sim {name}}}[f]")
    args = reader.arguments()
    if len(args) != 1:
        reader.fail(t, "an expectation takes one argument")
    return f"E_{name}({args[0]}, {var.text})" if var is not None else f"E_{name}({args[0]})"


def _bar(x) -> bool:
    return x.kind == "cmd" and x.text in ("mid", "vert") or x.kind == "ch" and x.text == "|"


def _mid(x) -> bool:
    return x.kind == "cmd" and x.text == "mid"


def conditional_expectation(reader, t) -> str | None:
    r"""``\mathbb{E}[f \mid Y]`` → ``E(f | Y)``; ``\mathbb{E}_{X \mid Y}[f]`` → ``E_X(f | Y)``;
    ``\mathbb{E}_{Y}[g]`` → ``E_Y(g)`` where g holds Y or a bar (``\mathbb{E}_{Y}[\mathbb{E}_{X \mid
    Y}[X]]``) — a one-letter capital subscript elsewhere (``\mathbb{E}_P[\log p(x)]``) stays a law's
    (:func:`law_expectation`). None, the reader where it was, for anything else. After the E."""
    from mathcheck.latex.tokens import _group

    start = reader.i
    over = given = None
    if reader.at("ch", "_"):
        toks, j = _group(reader.t, reader.i + 1, reader.src, "_")
        toks = [x for x in toks if not (x.kind == "cmd" and x.text in (",", ";", ":", "!", " ", "quad"))]
        parts = _split_at(reader, toks, _bar)
        names = [_word(p) for p in parts]
        if len(parts) > 2 or not all(n and len(n) == 1 and n.isupper() and n not in "EV" for n in names):
            return None
        over, given = names[0], (names[1] if len(names) == 2 else None)
        reader.i = j
    if not reader.at("ch", "(", "["):
        reader.i = start
        return None
    _, inner = _bracketed(reader)
    at = _split_at(reader, inner, _mid)  # \mid only: |X| in \mathbb{E}[|X|] is an absolute value
    if len(at) > 2 or over is None and len(at) != 2 or over is not None and given is None and len(at) == 2:
        if over is None and len(at) == 1:
            reader.i = start
            return None
        reader.fail(t, "a conditional expectation is \\mathbb{E}[f \\mid Y] or \\mathbb{E}_{X \\mid Y}[f] (one \\mid)")
    if over is None:
        f, y = at
        if not f or not y:
            reader.fail(t, "a conditional expectation is \\mathbb{E}[f \\mid Y]")
        return f"E({reader.sub(f).read()} | {reader.sub(y).read()})"
    if given is None and not any(_mid(x) or x.kind == "ch" and x.text == over for x in inner):
        reader.i = start
        return None
    body = reader.sub(inner).read()
    return f"E_{over}({body} | {given})" if given else f"E_{over}({body})"


def _sim_after_tuple(toks) -> bool:
    """``(x, y) \\sim P``: a parenthesised tuple of letters, then ``\\sim`` and one name."""
    k = next((n for n, x in enumerate(toks) if x.text == ")"), None)
    if k is None or k + 2 != len(toks) - 1 or not (toks[k + 1].kind == "cmd" and toks[k + 1].text == "sim"):
        return False
    inner = toks[1:k]
    return all(x.kind == "ch" and (x.text.isalpha() if n % 2 == 0 else x.text == ",") for n, x in enumerate(inner))


def conditional(reader) -> str | None:
    r"""``(z \mid x)`` after a function's name: its arguments with the bar (``z | x``, read only for a
    declared law: symbolic/laws.py), or None when there is no top-level ``\mid``. At the ``(``."""
    t = reader.peek()
    if t is None or t.kind != "ch" or t.text != "(":
        return None
    start = reader.i
    reader.take()
    inner = reader.until(")", t)
    at = _split_at(
        reader, inner, lambda x: x.kind == "cmd" and x.text in ("mid", "vert") or x.kind == "ch" and x.text == "|"
    )
    if len(at) != 2 or not at[0] or not at[1]:
        reader.i = start
        return None
    sides = []
    for side in at:
        parts = _split_at(reader, side, lambda y: y.kind == "ch" and y.text == ",")
        sides.append(", ".join(reader.sub(p).read() for p in parts))
    return f"({sides[0]} | {sides[1]})"


def _word(toks) -> str | None:
    """The letters a run of one-character tokens spells (``Var`` in ``\\mathrm{Var}``), or None."""
    if toks and all(x.kind == "ch" and (x.text.isalpha() or x.text == "_") for x in toks):
        return "".join(x.text for x in toks)
    return None


def _peek_word(reader, t):
    """The word a wrapper command spells (``E`` in ``\\mathbb{E}``) and the index after it, or None."""
    from mathcheck.latex.tokens import _group

    if t.kind != "cmd" or t.text not in _WRAPPERS:
        return None
    if reader.i + 1 >= len(reader.t):
        return None
    toks, j = _group(reader.t, reader.i + 1, reader.src, f"\\{t.text}")
    word = _word(toks)
    return (word, j) if word else None


def operator(reader, t) -> str | None:
    """The text grammar for a probability operator or family starting at ``t`` (not yet taken), or
    None when ``t`` starts none (the reader goes on as before)."""
    found = _peek_word(reader, t)
    if found is None:
        return None
    word, j = found
    if t.text == "mathcal" and word == "N" or t.text != "mathcal" and word in FAMILIES and word not in ("N", "U"):
        reader.i = j
        return _family(reader, t, FAMILIES[word])
    if word not in OPERATORS or (t.text == "mathbb") != (word in ("E", "V")) and word in ("E", "V"):
        return None
    name = OPERATORS[word]
    reader.i = j
    if name == "E" and (reading := conditional_expectation(reader, t)) is not None:
        return reading
    if reader.at("ch", "_") and (reading := law_expectation(reader, t, word)) is not None:
        return reading
    if reader.at("ch", "_"):
        reader.fail(
            t,
            f"\\{t.text}{{{word}}}_{{…}}: an expectation over some variables only is not read; "
            f"state the distribution as a fact (% assume: x \\sim \\mathcal{{N}}(\\mu, \\sigma^2)) "
            f"and write \\mathbb{{E}}[…]",
        )
    if not reader.at("ch", "(", "["):
        reader.fail(t, f"{name} takes its argument in brackets: \\mathbb{{E}}[X], \\mathrm{{Var}}(X)")
    if name == "KL":
        return _kl(reader, t)
    args = reader.arguments()
    want = {"E": 1, "Var": 1, "Cov": 2}[name]
    if len(args) != want:
        reader.fail(t, f"{name} takes {want} argument(s), e.g. {_EXAMPLES[name]}")
    return f"{name}({', '.join(args)})"


def _top_cuts(toks, sep) -> list:
    """``[(k, width, what), ...]``: each separator outside brackets, where ``sep(toks, k)`` returns
    ``(width, what)`` for one of ``width`` tokens at ``k`` (``||`` is two) or None — the one scan the
    splitters below share."""
    out, depth, k = [], 0, 0
    while k < len(toks):
        x = toks[k]
        if x.kind in ("ch", "cmd") and x.text in ("(", "[", "{", "lbrace"):
            depth += 1
        elif x.kind in ("ch", "cmd") and x.text in (")", "]", "}", "rbrace"):
            depth -= 1
        elif depth == 0 and (hit := sep(toks, k)):
            out.append((k, *hit))
            k += hit[0]
            continue
        k += 1
    return out


def _pieces(toks, cuts) -> list:
    """The runs of ``toks`` between the cuts of :func:`_top_cuts`."""
    ends = [(k, k + width) for k, width, _ in cuts]
    starts = [0] + [b for _, b in ends]
    return [toks[a:b] for a, b in zip(starts, [k for k, _ in ends] + [len(toks)])]


def _split_at(reader, toks, is_sep):
    return _pieces(toks, _top_cuts(toks, lambda ts, k: (1, None) if is_sep(ts[k]) else None))


def _bracketed(reader):
    t = reader.take()
    return t, reader.until({"(": ")", "[": "]"}[t.text], t)


def _kl(reader, t) -> str:
    """``KL(P \\| Q)``: two distributions, split at the top-level ``\\|``, ``||`` or ``\\parallel``."""
    _, inner = _bracketed(reader)
    cut = _top_cuts(inner, _parallel)
    if len(cut) != 1 or cut[0][0] == 0 or cut[0][0] + cut[0][1] >= len(inner):
        reader.fail(t, "KL takes two distributions separated by \\|: \\mathrm{KL}(P \\,\\|\\, Q)")
    p, q = _pieces(inner, cut)
    return f"KL({reader.sub(p).read()}, {reader.sub(q).read()})"


def _parallel(toks, k: int) -> tuple[int, None] | None:
    """``\\|``, ``\\parallel``, ``\\Vert`` (one token) or ``||`` (two) at ``toks[k]``."""
    x = toks[k]
    if x.kind == "cmd" and x.text in ("|", "parallel", "Vert"):
        return 1, None
    if x.kind == "ch" and x.text == "|" and k + 1 < len(toks) and toks[k + 1].text == "|":
        return 2, None
    return None


def _family(reader, t, family: str) -> str:
    """``\\mathcal{N}(\\mu, \\sigma^2)`` a distribution; ``\\mathcal{N}(x \\mid \\mu, \\sigma^2)`` or
    ``(x; \\mu, \\sigma^2)`` the density at x."""
    if not reader.at("ch", "("):
        reader.fail(t, f"{family} takes its parameters in parentheses, e.g. \\mathcal{{N}}(\\mu, \\sigma^2)")
    _, inner = _bracketed(reader)
    at = _split_at(
        reader,
        inner,
        lambda x: x.kind == "cmd" and x.text in ("mid", "vert") or x.kind == "ch" and x.text in (";", "|"),
    )
    if len(at) == 2:
        if family not in DENSITIES:
            reader.fail(
                t,
                f"the density of {family} is not read; the densities read: "
                f"{', '.join(DENSITIES)} (\\mathcal{{N}}(x \\mid \\mu, \\sigma^2))",
            )
        x = reader.sub(at[0]).read()
        params = [reader.sub(p).read() for p in _split_at(reader, at[1], lambda y: y.kind == "ch" and y.text == ",")]
        if len(params) != 2 or not all(params):
            reader.fail(t, "a normal density is \\mathcal{N}(x \\mid \\mu, \\sigma^2)")
        return f"{DENSITIES[family]}({x}, {', '.join(params)})"
    if len(at) > 2:
        reader.fail(t, f"{family}(…): one \\mid at most")
    params = [reader.sub(p).read() for p in _split_at(reader, inner, lambda y: y.kind == "ch" and y.text == ",") if p]
    return f"{family}({', '.join(params)})"


def fact(src, d, read) -> str:
    """One ``% assume:`` item about random variables as the text of an ``assume:`` line
    (:func:`mathcheck.userexpr.probability.read_facts` reads it): ``X \\sim \\mathcal{N}(\\mu, \\sigma^2)``
    → ``X ~ Normal(mu, sigma^2)``; ``q_i, k_i \\text{ independent}`` → ``q_i, k_i independent``."""
    toks = d.toks
    sim = [k for k, x in enumerate(toks) if x.kind == "cmd" and x.text == "sim"]
    if sim:
        k = sim[0]
        name = src.text[toks[0].pos : toks[k - 1].end] if k else ""
        law = read(toks[k + 1 :])  # the reader's reading of the law, passed in (no import circle)
        return f"{_plain(name)} ~ {law}"
    eq = [k for k, x in enumerate(toks) if x.kind == "ch" and x.text == "="]
    if eq and eq[0] and _TRANSFORM.match(src.text[toks[0].pos : toks[-1].end]):  # Y = g(X)
        k = eq[0]
        return f"{_plain(src.text[toks[0].pos : toks[k - 1].end])} = {read(toks[k + 1 :])}"
    return _plain(src.text[toks[0].pos : toks[-1].end])


def _plain(raw: str) -> str:
    """``q_{i}, k_i \\text{ independent}`` → ``q_i, k_i independent``: wrappers, braces and TeX spaces out."""
    text = re.sub(r"\\(?:text|textrm|mathrm|operatorname|mbox)\s*\{([^{}]*)\}", r" \1 ", raw)
    text = re.sub(r"\\[,;:! ]|\\quad|\\qquad|~", " ", text)
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).replace(" ,", ",").strip()


# --- the probability of an event: \Pr(X = 1), P(X \le a \mid Y = 0), \mathbb{P}[X > 0] ---------------

_SIZING = ("left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr")
_EVENT_OPS = {
    "le": "<=",
    "leq": "<=",
    "leqslant": "<=",
    "ge": ">=",
    "geq": ">=",
    "geqslant": ">=",
    "lt": "<",
    "gt": ">",
}
_EVENT_USAGE = "an event is comparisons of random variables: \\Pr(X = 1), P(X \\le a, Y > 0), P(X = 1 \\mid Y = 0)"


def _event_head(toks, i: int) -> int | None:
    """The index after ``P``, ``\\Pr``, ``\\mathbb{P}`` (or ``\\mathbb P``) at ``toks[i]``, or None."""
    t = toks[i]
    if t.kind == "ch" and t.text == "P" or t.kind == "cmd" and t.text == "Pr":
        return i + 1
    if t.kind == "cmd" and t.text in ("mathbb", "mathrm", "operatorname"):
        if i + 1 < len(toks) and toks[i + 1].kind == "ch" and toks[i + 1].text == "P":
            return i + 2
        texts = [x.text for x in toks[i + 1 : i + 4]]
        if texts == ["{", "P", "}"]:
            return i + 4
    return None


def _event_relation(toks, k: int) -> tuple[str, int] | None:
    """``(op, width)`` for a comparison at ``toks[k]`` (``<=`` of two characters is width 2), or None;
    ``("!=", 1)`` for ``\\ne``."""
    x = toks[k]
    if x.kind == "ch" and x.text in "<>=":
        two = x.text in "<>" and k + 1 < len(toks) and toks[k + 1].kind == "ch" and toks[k + 1].text == "="
        return (x.text + "=" * two, 1 + two)
    if x.kind == "cmd" and x.text in _EVENT_OPS:
        return _EVENT_OPS[x.text], 1
    if x.kind == "cmd" and x.text in ("ne", "neq"):
        return "!=", 1
    return None


def event_span(toks, i: int) -> tuple[int, int, int] | None:
    """``(open, close, end)``: where the bracket after a probability's head at ``toks[i]`` opens and
    closes, and the index after it, when it holds a comparison outside inner brackets (an event: the
    block's splitter must not take it for a link); None for another ``P`` (``P(y \\mid x)``, ``P``)."""
    j = _event_head(toks, i)
    if j is None:
        return None
    while j < len(toks) and toks[j].kind == "cmd" and toks[j].text in _SIZING:
        j += 1
    if j >= len(toks) or toks[j].kind != "ch" or toks[j].text not in "([":
        return None
    depth, found = 0, False
    for k in range(j + 1, len(toks)):
        x = toks[k]
        if x.kind == "ch" and x.text in "([{" or x.kind == "cmd" and x.text == "lbrace":
            depth += 1
        elif x.kind == "ch" and x.text in ")]}" or x.kind == "cmd" and x.text == "rbrace":
            if depth == 0:
                return (j, k, k + 1) if found else None
            depth -= 1
        elif depth == 0 and _event_relation(toks, k) is not None:
            found = True
    return (j, None, None) if found else None  # not closed: the caller says so


def event(reader, t) -> str | None:
    """``\\Pr(X = 1)`` at ``t`` (not yet taken) as the text grammar's ``P(X = 1)`` (mathcheck/parser.py
    reads it: docs/probability.md), the event's sides read; None where ``t`` starts no event."""
    span = event_span(reader.t, reader.i)
    if span is None:
        return None
    opened, closed, end = span
    if closed is None:
        reader.fail(t, f"the probability's bracket is not closed; {_EVENT_USAGE}")
    inner = reader.t[opened + 1 : closed]
    reader.i = end
    seps = _split_at(
        reader, inner, lambda x: x.kind == "cmd" and x.text in ("mid", "vert") or x.kind == "ch" and x.text == "|"
    )
    if len(seps) > 2:
        reader.fail(t, f"{_EVENT_USAGE}; one \\mid at most")
    sides = []
    for side in seps:
        items = []
        for item in _split_at(reader, side, lambda y: y.kind == "ch" and y.text in ",;"):
            items.append(_event_item(reader, t, item, side))
        sides.append(", ".join(items))
    return "P(" + " | ".join(sides) + ")"


def _event_item(reader, t, item, side) -> str:
    """One comparison of an event, ``X \\le a`` → ``X <= a`` (a chain ``0 < X \\le 1`` too)."""
    if any(x.kind == "ch" and x.text == ";" for x in side):
        reader.fail(t, f"P(… ; θ): a model's probability with parameters is not read as an event; {_EVENT_USAGE}")
    cuts = _top_cuts(item, lambda ts, k: (r[1], r[0]) if (r := _event_relation(ts, k)) else None)
    for k, _, op in cuts:
        if op == "!=":
            reader.fail(item[k], f"\\ne in an event is not read; {_EVENT_USAGE}")
    parts, ops = _pieces(item, cuts), [op for _, _, op in cuts]
    if not ops or any(not p for p in parts):
        reader.fail(t, _EVENT_USAGE)
    out = reader.sub(parts[0]).read()
    for op, p in zip(ops, parts[1:]):
        out += f" {op} {reader.sub(p).read()}"
    return out
