"""Display blocks of a ``.tex`` or Markdown file, each read into a :class:`mathcheck.chains.Chain`:
rows, relations, reasons, directive comments (``% assume:``, ``% given:``, ``% let:``)."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace, field

from mathcheck.chains import WORD, Chain, DeriveError, Line, split_top
from mathcheck.latex import cases, indicator, information, probability
from mathcheck.latex.tokens import (
    ACCENTS,
    ENVIRONMENTS,
    GREEK,
    INNER_ENVIRONMENTS,
    LatexRefused,
    MAX_CHARS,
    NOT_LINKS,
    REFUSED,
    RELATIONS,
    Tok,
    _Source,
    _bracket,
    _group,
    expand,
    macros,
    simple_def,
    tokenize,
)
from mathcheck.latex.reader import (
    FUNCTIONS,
    FREE_RANGE,
    GENERIC_SIZE,
    VARIADIC,
    Notation,
    Reader,
    _PARSER_FUNCTIONS,
    _SPACING,
    _two_letters,
    _word,
)


# --- blocks ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    start: int  # the opening delimiter
    body: int  # the math between the delimiters
    body_end: int
    end: int  # after the closing delimiter
    opener: str


_ENV = "|".join(re.escape(e) for e in ENVIRONMENTS)
_OPENERS = re.compile(r"\$\$|\\\[|\\begin\{(" + _ENV + r")\}")
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_DIRECTIVE = re.compile(r"^[ \t]*%+[ \t]*(?:(mathcheck[ \t]*:[ \t]*skip)|(assume|given|let)[ \t]*:)(.*)$", re.M)


def _masked(text: str, markdown: bool) -> str:
    """``text`` with what holds no display math blanked (offsets kept): code in Markdown, comments
    and ``\\$`` in LaTeX."""
    chars = list(text)

    def blank(a, b):
        for k in range(a, b):
            if chars[k] != "\n":
                chars[k] = " "

    if markdown:
        pos, fence = 0, None
        for line in text.splitlines(keepends=True):
            m = _FENCE_LINE.match(line)
            if fence is None and m:
                fence = m.group(1)
                blank(pos, pos + len(line))
            elif fence is not None:
                blank(pos, pos + len(line))
                if (
                    m
                    and m.group(1)[0] == fence[0]
                    and len(m.group(1)) >= len(fence)
                    and not line.strip()[len(m.group(1)) :]
                ):
                    fence = None
            pos += len(line)
        for m in re.finditer(r"\\\$|\$`[^`\n]*`\$", "".join(chars)):  # \$, and GitHub's inline math $`…`$
            blank(m.start(), m.end())
        for m in re.finditer(r"(`+)(?:[^`\n]|\n(?![ \t]*\n))*?\1", "".join(chars)):  # spans may wrap
            blank(m.start(), m.end())
    else:
        for m in re.finditer(r"\\[$%]|(?<!\\)%[^\n]*", text):
            blank(m.start(), m.end())
    return "".join(chars)


_MATH_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*math[ \t]*\n(.*?)^\1\2[ \t]*$", re.M | re.S)


def _math_fences(text: str) -> list[Block]:
    """GitHub's ```` ```math ```` fences: display math in Markdown (the other fences are code)."""
    return [Block(m.start(), m.start(3), m.end(3), m.end(), "```math") for m in _MATH_FENCE.finditer(text)]


def blocks(src: _Source, markdown: bool) -> list[Block]:
    """Every display block of the file, in order (in Markdown, ```` ```math ```` fences too)."""
    if markdown:
        return sorted(_blocks(src, markdown) + _math_fences(src.text), key=lambda b: b.start)
    return _blocks(src, markdown)


def _blocks(src: _Source, markdown: bool) -> list[Block]:
    masked = _masked(src.text, markdown)
    out, i = [], 0
    while True:
        m = _OPENERS.search(masked, i)
        if m is None:
            return out
        if markdown and m.group(0) == "\\[" and m.start() > 0 and masked[m.start() - 1] == "\\":
            # \\[ … \\]: display math in Markdown that MathJax renders (Markdown turns \\[ into the \[ it
            # reads; cs231n's notes write \\( … \\) so)
            close = masked.find("\\\\]", m.end())
            if close < 0:  # an escaped backslash before a bracket in prose: no math
                i = m.end()
                continue
            out.append(Block(m.start() - 1, m.end(), close, close + 3, "\\\\["))
            i = close + 3
            continue
        if markdown and m.group(0) == "\\[" and ".ipynb:" not in src.path:
            # in Markdown \[ is an escaped bracket (CommonMark prints [); a notebook's Markdown cell hands its
            # text to MathJax as it is, so there \[ … \] is display math
            i = m.end()
            continue
        if m.group(0) == "$$":
            close = masked.find("$$", m.end())
            tail = "$$"
        elif m.group(0) == "\\[":
            close = masked.find("\\]", m.end())
            tail = "\\]"
        else:
            tail = "\\end{" + m.group(1) + "}"
            close = masked.find(tail, m.end())
            if m.group(1).rstrip("*") == "alignat":  # \begin{alignat}{2}: the column count is no math
                arg = re.match(r"\s*\{\s*\d+\s*\}", masked[m.end() : close])
                if arg:
                    out.append(Block(m.start(), m.end() + arg.end(), close, close + len(tail), m.group(0)))
                    i = close + len(tail)
                    continue
        if close < 0:
            src.fail(m.start(), f"{m.group(0)} is not closed by {tail}")
        out.append(Block(m.start(), m.end(), close, close + len(tail), m.group(0)))
        i = close + len(tail)


def _refused_anywhere(src: _Source) -> None:
    """A ``.tex`` file may not use TeX's file, shell or catcode primitives anywhere (outside comments)."""
    masked = _masked(src.text, False)
    preamble = ("usepackage", "documentclass")  # harmless outside math: mathcheck loads no package
    for m in re.finditer(r"\\(" + "|".join(sorted(REFUSED, key=len, reverse=True)) + r")(?![A-Za-z])", masked):
        if m.group(1) in preamble or (m.group(1) == "def" and simple_def(src.text, m.start())):
            continue  # \def\R{\mathbb{R}}: read as \newcommand
        src.refuse(
            m.start(),
            f"\\{m.group(1)} is refused: mathcheck reads one self-contained file and never runs "
            f"TeX; inline the mathematics and use \\newcommand for notation",
        )


_LIKE_DIRECTIVE = re.compile(r"^[ \t]*%+[ \t]*([A-Za-z]+)[ \t]*:?[ \t]*([A-Za-z]*)", re.M)
_DIRECTIVE_WORDS = ("assume", "given", "let", "mathcheck")


def _known_directive(src: _Source, m) -> None:
    """A comment that looks like a directive but is not one (``% asume:``, ``% mathcheck: skp``,
    ``% mathcheck skip``) is bad input: silently ignoring it would check what its author excluded."""
    import difflib

    word = m.group(1)
    line = src.text[m.start() : src.text.find("\n", m.start()) % (len(src.text) + 1)].strip()
    if word == "mathcheck":
        if not re.match(
            r"[ \t]*%+[ \t]*mathcheck[ \t]*:[ \t]*skip[ \t]*$",
            src.text[m.start() : src.text.find("\n", m.start()) if "\n" in src.text[m.start() :] else len(src.text)],
        ):
            src.fail(m.start(1), f"{line!r}: the one mathcheck directive is '% mathcheck: skip'")
        return
    if word in _DIRECTIVE_WORDS:
        return
    close = difflib.get_close_matches(word.lower(), _DIRECTIVE_WORDS, n=1, cutoff=0.75)
    colon = src.text[m.end(1) : m.end(1) + 3].lstrip(" \t").startswith(":")
    if close and colon:  # "% Let's see" is prose; "% Let:", "% asume:", "% givne:" are directives misspelled
        src.fail(
            m.start(1),
            f"{line!r} is not a directive; did you mean '% {close[0]}:'? (directives: % assume:, "
            f"% given:, % let:, % mathcheck: skip)",
        )


def _directives(src: _Source, blk: Block, markdown: bool):
    """``(skip, [(kind, start, end)])``: the directive comments right before the block (LaTeX) and
    inside it."""
    spans = [(blk.body, blk.body_end)]
    if not markdown:
        line_start = src.text.rfind("\n", 0, blk.start) + 1
        k = line_start
        while k > 0:  # the run of comment or blank lines right above the block
            prev = src.text.rfind("\n", 0, k - 1) + 1
            line = src.text[prev : k - 1]
            if line.strip() and not line.lstrip().startswith("%"):
                break
            k = prev
        spans.insert(0, (k, line_start))
    skip, found = False, []
    for a, b in spans:
        for m in _LIKE_DIRECTIVE.finditer(src.text, a, b):
            _known_directive(src, m)
        for m in _DIRECTIVE.finditer(src.text, a, b):
            if m.group(1):
                skip = True
            else:
                found.append((m.group(2), m.start(3), m.end(3)))
    return skip, found


# --- a block as a chain ----------------------------------------------------------------------------


@dataclass
class _Link:
    relation: str | None
    at: Tok | None
    toks: list
    reason: str = ""
    define: bool = False  # written as a definition: :=, \coloneqq, \triangleq, \equiv, \stackrel{def}{=}
    conditions: list = field(default_factory=list)  # the tokens of each reason, a condition maybe (x \ge 0)
    implied: bool = False  # the first link of an equation after \Rightarrow: the one before is its premise
    arrow: Tok | None = None  # that \Rightarrow, \rightarrow, \iff … (what the premise must be depends on it)
    beside: bool = False  # the first link of an equation set beside the one before (\quad between them)
    refused: tuple = ()  # (position, message): the equation holds a relation mathcheck does not check (\sim)
    shown: tuple = ()  # (start, end) of the source shown where the link's tokens lie elsewhere (_named_argument)


_DEFINE_COMMANDS = ("coloneqq", "coloneq", "triangleq", "equiv", "defeq", "eqqcolon")


def _definitional(toks: list[Tok], i: int, src: _Source) -> int | None:
    """The index after a definition sign at ``toks[i]`` (``:=``, ``\\coloneqq``, ``\\triangleq``,
    ``\\equiv``, ``\\stackrel{\\text{def}}{=}``, ``\\overset{\\mathrm{def}}{=}``), else None."""
    t = toks[i]
    if t.kind == "cmd" and t.text in _DEFINE_COMMANDS:
        return i + 1
    if t.kind == "ch" and t.text == ":" and i + 1 < len(toks) and toks[i + 1].kind == "ch" and toks[i + 1].text == "=":
        return i + 2
    if t.kind == "cmd" and t.text in ("stackrel", "overset") and i + 1 < len(toks):
        over, j = _group(toks, i + 1, src, f"\\{t.text}")
        sign, j = _group(toks, j, src, f"\\{t.text}")
        word = "".join(x.text for x in over if x.text not in "{}").lower()
        # the word in any upright font: d2l's convexity chapter writes \stackrel{\textrm{def}}{=}, which
        # was no relation at all (the display, g's definition, silently unread; g then refuted)
        word = re.sub(r"^(?:text(?:rm|up|normal|sf|it)?|math(?:rm|sf|it|op)|operatorname|mbox|rm)", "", word)
        if [x.text for x in sign] == ["="] and word in ("def", "defn", "triangle", "delta", ":"):
            return j
    return None


def _drop_structure(toks: list[Tok], src: _Source):
    """Remove ``\\begin{aligned}``, ``\\label{…}``, ``\\nonumber``; return (tokens, label)."""
    toks = _layout(toks, src)
    out, label, i = [], None, 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "cmd" and t.text in ("begin", "end"):
            name_toks, j = _group(toks, i + 1, src, f"\\{t.text}")
            name = "".join(x.text for x in name_toks)
            if name == "cases" and t.text == "begin":  # two branches: latex/cases.py
                read, i = cases.read(toks, i, src)
                out += read
                continue
            if name not in INNER_ENVIRONMENTS:
                src.fail(
                    t.pos, f"\\{t.text}{{{name}}} inside display math is not read (matrices, cases: see docs/latex.md)"
                )
            if t.text == "begin":  # \begin{aligned}[t], \begin{alignedat}{2}
                _, j = _bracket(toks, j)
                if name.rstrip("*") in ("alignedat", "alignat"):  # the column count, {2}
                    _, j = _group(toks, j, src, name)
            i = j
        elif t.kind == "cmd" and t.text == "label":
            name_toks, i = _group(toks, i + 1, src, "\\label")
            label = label or src.text[name_toks[0].pos : name_toks[-1].end] if name_toks else label
        elif t.kind == "cmd" and t.text in ("nonumber", "notag"):
            i += 1
        else:
            out.append(t)
            i += 1
    return out, label


# horizontal and vertical space: a \quad wherever it stands (between two equations, before a reason)
_SPACE_ARG = ("hspace", "hspace*", "vspace", "vspace*")  # \kern 1em is unbraced TeX: still refused
_SPACE = ("hfill", "enspace", ">", "vfill")
_BRACES = {"underbrace": "_", "overbrace": "^", "underbracket": "_", "overbracket": "^"}


def _layout(toks: list[Tok], src: _Source) -> list[Tok]:
    r"""Layout read as what it is: ``\hspace{0.5in}``, ``\hfill``, ``\enspace``, ``\>`` are a ``\quad``
    (a space, so between two equations they still part them); ``\underbrace{body}_{label}`` and
    ``\overbrace{body}^{label}`` are ``{body}``, the label a comment (cs231n's ``L = \underbrace{\frac{1}{N}
    \sum_i L_i}_\text{data loss} + …`` is L = (1/N)Σ L_i + …)."""
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "cmd" and t.text in _SPACE_ARG:
            if i + 1 >= len(toks) or toks[i + 1].text != "{":  # \hspace 1em: the "em" would be read as e·m
                src.fail(t.pos, f"\\{t.text} takes its length in braces, e.g. \\{t.text}{{1em}}")
            _, i = _group(toks, i + 1, src, f"\\{t.text}")
            out.append(Tok("cmd", "quad", t.pos, toks[i - 1].end))
        elif t.kind == "cmd" and t.text in _SPACE:
            out.append(Tok("cmd", "quad", t.pos, t.end))
            i += 1
        elif t.kind == "cmd" and t.text in _BOXES + ("text", "mbox") and i + 1 < len(toks) and toks[i + 1].text == "{":
            j = _group(toks, i + 1, src, f"\\{t.text}")[1]
            math = _boxed_math(toks[i:j], src)
            if math is None:  # \text{(chain rule)}: prose, a reason
                out.append(t)
                i += 1
                continue
            opening, closing = toks[i + 1], toks[j - 1]
            out += [
                Tok("ch", "{", t.pos, opening.end),  # the source shown from the \boxed on
                *_layout(math, src),
                Tok("ch", "}", closing.pos, closing.end),
            ]
            i = j
        elif t.kind == "cmd" and t.text in _BRACES:
            body, j = _group(toks, i + 1, src, f"\\{t.text}")
            opening, closing = toks[i + 1], toks[j - 1]
            if j < len(toks) and toks[j].kind == "ch" and toks[j].text == _BRACES[t.text]:
                j = _label_end(toks, j + 1, src, t)
            out += [
                Tok("ch", "{", opening.pos, opening.end),
                *_layout(body, src),
                Tok("ch", "}", closing.pos, closing.end),
            ]
            i = j
        else:
            out.append(t)
            i += 1
    return out


_BOXES = ("framebox", "fbox", "boxed")


def _boxed_math(body: list[Tok], src: _Source) -> list[Tok] | None:
    r"""The math a box or a ``\text`` holds and nothing else: ``\framebox{$ \tilde{o}_h $}``,
    ``\text{\textcolor{green}{\framebox{$ x $}}}`` (a result boxed in colour, backprop notes) are ``x``, as
    the reader sees it; ``\boxed{x}`` (math mode) is ``x``. None for a ``\text`` of words (a reason)."""
    while len(body) > 1 and body[0].kind == "cmd" and body[0].text in ("textcolor", "color", "text", "mbox") + _BOXES:
        k = _group(body, 1, src, f"\\{body[0].text}")[1] if body[0].text in ("textcolor", "color") else 1
        if body[0].text == "color":  # {\color{red} x}: the colour, then what it colours
            body = body[k:]
            continue
        inner, end = _group(body, k, src, f"\\{body[0].text}")
        if end != len(body):
            return None
        if body[0].text == "boxed":  # math inside
            return inner or None
        body = inner
    if len(body) > 2 and body[0].text == "$" and body[-1].text == "$" and all(x.text != "$" for x in body[1:-1]):
        return body[1:-1]
    return None


def _label_end(toks: list[Tok], i: int, src: _Source, t: Tok) -> int:
    r"""After a brace's label: ``{…}``, one token, or a command and its braced argument (``_\text{data loss}``)."""
    _, j = _group(toks, i, src, f"\\{t.text}'s label")
    if toks[i].kind == "cmd" and j < len(toks) and toks[j].kind == "ch" and toks[j].text == "{":
        _, j = _group(toks, j, src, f"\\{t.text}'s label")
    return j


def _plain(src: _Source, toks: list[Tok]) -> str:
    """A reason as text: ``\\quad\\text{(chain rule)}`` → ``chain rule``."""
    if not toks:
        return ""
    raw = src.text[toks[0].pos : toks[-1].end]
    raw = _unwrap(raw)
    # 5\times 10^{-4} as the number it is, so a ≈ link's stated bound reads as derive's does
    raw = re.sub(r"(\d+(?:\.\d+)?)\s*\\(?:times|cdot)\s*10\^\{?\s*(-?\d+)\s*\}?", r"\1e\2", raw)
    raw = re.sub(r"(?<![\w.])10\^\{?\s*(-?\d+)\s*\}?", r"1e\1", raw)
    raw = raw.replace("\\%", "%")
    raw = re.sub(r"\\[hv]space\*?\s*\{[^{}]*\}|\\(?:quad|qquad|hfill|enspace)\b|\\[,;:!> ]|&", " ", raw)
    raw = " ".join(raw.replace("$", "").split()).strip()
    while len(raw) > 1 and raw[0] + raw[-1] in ("()", "[]"):
        raw = raw[1:-1].strip()
    return raw.rstrip(".,;").strip()


_WRAPPER = re.compile(r"\\(?:text[a-z]*|mbox|mathrm|emph|intertext|tag\*?)\s*\{")


def _unwrap(raw: str) -> str:
    """``\text{since $a = b$}`` → ``since $a = b$``: the wrappers of a reason removed, braces matched."""
    out, i = [], 0
    while True:
        m = _WRAPPER.search(raw, i)
        if m is None:
            return "".join(out) + raw[i:]
        depth, j = 1, m.end()
        while j < len(raw) and depth:
            depth += raw[j] == "{"
            depth -= raw[j] == "}"
            j += 1
        out += [raw[i : m.start()], " ", _unwrap(raw[m.end() : j - 1]), " "]
        i = j


def _links(toks: list[Tok], src: _Source, rows_may_start: bool = True, isolate: bool = False) -> list[list[_Link]]:
    """Split a block at its top-level relations: the first expression, then one link per relation.
    Rows (``\\\\``) and alignment (``&``) lay a chain out: a row starting with a relation, or with
    + or − (going on with the expression above), continues it; a row starting with an expression
    after a link starts the next equation (``rows_may_start``; not in ``multline``, one equation
    broken over rows). ``\\quad\\text{…}``, ``&& …``, ``\\tag{…}`` end a row with its reason;
    ``\\intertext{…}`` is the reason of the next link. Returns one list of links per equation. ``isolate``: a
    relation mathcheck does not check (``\\sim``) fails its own equation (``refused`` on its first link), not
    the block — unless the block holds one equation; the block's other equations are read as definitions
    only (a claim beside it is bad input with the same line: the row may be its hypothesis)."""
    groups: list = []
    links = [_Link(None, None, [])]
    pending, depth, i, reason_from = "", 0, 0, None
    row_start = 0  # how many tokens the current link had when this row began

    def close_reason(j):
        nonlocal reason_from
        if reason_from is not None:
            text = _plain(src, toks[reason_from:j])
            if text:
                links[-1].reason = (links[-1].reason + "; " + text).strip("; ")
                links[-1].conditions.append(toks[reason_from:j])
            reason_from = None

    while i < len(toks):
        t = toks[i]
        if t.kind == "ch" and t.text in "{}":
            depth += 1 if t.text == "{" else -1
        if depth > 0 or (t.kind == "ch" and t.text == "}"):
            if reason_from is None:
                links[-1].toks.append(t)
            i += 1
            continue
        if t.kind == "row":
            close_reason(i)
            row_start = len(links[-1].toks)
            i += 1
            while i < len(toks) and toks[i].kind == "row":  # an empty row is nothing: Markdown's \\\\ is TeX's \\
                i += 1
            if i < len(toks) and toks[i].kind == "ch" and toks[i].text == "[":  # \\[4pt]
                _, i = _bracket(toks, i)
            nxt = _row_head(toks, i, src)
            if (
                rows_may_start
                and len(links) > 1
                and _expression(links[-1].toks)  # a row that ends with '=' goes on in the next (statnotes :58)
                and nxt is not None
                and _relation_of(nxt) is None
                and not (nxt.kind == "ch" and nxt.text in "+-")
                and not (nxt.kind == "cmd" and nxt.text in ("pm", "mp", "cdot", "times"))
            ):
                groups.append(links)  # a new equation, not a continuation
                links, pending, row_start = [_Link(None, None, [])], "", 0
            continue
        if reason_from is not None:
            i += 1
            continue
        if (span := probability.event_span(toks, i)) is not None:
            if span[2] is None:
                src.fail(t.pos, r"the probability's bracket is not closed: \Pr(X = 1), P(X \le a \mid Y = 0)")
            links[-1].toks.extend(toks[i : span[2]])  # \Pr(X = 1): no link inside (latex/probability.py)
            i = span[2]
            continue
        if t.text in indicator.FONTS and indicator.starts(toks, i) and indicator.end(toks, i) > i:
            links[-1].toks.extend(toks[i : indicator.end(toks, i)])  # \mathbb{1}(x \ge y): no link inside
            i = indicator.end(toks, i)
            continue
        if t.kind == "cmd" and t.text in ("intertext", "tag", "tag*"):
            arg, j = _group(toks, i + 1, src, f"\\{t.text}")
            text = _plain(src, arg)
            if t.text == "intertext":
                pending = text
            elif re.search("[A-Za-z]", text):
                links[-1].reason = (links[-1].reason + "; " + text).strip("; ")
            i = j
            continue
        if t.kind == "cmd" and t.text in _IMPLIES:
            if len(links) == 1 and not _expression(links[0].toks) and groups and len(groups[-1]) > 1:
                links[0] = _Link(None, None, [], implied=True, arrow=t)  # A = B \\ \rightarrow C = D
                i += 1
                continue
            if len(links) == 1:
                _not_between_equations(src, t)
            groups.append(links)  # A = B \Rightarrow C = D: C = D is checked given A = B
            links, pending, row_start = [_Link(None, None, [], implied=True, arrow=t)], "", 0
            i += 1
            continue
        if t.kind == "cmd" and t.text in ("quad", "qquad") and _implication_next(toks, i):
            i += 1
            continue
        starts_reason = (
            t.kind == "cmd" and t.text in ("quad", "qquad", "text", "textrm", "mbox") and not _text_name(toks, i, src)
        ) or (
            t.kind == "ch"
            and t.text == "&"
            and i + 1 < len(toks)
            and toks[i + 1].kind == "ch"
            and toks[i + 1].text == "&"
        )
        if starts_reason and (_open_parenthesis(links[-1].toks[row_start:]) or _quoted(toks, i)):
            starts_reason = False  # I(\textrm{"0010"}): an argument in words (d2l), never a reason cutting I( off
        if starts_reason and _expression(links[-1].toks[row_start:]):
            _not_a_dropped_factor(toks, i, src)
            j = _text_run(toks, i, src) if t.kind == "cmd" else i
            if j > i and j < len(toks) and _relation_of(toks[j]) is not None:
                text = _plain(src, toks[i:j])  # a = b \quad\text{(why)} = c: the chain goes on
                links[-1].reason = (links[-1].reason + "; " + text).strip("; ")
                i = j
                continue
            restated = _restated(toks, i, j, links, src)
            if restated is not None:  # L = a \quad\text{or equivalently}\quad L = b: L = a, and a = b
                groups.append(links)
                links = [_Link(None, None, list(links[-1].toks), beside=True)]
                pending, i, row_start = _plain(src, toks[i:j]), restated, 0
                continue
            reason_from = i  # to the end of the row: && commentary, or \quad x > 0 (a condition)
            i += 1
            continue
        if t.kind == "ch" and t.text == "&":
            i += 1
            continue
        defined_at = _definitional(toks, i, src)
        if defined_at is not None:
            row_start = 0
            links.append(_Link("=", t, [], pending, define=True))
            pending, i = "", defined_at
            continue
        rel = _relation_of(t)
        if rel and rel != "!=":
            row_start = 0
            links.append(_Link(rel, t, [], pending))
            pending = ""
            i += 1
            continue
        if t.kind == "cmd" and t.text in NOT_LINKS:
            message = (
                f"\\{t.text} is not a link mathcheck checks; a chain's links are =, \\le, <, \\ge, "
                f">, \\approx (put % mathcheck: skip before a block that is not a chain)"
            )
            if not isolate:
                src.fail(t.pos, message)
            # backprop notes' align: ^p \vartriangle w_{hm} \sim -\nabla_w E, then the weight change defined
            links[0].refused = links[0].refused or (t.pos, message)
            row_start = 0
            links.append(_Link("~", t, [], pending))
            pending, i = "", i + 1
            continue
        links[-1].toks.append(t)
        i += 1
    close_reason(len(toks))
    groups.append(links)
    refused = [g[0].refused for g in groups if g[0].refused]
    if refused and len([g for g in groups if len(g) > 1]) == 1:
        src.fail(*refused[0])
    for links in groups:
        if links[0].implied and len(links) == 1:  # A = B \rightarrow [0.7, 0.04]: no equation after the arrow
            _not_between_equations(src, links[0].arrow)
    for links in groups:
        for link in links:
            while link.toks and link.toks[-1].kind == "ch" and link.toks[-1].text in ".,;":
                link.toks.pop()
    return groups


# \iff claims both directions: read only where the premise is a definition (true by fiat, so A ⟺ B is B)
_EQUIVALENT = ("iff", "Leftrightarrow", "Longleftrightarrow", "longleftrightarrow")
_IMPLIES = ("Rightarrow", "implies", "Longrightarrow", "therefore", "rightarrow", "to", "longrightarrow", *_EQUIVALENT)


def _quoted(toks: list[Tok], i: int) -> bool:
    """``\\text{"0010"}`` at ``toks[i]``: a string in quotes, a code word the math names, never a reason."""
    return (
        toks[i].kind == "cmd"
        and i + 2 < len(toks)
        and toks[i + 1].kind == "ch"
        and toks[i + 1].text == "{"
        and toks[i + 2].kind == "ch"
        and toks[i + 2].text in ('"', "`", "'")
    )


def _open_parenthesis(toks: list[Tok]) -> bool:
    """Whether a ``(`` or ``[`` of these tokens is not closed yet: a reason never starts inside one."""
    depth = 0
    for t in toks:
        if t.kind == "ch" and t.text in "([":
            depth += 1
        elif t.kind == "ch" and t.text in ")]":
            depth -= 1
    return depth > 0


def _not_between_equations(src: _Source, arrow: Tok):
    r"""An arrow is read between two equations only (``f(x) = x^2 \rightarrow f'(x) = 2x``): between
    other things (cs231n's ``[1, -2, 0] \rightarrow [e^1, e^{-2}, e^0]``, a map of vectors) it is no claim."""
    src.fail(
        arrow.pos,
        f"\\{arrow.text} is read between two equations only (A = B \\{arrow.text} C = D: C = D checked given "
        f"A = B); here it maps expressions, which is not a link mathcheck checks (% mathcheck: skip before the block)",
    )


def _implication_next(toks: list[Tok], i: int) -> bool:
    """``\\quad \\Rightarrow \\quad``: the spacing before an implication is no reason's start."""
    j = i
    while j < len(toks) and toks[j].kind == "cmd" and toks[j].text in _SPACING:
        j += 1
    return j < len(toks) and toks[j].kind == "cmd" and toks[j].text in _IMPLIES


def _row_head(toks: list[Tok], i: int, src: _Source):
    """The first token of a row that says what the row is (alignment, spacing, ``\\intertext`` skipped)."""
    while i < len(toks):
        t = toks[i]
        if (t.kind == "ch" and t.text == "&") or (t.kind == "cmd" and t.text in _SPACING):
            i += 1
        elif t.kind == "cmd" and t.text == "intertext":
            _, i = _group(toks, i + 1, src, "\\intertext")
        else:
            return t
    return None


# words that restate; never "or" alone: x = 1 \quad\text{or}\quad x = -1 are two solutions, not 1 = -1
_RESTATING = ("or equivalently", "equivalently", "i.e", "that is")


def _restated(toks: list[Tok], i: int, j: int, links: list, src: _Source) -> int | None:
    r"""Where the relation of a restatement starts: ``L_i = A \hspace{0.5in} \text{or equivalently}
    \hspace{0.5in} L_i = B`` (cs231n's softmax loss) writes L_i twice to say A = B — read as L_i = A (an
    equation as any other) and the claim A = B beside it; never B a second definition of L_i, nor a
    condition, nor the chain L_i = A = B (which checks L_i = A: refuted where L_i was another loss before).
    Only after words that restate (``or equivalently``, ``i.e.``), only the same left side, only ``=``."""
    if j <= i or _plain(src, toks[i:j]).lower().rstrip(".") not in _RESTATING:
        return None
    if any(link.relation != "=" or link.define for link in links[1:]):
        return None
    first = [(t.kind, t.text) for t in links[0].toks if not (t.kind == "cmd" and t.text in _SPACING) and t.text != "&"]
    k = j + len(first)
    if not first or k >= len(toks) or [(t.kind, t.text) for t in toks[j:k]] != first or _relation_of(toks[k]) != "=":
        return None
    return k


def _text_name(toks: list[Tok], i: int, src: _Source) -> bool:
    """``\\text{sigmoid}(x)``, ``\\text{CE}_i``: an upright word applied or subscripted is notation, not
    the start of a reason (which would swallow the rest of the display)."""
    if toks[i].text not in ("text", "textrm", "mbox") or i + 1 >= len(toks) or toks[i + 1].text != "{":
        return False
    if i > 0 and toks[i - 1].kind == "ch" and toks[i - 1].text in "_^":
        return True  # n_\textrm{in}: a subscript without braces (TeX takes the command with its argument)
    arg, j = _group(toks, i + 1, src, "\\text")
    if _word(arg) is None:
        return False
    if j < len(toks) and toks[j].kind == "ch" and toks[j].text in "(_^'[":
        return True
    # d2l's w_{\textrm{area}} \cdot \textrm{area} + …: a word between operators is a quantity (as a reason
    # it swallowed the rest of the display); words with spaces, \text{ where }, stay prose
    # the braces' whole inside: \textrm{ bits} (d2l's unit after a number) is spaced prose, never a factor
    spaced = bool(arg) and re.search(r"\s", src.text[toks[i + 1].end : toks[j - 1].pos]) is not None
    before = i > 0 and _operator(toks[i - 1])
    after = j < len(toks) and _operator(toks[j])
    # x \textrm{area} = \textrm{area} x, 2 \textrm{Var}[X]: a word juxtaposed to a factor, with more on the row,
    # is a factor (as a reason, x = area·x was refuted); "for", "where", … lead a condition, spacing a reason
    word = _word(arg)
    juxtaposed = (
        i > 0
        and (toks[i - 1].kind == "num" or toks[i - 1].text.isalnum() or toks[i - 1].text in ")]}")
        and j < len(toks)
        and toks[j].kind != "row"
        and toks[j].text not in ("&",) + tuple(_SPACING)
        and len(word) > 1
        and word.lower() not in _CONDITION_WORDS + _PROSE_WORDS
    )
    return not spaced and (before or after or juxtaposed)


def _not_a_dropped_factor(toks: list[Tok], i: int, src: _Source) -> None:
    r"""Refuse an upright word of one token run right after a factor (``2\,\textrm{HR}``, ``y =
    2\textrm{HR}``): as the start of a reason it would be dropped and the link read without it (``2 = 0.5``);
    it is a factor or a unit, which the reader cannot tell — a reason is set apart (``\quad``, words with
    spaces, parentheses)."""
    t = toks[i]
    if t.kind != "cmd" or t.text not in ("text", "textrm", "mbox") or i + 1 >= len(toks) or toks[i + 1].text != "{":
        return
    arg, _ = _group(toks, i + 1, src, "\\text")
    word = _word(arg)
    if not word or word.lower() in _CONDITION_WORDS + _PROSE_WORDS or _words(toks, i, src):
        return  # \textrm{ and thus }: words with spaces, a reason
    k = i - 1
    while k >= 0 and toks[k].kind == "cmd" and toks[k].text in (",", ";", ":", "!", " "):
        k -= 1  # thin spaces: 2\,\textrm{HR}
    _, j = _group(toks, i + 1, src, "\\text")
    # set against the factor (no space typed, or a thin space typeset), or a chain going on after it; a
    # word typed after a space at the row's end stays a reason (… + 1 \text{trivially})
    if k < 0 or not (toks[k].kind == "num" or toks[k].text.isalnum() or toks[k].text in ")]}"):
        return
    attached = k < i - 1 or toks[k].end == t.pos
    if attached or (j < len(toks) and _relation_of(toks[j]) is not None):
        src.fail(
            t.pos,
            f"\\{t.text}{{{word}}} after a factor: a quantity or a unit? write \\cdot \\textrm{{{word}}} for a "
            f"product, or set a reason apart (\\quad\\text{{({word})}})",
        )


_PROSE_WORDS = ("or", "since", "thus", "hence", "so", "then", "otherwise", "else", "iff", "as", "by", "is", "at", "on")


def _operator(t: Tok) -> bool:
    return (t.kind == "ch" and t.text in "+-*/") or (t.kind == "cmd" and t.text in ("cdot", "times", "div"))


def _text_run(toks: list[Tok], i: int, src: _Source) -> int:
    """Where a run of spacing and ``\text{…}`` groups (parentheses around them too) starting at
    ``i`` ends; ``i`` itself if no text group is in it."""
    j, texts = i, 0
    while j < len(toks):
        t = toks[j]
        if t.kind == "cmd" and t.text in ("quad", "qquad", ",", ";", " ", "!", ":"):
            j += 1
        elif t.kind == "cmd" and t.text in ("text", "textrm", "textit", "mbox"):
            j = _group(toks, j + 1, src, "\\text")[1] if j + 1 < len(toks) and toks[j + 1].text == "{" else j + 1
            texts += 1
        elif t.kind == "ch" and t.text in "()":
            j += 1
        else:
            break
    return j if texts else i


def _expression(toks) -> bool:
    return any(not (t.kind == "ch" and t.text == "&") for t in toks)


def notation_of(
    src: _Source,
    pieces,
    declared: set,
    functions: dict,
    variables: set,
    defined: frozenset = frozenset(),
    families: dict | None = None,
) -> Notation:
    """Two passes over the chain's expressions (``pieces``: token lists). Pass one reads them with
    nothing indexed and collects the bases subscripted by an index *in scope* — a variable bound by
    an enclosing ``\\sum``/``\\prod``, or a declared integer — so ``\\sum_{k=1}^{n} e^{z_k}`` makes z
    indexed (and ``z_j`` is z[j] elsewhere) while ``d_k`` outside any sum over k stays the name d_k."""
    indices = set(declared)
    for toks in pieces:  # every \sum_{i=...} binds i somewhere: W_{ij} splits into W[i, j]
        for k, t in enumerate(toks):
            if t.kind == "cmd" and t.text in ("sum", "prod") and k + 2 < len(toks) and toks[k + 1].text == "_":
                low = toks[k + 3 :] if toks[k + 2].text == "{" else toks[k + 2 : k + 3]
                eq = next((j for j, x in enumerate(low) if x.text in ("=", "}", "ne", "neq")), len(low))  # \sum_i: i
                if eq is not None and _word(low[:eq]):
                    indices.add(_word(low[:eq]))
    families = dict(families or {})
    vectors = {vector for _, vector, _ in families.values()} | {k for k, (_, _, i) in families.items() if i}
    names = set(functions) | set(variables) | set(defined)
    free = _free_deltas(pieces, indices | set(declared), names, vectors - set(variables))
    first = Notation(set(declared) | free, set(), dict(functions), set(variables), set(defined))
    first.families = families
    indexed: set = set()
    for toks in pieces:
        r = Reader(toks, src, first)
        r.collect = indexed
        try:
            r.read()
        except DeriveError:
            pass  # pass two reports it, with the notation settled
    # x_{t+1}: pass one found t the index of a sequence
    out = Notation(indices | first.indices, indexed, dict(functions), set(variables), set(defined))
    out.letters = {t.text for toks in pieces for t in _not_exponents(toks) if t.kind == "ch" and t.text.isalpha()}
    out.free, out.families = free, families
    return out


def _free_deltas(pieces, indices: set, names: set, vectors: set) -> set:
    r"""The letters of a Kronecker delta ``\delta_{ij}`` that no sum binds and nothing declares: the
    free indices of a Jacobian entry (statnotes' ``\frac{\partial}{\partial z_j}e^{z_i}=\delta_{ij}e^{z_i}``),
    which its author means for every i, j of the range — read as integer indices, each in the range of
    the chain's sums (:func:`_free_range`), a hypothesis printed with the chain; so ``z_i`` beside them
    is the entry z[i]. A δ the chain declares or defines is that quantity, not Kronecker's. So are the
    letters subscripting a vector a function the document defines takes (σ_i(z), N(z): ``vectors``), or
    such a function (σ_c):
    ``\\frac{\\partial}{\\partial z_j}\\frac{e^{z_i}}{N(z)}`` is in the entries z[i], z[j] — read with z_i, z_j two
    names it was "proved" as 0 = 0."""
    out = set()
    for toks in pieces:
        for k, t in enumerate(toks[:-2]):
            if t.kind in ("ch", "cmd") and t.text in vectors and toks[k + 1].text == "_":
                sub = toks[k + 3 : k + 5] if toks[k + 2].text == "{" else toks[k + 2 : k + 3]
                if sub and sub[0].kind == "ch" and sub[0].text.isalpha() and (len(sub) == 1 or sub[1].text == "}"):
                    out.add(sub[0].text)
    if "delta" in names:
        return out - indices - names
    for toks in pieces:
        for k, t in enumerate(toks[:-2]):
            if t.kind == "cmd" and t.text == "delta" and toks[k + 1].kind == "ch" and toks[k + 1].text == "_":
                sub = toks[k + 3 : k + 6] if toks[k + 2].text == "{" else []
                sub = sub[: next((j for j, x in enumerate(sub) if x.text == "}"), len(sub))]
                if sub and _two_letters(sub):
                    out |= {x.text for x in sub if x.text.isalpha()}
    return out - indices - names


def _not_exponents(toks: list) -> list:
    """The tokens of ``toks`` that are not a one-letter exponent (``^t``, ``^{t}``)."""
    out, k = [], 0
    while k < len(toks):
        t = toks[k]
        if t.kind == "ch" and t.text == "^" and k + 1 < len(toks):
            nxt = toks[k + 1 : k + 4]
            if nxt and nxt[0].text == "{" and len(nxt) == 3 and nxt[2].text == "}":
                k += 4
                continue
            k += 2
            continue
        out.append(t)
        k += 1
    return out


# --- directives: % assume:, % given:, % let: ----------------------------------------------------------


def _sets() -> dict:
    """``\\mathbb{R}_{>0}`` and friends (spelled without braces or spaces) → properties."""
    out = {"mathbbR": ("real",), "mathbbZ": ("integer",), "mathbbN": ("nonnegative", "integer")}
    for s in "_^":
        for tail in (">0", "+"):
            out[f"mathbbR{s}{tail}"] = ("positive",)
            out[f"mathbbZ{s}{tail}"] = ("positive", "integer")
            out[f"mathbbN{s}{tail}"] = ("positive", "integer")
        for ge in ("ge", "geq", "geqslant"):
            out[f"mathbbR{s}{ge}0"] = ("nonnegative",)
            out[f"mathbbZ{s}{ge}0"] = ("nonnegative", "integer")
            out[f"mathbbZ{s}{ge}1"] = ("positive", "integer")
            out[f"mathbbN{s}{ge}1"] = ("positive", "integer")
        for tail in ("<0", "-"):
            out[f"mathbbR{s}{tail}"] = ("negative",)
            out[f"mathbbZ{s}{tail}"] = ("negative", "integer")
    return out


_SET_PROPERTIES = _sets()
_SIGN_PROPERTIES = {(">", "0"): "positive", (">=", "0"): "nonnegative", ("<", "0"): "negative"}


def _split(toks: list[Tok], sep, opening: str = "{(", closing: str = "})") -> list[list[Tok]]:
    """``toks`` split at the top-level tokens for which ``sep(tok)`` holds."""
    parts, cur, depth = [], [], 0
    for t in toks:
        if t.kind == "ch" and t.text in opening:
            depth += 1
        elif t.kind == "ch" and t.text in closing:
            depth -= 1
        if depth == 0 and sep(t):
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    return parts


def _relation_of(t) -> str | None:
    if t.kind == "ch" and t.text in "<>=":
        return RELATIONS[t.text]
    if t.kind == "cmd" and t.text in RELATIONS or (t.kind == "cmd" and t.text in ("ne", "neq")):
        return RELATIONS.get(t.text, "!=")
    return None


@dataclass
class _Directive:
    kind: str  # assume, given, let
    at: int  # offset, for errors and the line
    toks: list


def _assume_items(src: _Source, d: _Directive):
    """``x, z \\in \\mathbb{R}`` / ``\\sigma > 0`` / ``p_i > 0`` → [(name tokens, properties)]."""
    out = []
    ins = [k for k, t in enumerate(d.toks) if t.kind == "cmd" and t.text == "in"]
    if ins:
        k = ins[0]
        spelled = "".join(t.text for t in d.toks[k + 1 :] if t.text not in "{}")
        props = _SET_PROPERTIES.get(spelled)
        if props is None:
            src.fail(
                d.toks[k].pos,
                f"assume: {src.text[d.toks[k].pos : d.toks[-1].end]!r}: the sets read are "
                f"\\mathbb{{R}}, \\mathbb{{Z}}, \\mathbb{{N}}, with _{{>0}}, _{{\\ge 0}}, _{{<0}}",
            )
        names = d.toks[:k]
    else:
        rels = [k for k, t in enumerate(d.toks) if _relation_of(t)]
        if len(rels) != 1:
            src.fail(
                d.at,
                "assume: write 'x \\in \\mathbb{R}', 'x > 0', 'x \\ge 0', 'x < 0' or 'x \\neq 0'; "
                "for other hypotheses use % given:",
            )
        k = rels[0]
        rel = _relation_of(d.toks[k])
        rhs = "".join(t.text for t in d.toks[k + 1 :])
        props = (
            ("nonzero",)
            if rel == "!=" and rhs == "0"
            else ((_SIGN_PROPERTIES[(rel, rhs)],) if (rel, rhs) in _SIGN_PROPERTIES else None)
        )
        if props is None:
            src.fail(
                d.toks[k].pos,
                f"assume: {src.text[d.toks[0].pos : d.toks[-1].end]!r} is not a property (> 0, "
                f"\\ge 0, < 0, \\neq 0); write it as % given: … to make it a hypothesis",
            )
        names = d.toks[:k]
    for part in _split(names, lambda t: t.kind == "ch" and t.text == ","):
        if not part:
            src.fail(d.at, "assume: a name is missing before ','")
        out.append((part, props))
    return out


def _assumed_name(src: _Source, part: list[Tok], notation: Notation) -> str:
    """The symbol an assumption is about: ``p_i`` is every entry of an indexed p, else a name."""
    base = part[0]
    if len(part) >= 2 and part[1].text == "_":
        b = _word([base])
        if b in notation.indexed:
            sub, _ = _group(part, 2, src, "_")
            letters = [x for x in sub if x.kind == "ch" and x.text.isalpha() or x.kind == "cmd" and x.text in GREEK]
            if len(letters) != len([x for x in sub if x.text not in "{},"]) or not letters:
                src.fail(
                    base.pos,
                    f"assume: {src.text[part[0].pos : part[-1].end]!r} is about one entry of the "
                    f"indexed {b}; an assumption is about a name or every entry ({b}_i > 0)",
                )
            return "pi_" if b == "pi" else b  # \pi_i's family is the reader's pi_ (pi is the number π)
    r = Reader(part, src, Notation(notation.indices, set(), {}, notation.variables))
    name = r.read()
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        src.fail(base.pos, f"assume: {src.text[part[0].pos : part[-1].end]!r} is not a name")
    return name


def _lets(src: _Source, d: _Directive, notation_functions: dict, lets: list, readings: list):
    """``\\sigma = sigmoid`` names a function; ``\\mu = …`` defines a symbol (expanded where used)."""
    top = {id(t) for t in _top(d.toks)}
    eq = [k for k, t in enumerate(d.toks) if t.kind == "ch" and t.text == "=" and id(t) in top]
    if len(eq) != 1 or eq[0] == 0 or eq[0] == len(d.toks) - 1:
        src.fail(d.at, "let: write '\\mu = expression' or '\\sigma = sigmoid'")
    lhs, rhs = d.toks[: eq[0]], d.toks[eq[0] + 1 :]
    params = ""
    if len(lhs) > 3 and lhs[1].text == "(" and lhs[-1].text == ")":  # f(t, u) = ...
        words = [_word(p) for p in _split(lhs[2:-1], lambda t: t.text == ",")]
        if None in words:
            src.fail(lhs[0].pos, "let: the parameters are names, e.g. % let: f(t) = t^2")
        params, lhs = f"({', '.join(words)})", lhs[:1]
        notation_functions[lhs[0].text] = _word(lhs)
    name = _word(lhs)
    if name is None:
        src.fail(lhs[0].pos, f"let: {src.text[lhs[0].pos : lhs[-1].end]!r} is not a name (one symbol, e.g. \\mu)")
    from mathcheck.parser import reserved

    if name in _PARSER_FUNCTIONS or name in reserved() or lhs[0].text in FUNCTIONS or lhs[0].text in VARIADIC:
        src.fail(
            lhs[0].pos,
            f"let: {src.text[lhs[0].pos : lhs[-1].end]!r} is a built-in function or constant, which "
            f"is never renamed; give your quantity another name",
        )
    word = _word(rhs[2:-1] if len(rhs) > 3 and rhs[0].text in ("operatorname", "mathrm") else rhs)
    if word in _PARSER_FUNCTIONS:
        key = lhs[0].text if len(lhs) == 1 else name
        notation_functions[key] = word
        notation_functions[name] = word
        readings.append(
            f"let: {src.text[lhs[0].pos : lhs[-1].end]} is the function {word}: "
            f"{src.text[lhs[0].pos : lhs[-1].end]}(x) reads {word}(x)"
        )
        return
    lets.append((name + params, rhs, d))


# --- the file --------------------------------------------------------------------------------------


def chains(text: str, path: str, markdown: bool = False, preamble: tuple[str, str] | None = None) -> list:
    """The chains in the display math of a ``.tex`` file (or of a Markdown file's ``$$`` and
    ``\\begin{align}`` blocks): :class:`mathcheck.chains.Chain` values, as derive reads them.
    ``preamble``: ``(path, text)`` of a file of macros (``derive --macros book.sty``), in force
    before the document's own, which may redefine them."""
    src = _Source(text, path)
    if len(text) > MAX_CHARS:
        raise LatexRefused(f"{path}: file too large ({len(text)} characters, at most {MAX_CHARS})")
    if not markdown:
        _refused_anywhere(src)
    found = blocks(src, markdown)
    regions = [(0, len(text))] if not markdown else [(b.body, b.body_end) for b in found]
    defs = {**preamble_macros(preamble), **macros(src, regions)}
    doc = _Document()
    out = []
    inline = _inline_blocks(src, markdown, found)
    src.quantity_e = _defines_e(src, found + inline, markdown)
    src.log2_from = _log_is_log2(src, found)
    masked, last = _masked(text, markdown), 0
    heading = re.compile(
        r"^#{1,6}[ \t]" if markdown else r"\\(?:part|chapter|section|subsection|subsubsection)\*?\{", re.M
    )
    section, early = 0, set()
    for blk in sorted(found + inline, key=lambda b: b.start):
        if heading.search(masked, last, blk.start):
            doc.new_section()
            section = max(m.start() for m in heading.finditer(masked, last, blk.start))
        doc.prose = masked[section : blk.start]
        doc.lead = _condition_lead(masked[last : blk.start]) if blk.opener != "$" else ""
        doc.after = _stated_after(src, blk, found, inline) if blk.opener != "$" else {}
        doc.after_blocks = _stated_after(src, blk, found, inline, blocks=True) if doc.after else {}
        last = blk.end
        if blk.opener == "$":  # prose math: read only as a definition (with $s = \sigma(z)$)
            if blk.start not in early:
                out += _inline_definition(src, blk, defs, doc)
            continue
        snapshot = copy.deepcopy(doc) if doc.after_blocks else None
        got = _display_chains(src, blk, defs, markdown, doc)
        if doc.pending_after and snapshot is not None:
            # the prose right after the display says what its y is ("Here … $y_i=\sigma_i(z)$"): that
            # definition first, then the display read again with it (a definition in force from here on)
            free = _free_probabilities(src, blk, defs, doc, snapshot)
            again = snapshot
            first = [c for b in _pending_blocks(doc) for c in _inline_definition(src, b, defs, again)]
            if free is not None:  # … unless it is a conditional probability the prose before names
                got = _display_free(src, blk, defs, markdown, free)
                doc = free
            elif len(first) == len(doc.pending_after) and all(c.definition for c in first):
                early |= {b.start for b in _pending_blocks(doc)}
                doc = again
                got = first + _display_chains(src, blk, defs, markdown, doc)
        doc.pending_after = set()
        out += got
        out += _where_law(src, blk, defs, markdown)
    return out


def _where_law(src: _Source, blk: Block, defs: dict, markdown: bool) -> list:
    r"""d2l's noise model, ``y = \mathbf{w}^\top \mathbf{x} + b + \epsilon \textrm{ where } \epsilon \sim
    \mathcal{N}(0, \sigma^2)``: the law the display states for a name after "where", at its end, as a
    definition chain of one link ``~`` (the law read: ``Normal(0, sigma^2)``) — what the name is, never
    a claim checked; a chain that uses it states it again (% assume: \epsilon \sim …). [] where the
    display ends otherwise, or the law does not read as one of latex/probability.py's families."""
    from mathcheck.latex import probability

    try:
        if _directives(src, blk, markdown)[0]:
            return []
        toks = expand(tokenize(src, blk.body, blk.body_end), defs, src)
        toks = [t for t in toks if not (t.kind == "cmd" and t.text in (",", ";", ":", "!", " ", "quad", "qquad"))]
        while toks and (toks[-1].kind == "ch" and toks[-1].text in ".,;" or toks[-1].text == "\\"):
            toks = toks[:-1]
        words = [k for k, t in enumerate(toks) if t.kind == "cmd" and t.text in ("text", "textrm", "mbox")]
        if not words:
            return []
        k = words[-1]
        arg, j = _group(toks, k + 1, src, "\\text")
        if " ".join(src.text[arg[0].pos : arg[-1].end].split()).strip(" ,.:;").lower() != "where" if arg else True:
            return []
        rest = toks[j:]
        sims = [n for n, t in enumerate(rest) if t.kind == "cmd" and t.text == "sim"]
        if len(sims) != 1 or sims[0] == 0 or any(_relation_of(t) for t in rest):
            return []
        lhs, law = rest[: sims[0]], rest[sims[0] + 1 :]
        name = Reader(lhs, src, Notation(set(), set(), {}, set())).read()
        reading = Reader(law, src, Notation(set(), set(), {}, set())).read()
    except LatexRefused:
        raise
    except DeriveError:
        return []
    family = re.match(r"([A-Za-z]+)\(", reading)
    if not WORD.fullmatch(name) or family is None or family.group(1) not in set(probability.FAMILIES.values()):
        return []
    line, at = src.line(lhs[0].pos), rest[sims[0]]
    return [
        Chain(
            f"line {line}",
            src.path,
            line,
            steps=(
                Line(line, None, name, "", " ".join(src.text[lhs[0].pos : lhs[-1].end].split())),
                Line(src.line(at.pos), "~", reading, "", " ".join(src.text[at.pos : law[-1].end].split())),
            ),
            notes=(f"the law of {name}, stated: a chain that uses it states it again (% assume: {name} \\sim …)",),
            unread=f"the law of {name}, stated",
        )
    ]


# the right side of a prose definition that is one conditional probability, p_\theta(y_{ij} \mid x_i)
_CONDITIONAL = re.compile(r"\s*[A-Za-z]\w*\([^()|]*\|[^()|]*\)\s*")
_CONDITIONAL_TEX = re.compile(r"\s*\\?[A-Za-z]+(?:_\{?\\?[A-Za-z]+\}?)?\s*\(\s*[^()|$]*(?:\\mid|\|)[^()|$]*\)\s*")


def _free_probabilities(src: _Source, blk: Block, defs: dict, doc: _Document, snapshot: _Document):
    r"""The document to read a display again with, where every name its chains need from the prose after it
    (``doc.pending_after``) is given there as one conditional probability — d2l's "by having $\pi_{j} =
    p_{\theta} (y_{ij} \mid \mathbf{x}_i)$" after the log-likelihood — which is not read (no law declared)
    and not a formula of the display's names, while the prose before calls the name's family probabilities
    ("with probabilities $\boldsymbol{\pi} =$ ($\pi_{1}, \ldots, \pi_{k}$)", "the probability … is
    $\pi_i$"): the display is read with it free, a family of probabilities (:func:`_prose_given` says what
    to state). None otherwise: a later definition that reads is the display's, as before."""
    if re.search(r"%\s*assume:[^\n]*\blaw\b", src.text):
        return None  # a declared law: the conditional may be read
    before = {n for n, _, _ in _probabilities(src, blk.start)} | {n for n, _, _ in _probability_vectors(src, blk.start)}
    for name in doc.pending_after:
        b = doc.after_blocks[name]
        said = _inline_definition(src, b, defs, copy.deepcopy(snapshot))
        if name not in before or len(said) > 1 or (said and not said[0].definition):
            return None
        right = said[0].definition.split("=", 1)[1] if said else src.text[b.body : b.body_end].split("=", 1)[1]
        if not (_CONDITIONAL if said else _CONDITIONAL_TEX).fullmatch(right):
            return None  # (not read by the reader: p_\theta(y \mid x) as typeset)
    out = copy.deepcopy(snapshot)
    out.after = {k: v for k, v in out.after.items() if k not in doc.pending_after}
    out.after_blocks = {k: v for k, v in out.after_blocks.items() if k not in doc.pending_after}
    out.pending_after = set(doc.pending_after)
    return out


def _display_free(src: _Source, blk: Block, defs: dict, markdown: bool, doc: _Document) -> list:
    """The chains of a display read with the names :func:`_free_probabilities` frees, each noting it."""
    names, doc.pending_after = sorted(doc.pending_after), set()
    got = _display_chains(src, blk, defs, markdown, doc)
    note = ", ".join(names) + (
        ": the prose after this display gives it as a conditional probability, not read; read here as the "
        "free probabilities the prose before names"
    )
    return [c if c.definition or c.error else replace(c, notes=(*c.notes, note)) for c in got]


def _pending_blocks(doc: _Document) -> list:
    return sorted((doc.after_blocks[name] for name in doc.pending_after), key=lambda b: b.start)


def _display_chains(src: _Source, blk, defs: dict, markdown: bool, doc: _Document) -> list:
    """The chains of one display block (or its chain of bad input, or the definition it still makes)."""
    try:
        return _log2_noted(src, blk, _block_chains(src, blk, defs, markdown, doc))
    except LatexRefused:
        raise
    except DeriveError as exc:  # an unreadable block fails its own chain; the others are checked
        n = src.line(blk.start)
        out = _block_definition(src, blk, defs, markdown, doc, str(exc))  # or defines a name
        doc.unread.update({name: n for name in _defined_in(src, blk)})
        return out


# d2l's information theory: "the rest of this section will omit the subscript 2 …, i.e., $\log(.)$
# always refers to $\log_2(.)$" — the prose's own convention for a plain \log
_LOG2_RULE = re.compile(
    r"\\log\s*(?:\(\s*\.?\s*\))?\s*\$?\s*(?:always\s+)?(?:refers\s+to|means|denotes|stands\s+for)\s+\$?\s*"
    r"\\log_\{?\s*2\s*\}?",
    re.I,
)


def _log_is_log2(src: _Source, found) -> int | None:
    """Where the prose (outside every display) says a plain ``\\log`` is ``\\log_2``
    (d2l: "$\\log(.)$ always refers to $\\log_2(.)$"): from there on the reader reads ``\\log x`` as
    ``log(x, 2)`` and each chain says so in its notes; read as the natural log, d2l's ``-\\log(1/2^4) =
    4`` bits would be refuted. None where the prose states no such rule (``\\ln`` is never affected)."""
    spans = [(b.start, b.end) for b in found]  # the displays: the rule is prose (its inline math aside)
    for m in _LOG2_RULE.finditer(src.text):
        if not any(a <= m.start() < b for a, b in spans):
            return m.start()
    return None


def _log2_noted(src: _Source, blk, chains: list) -> list:
    """Each chain read after the prose's log-base rule, with a plain log in it, says how it read it."""
    if src.log2_from is None or blk.start < src.log2_from:
        return chains
    note = f"log read as log_2: the prose at line {src.line(src.log2_from)} says \\log always refers to \\log_2"
    return [
        replace(c, notes=c.notes + (note,))
        if not c.error and any(", 2)" in s.text and "log(" in s.text for s in c.steps)
        else c
        for c in chains
    ]


_E_DEFINED = re.compile(
    r"(?:^|\\\\|&)\s*(?:\^\s*(?:[A-Za-z]|\{[A-Za-z]\})\s*)?(?P<e>E)\s*&?\s*(?:=(?!=)|:=|\\coloneqq|\\triangleq|\\stackrel)",
    re.M,
)


def _defines_e(src: _Source, found, markdown: bool) -> int | None:
    """Where a display or inline math of the document starts a row with ``E = …`` (``E &= \\frac12
    \\sum_k (t_k - y_k)^2``, the error of backprop notes): from there on a plain E is that quantity,
    not an expectation nor Euler's number (docs/latex.md). None where no row defines E."""
    masked = _masked(src.text, markdown)
    for blk in sorted(found, key=lambda b: b.start):
        for m in _E_DEFINED.finditer(src.text[blk.body : blk.body_end]):
            at = blk.body + m.start("e")
            if masked[at] == "E":  # not in a comment
                return at
    return None


def preamble_macros(preamble: tuple[str, str] | None) -> dict:
    """The ``\\newcommand``, ``\\renewcommand``, ``\\DeclareMathOperator`` and simple ``\\def`` of a
    macros file named on the command line (a book's ``.sty``, its chapters in other files), read as a
    ``.tex`` file's own: TeX's file, shell and catcode primitives refused anywhere in it; nothing
    else of it is read."""
    if preamble is None:
        return {}
    path, text = preamble
    src = _Source(text, path)
    if len(text) > MAX_CHARS:
        raise LatexRefused(f"{path}: file too large ({len(text)} characters, at most {MAX_CHARS})")
    _refused_anywhere(src)
    return macros(src, [(0, len(text))])


# --- definitions ---------------------------------------------------------------------------------


@dataclass
class _Document:
    """What the file has defined so far, in order (a definition is in force from its line on), and
    the names its chains have used (a name used before is not fresh, so ``x = 0`` after a chain in
    x is a claim, not a definition)."""

    defs: list = field(default_factory=list)  # [(line, name, "name(params) = body", explicit)]
    functions: dict = field(default_factory=dict)  # the reader's key (\\sigma: "sigma") -> name
    used: set = field(default_factory=set)
    unknown: set = field(default_factory=set)  # unknown functions read so far (f in f(x))
    implicit: set = field(default_factory=set)  # of them, those read from a derivative (dz/dx)
    unread: dict = field(default_factory=dict)  # names a display not read defines -> its line (H(X) = …)
    last_tail: tuple = ()  # the last display's last expression (tokens), for "= …"
    lead: str = ""  # "so that": the prose before this display makes it a condition
    carried: set = field(default_factory=set)  # names by = kept from an earlier section (notation)
    former: dict = field(default_factory=dict)  # name -> (line, text) of a definition by = an earlier section ended
    restated: set = field(default_factory=set)  # names restated, equal, in a later section: the file's (to its end)
    excluded: dict = field(default_factory=dict)  # a definition's text -> the i of its \\sum_{k \\ne i}
    prose: str = ""  # the section's text before this display (its math masked)
    opaque: dict = field(default_factory=dict)  # names defined by a right side not read -> the line
    opaque_names: set = field(default_factory=set)  # those names as spelled (l^(i), W^(1): the reader's are refused)
    opaque_used: set = field(default_factory=set)  # the names on their right sides (b of ŷ = w^T x + b)
    laws_of: dict = field(default_factory=dict)  # (CE, 2) -> ((P, Q), its reading in p, q): _law_definition
    law_names: set = field(default_factory=set)  # the laws chains declared (p, q of p(x, y) law): _information
    info_used: set = field(default_factory=set)  # (H, 2), (I, 2): information quantities chains have used
    families: dict = field(default_factory=dict)  # σ_i(z) of a vector z: the reader's key -> (name, z, i or "")
    after: dict = field(default_factory=dict)  # names the prose after this display states inline -> line
    after_blocks: dict = field(default_factory=dict)  # those names -> the inline block that states them
    pending_after: set = field(default_factory=set)  # of them, those a chain of this display needs first

    def new_section(self):
        """A heading ends the section: a definition written as ``=`` (``f(x) = \\sin x`` in one
        example, another f in the next) is in force to the section's end; one written with a
        definition sign (``:=``) to the file's end, and so is a chapter's notation (:func:`_notation`)."""
        dropped = {name for _, name, _, explicit in self.defs if not explicit}
        # a function of a vector (statnotes' σ_i(z), N(z)) is the note's notation, used in every section
        vectorial = {name for name, _, _ in self.families.values()}
        self.former.update({d[1]: (d[0], d[2]) for d in self.defs})
        self.defs = [
            d for d in self.defs if d[3] or _notation(d[1], d[2]) or d[1] in vectorial or d[1] in self.restated
        ]
        kept = {name for _, name, _, _ in self.defs}
        self.carried = {name for _, name, _, explicit in self.defs if not explicit}
        self.functions = {k: v for k, v in self.functions.items() if v not in dropped or v in kept}
        self.used = set()
        self.last_tail = ()
        # as a definition by =: ŷ (decorated, notation) stays, s and f (reused by the next example) go
        self.opaque = {k: v for k, v in self.opaque.items() if "_" in k}
        self.opaque_names = {k for k in self.opaque_names if "_" in k}
        self.opaque_used = set()

    def names(self) -> set:
        return {name for _, name, _, _ in self.defs}

    def params(self) -> dict:
        """The parameters of each function in force: ``f(x, y) = x*y`` gives ``{"f": ("x", "y")}``."""
        out = {}
        for _, name, text, _ in self.defs:
            head = text.split("=", 1)[0]
            out[name] = tuple(WORD.findall(head.partition("(")[2])) if "(" in head else None
        return {k: v for k, v in out.items() if v}

    def needed(self, texts) -> tuple:
        """The definitions that ``texts`` use, with those they use in turn, in the file's order."""
        want = {w for t in texts for w in WORD.findall(t)}
        keep, seen = [], set()
        for line, name, text, _ in reversed(self.defs):  # the latest definition of a name is in force
            if name in want and name not in seen:
                seen.add(name)
                keep.append((line, text))
                want |= set(WORD.findall(text.split("=", 1)[1]))
        return tuple(reversed(keep))


def _indexed_by_definitions(pieces, doc: "_Document") -> set:
    r"""The bases a definition in force holds as entries (``C = \frac{1}{N}\sum_k -[t_k \log p_k + …]``:
    p[k], t[k]) and this chain writes with a one-letter subscript (``\frac{\partial C}{\partial p_j}``):
    there ``p_j`` is the entry p[j] — read as the name p_j, C did not depend on it and the correct
    derivative was refuted (0 against the author's −(t_j/p_j − …)/N)."""
    held = {b for _, _, text, _ in doc.defs for b in re.findall(r"([A-Za-z][A-Za-z0-9_]*)\[", text.split("=", 1)[-1])}
    # p_k = \sigma(u_k) holds u_k a name: u stays names here (∂p_k/∂u_k read with u[k] was 0)
    held -= {
        b for _, _, text, _ in doc.defs for b in held if re.search(rf"(?<![A-Za-z0-9_]){re.escape(b)}_[A-Za-z]", text)
    }
    out = set()
    for toks in pieces:
        for k in range(len(toks) - 2):
            if toks[k + 1].kind == "ch" and toks[k + 1].text in "_^" and toks[k].kind in ("ch", "cmd"):
                sub = toks[k + 2 : k + 5] if toks[k + 2].text == "{" else toks[k + 2 : k + 3]
                sub = sub[1:2] if sub and sub[0].text == "{" and len(sub) == 3 and sub[2].text == "}" else sub
                label = [x.text for x in toks[k + 2 : k + 7]]  # p^{(j)}: the label, read as p_j
                if toks[k + 1].text == "^" and label[:2] == ["{", "("] and label[3:5] == [")", "}"]:
                    sub = toks[k + 4 : k + 5]
                if len(sub) == 1 and sub[0].kind == "ch" and sub[0].text.isalpha() and toks[k].text in held:
                    out.add(toks[k].text)
    return out


def _one_family_one_reading(src: _Source, at: int, texts, lets) -> None:
    r"""Refuse a chain that writes a name ``p_k`` (or a definition it unfolds does) where a definition it
    unfolds holds the entries ``p[…]`` of the same base: the name and the entries are one family for
    its author, two unrelated quantities for the check — ∂/∂p_k of a sum in p[k] is 0, and the
    author's correct ``\frac{\partial C}{\partial p_k}`` was refuted."""
    held = {b for _, t in lets for b in re.findall(r"([A-Za-z][A-Za-z0-9_]*)\[", t.split("=", 1)[-1])}
    for t in list(texts) + [t for _, t in lets]:
        for b in held:
            m = re.search(rf"(?<![A-Za-z0-9_]){re.escape(b)}_([A-Za-z][A-Za-z0-9]*)(?![A-Za-z0-9_\[(])", t)
            if m:
                src.fail(
                    at,
                    f"{m.group(0)} and the entries {b}[…] of a sum defined above are one family read two ways "
                    f"(a name and an array's entries); write the sum with the subscript, or % mathcheck: skip",
                )


def _family_entries(rhs: str, doc: "_Document") -> str:
    r"""``\sum_i \mathcal{L}^{(i)}`` after ``\mathcal{L}^{(i)} = -[y^{(i)} \log a^{(i)} + …]`` (statnotes'
    cost J): the entries L[i] of the sum are that definition at each i — its names subscripted by its
    index, y_i and a_i, the entries y[i], a[i]. Unfolded here; left as an unknown array L[i], J did not
    depend on a_i and ∂J/∂a_i was refuted. Only for a definition of ``B_x`` (x one letter) in force."""
    by = {}
    for _, name, text, _ in doc.defs:
        m = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)_([a-z])", name)
        body = text.split("=", 1)[1].strip()
        # its body in the index (y_i, a_i): cs231n's L_i = max(0, -7 - 13 + 10) + … is one example's value
        # and in it alone: cs231n's L_i = \sum_{j \ne y_i} max(0, s_j - s_{y_i} + Δ) has scores s of example i
        # unwritten (s_j, s[…] are no entries of the family)
        alone = (
            m and "[" not in body and all(w.endswith(f"_{m.group(2)}") for w in re.findall(r"[A-Za-z]\w*_\w+", body))
        )
        if alone and "(" not in text.split("=", 1)[0] and re.search(rf"_{m.group(2)}(?![A-Za-z0-9_])", body):
            by[m.group(1)] = (m.group(2), body)

    def entry(m):
        base, idx = m.group(1), m.group(2)
        if base not in by:
            return m.group(0)
        x, body = by[base]
        body = re.sub(rf"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)_{x}(?![A-Za-z0-9_\[])", rf"\1[{idx}]", body)
        body = re.sub(rf"(?<![A-Za-z0-9_]){x}(?![A-Za-z0-9_(])", idx, body)
        return f"({body})"

    for _ in range(4):  # L[i] in y[i], a[i]; a[i] in turn, where a_i is defined too (σ(z[i]))
        rhs, before = re.sub(r"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)\[([a-z])\]", entry, rhs), rhs
        if rhs == before:
            break
    return rhs


def _notation(name: str, text: str) -> bool:
    r"""A chapter's notation, in force past its section though written with ``=``: a subscripted or
    decorated name (``mu_X``, ``x_bar``; not ``f``, ``y``, which books reuse from one example to the
    next) defined by an expression in other names (not ``L_i = 8``, a value of one example) — d2l's
    random-variables appendix defines ``\mu_X = E[X]`` under "Means" and uses it under "Variances",
    where μ_X read as free refuted ``E[(X - \mu_X)^2] = E[X^2] - \mu_X^2``."""
    from mathcheck.parser import reserved

    head, _, rhs = text.partition("=")
    return "(" not in head and "_" in name and bool(set(WORD.findall(rhs)) - reserved() - {name})


_CONDITION_LEAD = re.compile(
    r"(?:^|\W)(so that|such that|if|only if|if and only if|iff|whenever|provided(?: that)?|"
    r"satisfying|to satisfy|subject to|unless)\s*[:,]?\s*$",
    re.I,
)


def _condition_lead(prose: str) -> str:
    r"""The words that end the prose before a display when they make it a condition, else "": d2l's
    "vectors are linearly dependent if there exist coefficients … *not all equal to zero* so that
    $$\sum_{i=1}^k a_i\mathbf{v}_i = 0.$$" states what dependence means — no claim that every sum is 0
    (as a claim it was refuted)."""
    tail = re.sub(r"[*_]+", " ", prose[-200:])
    m = _CONDITION_LEAD.search(tail)
    return m.group(1).lower() if m else ""


# y_i = …, y_{i} = …, and a sample's label, \delta^{(i)} = … (statnotes' logistic.tex:70, the output error)
_STATED = re.compile(
    r"\s*\\?([A-Za-z]+)\s*(?:_\s*(?:\{\s*[A-Za-z]\s*\}|[A-Za-z])|\^\s*\{\s*\(\s*[A-Za-z]\s*\)\s*\})\s*=(?!=)"
)


def _stated_after(src: _Source, blk, found: list, inline: list, blocks: bool = False) -> dict:
    """The indexed names the prose right after a display gives a meaning inline (``$y_i = …$``; a point,
    ``at $x = 1$``, is no meaning), before the next display —
    statnotes' "Here $t_i$ represents the label … and $y_i=\\sigma_i(z)$ is the softmax output" after
    ``J(z) = -\\sum_i t_i \\log\\sigma_i(z) = -\\sum_i t_i \\log y_i``: the base's name (``y``, ``t``,
    ``delta``) -> its line. The display means its names so; read before that prose, with y free, the
    link was refuted (:func:`_equation` refuses it instead)."""
    nxt = min((b.start for b in found if b.start >= blk.end), default=len(src.text))
    out = {}
    for b in inline:
        if blk.end <= b.start < nxt:
            m = _STATED.match(src.text, b.body, b.body_end)
            # in other names: "after t steps $x_t = (1 - \eta\lambda)^t x_0$" is a consequence, not x's meaning
            if m and not re.search(rf"(?<![A-Za-z]){m.group(1)}(?![A-Za-z])", src.text[m.end() : b.body_end]):
                out.setdefault(m.group(1), b if blocks else src.line(b.start))
    return out


def _inline_blocks(src: _Source, markdown: bool, found: list) -> list:
    """The ``$…$`` spans of prose (not inside a display block): candidates for definitions."""
    masked = _masked(src.text, markdown)
    spans = [(b.start, b.end) for b in found]
    out = []
    for m in re.finditer(r"(?<![\\$])\$(?!\$)([^$\n]{1,400}?)(?<![\\$])\$(?!\$)", masked):
        if not any(a <= m.start() < b for a, b in spans):
            out.append(Block(m.start(), m.start(1), m.end(1), m.end(), "$"))
    return out


def _inline_definition(src: _Source, blk: Block, defs: dict, doc: _Document) -> list:
    """``with $s = \\sigma(z)$``: a definition chain, or nothing (inline math is prose otherwise)."""
    try:
        toks, _ = _drop_structure(expand(tokenize(src, blk.body, blk.body_end), defs, src), src)
        groups = [g for g in _links(toks, src) if len(g) > 1]
        if len(groups) != 1 or len(groups[0]) != 2 or not groups[0][1].toks or not groups[0][0].toks:
            return []
        notation = notation_of(
            src, [link.toks for link in groups[0]], set(), dict(doc.functions), set(), doc.names(), doc.families
        )
        chain = _definition(src, groups[0], notation, doc, set(), inline=True)
    except LatexRefused:
        raise
    except DeriveError:
        # `Let $u = \frac{\partial}{\partial y} y \cdot …$`, its right side not read: u is still the
        # author's u, so a later link in it is bad input naming this line, never u read as free
        # (bench/latex_fuzz.py --defs, seed 0: 7 cases read u as a free name)
        doc.opaque.update({name: src.line(blk.start) for name in _defined_in(src, blk)})
        return []
    return [chain] if chain is not None else []


def _squared(head: list[Tok], params) -> tuple:
    r"""``(\sigma_X tokens, True)`` for a head ``\sigma_X^2`` (``^{2}``), else ``(head, False)``: d2l's
    ``\sigma_X^2 = \textrm{Var}(X) = E[(X-\mu_X)^2] = …`` names σ_X by its square — the convention of a
    standard deviation, nonnegative — and σ_X read as free refuted the chain's first link."""
    spelled = [t.text for t in head]
    for tail in (["^", "2"], ["^", "{", "2", "}"]):
        if params is None and len(head) > len(tail) and spelled[-len(tail) :] == tail:
            return head[: -len(tail)], True
    return head, False


def _lhs_shape(toks: list[Tok]):
    """``(head tokens, [parameter names])`` for ``f(x, y)``; ``(toks, None)`` for anything else."""
    top = [k for k, t in enumerate(toks) if t.kind == "ch" and t.text == "("]
    if top and toks[-1].kind == "ch" and toks[-1].text == ")" and top[0] > 0:
        k = top[0]
        params = [
            _word(p) or _accented_word(p) for p in _split(toks[k + 1 : -1], lambda t: t.kind == "ch" and t.text == ",")
        ]
        if params and None not in params and len(set(params)) == len(params):
            return toks[:k], params
    return toks, None


def _accented_word(toks: list[Tok]) -> str | None:
    r"""``y_hat`` for a parameter written ``\hat{\mathbf{y}}`` (``\bar{x}``: ``x_bar``), the name the reader
    gives it (d2l's loss ``l(\mathbf{y}, \hat{\mathbf{y}})`` of the label and the prediction); None for anything
    else."""
    if len(toks) < 4 or toks[0].kind != "cmd" or toks[0].text not in ACCENTS or toks[1].text != "{":
        return None
    if toks[-1].text != "}" or _closing(toks, 1) != len(toks) - 1:
        return None
    word = _word(toks[2:-1])
    return f"{word}_{ACCENTS[toks[0].text]}" if word and WORD.fullmatch(word) else None


def _vector_family(src: _Source, head: list, params, vectors: list, rhs_toks: list, notation: Notation):
    r"""``(key, name, i, right side, z)`` for statnotes' ``\sigma_i(z) = \frac{e^{z_i}}{\sum_{k=1}^n e^{z_k}}``
    (``N(z) = \sum_{k=1}^n e^{z_k}``: i is ""), a function of the vector z written in its entries, with
    the index of the family as its subscript: read as ``sigma(i) = exp(z[i])/Sum(exp(z[k]), (k, 1, n))``,
    a function of the index (``N = …``, a name), so ``\sigma_j(z)`` is ``sigma(j)`` and ``N(z)`` is ``N``
    (:meth:`Reader.family`) — z the same vector everywhere, its entries z[k] the unknowns a derivative
    ∂/∂z_j takes. None where it is not such a definition: z another than the one parameter, z also
    used whole on the right (``f(z) = z^\top z``), or the index bound or declared."""
    if not vectors or not set(vectors) <= set(params or ()) or len(params) == 1 and params != vectors:
        return None
    # l(\mathbf{y}, \hat{\mathbf{y}}) = -\sum_j y_j \log \hat{y}_j (d2l's loss): a function of several vectors
    # in their entries, no index of its own — the name l, unfolded where l is applied to the same vectors
    vector, key, index = ", ".join(params), head[0].text, ""
    spelled = [t.text for t in head[1:]]
    if spelled[:2] == ["_", "{"] and spelled[-1:] == ["}"]:
        spelled = ["_"] + spelled[2:-1]
    if spelled and len(params) > 1:
        return None
    if spelled:
        if len(spelled) != 2 or spelled[0] != "_" or not (len(spelled[1]) == 1 and spelled[1].isalpha()):
            return None
        index = spelled[1]
    if head[0].kind not in ("ch", "cmd") or len(head) > 1 and not index or index in notation.indices | set(params):
        return None
    inner = Notation(
        notation.indices | ({index} if index else set()),
        notation.indexed | set(params),
        dict(notation.functions),
        set(notation.variables),
        set(notation.defined),
    )
    inner.families, inner.free = notation.families, notation.free
    try:
        name, rhs = Reader(head[:1], src, inner).read(), Reader(rhs_toks, src, inner).read()
    except DeriveError:
        return None
    entries = {v[0] for v in notation.families.values() if v[2]}  # y_hat(j), an entry of the family y_hat
    bare = "|".join(rf"(?<![A-Za-z0-9_]){re.escape(p)}(?![A-Za-z0-9_\[{'(' if p in entries else ''}])" for p in params)
    if not WORD.fullmatch(name) or re.search(bare, rhs) or name in notation.functions:
        return None
    notation.unknown |= inner.unknown
    return key, name, index, rhs, vector


def _subscripted_head(head: list, notation: Notation):
    """``(index, key)`` of a head written ``a_j`` or ``a_{j}``: one letter or command, a one-letter index
    that no enclosing sum binds; None otherwise."""
    spelled = [t.text for t in head]
    if spelled[1:3] == ["_", "{"] and spelled[-1:] == ["}"]:
        spelled = spelled[:2] + spelled[3:-1]
    if len(spelled) != 3 or spelled[1] != "_" or not (len(spelled[2]) == 1 and spelled[2].isalpha()):
        return None
    index, key = spelled[2], head[0].text
    if index in notation.indices - notation.free or head[0].kind not in ("ch", "cmd"):
        return None
    return index, key


def _normalised_family(src: _Source, head: list, rhs: str, notation: Notation):
    r"""``(key, name, j)`` for a blog's ``a_j = \frac{e^{z_j}}{\sum_k e^{z_k}}``: the entries of a, each in
    the entry z_j of a vector and a sum over all its entries z_k — read as ``a(j) = exp(z[j])/Sum(exp(z[k]),
    …)``, so ``a_k``, ``a_i`` are a(k), a(i) and ∂a_k/∂z_i is taken (as the name a_j, with a_k another
    unknown, the softmax's derivative was bad input). None for anything else (``x_j = w_j + b`` has no sum
    over the vector: it stays what it was)."""
    found, base = _subscripted_head(head, notation), head[:1]
    if found is None and (accented := _accented_head(head, notation)) is not None:
        found, base = accented  # d2l's \hat{y}_i = \frac{\exp(o_i)}{\sum_j \exp(o_j)}: the entries of y_hat
    if found is None or found[1] in notation.families:
        return None
    index, key = found
    for m in re.finditer(rf"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)\[{index}\]", rhs):
        vector = m.group(1)
        summed = [
            r.group(1)
            for r in _RANGE.finditer(rhs)
            if r.group(1) != index and re.search(rf"(?<![A-Za-z0-9_]){vector}\[{r.group(1)}\]", rhs)
        ]
        if summed:
            break
    else:
        return None
    try:
        name = Reader(base, src, Notation(set(), set(), {}, set())).read()
    except DeriveError:
        return None
    return (key, name, index, vector) if WORD.fullmatch(name) and name != vector else None


def _accented_head(head: list, notation: Notation):
    r"""``((index, key), base tokens)`` for a head ``\hat{y}_i`` (``\hat y_i``, ``\bar{x}_{j}``): an accented letter
    with a one-letter index no enclosing sum binds; the key is the name the reader gives the base (``y_hat``), so
    ``\hat{y}_j`` later is the family's entry. None otherwise."""
    if not head or head[0].kind != "cmd" or head[0].text not in ACCENTS or len(head) < 2:
        return None
    end = _closing(head, 1) + 1 if head[1].text == "{" else 2
    word = _word(head[2 : end - 1]) if head[1].text == "{" else _word(head[1:2])
    if end <= 0 or not word or not re.fullmatch(r"[A-Za-z]", word):
        return None
    found = _subscripted_head([Tok("ch", word, head[0].pos, head[0].end)] + head[end:], notation)
    if found is None:
        return None
    return (found[0], f"{word}_{ACCENTS[head[0].text]}"), head[:end]


def _layer_family(head: list, entry, notation: Notation):
    r"""``(key, name, i)`` for UFLDL-style backprop notes' ``z_i^{(l+1)} = \sum_{j=1}^{s_l} W^{(l)}_{ij}
    a_j^{(l)} + b^{(l)}_i``: the left side an entry of a layer's array (:meth:`Reader.layer_entry`, read
    ``z_layer_lplus1[i]``) at an index no sum binds and nothing declares — the entries of that layer's
    array, ``z_layer_lplus1(i) = Sum(W_layer_l[i, j]*a_layer_l[j], (j, 1, s_l)) + b_layer_l[i]``, so
    ``z_j^{(l+1)}`` is z_layer_lplus1(j) later (and ``z_j^{(l)}``, another layer's, is not unfolded); a matrix's
    entries ``W_{ij}^{(l)} = …`` too, W_layer_l(i, j) (read as a claim in a free array, one was refuted). None for
    anything else."""
    if entry is None or "_layer_" not in entry.group(1) or not any(t.kind == "ch" and t.text == "^" for t in head):
        return None
    name, index = entry.group(1), entry.group(2)
    letters = index.split(", ")
    if len(set(letters)) < len(letters) or set(letters) & (notation.indices | notation.variables):
        return None  # W_{ii}^{(l)}: a diagonal, not the entries
    return None if name in notation.families else (name, name, index)


def _no_name_in_index(src: _Source, link, rhs: str, params: list) -> None:
    r"""Refuse a layer's entries defined by a right side holding a plain name subscripted by the entries' index
    (``W_{ij}^{(l)} = 2 x_i``, x indexed nowhere: the name x_i): unfolded at another index, W_{ji}^{(l)}, the name
    would stay x_i where its author means x_j — a claim in it was refuted."""
    for p in params:
        m = re.search(rf"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*_{p}(?![A-Za-z0-9_\[(])", rhs)
        if m:
            src.fail(
                link.at.pos,
                f"{m.group(0)} on the right side is a name, not an entry at the index {p} this display defines the "
                f"entries by; write it as an entry (declare the index, % assume: {p} \\in \\mathbb{{Z}}), or % let:",
            )


def _entry_family(src: _Source, head: list, rhs: str, notation: Notation):
    r"""``(key, name, i)`` for statnotes' ``$y_i=\sigma_i(z)$``: the entries of y named by those of a
    function of a vector (``sigma(i)``, :func:`_vector_family`) at the same free index i — read as
    ``y(i) = sigma(i)``, so ``y_c`` is ``y(c)``, σ_c(z) (as the name y_i, ``-\log\sigma_c(z) = -y_c`` was
    refuted with y_c free). None for anything else (``L_i = \max(0, …)`` stays the name L_i)."""
    found = _subscripted_head(head, notation)
    if found is None:
        return None
    index, key = found
    # σ's entries, or those of a family read from them ($\delta_i=y_i-\delta_{ic}$ after $y_i=\sigma_i(z)$)
    vectorial = {name for name, vector, i in notation.families.values() if i}
    if not any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(f)}\({index}\)", rhs) for f in vectorial):
        return None
    try:
        name = Reader(head[:1], src, Notation(set(), set(), {}, set())).read()
    except DeriveError:
        return None
    return (key, name, index) if WORD.fullmatch(name) and key not in notation.families else None


def _definition(
    src: _Source,
    group: list,
    notation: Notation,
    doc: _Document,
    block_lets: set,
    inline: bool = False,
    computed: bool = False,
    premise: bool = False,
):
    r"""A definition chain for the equation ``group`` (first expression, one link), or None when it is
    a claim. It defines when written with a definition sign, or as ``=`` whose left side is a name
    (or ``f(x, y)`` of names) not defined or used before by a chain that was read, and absent from
    its right side; inline, that right side is not a bare number (``at $x = 0$`` is a point, not a
    definition), while a display gives a fresh name its value (cs231n's ``L_i = \max(0, -7 - 13 + 10)
    + \max(0, 11 - 13 + 10)`` after an unread display in L_i is L_i's value, never a claim refuted).
    A redefinition by a definition sign is said in the chain's name; by ``=`` it is a claim, checked with the definition unfolded."""
    from mathcheck.parser import PROBABILITY, ParseError, parse_definition, reserved

    if len(group) != 2 or group[1].relation != "=":
        return None
    first, link = group
    head, params = _lhs_shape(first.toks)
    head, squared = _squared(head, params)
    if (
        params
        and len(params) > 1
        and len(head) == 1
        and notation.families.get(head[0].text, ("", "", "x"))[1:] == (", ".join(params), "")
    ):
        return None  # l(y, y_hat) again after its definition in the entries (d2l :345): a claim, l unfolded
    try:
        name = Reader(head, src, Notation(notation.indices, notation.indexed, {}, notation.variables)).read()
    except DeriveError:
        name = _word(head) if params else None  # \operatorname{pReLU}(x) = …: the word names the function
    if params and len(params) == 1 and re.fullmatch(r"[pf]_[A-Z]\w*", name or "") and name[2:] in notation.densities:
        return None  # p_Y(y) = … of Y = g(X) or Y ∼ law stated: the change of variables, a claim (probability)
    entry = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)\[([A-Za-z])\]", name or "")
    if entry and entry.group(2) in notation.free and not params:  # $y_i = \sigma_i(z)$, i free: y's entries
        name = f"{entry.group(1)}_{entry.group(2)}"
    matrix = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)\[([A-Za-z](?:, [A-Za-z])*)\]", name or "")
    layered = _layer_family(head, matrix, notation) if not params else None
    if layered is not None:  # z_i^{(l+1)} = \sum_j W^{(l)}_{ij} a_j^{(l)} + b^{(l)}_i: the entries of z_layer_lplus1
        name = layered[1]
    # Var(X) = p^2 names no new quantity: Var is probability's operator (latex/probability.py), so the
    # display is a claim about X, checked (a planted mistake read as a definition was never refuted)
    word = _word(head) if params else None  # sigmoid(z), \operatorname{tanh}(x): a word, the table's maybe
    if word in _PARSER_FUNCTIONS and not (link.define or inline or premise):
        table = _table_definition(src, group, word, params, notation)
        if table is not None:  # \operatorname{sigmoid}(x) = \frac{1}{1 + \exp(-x)}: the author's definition
            return table
    if (
        name is None
        or not WORD.fullmatch(name)
        or name in reserved()
        or name in _PARSER_FUNCTIONS
        or name in PROBABILITY
    ):
        if link.define:
            src.fail(link.at.pos, "a definition's left side is a name or f(x, y) of names, e.g. s := \\sigma(z)")
        return None
    inner = Notation(
        notation.indices,
        notation.indexed,
        dict(notation.functions),
        notation.variables | set(params or ()),
        set(notation.defined),
    )
    inner.families, inner.free = notation.families, notation.free
    rhs = _family_entries(Reader(link.toks, src, inner).read(), doc)
    if params and not link.define and (chain := _law_definition(src, group, name, params, rhs, doc)) is not None:
        return chain
    used = {n for n, _, _ in notation.families.values() if re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}\b", rhs)}
    vectors = [
        p
        for p in params or ()
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(p)}\[", rhs)
        or any(notation.families[k][1] == p for k in notation.families if notation.families[k][0] in used)
        # \hat{\mathbf{y}} beside the entries \hat{y}_j of its family (d2l's ŷ_i = softmax's): y_hat(j) on the right
        or any(v[0] == p and v[2] for v in notation.families.values())
        and re.search(rf"(?<![A-Za-z0-9_]){re.escape(p)}\(", rhs)
    ]
    family = _vector_family(src, head, params, vectors, link.toks, notation) if vectors else None
    if family is not None:  # σ_i(z) = e^{z_i}/Σ_k e^{z_k}: sigma(i), an entry of a function of the vector z
        key, name, index, rhs, vector = family
        params, vectors = [index] if index else None, []
    entries = _entry_family(src, head, rhs, notation) if family is None and not params else None
    normalised = _normalised_family(src, head, rhs, notation) if family is None and not params and not entries else None
    entries = entries or (normalised[:3] if normalised else None) or (layered if family is None else None)
    if entries is not None:  # $y_i=\sigma_i(z)$: y(i), the entries of y are σ's
        key, name, index = entries
        family, vector, params = (key, name, index, rhs, ""), "", index.split(", ")  # W_layer_l(i, j): two
        if entries is layered:
            _no_name_in_index(src, link, rhs, params)
    elif entry and entry.group(2) in notation.free:
        return None  # y_i = … at a free i, not the entries of a function of a vector: a claim
    if vectors:
        # σ_i(z) = e^{z_i}/Σ_k e^{z_k}: a function of the vector z, its entries z_i on the right — read with z
        # one scalar and z[i] an unrelated array, the quotient rule's ∂σ_i(z)/∂z_j was "proved" as 0 = 0
        src.fail(
            first.toks[0].pos,
            f"{name}({', '.join(params)}) is a function of the vector {vectors[0]} (its entries {vectors[0]}_i "
            f"on the right): functions of vectors are not read; write it in the entries, e.g. "
            f"% let: {name} = …, or % mathcheck: skip",
        )
    # the unknown functions of the meaning are the document's: d2l's \beta_i := p(x_i)/q(x_i), unfolded
    # later, left p and q unknown to the chain that used β_i (a parse error, its true link lost)
    notation.unknown |= inner.unknown
    notation.implicit |= inner.implicit
    _not_einstein(src, group)  # y_{il} = x_{ijkl} a_{jk} defines no scalar y_il
    if squared and not name.startswith("sigma"):
        return None
    if squared:  # \sigma_X^2 = \mathrm{Var}(X): the standard deviation σ_X ≥ 0 defined by its square
        rhs = f"sqrt({rhs})"
    rhs_names = set(WORD.findall(rhs))
    if not (link.define or inline or squared or computed) and _restates(name, params, rhs, doc, block_lets):
        return None  # σ(x) = (1 + e^{-x})^{-1} under a later heading: a claim about line 4's σ, checked
    earlier = doc.names() | block_lets
    if name in rhs_names:
        if link.define:
            src.fail(
                link.at.pos,
                f"the definition of {name} uses {name} on its right side; define it by what it means in other names",
            )
        return None
    # f(x) = … again, its right side in neither f nor x: a function redefined (d2l: "we distort this
    # function further via f(\mathbf{x}) = 0.1 x_1^2 + 2 x_2^2"), said as such — never a claim refuted
    # against the earlier f; f(x, y) = r^2 with r = sqrt(x^2 + y^2) restates f, a claim checked
    unfolded = rhs_names | {w for _, t in doc.needed([rhs]) for w in WORD.findall(t.split("=", 1)[1])}
    refunction = (
        bool(params)
        and name in earlier | doc.used
        and (
            (not inline and not set(params) & unfolded)
            # "suppose that we know that $L(x) = x^2 + 1701(x-4)^3$" after chains about every L: that L
            or (inline and name in doc.unknown and name not in earlier)
        )
    )
    # before an arrow, f(x, y) = x + y gives f for what the arrow leads to: cs231n's gates, one display each
    # (f(x,y) = x y \rightarrow …, then f(x,y) = x + y \rightarrow …); as a hypothesis x + y = x y, it was false
    same = [t for _, n, t, _ in doc.defs if n == name][-1:] == [f"{name}({', '.join(params or ())}) = {rhs}"]
    refunction = refunction or premise and bool(params) and name in earlier and not inline and not same
    # L_i = … again, displayed, after L_i = … (by =) in the section: the author gives L_i another form
    # (cs231n: "a binary classifier … would take the form L_i = \sum_j \max(0, 1 - y_{ij} f_j)") —
    # a redefinition, said; as a claim against the first form it was refuted
    # μ_X carried from an earlier section (a chapter's notation) and given again, even inline, in a new
    # one (d2l's distributions: "$\mu_X = \frac{a+b}{2}$" under each law) is that section's μ_X
    renamed = (
        not params
        and (not inline or name in doc.carried)
        and name in {n for _, n, _, explicit in doc.defs if not explicit}
    )
    if (
        not link.define
        and not refunction
        and not renamed
        and (name in earlier or name in doc.used or not (computed or not inline or rhs_names - reserved()))
    ):
        return None  # inline, a fresh name = a number is a point (at $x = 0$); displayed, a value it is given
    if computed and name in doc.unread and not link.define and rhs_names - reserved():
        # I(X, Y) = H(Y) = H(X) after I's defining display was not read: a chain of claims about that I
        # (d2l's mutual information, "if X is an invertible function of Y"), never I redefined by its first
        # link; a bare value (cs231n's L_i = \max(0, -7 - 13 + 10) + … = 8) is the name's value in an
        # example, and one link alone (H(X) = -\sum_i p_i \log p_i, "to be specific") its definition
        return None
    if params and name in doc.unread and not link.define and not inline and rhs_names & (set(doc.unread) - {name}):
        # d2l's CE(P, Q) = H(P) + D_KL(P‖Q) after CE's defining display (-E_{x~P}[log q(x)]) was not
        # read: a function related to other functions the document defines — a claim, never CE redefined
        # (a plain name is given its value: cs231n's L = (L_0 + L_1 + L_2)/3 under the rows defining L_k)
        return None
    if inline and not link.define and WORD.fullmatch(rhs) and not params and ("_" not in name or "_" in rhs):
        # "one when $i=k$ and zero otherwise", "we need $j=k$", "if $X = Y$": a case, not j defined as k;
        # a chapter's name given a value (d2l's Bernoulli "$\mu_X = p$") is still its definition
        return None
    if inline and not link.define and name in doc.law_names:
        # "if there exists an x such that $p(x) > 0$ and $q(x) = 0$" (d2l) after chains under the laws p, q:
        # the law's value at a point, a condition — never q redefined as 0
        return None
    if inline and not link.define and _misapplied(rhs, doc):
        # an exercise's "$u = f(x, y, z)$" after "$f(x) = c$": another, generic f — prose, not u defined
        return None
    text = f"{name}({', '.join(params)}) = {rhs}" if params else f"{name} = {rhs}"
    try:
        parse_definition(text)
    except ParseError:
        if link.define:
            raise
        return None
    line = src.line(first.toks[0].pos)
    what = f"line {line}"
    if name in earlier or name in doc.former and not inline:
        what += f" (redefines {name})"  # after its section, in another form: said (never a claim refuted)
    # f(u, v) = (u+v)^2 then u(a, b) = (a+b)^2: f's u is its parameter, bound — not the u defined here
    users = [
        (n, other)
        for n, other, t, _ in doc.defs
        if other != name
        and name in WORD.findall(t.split("=", 1)[1])
        and name not in WORD.findall(t.split("=", 1)[0].partition("(")[2])
    ]
    if users and not link.define:
        return None  # b = 2 + c after y = wx + b: a claim about the b that y is written in
    if users:  # unfolding them later would read them with this meaning, not the one they were written with
        src.fail(
            link.at.pos,
            f"{name} is defined here, but {users[0][1]} (line {users[0][0]}) is defined in terms "
            f"of {name} before; give the new quantity a new name, or define {name} first",
        )
    # a quantity defined in a display not read, applied: read from its derivative as an unknown function
    opaque = sorted(u for u in set(doc.opaque) - set(params or ()) if re.search(rf"(?<![\w.]){re.escape(u)}\(", rhs))
    if opaque and inline:
        return None
    if opaque:
        # δ_h = -\frac{\partial E}{\partial net_h} with E's definition not read: E read as an unknown function of
        # net_h there (a value, L = (L_0 + L_1 + L_2)/3, stays a definition: a later chain unfolding it is refused)
        src.fail(
            link.at.pos,
            f"{opaque[0]} is defined in a display mathcheck does not read (line {doc.opaque[opaque[0]]}), so it "
            f"is not a free value here",
        )
    former = [(n, t) for n, other, t, _ in doc.defs if other == name][-1:]
    lets = doc.needed([rhs])
    doc.defs.append((line, name, text, link.define))
    doc.opaque.pop(name, None)  # read now: unfolded from here on
    doc.carried.discard(name)
    # another definition of the name ends its family: σ_i(z) after σ(x) = 1/(1 + e^{-x}) is no σ(i) then
    doc.families = {k: v for k, v in doc.families.items() if v[0] != name}
    if normalised:  # its vector z: z_i is the entry z[i] in every display after (∂a_k/∂z_i)
        doc.families[" " + normalised[3]] = (normalised[3], normalised[3], "")
    if family is not None:
        doc.families[key] = (name, vector, index)
    elif params:
        doc.functions[head[0].text if len(head) == 1 else name] = name
        doc.functions[name] = name
        notation.functions[head[0].text if len(head) == 1 else name] = name
        notation.functions[name] = name
        notation.params[name] = tuple(params)
    notation.defined.add(name)
    lhs_text = f"{name}({', '.join(params)})" if params else name
    lhs_src = " ".join(src.text[first.toks[0].pos : first.toks[-1].end].split())
    span = link.shown or (link.at.pos, link.toks[-1].end)  # z of = \sigma(z): its meaning stands elsewhere
    rhs_src = " ".join(src.text[span[0] : span[1]].split())
    steps = (Line(line, None, lhs_text, "", lhs_src), Line(src.line(link.at.pos), "=", rhs, link.reason, rhs_src))
    unknown = _unknown_in(doc, notation, [text] + [t for _, t in lets])
    sized = (
        {GENERIC_SIZE: ("positive", "integer")} if any(GENERIC_SIZE in t for t in [text] + [t for _, t in lets]) else {}
    )
    excluded = set(inner.excluded).union(*(doc.excluded.get(t, ()) for _, t in lets))
    excluded = _free_range(src, first.toks[0].pos, excluded, [text], lets)
    if family is not None:  # σ_i(z), y_i: i is the family's parameter, no free index of its users
        excluded = {e for e in excluded if e[0] not in (params or ())}
    if any(hi == GENERIC_SIZE for _, _, hi in excluded):
        sized = {GENERIC_SIZE: ("positive", "integer")}
    if excluded:
        doc.excluded[text] = excluded  # a chain that unfolds this definition states i's range too
    case = _prose_case(src, first, former, text, rhs, doc) if former and not (link.define or inline) else None
    if case is not None:  # J(z) = -\sum_i \delta_{ic} \log\sigma_i(z) after "$t_i=\delta_{ic}$": a claim
        body, note = case
        lets = doc.needed([body, rhs])
        return Chain(
            f"line {line}",
            src.path,
            line,
            sized,
            _excluded_hypotheses(excluded, sized, line),
            (replace(steps[0], text=body), steps[1]),
            lets,
            notes=(note,),
            unknown=unknown,
            implicit=tuple(u for u in unknown if u in doc.implicit),
        )
    return Chain(
        what,
        src.path,
        line,
        sized,
        _excluded_hypotheses(excluded, sized, line),
        steps,
        lets,
        definition=text,
        unknown=unknown,
        implicit=tuple(u for u in unknown if u in doc.implicit),
    )


_CASE = re.compile(r"(?<![\\$])\$\s*([A-Za-z])\s*_\s*(?:\{\s*([a-z])\s*\}|([a-z]))\s*=(?!=)([^$\n]{1,200})(?<!\\)\$")


def _prose_case(src: _Source, first, former: list, text: str, rhs: str, doc: _Document):
    r"""statnotes' cross-entropy: ``J(z)=-\sum_{i=1}^n t_i\log\sigma_i(z)`` (t every label), then the prose
    "For classification, this is simply $t_i=\delta_{ic}$ … In this case, the error function is simply:"
    and ``J(z)=-\sum_{i=1}^n\delta_{ic}\log\sigma_i(z) = …``: the author gives J in the prose's case, a
    claim — J's former right side with t_i put as the prose states — never J redefined (its first link
    was not checked). ``(that right side, a note)``, or None: no inline ``$w_i = X$`` in the prose between
    the two definitions for an indexed name w the former right side writes and the new one does not, or
    the new right side not written in X's function (δ) — a redefinition then, as before (never proved,
    never refuted, without the prose's case)."""
    ((old_line, old),) = former
    head, _, body = old.partition("=")
    if head.strip() != text.partition("=")[0].strip():
        return None
    start, end = src._starts[min(old_line, len(src._starts) - 1)], first.toks[0].pos
    for m in _CASE.finditer(src.text, start, end):
        w, idx = m.group(1), m.group(2) or m.group(3)
        if not re.search(rf"(?<![A-Za-z0-9_]){w}\[", body) or re.search(rf"(?<![A-Za-z0-9_]){w}\[", rhs):
            continue
        try:
            toks = tokenize(src, m.start(4), m.end(4))
            indices = {idx} | {v for v in WORD.findall(rhs) if len(v) == 1}  # δ_{ic}: i, c as the display's
            value = Reader(toks, src, Notation(indices, set(), {}, set())).read()
        except DeriveError:
            continue
        if WORD.findall(value)[:1] == [w] or not any(
            f in WORD.findall(rhs) for f in WORD.findall(value) if f[:1].isupper()
        ):
            continue  # the case must be written into the display (δ), not a value of another kind

        def put(k, value=value, idx=idx):
            return "(" + re.sub(rf"(?<![A-Za-z0-9_]){idx}(?![A-Za-z0-9_])", k.group(1), value) + ")"

        new = re.sub(rf"(?<![A-Za-z0-9_]){w}\[([A-Za-z0-9_]+)\]", put, body.strip())
        note = (
            f"{head.strip()} as line {old_line} defines it, with {w}_{idx} = {value}: the case the prose "
            f"states at line {src.line(m.start())}"
        )
        return new, note
    return None


def _restates(name: str, params, rhs: str, doc: _Document, block_lets: set) -> bool:
    r"""True when a display gives a name an earlier section defined by ``=`` (and no definition in force
    now) a right side equal to that definition's: a blog defines ``\sigma(x) = \frac{1}{1+e^{-x}}``
    under its first heading and writes ``\sigma(x) = (1 + e^{-x})^{-1}`` under the next — the author
    restates the fact, so the display is a claim checked with that definition unfolded (proved), and the
    definition is in force again: to the file's end where the name is more than one letter (the author
    uses one σ throughout), to the section's end for ``f``, ``g``, ``L`` (cs231n restates its score function
    f and later writes f_j for the scores). A right side that differs, or that cannot be compared (unknown
    functions, more than a small expression), is a new definition said as ``redefines σ`` — a book's next
    example reusing ``f`` — never a claim refuted. Only a display of that one link (or a premise): a chain
    that starts with it (d2l's ``l(\theta) = \log L(\theta) = …``) starts by defining, as before."""
    former = doc.former.get(name)
    if former is None or name in doc.names() | block_lets:
        return False
    line, text = former
    head, _, body = text.partition("=")
    old = tuple(WORD.findall(head.partition("(")[2])) if "(" in head else ()
    if len(old) != len(params or ()):
        return False
    for k, p in enumerate(old):  # the old parameters renamed to the new ones (through fresh names)
        body = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(p)}(?![A-Za-z0-9_(])", f"_restated{k}_", body)
    for k, p in enumerate(params or ()):
        body = body.replace(f"_restated{k}_", p)
    if not _equal_bodies(body.strip(), rhs):
        return False
    doc.defs.append((line, name, text, False))
    if len(name) > 1:
        doc.restated.add(name)
    if params:
        doc.functions[name] = name
    return True


def _table_definition(src: _Source, group: list, name: str, params: list, notation: Notation):
    r"""d2l's ``\operatorname{sigmoid}(x) = \frac{1}{1 + \exp(-x)}`` ("the sigmoid function transforms …"),
    a blog's ``relu(z) = max(0,z)``: the author defines a function the function table has, by a right
    side equal to it (SymPy) — a ``definition`` (the hand count's label), never a claim proved, and never
    unfolded (the table's function is the same one). None where the two differ or cannot be compared:
    the link stays a claim about the table's function, checked as before."""
    first, link = group
    inner = Notation(
        notation.indices, notation.indexed, dict(notation.functions), notation.variables | set(params), set()
    )
    try:
        rhs = Reader(link.toks, src, inner).read()
    except DeriveError:
        return None
    if name in WORD.findall(rhs) or not _equal_bodies(f"{name}({', '.join(params)})", rhs):
        return None
    line = src.line(first.toks[0].pos)
    lhs_src = " ".join(src.text[first.toks[0].pos : first.toks[-1].end].split())
    rhs_src = " ".join(src.text[link.at.pos : link.toks[-1].end].split())
    lhs = f"{name}({', '.join(params)})"
    steps = (Line(line, None, lhs, "", lhs_src), Line(src.line(link.at.pos), "=", rhs, link.reason, rhs_src))
    return Chain(f"line {line}", src.path, line, steps=steps, table=name)


def _equal_bodies(a: str, b: str) -> bool:
    """Whether two right sides are one expression (SymPy's simplify of their difference is 0); False
    when either does not parse alone (an unknown function) or they are too large to compare quickly."""
    import sympy as sp

    from mathcheck.parser import ParseError, parse_many

    if a == b:
        return True
    try:
        x, y = parse_many([a, b])
    except (ParseError, ValueError, TypeError):
        return False
    diff = x - y
    if diff == 0:
        return True
    if sp.count_ops(diff) > 60:
        return False
    for point in (0.37, -0.61, 1.3):  # a difference seen at a number is no identity: no simplify spent on it
        try:
            value = complex(diff.subs({x: point for x in diff.free_symbols}).evalf(15))
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        if abs(value) > 1e-9 * (1 + abs(complex(x.subs({s: point for s in x.free_symbols}).evalf(15)))):
            return False
    return sp.simplify(diff) == 0 or sp.simplify(diff.rewrite(sp.exp)) == 0  # tanh x = (1 - e^{-2x})/(1 + e^{-2x})


# --- definitions whose right side is not read (issue 28) -------------------------------------------

_FONTS = ("mathbf", "boldsymbol", "bm", "mathrm", "textrm", "text", "operatorname", "mathit", "mathsf", "textit")
_UPRIGHT = ("mathrm", "textrm", "text", "operatorname", "textit", "mathsf")
_DECORATIONS = {
    "hat": "hat",
    "widehat": "hat",
    "bar": "bar",
    "overline": "bar",
    "tilde": "tilde",
    "widetilde": "tilde",
    "underline": "under",
}
_ARG_SEPARATORS = (",", ";", "|", "mid", "Vert")


def _closing(toks: list[Tok], i: int) -> int:
    """The index of the ``}`` (or ``)``) that closes the bracket at ``toks[i]``, or -1."""
    opening, depth = toks[i].text, 0
    close = {"{": "}", "(": ")"}[opening]
    for k in range(i, len(toks)):
        if toks[k].kind == "ch" and toks[k].text == opening:
            depth += 1
        elif toks[k].kind == "ch" and toks[k].text == close:
            depth -= 1
            if depth == 0:
                return k
    return -1


def _core(toks: list[Tok], i: int):
    """``(name, index after)`` of the letter a name is built on at ``toks[i]``: ``y``, ``\\beta``,
    ``\\mathbf{x}`` (x), ``\\hat{y}`` (y_hat), ``\\textrm{price}`` (price), ``{\\hat{y}}``; else None."""
    if i >= len(toks):
        return None
    t = toks[i]
    if t.kind == "ch" and len(t.text) == 1 and t.text.isalpha():
        return t.text, i + 1
    if t.kind == "cmd" and t.text in GREEK:
        return t.text, i + 1
    if t.kind == "cmd" and t.text == "vartriangle" and (inner := _core(toks, i + 1)) and inner[1] == i + 2:
        return f"Delta_{inner[0]}", i + 2  # \vartriangle w_{hm}: the weight change (backprop notes)
    if t.kind == "ch" and t.text == "{":
        end = _closing(toks, i)
        inner = _core(toks, i + 1) if end > 0 else None
        return (inner[0], end + 1) if inner and inner[1] == end else None
    if t.kind == "cmd" and (t.text in _FONTS or t.text in _DECORATIONS) and i + 1 < len(toks):
        if toks[i + 1].kind == "ch" and toks[i + 1].text == "{":
            end = _closing(toks, i + 1)
            if end < 0:
                return None
            word = _word(toks[i + 2 : end]) if t.text in _UPRIGHT else None
            inner = (word, end) if word and word.isalpha() else _core(toks, i + 2)
            if not inner or inner[1] != end:
                return None
            name, j = inner[0], end + 1
        else:
            inner = _core(toks, i + 1)
            if not inner:
                return None
            name, j = inner
        return (f"{name}_{_DECORATIONS[t.text]}" if t.text in _DECORATIONS else name), j
    return None


def _atom(toks: list[Tok], i: int):
    """``(name, index after)`` of a name at ``toks[i]``: a core (:func:`_core`), a subscript
    (``L_i``, ``w_{\\textrm{area}}``, ``\\mathbf{v}_{t-1}``) and a label (``l^{(i)}``); else None.
    The name is spelled for comparing names, not for reading: ``\\hat{y}^{(i)}`` is ``y_hat^(i)``."""
    core = _core(toks, i)
    if core is None:
        return None
    name, j = core
    return _decorated(toks, name, j)


def _decorated(toks: list[Tok], name: str, j: int):
    """:func:`_atom` after its core: the subscript and the label."""
    if j + 1 < len(toks) and toks[j].kind == "ch" and toks[j].text == "_":
        if toks[j + 1].kind == "ch" and toks[j + 1].text == "{":
            end = _closing(toks, j + 1)
            if end < 0:
                return None
            sub = "".join(x.text for x in toks[j + 2 : end] if x.text not in "{}" and x.text not in _FONTS)
            j = end + 1
        else:
            sub, j = toks[j + 1].text, j + 2
        name += f"_{sub}"
    if (
        j + 2 < len(toks)
        and toks[j].text == "^"
        and toks[j + 1].text == "{"
        and toks[j + 2].text == "("
        and _closing(toks, j + 1) > 0
        and toks[_closing(toks, j + 1) - 1].text == ")"
    ):
        end = _closing(toks, j + 1)
        name += "^(" + "".join(x.text for x in toks[j + 3 : end - 1]) + ")"
        j = end + 1
    return name, j


def _pre_label(toks: list[Tok], i: int) -> int:
    r"""The index after a label written before a name at ``toks[i]`` — ``^p E``, ``^{p}E`` (backprop notes'
    error of pattern p, ``F = \sum_{p \in P} \ ^pE``): a ``^`` that follows no operand, its one letter,
    and the spacing after it; ``i`` where there is none."""
    before = toks[i - 1] if i > 0 else None
    if (
        i + 2 >= len(toks)
        or toks[i].kind != "ch"
        or toks[i].text != "^"
        or not (before is None or (before.kind == "cmd" and before.text in _SPACING) or before.text in "&=")
    ):
        return i
    j = i + 1
    if toks[j].text == "{" and j + 2 < len(toks) and toks[j + 2].text == "}":
        j += 1
    if toks[j].kind != "ch" or len(toks[j].text) != 1 or not toks[j].text.isalpha():
        return i
    j += 2 if toks[i + 1].text == "{" else 1
    while j < len(toks) and toks[j].kind == "cmd" and toks[j].text in _SPACING:
        j += 1
    return j if j < len(toks) and _core(toks, j) is not None else i


def _without_pre_label(lhs: list[Tok]) -> list[Tok]:
    """``lhs`` without a label before its name (:func:`_pre_label`): ``^p E`` defines E, the error of the
    pattern at hand, which the notes' chains then write plain."""
    lhs = lhs[_pre_label(lhs, 0) :] if lhs else lhs
    while lhs and lhs[-1].kind == "ch" and lhs[-1].text == "&":  # ^q E &= … (align): the alignment point
        lhs = lhs[:-1]
    return lhs


def _names_in(toks: list[Tok], cores: bool = False) -> set:
    """Every name :func:`_atom` finds in ``toks`` (the right side of a definition that is not read);
    with ``cores``, the cores of those subscripted or labelled (``v`` of ``\\mathbf{v}_{t-1}``), and
    the names of those labelled, marked (``f^`` of ``f^{(n)}``)."""
    out, i = set(), 0
    while i < len(toks):
        if (after := _pre_label(toks, i)) != i:  # \sum_{p \in P} \ ^pE: each pattern's E, defined on its own
            found = _decorated(toks, *_core(toks, after))
            i = found[1] if found else after + 1
            continue
        core = _core(toks, i)
        found = _decorated(toks, core[0], core[1]) if core else None
        if found:
            if not cores:
                out.add(found[0])
            elif found[0] != core[0]:
                out |= {core[0]} | ({found[0].split("^(")[0] + "^"} if "^(" in found[0] else set())
            i = found[1]
        else:
            i += 1
    return out


def _defined_name(toks: list[Tok]):
    """``(name, head tokens, upright word?)`` when ``toks`` is a name, or a name applied to names
    (``H(X)``, ``P(y \\mid \\mathbf{x})``, ``D_{\\textrm{KL}}(P\\|Q)``, ``l^{(i)}(\\mathbf{w}, b)``); else None."""
    found = _atom(toks, 0)
    if found is None:
        return None
    name, j = found
    if j < len(toks):
        if toks[j].text != "(" or _closing(toks, j) != len(toks) - 1:
            return None
        k = j + 1
        while k < len(toks) - 1:
            arg = _atom(toks, k)
            if arg is None:
                return None
            k = arg[1]
            if k < len(toks) - 1 and toks[k].text not in _ARG_SEPARATORS:
                return None
            k += k < len(toks) - 1
    return name, toks[:j], toks[0].kind == "cmd" and toks[0].text in _UPRIGHT


def _first_link(toks: list[Tok], src: _Source):
    """``(left side, relation token, right side, more)`` of a display's first link, read from its
    tokens alone (for a display the reader could not read): the left side runs to the first relation
    outside brackets and environments, the right side to the next relation, row, ``\\quad`` or words;
    ``more``: whether another relation follows. None when the display does not start with ``=`` or
    a definition sign."""
    i = 0
    while i < len(toks):  # \begin{aligned}, &, spacing, \label{…} before the left side
        t = toks[i]
        if t.kind == "cmd" and t.text == "begin":
            name, i = _group(toks, i + 1, src, "\\begin")
            _, i = _bracket(toks, i)
            if "".join(x.text for x in name).rstrip("*") in ("alignedat", "alignat"):
                _, i = _group(toks, i, src, "\\begin")
        elif t.kind == "cmd" and t.text == "label":
            _, i = _group(toks, i + 1, src, "\\label")
        elif (t.kind == "ch" and t.text == "&") or (t.kind == "cmd" and t.text in _SPACING):
            i += 1
        else:
            break
    stops, depth, env, at, rhs_end = [], 0, 0, None, None
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind == "ch" and t.text in "{(":
            depth += 1
        elif t.kind == "ch" and t.text in "})":
            depth -= 1
        elif t.kind == "cmd" and t.text in ("begin", "end"):
            env += 1 if t.text == "begin" else -1
        if depth or env > 0 or (t.kind == "ch" and t.text in "})"):
            continue
        relation = _relation_of(t) or _definitional(toks, j, src) is not None
        stop = (
            relation
            or t.kind == "row"
            or env < 0
            or (t.kind == "cmd" and (t.text in NOT_LINKS or t.text in _IMPLIES))
            or (t.kind == "cmd" and t.text in ("quad", "qquad", "hspace") and at is not None)
            or (at is not None and _words(toks, j, src))
        )
        if at is None and stop:
            if not relation or not (_relation_of(t) == "=" or _definitional(toks, j, src) is not None):
                return None
            at = j
        elif at is not None and stop:
            if rhs_end is None:
                rhs_end = j
            if relation or (t.kind == "cmd" and t.text in NOT_LINKS):
                stops.append(j)
    if at is None:
        return None
    after = _definitional(toks, at, src) or at + 1
    rhs = toks[after : len(toks) if rhs_end is None else rhs_end]
    while rhs and (
        rhs[-1].kind == "ch" and rhs[-1].text in ".,;&" or rhs[-1].kind == "cmd" and rhs[-1].text in _SPACING
    ):
        rhs = rhs[:-1]
    return toks[i:at], toks[at], rhs, bool(stops)


def _words(toks: list[Tok], i: int, src: _Source) -> bool:
    """``\\textrm{ where }``, ``\\text{or equivalently}`` at ``toks[i]``: prose after an equation (words
    with spaces), not a name (``\\textrm{area}``)."""
    if toks[i].kind != "cmd" or toks[i].text not in ("text", "textrm", "mbox") or i + 1 >= len(toks):
        return False
    if toks[i + 1].text != "{" or _closing(toks, i + 1) < 0:
        return False
    return bool(re.search(r"\s", src.text[toks[i + 1].end : toks[_closing(toks, i + 1)].pos]))


def _unread_definition(
    src: _Source, lhs: list, at: Tok, rhs: list, more: bool, doc: _Document, error: str, rows: bool = False
):
    r"""The definition a display gives though its right side is not read (issue 28): d2l's ``\hat{y} =
    \mathbf{w}^\top \mathbf{x} + b`` defines ŷ by a transpose, and as bad input the display was lost as a
    definition. The left side is a fresh name (:func:`_defined_name`: not defined, used or declared
    before, absent from the right side), the link ``=`` or a definition sign: a chain of one link,
    ``definition``, with ``unread`` saying what was not read; never unfolded — a later chain in the
    name is bad input naming this line (:func:`_not_opaque`). ``more``: the display goes on after the
    first link, a chain that stays bad input (``error``, the display's). ``rows``: the display is an aligned
    block whose every row defines a name (d2l-mlp's H = σ(XW^{(1)} + b^{(1)}) then O = HW^{(2)} + b^{(2)}, the
    layers given again with an activation): a name given again there is a definition. Returns the chains,
    or None."""
    from mathcheck.parser import PROBABILITY, reserved

    lhs = _without_pre_label(lhs)
    primes = len(lhs) - len(_unprimed(lhs))
    shape = _defined_name(lhs[: len(lhs) - primes]) if lhs and rhs and primes < len(lhs) else None
    if shape is None or doc.lead:
        return None  # "so that …": a condition, never a definition
    spelled, head, word = shape
    overloaded = False
    if primes:  # d2l's \mathbf{g}_t' = …: g_t′, another quantity than g_t, defined (never g_t itself)
        if word or len(head) < len(lhs) - primes:
            return None  # f'(x) = …: a derivative, a claim
        spelled += "′" * primes
    params = _names_in(lhs[len(head) + 1 :]) if len(lhs) > len(head) else set()  # x of h(\mathbf{x})
    while len(head) > 2 and head[0].text == "{" and _closing(head, 0) == len(head) - 1:
        head = head[1:-1]  # {\hat{\mathbf{y}}}: the braces group, they name nothing
    try:
        name = Reader(head, src, Notation(set(), set(), {}, set())).read() if not primes else None
    except DeriveError:
        name = None
    if name is not None and (layer := re.fullmatch(r"([A-Za-z]\w*_layer_\w+)\[[a-z](?:, [a-z])*\]", name)):
        name = layer.group(1)  # \delta_i^{(l)} = \frac{\partial J}{\partial z_i^{(l)}}: the layer's array delta_layer_l
    core, relatives = _core(head, 0)[0], _names_in(rhs, cores=True)
    # d2l's \mathbf{v}_t = \beta \mathbf{v}_{t-1} + \mathbf{g}_{t, t-1} alone: the recurrence defining v (the
    # display says so), a definition never unfolded
    recurrence = not more and "a recurrence, which defines the terms of" in error
    if not recurrence and ((core != spelled and core in relatives) or spelled + "^" in relatives):
        # \mathbf{z}_t = (\mathbf{I} - \boldsymbol{\Lambda}) \mathbf{z}_{t-1}: a recurrence, a step; f(x) =
        # \sum_n \frac{f^{(n)}(x_0)}{n!}(x - x_0)^n: f's Taylor series, a claim (L = \frac{1}{N} \sum_i L_i defines L)
        return None
    if name is not None and not WORD.fullmatch(name):
        return None
    if word and name is None:
        return None  # \mathrm{Var}(X), \operatorname{softmax}: an operator the reader names, not a name
    read = doc.names() | doc.used  # defined by a display that was read, or used by a chain: a claim about it
    unread = set(doc.unread) | set(doc.opaque) | doc.opaque_names  # defined before by a display not read
    # a loss given a new form under its name with a quantity new here (cs231n's L_i = C \max(0, 1 - y_i
    # w^Tx_i) + R(W), C the new hyperparameter; L_i = \Vert f - y_i \Vert_2^2 after L_i's other forms by =):
    # a new definition, as _definition reads L_i given again by =; a claim relates known quantities only
    fresh = _names_in(rhs) - read - unread - doc.opaque_used - params - {"T"}
    renamed = (
        # a name, or a function whose right side is in none of its parameters (d2l's differential entropy
        # H(X) = -\int_x p(x) \log p(x)\,dx after its discrete H(X) = -\sum_i p_i \log p_i)
        (len(head) == len(lhs) - primes or not params & _names_in(rhs))
        and name in {n for _, n, _, explicit in doc.defs if not explicit}
        and name not in doc.used
        and not more
        and (bool(fresh) or name not in unread)
        and not _RESTATED_IN_PROSE.search(doc.prose[-300:])  # "we can also rewrite the loss … in this equivalent form"
        and _prose_since(src, doc, name, lhs[0].pos)  # ŷ = \mathbf{X}\mathbf{w} right after ŷ = wx + b: restated
    )
    if renamed:
        read = read - {name, spelled}
    if (
        {name, spelled} & (read | (doc.opaque_used - doc.opaque_names))
        or (name or spelled) in reserved() | set(PROBABILITY) | set(_PARSER_FUNCTIONS)
        or (spelled in _names_in(rhs) and not (overloaded := _overloaded(lhs, rhs, spelled)))
        or any(name and name in WORD.findall(t.split("=", 1)[1]) for _, _, t, _ in doc.defs)
    ):
        return None  # defined, used or written before (b = … after y = wx + b), or recursive
    redefines = bool({name, spelled} & unread) and not overloaded
    if redefines and not rows and not renamed and (more or _names_in(rhs) & (unread | doc.names() | params)):
        # given again in other defined quantities, CE(P, Q) = H(P) + D_KL(P||Q), in its own parameters,
        # h(\mathbf{x}) = \frac{1}{2}(\mathbf{x} - \mathbf{Q}^{-1}\mathbf{c})^\top … (h restated, as for a function
        # read: :func:`_definition`), or as a chain, I(X, Y) = H(Y) = H(X): a claim; in free names,
        # H(X) = -\int_x p(x) \log p(x)\,dx: H's definition given again, said
        return None
    try:  # y_{il} = x_{ijkl} a_{jk} defines no scalar y_il; ŷ = w_1 x_1 + \cdots + w_d x_d (d is the size) does
        if (_free_indices(lhs) or ((),))[0]:
            _not_einstein(src, [_Link(None, None, lhs), _Link("=", at, rhs)])
    except DeriveError:
        return None
    why = _not_read(src, rhs, error) or _opaque_in(src, rhs, doc)
    side = "right"
    if (
        why is None
        and any(t.kind == "ch" and t.text == "^" for t in lhs)
        and sum(t.text == "(" for t in lhs) > 1
        and any(t.text == "," for t in lhs)
    ):
        # l^{(i)}(\mathbf{w}, b) = \frac{1}{2}(\hat{y}^{(i)} - y^{(i)})^2: the right side reads, the left side's
        # label before its arguments does not (a sample's; f^{(n)}(x) of one argument may be a derivative's
        # order, a claim) — a definition still
        why, side = _not_read(src, lhs, error), "left"
    if why is None:
        why = _error_in(src, rhs, error)  # v̂_t = v_t/(1 - β_1^t): the display's own error is in the right side
    if why is None and primes:
        why, side = _error_in(src, lhs, error), "left"  # g_t′: a primed name is not read
    if why is None and recurrence:
        why = re.sub(r"^.*?:\d+:\d+: ", "", error)
    if why is None and "is a function of the vector" in error:
        why = re.sub(r"^.*?:\d+:\d+: ", "", error)  # σ_i(z) = e^{z_i}/…: it reads, as a function of a vector it is not
    if why is None:
        return None  # the right side reads: the display fails elsewhere (z_{il} = u_{ijkl} v_{jk}, W^{(1)} = 2)
    line = src.line(lhs[0].pos)
    shown = name or spelled
    rhs_src = " ".join(src.text[at.pos : rhs[-1].end].split())
    note = f"definition of {shown}; its {side} side is not read: {why}"
    chain = Chain(
        f"line {line}" + (f" (redefines {shown})" if redefines else ""),
        src.path,
        line,
        steps=(
            Line(line, None, shown, "", " ".join(src.text[lhs[0].pos : lhs[-1].end].split())),
            Line(src.line(at.pos), "=", "(not read)", "", rhs_src),
        ),
        notes=(note,),
        unread=why,
    )
    doc.opaque_names.add(spelled)
    doc.opaque_used |= _names_in(rhs)  # b = … after ŷ = w^T x + b is a claim about that b
    if name is not None:
        doc.opaque[name] = line
        doc.unread[name] = line
        doc.families = {k: v for k, v in doc.families.items() if v[0] != name}  # σ given again, unread
    out = [chain]
    if more:
        rest = src.line(rhs[0].pos)
        out.append(Chain(f"line {rest}", src.path, rest, error=error))
    return out


LAW_DEFINITION = "an expectation under a law, not in its arguments"


_INTRODUCED = ()  # _introduced's marker
_LAW_AT = re.compile(r"(?<![A-Za-z0-9_])[a-z]\(([a-z](?:, [a-z])*(?: \| [a-z](?:, [a-z])*)?)\)")  # p(x, y), p(y | x)
_LAW_LHS = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\(([A-Z](?:(?:, | \| )[A-Z])*)\)")


def _law_claim_definition(src: _Source, group: list, steps, doc: _Document):
    r"""A display read as a claim that is d2l's definition of an information quantity by an expectation
    under a law: ``D_{\textrm{KL}}(P\|Q) = E_{x \sim P}[\log \frac{p(x)}{q(x)}]`` (KL is probability's
    operator, so no name is defined), ``H(Y \mid X) = -E_{(x, y) \sim P}[\log p(y \mid x)]`` (a bar in
    the arguments): one ``=``, on the left a quantity of capitals, on the right an expectation under a
    law in none of them (:func:`_law_definition`). None for another display."""
    if len(group) != 2 or group[1].relation != "=" or len(steps) != 2 or group[1].define:
        return None
    m = _LAW_LHS.fullmatch(steps[0].text)
    if m is None or m.group(1) in ("E", "Var", "Cov"):
        return None  # Var(X) = E_{x \sim P}[(x - \mu)^2]: a claim about Var, never Var defined
    params = re.split(r", | \| ", m.group(2))
    return _law_definition(src, group, m.group(1), params, steps[1].text, doc)


def _law_definition(src: _Source, group: list, name: str, params: list, rhs: str, doc: _Document):
    r"""d2l's ``H(X) = -E_{x \sim P}[\log p(x)]``, ``\textrm{CE}(P, Q) = -E_{x \sim P}[\log q(x)]``: a quantity
    of random variables or laws (X, P) whose right side, read, is an expectation under a law (``E_p``) in
    none of its arguments — X is tied to p by the prose (X ∼ P with p.m.f. p), which is not read. Unfolded,
    H(Y) would be H(X): so the definition is said with its reading and never unfolded, as one whose right
    side is not read (:func:`_unread_definition`); the H, I of random variables in later chains are read by
    latex/information.py. None for another definition."""
    words = set(WORD.findall(rhs))
    lower = {p.lower() for p in params}
    under = re.search(r"(?<![A-Za-z0-9_])E_[a-z]\(", rhs)
    # H(X, Y) = -\sum_x \sum_y p_{X, Y}(x, y) \log p_{X, Y}(x, y): X, Y's values x, y, summed over
    applied = {v for m in _LAW_AT.finditer(rhs) for v in re.findall(r"[a-z]", m.group(1))}
    values = all(len(p) == 1 and p.isupper() for p in params) and lower <= applied and "Sum(" in rhs
    if not (under or values) or words & set(params):
        return None
    first, link = group
    line = src.line(first.toks[0].pos)
    redefines = name in doc.unread or name in doc.names()
    chain = Chain(
        f"line {line}" + (f" (redefines {name})" if redefines else ""),
        src.path,
        line,
        steps=(
            Line(line, None, name, "", " ".join(src.text[first.toks[0].pos : first.toks[-1].end].split())),
            Line(src.line(link.at.pos), "=", rhs, "", " ".join(src.text[link.at.pos : link.toks[-1].end].split())),
        ),
        notes=(f"definition of {name}: {LAW_DEFINITION} ({', '.join(params)}), so never unfolded",),
        unread=LAW_DEFINITION,
    )
    doc.opaque_names.add(name)
    doc.opaque[name] = line
    doc.unread[name] = line
    doc.families = {k: v for k, v in doc.families.items() if v[0] != name}
    doc.laws_of[(name, len(params))] = (tuple(params), rhs)
    return chain


def _law_templates(steps, doc: _Document):
    r"""d2l's ``\textrm{CE}(P, Q) = H(P) + D_{\textrm{KL}}(P\|Q)`` after CE, D_KL and H were defined by
    expectations under laws (:func:`_law_definition`): each quantity of laws, its arguments the capitals
    of laws (CE(P, Q) of ``-E_p(log q(x), x)``), is its reading with the laws renamed (CE(Q, P) is
    ``-E_q(log p(x), x)``); H(P) of a law, after H(X) = -E_p(log p(x), x) of a random variable of the
    law p, is that reading under P's law. ``(steps, fact declaring the laws)``, or ``(steps, None)``
    where the chain is not one of these (an argument no law of the chain, another quantity)."""
    if not doc.laws_of:
        return steps, None
    call = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)\(([A-Z](?:, [A-Z])*)\)")
    texts = [s.text for s in steps]
    found = [m for t in texts for m in call.finditer(t)]
    if not found or any((m.group(1), len(m.group(2).split(", "))) not in doc.laws_of for m in found):
        return steps, None

    def laws_in(reading: str) -> set:
        return set(re.findall(r"(?<![A-Za-z0-9_])E_([a-z])\(", reading)) | {
            m.group(0)[0] for m in _LAW_AT.finditer(reading)
        }

    def of_laws(params, reading) -> bool:  # CE(P, Q): P, Q's laws p, q written in the reading
        return {p.lower() for p in params} <= laws_in(reading)

    key = lambda m: (m.group(1), len(m.group(2).split(", ")))  # noqa: E731
    laws = {a.lower() for m in found for a in m.group(2).split(", ") if of_laws(*doc.laws_of[key(m)])}
    failed = False

    def one(m) -> str:
        nonlocal failed
        params, reading = doc.laws_of[key(m)]
        args = m.group(2).split(", ")
        if of_laws(params, reading):
            rename = {p.lower(): a.lower() for p, a in zip(params, args)}
        elif len(args) == 1 and len(laws_in(reading)) == 1 and args[0].lower() in laws:
            rename = {next(iter(laws_in(reading))): args[0].lower()}  # H(P): H(X)'s reading under P's law
        else:
            failed = True
            return m.group(0)
        law = re.compile(r"(?<![A-Za-z0-9_])(E_)?([a-z])(?=\()")
        return "(" + law.sub(lambda x: (x.group(1) or "") + rename.get(x.group(2), x.group(2)), reading) + ")"

    out = tuple(replace(s, text=call.sub(one, s.text)) for s in steps)
    if failed:
        return steps, None
    over: dict = {}
    for t in (s.text for s in out):
        for m in _LAW_AT.finditer(t):
            for v in re.findall(r"[a-z]", m.group(1)):
                over.setdefault(m.group(0)[0], [])
                if v not in over[m.group(0)[0]]:
                    over[m.group(0)[0]].append(v)
        for m in re.finditer(r"(?<![A-Za-z0-9_])E_([a-z])\(", t):
            over.setdefault(m.group(1), [])
    if not over or any(not v for v in over.values()):
        return steps, None
    declared = [f"{name}({', '.join(v)})" for name, v in sorted(over.items())]
    return out, ", ".join(declared) + (" laws" if len(declared) > 1 else " law")


def _model_probability(src: _Source, lhs: list, at: Tok, rhs: list, more: bool, doc: _Document, error: str):
    r"""cs231n's ``P(y_i \mid x_i; W) = \frac{e^{f_{y_i}}}{\sum_j e^{f_j}}``, ``P(y = 1 \mid x; w, b) =
    \frac{1}{1 + e^{-(w^Tx + b)}}``: a model's probability of a label given an input (its parameters after
    ``;``), defined by its right side — a definition of P, shown with its reading where the right side
    reads, else "(not read)" saying why; never unfolded (P(y | x) of other arguments is no substitution).
    Only a fresh P, p or \Pr applied to arguments with one top-level bar. None for another display."""
    if not (lhs and at.kind == "ch" and at.text == "=" and rhs) or doc.lead:
        return None
    head = lhs[0]
    if not (head.text in ("P", "p") and head.kind == "ch" or head.kind == "cmd" and head.text == "Pr"):
        return None
    if len(lhs) < 5 or lhs[1].text != "(" or lhs[-1].text != ")" or _closing(lhs, 1) != len(lhs) - 1:
        return None
    bars = [t for t in _top(lhs[2:-1]) if t.kind == "cmd" and t.text in ("mid", "vert") or t.text == "|"]
    if len(bars) != 1:
        return None
    name = "P" if head.kind == "cmd" else head.text
    if name in doc.names() | doc.used | set(doc.unread) | set(doc.opaque) | doc.opaque_names:
        return None
    if any(t.text in ("P", "p", "Pr", "prod") for t in rhs):
        return None  # P(Y \mid X) = \prod_i P(y^{(i)} \mid x^{(i)}): a claim (independence), never P defined
    why = _not_read(src, rhs, error)
    line = src.line(lhs[0].pos)
    reading = "(not read)"
    if why is None:
        reading = Reader(list(rhs), src, notation_of(src, [list(rhs)], set(), {}, set())).read()
    shown = " ".join(src.text[lhs[0].pos : lhs[-1].end].split())
    note = f"definition of {name}, the model's probability {shown}" + (
        f"; its right side is not read: {why}" if why else ", never unfolded"
    )
    chain = Chain(
        f"line {line}",
        src.path,
        line,
        steps=(
            Line(line, None, name, "", shown),
            Line(src.line(at.pos), "=", reading, "", " ".join(src.text[at.pos : rhs[-1].end].split())),
        ),
        notes=(note,),
        unread=why or "a model's probability, defined by its right side",
    )
    doc.opaque_names.add(name)
    doc.opaque[name] = line
    doc.unread[name] = line
    out = [chain]
    if more:
        rest = src.line(rhs[0].pos)
        out.append(Chain(f"line {rest}", src.path, rest, error=error))
    return out


_RESTATED_IN_PROSE = re.compile(r"\b(?:rewrit\w*|equivalent\w*|the same|simplif\w*|in other words|that is)\b", re.I)


def _prose_since(src: _Source, doc: _Document, name: str, pos: int) -> bool:
    """Whether prose (ten words or more) stands between ``name``'s last
    definition and ``pos``: a new form of the quantity, introduced, rather than one restated."""
    lines = [line for line, n, _, _ in doc.defs if n == name]
    if not lines:
        return False
    start = src._starts[max(lines)] if max(lines) < len(src._starts) else len(src.text)
    between = re.sub(r"\\[A-Za-z]+", " ", src.text[start:pos])  # commands are no words of prose
    return len(re.findall(r"[A-Za-z]{2,}", between)) >= 10


def _unprimed(toks: list) -> list:
    """``toks`` without its trailing primes (``g_t'``, ``\\prime``)."""
    k = len(toks)
    while k and (toks[k - 1].kind == "ch" and toks[k - 1].text == "'" or toks[k - 1].text == "prime"):
        k -= 1
    return toks[:k]


def _error_in(src: _Source, toks: list, error: str) -> str | None:
    r"""The display's error without its ``path:line:col`` where it points inside ``toks`` — d2l's ``\hat{\mathbf{v}}_t
    = \frac{\mathbf{v}_t}{1 - \beta_1^t}`` reads alone, but not in its display (``^t`` a power or the
    transpose?): that right side is not read, as the display says. None where it points elsewhere."""
    m = re.match(rf"{re.escape(src.path)}:(\d+):(\d+): (.*)", error, re.S)
    if m is None or not toks:
        return None
    line, col = int(m.group(1)), int(m.group(2))
    starts = [0] + [k + 1 for k, ch in enumerate(src.text) if ch == "\n"]
    if not 0 < line <= len(starts):
        return None
    at = starts[line - 1] + col - 1
    return m.group(3) if toks[0].pos <= at < toks[-1].end else None


def _semicolon_args(toks: list[Tok], spelled: str) -> list[bool]:
    """For each application of the name ``spelled`` in ``toks``: whether its arguments hold a ``;``
    outside brackets (``J(W,b;x,y)``: parameters, then the data)."""
    out, i = [], 0
    while i < len(toks):
        core = _core(toks, i)
        found = _decorated(toks, *core) if core else None
        if not found:
            i += 1
            continue
        i = found[1]
        if found[0] == spelled and i < len(toks) and toks[i].text == "(" and (end := _closing(toks, i)) > 0:
            depth, semi = 0, False
            for t in toks[i + 1 : end]:
                depth += (t.text in "({[") - (t.text in ")}]") if t.kind == "ch" else 0
                semi |= depth == 0 and t.kind == "ch" and t.text == ";"
            out.append(semi)
    return out


def _overloaded(lhs: list[Tok], rhs: list[Tok], spelled: str) -> bool:
    r"""UFLDL's overall cost ``J(W,b) = \frac{1}{m} \sum_{k=1}^m J(W,b;x^{(k)},y^{(k)}) + …`` (backprop notes):
    the right side applies J only with data after a semicolon, the left side without — another function,
    the cost of one example, not J defined by itself."""
    uses = _semicolon_args(rhs, spelled)
    return bool(uses) and all(uses) and _semicolon_args(lhs, spelled) == [False]


def _opaque_in(src: _Source, rhs: list, doc: _Document) -> str | None:
    """What :func:`_not_opaque` says of a right side that reads but names a quantity defined in a display
    that is not read; None where it names none."""
    try:
        text = Reader(list(rhs), src, notation_of(src, [list(rhs)], set(), {}, set())).read()
    except DeriveError:
        return None
    found = sorted(set(WORD.findall(text)) & set(doc.opaque))
    if not found:
        return None
    return (
        f"{found[0]} is defined in a display mathcheck does not read (line {doc.opaque[found[0]]}), so it "
        f"is not a free value here"
    )


def _not_read(src: _Source, rhs: list, error: str) -> str | None:
    """What of a definition's right side is not read: the reader's message on it alone (``^T reads as
    a transpose …``), without its ``path:line:col``; None when the right side reads."""
    try:
        # with its own notation (a sum's entries indexed), as the display would read it
        Reader(list(rhs), src, notation_of(src, [list(rhs)], set(), {}, set())).read()
    except LatexRefused:
        raise
    except DeriveError as exc:
        return re.sub(r"^.*?:\d+:\d+: ", "", str(exc))
    return None


def _block_definition(src: _Source, blk: Block, defs: dict, markdown: bool, doc: _Document, error: str) -> list:
    """The chains of a display the reader could not read: its first link's definition where it gives
    one (:func:`_unread_definition`), else one bad-input chain, as before."""
    n = src.line(blk.start)
    try:
        skip, _ = _directives(src, blk, markdown)  # a misspelled directive stays the display's error
        body = tokenize(src, blk.body, blk.body_end)
        toks = expand(body, defs, src)
        first = _first_link(toks, src) if not skip else None
        chains = (
            (_unread_definition(src, *first, doc, error) or _model_probability(src, *first, doc, error))
            if first
            else None
        )
    except LatexRefused:
        raise
    except DeriveError:
        chains = None
    return chains or [Chain(f"line {n}", src.path, n, error=error)]


def _block_chains(src: _Source, blk: Block, defs: dict, markdown: bool, doc: _Document | None = None) -> list:
    """The chains of one display block: one per equation (usually one); an equation that is a
    definition (see :func:`_definition`) is a definition chain, and in force from there on."""
    doc = _Document() if doc is None else doc
    skip, directives = _directives(src, blk, markdown)
    if skip:
        return []
    body = tokenize(src, blk.body, blk.body_end)
    if any(
        t.kind == "cmd" and t.text in ("newcommand", "renewcommand", "providecommand", "DeclareMathOperator", "def")
        for t in body
    ):
        return []  # a block of macro definitions (KaTeX and MathJax keep them for later blocks)
    toks, label = _drop_structure(expand(body, defs, src), src)
    toks = _without_maps_to(toks)
    head = _row_head(toks, 0, src)
    continued = head is not None and _relation_of(head) is not None and _relation_of(head) != "!=" and doc.last_tail
    if continued:  # a display that starts with = or \le goes on from the last one's last expression
        toks = list(doc.last_tail) + toks
    doc.last_tail = ()
    groups = _side_equations(src, [g for g in _links(toks, src, "multline" not in blk.opener, True) if len(g) > 1])
    groups = _named_argument(src, groups, doc)
    if groups and groups[-1][-1].toks:
        doc.last_tail = tuple(groups[-1][-1].toks)
    if not groups:
        return []  # display math without a relation is not a chain
    links = [link for g in groups for link in g]
    for n, group in enumerate(groups):  # an empty link fails the block, but by an arrow only its equation
        if not (group[0].implied or group[0].beside or n + 1 < len(groups) and groups[n + 1][0].implied):
            _no_empty_link(src, blk, group)
    # the directives, split at ';'
    items = []
    for kind, a, b in directives:
        dtoks = expand(tokenize(src, a, b), defs, src)
        for part in _split(dtoks, lambda t: t.kind == "ch" and t.text == ";"):
            if part:
                items.append(_Directive(kind, part[0].pos, part))
            elif kind != "let" or dtoks:
                src.fail(a, f"{kind}: an empty item")
    functions: dict = dict(doc.functions)
    lets: list = []
    readings: list = []
    assumed = []
    stated = []  # % assume: about random variables (latex/probability.py), read once the notation is known
    for d in items:
        if d.kind == "assume" and _is_fact(src, d):
            stated.append(d)
        elif d.kind == "assume":
            assumed += _assume_items(src, d)
        elif d.kind == "let":
            _lets(src, d, functions, lets, readings)
    declared_int = {_word(p[:1]) for p, props in assumed if "integer" in props and len(p) == 1}
    variables = {_word(p) for p, _ in assumed} - {None}  # declared: p(1 - p) is a product
    pieces = (
        [link.toks for link in links]
        + [rhs for _, rhs, _ in lets]
        + [side for d in items if d.kind == "given" for side in _split(d.toks, lambda t: _relation_of(t) is not None)]
    )
    defined = {name.split("(")[0] for name, _, _ in lets} | doc.names()
    notation = notation_of(src, pieces, declared_int - {None}, functions, variables, defined, doc.families)
    notation.indexed |= _indexed_by_definitions(pieces, doc) - notation.variables - defined
    notation.params = doc.params()
    assumptions: dict = {}
    for part, props in assumed:
        name = _assumed_name(src, part, notation)
        assumptions[name] = tuple(dict.fromkeys(assumptions.get(name, ()) + props))
    chain_lets = tuple((src.line(d.at), f"{name} = {Reader(rhs, src, notation).read()}") for name, rhs, d in lets)
    given = []
    for d in items:
        if d.kind != "given":
            continue
        sides = _split(d.toks, lambda t: _relation_of(t) is not None)
        top = {id(t) for t in _top(d.toks)}
        rels = [_relation_of(t) for t in d.toks if _relation_of(t) is not None and id(t) in top]
        if len(sides) < 2 or any(not s for s in sides) or any(r in ("≈", "!=") for r in rels):
            src.fail(d.at, "given: write a relation, e.g. % given: \\sum_{j=1}^{n} y_j = 1 or 1 \\le j \\le n")
        text = Reader(sides[0], src, notation).read()
        for rel, side in zip(rels, sides[1:]):
            text += f" {rel} {Reader(side, src, notation).read()}"
        given.append((src.line(d.at), text))
    facts = tuple((src.line(d.at), _fact(src, d, notation)) for d in stated)
    notation.densities = {m.group(1) for _, t in facts if (m := re.match(r"([A-Z][A-Za-z0-9]*)\s*(?:=|~)", t))}
    out = []
    block_lets = {name.split("(")[0] for name, _, _ in lets}
    refusal = next((g[0].refused for g in groups if g[0].refused), ())  # \sim on a row of its own (_links)
    premise: tuple | None = ()  # None: the equation before an arrow was not read
    defines = ""  # the name a premise defines (f in f(x, y) = x y \rightarrow \frac{\partial f}{\partial x} = y)
    for n, group in enumerate(groups):
        try:
            if group[0].refused:
                src.fail(*group[0].refused)
            if not (group[0].implied or group[0].beside):
                premise, defines = (), ""
            before = premise
            if n + 1 < len(groups) and groups[n + 1][0].implied:
                premise = None  # until it is read: an equation after an unread premise is not checked
            _no_empty_link(src, blk, group)
            if before is None:
                src.fail(
                    group[0].toks[0].pos,
                    "the equation before the arrow is bad input, and this one is claimed given it: "
                    "not checked without it (make that equation readable, or % mathcheck: skip)",
                )
            if n + 1 < len(groups) and groups[n + 1][0].implied:  # A \Rightarrow B: A is B's premise
                _not_equivalence(src, group, groups[n + 1][0].arrow)
                definition = _definition(src, group, notation, doc, block_lets, premise=True)
                if definition is not None:
                    out.append(definition)
                    premise, defines = before, WORD.match(definition.definition).group(0)
                    doc.used |= set(WORD.findall(definition.steps[0].text)) - {defines}  # its parameters: x, y
                elif _restated_premise(src, group, notation, doc):  # σ(x) = …(as defined) \Rightarrow …: checked
                    out += _equation(
                        src, blk, n, group, label, notation, doc, block_lets, assumptions, tuple(given) + before,
                        chain_lets, readings,
                    )  # fmt: skip
                    premise, defines = before, ""
                else:
                    _claimed_premise(src, group, groups[n + 1][0].arrow, notation, doc, block_lets)
                    premise, defines = before + _premise(src, group, notation), ""
                continue
            family = _family_derivative(group, defines)
            said = [family[1]] if family is not None else []
            if family is not None:  # f_c(x) = c + x \rightarrow \frac{df}{dx} = 1: f_c's derivative
                group = family[0]
            args = (label, notation, doc, block_lets, assumptions, tuple(given) + premise, chain_lets)
            try:
                chains = _equation(src, blk, n, group, *args, list(readings) + said)
            except LatexRefused:
                raise
            except DeriveError as exc:
                chains = _after_unread_head(src, blk, n, group, args, list(readings) + said, exc)
            if refusal and any(not (c.definition or c.unread or c.error) for c in chains):
                # a row beside it may state what this claim needs (X \sim \mathcal{N}(0, 1), then E[X^2] = 1):
                # beside a refused relation only definitions are read
                src.fail(*refusal)
            if defines:
                _names_premise(src, group, chains, defines)
            out += chains
        except LatexRefused:
            raise
        except DeriveError as exc:  # one unreadable equation of a gather fails alone; the others are checked
            if len(groups) == 1:
                raise
            line = src.line(blk.start if n == 0 or not group[0].toks else group[0].toks[0].pos)
            rows = all(len(g) == 2 and g[1].relation == "=" and _defined_name(g[0].toks) for g in groups)
            defined = (
                _unread_definition(
                    src, group[0].toks, group[1].at, group[1].toks, len(group) > 2, doc, str(exc), rows=rows
                )
                if group[1].relation == "=" and not group[0].implied and not premise and not group[0].refused
                else None
            )
            out += defined or [Chain(f"line {line}", src.path, line, error=str(exc))]
    if not facts:
        out = [_facts_in_prose(src, blk, c, doc.prose) for c in out]
    out = [_prose_given(src, blk, c) for c in out]
    # facts stated (% assume: p(x, y) \text{ law}): the chain's law is the author's, so a refutation stands
    return [_stated(c, facts) for c in out] if facts else out


# the first expression is the author's quantity, defined where mathcheck does not read it
_UNREAD_HEAD = re.compile(
    r"is defined in a display mathcheck does not read|a plain E is read only|E is a quantity this document defines"
)


def _head_unread(src: _Source, toks: list, notation, doc: _Document) -> bool:
    r"""Whether the expression ``toks`` is a quantity :func:`_after_unread_head` drops: it names one defined
    in a display that is not read (never a fresh name a chain defines: δ_h = -∂E/∂net_h is δ_h's definition),
    and it is a derivative of it (the notes' ∂E/∂y_m): the links after it compute that derivative. A head that
    is the quantity itself (d2l's loss ``l(\mathbf{y}, \hat{\mathbf{y}}) = …`` unfolded under the prose's one-hot
    y) is the chain's subject, whose hypotheses the unread display and its prose carry: never dropped."""
    derivative = any(t.kind == "cmd" and t.text == "partial" for t in toks) or any(
        t.kind == "cmd" and t.text in ("frac", "dfrac") and [x.text for x in toks[k + 1 : k + 3]] == ["{", "d"]
        for k, t in enumerate(toks)
    )
    if not derivative and not (toks and _one_hot(src, toks[0].pos)):
        return False  # the loss itself is dropped only where the prose states its hypothesis (_prose_given)
    if _names_in(toks) & doc.opaque_names:
        return True  # as written (\frac{\partial E}{\partial net_l}), whatever else fails to read beside it
    try:
        text = Reader(list(toks), src, notation).read()
    except LatexRefused:
        raise
    except DeriveError as exc:
        return bool(_UNREAD_HEAD.search(str(exc)))
    return bool(set(WORD.findall(text)) & set(doc.opaque))


def _defines_first(src: _Source, group: list, exc) -> int:
    r"""Where the equation's links are read from (0: as written) when one of its first two links is refused as
    relating new quantities (a definition written as a link) and the prose shortly before calls a family
    of it a probability — d2l's ``l(\theta) = \log L(\theta) = \log \prod_{i=1}^n \pi_i^{y_i} (1 - \pi_i)^{1 -
    y_i} = \sum_{i=1}^n …``, L the likelihood the product defines, "the probability to be classified as
    positive is $\pi_i$": the links after it are the author's claims, read from its right side under the
    prose's hypothesis (:func:`_prose_given`)."""
    said = str(exc)
    if (
        not ("appear first here, on either side of" in said or "a vector to a vector power" in said)
        or not group[0].toks
    ):
        return 0  # (or its right side is d2l's multinoulli mass \boldsymbol{\pi}^{\mathbf{y}_i}, not read)
    if group[0].implied or group[0].beside:
        return 0
    if not (_probabilities(src, group[0].toks[0].pos) or _probability_vectors(src, group[0].toks[0].pos)):
        return 0
    for k in (1, 2):
        at = [group[k].at] if group[k].at is not None else []
        if "a vector to a vector power" in said:  # said inside the expression, not at its sign
            at = list(group[k].toks)
        if k + 1 < len(group) and any(f"{src.where(t.pos)}:" in said for t in at):
            if any(link.conditions or link.reason for link in group[1 : k + 1]):
                return 0
            return k
    return 0


def _from_readable(src, blk, rest, k, *args) -> tuple:
    r"""The chains of ``rest`` read from its ``k``-th expression, or from the first after it that reads —
    d2l's ``\log \prod_i \boldsymbol{\pi}^{\mathbf{y}_i} = \log \prod_i \prod_j \pi_j^{y_{ij}} = …``: the vector
    power is not read, the links after it are the author's claims — with where they start; ``([], k)`` where
    none does (at least one link left)."""
    for j in range(k, len(rest) - 1):
        if j > k and (rest[j].conditions or rest[j].reason):
            break
        try:
            chains = _equation(src, blk, 1, [_Link(None, None, rest[j].toks, "")] + rest[j + 1 :], None, *args)
        except LatexRefused:
            raise
        except DeriveError:
            continue
        if not (chains and chains[0].error and len(chains) > 1):  # its head unread: from the next expression
            return chains, j
    return [], k


def _after_unread_head(src, blk, n, group, args, readings, exc) -> list:
    r"""The links of an equation after its first, where the first expression is a quantity defined in a
    display that is not read (backprop notes: ``\frac{\partial E}{\partial y_m} = \frac{\partial}{\partial
    y_m} \cdot \frac{1}{2} \sum_{j=1}^M (\hat{y}_j - y_j)^2 = -(\hat{y}_m - y_m)``, E's definition not read):
    each link is the author's claim, so the rest is checked as a chain from the second expression, with a
    note saying the first link is not read. Expressions are dropped from the front while they name such a
    quantity (:func:`_head_unread`); where the rest does not read either, the equation's error is raised as
    before."""
    first, notation, doc = exc, args[1], args[2]
    while (
        _UNREAD_HEAD.search(str(first))
        and len(group) >= 3
        and not (group[0].implied or group[0].beside)
        and not (group[1].conditions or group[1].reason)  # \quad x > 0 there may be the whole equation's
        and _head_unread(src, group[0].toks, notation, doc)
    ):
        group = [_Link(None, None, group[1].toks), *group[2:]]
        try:
            chains = _equation(src, blk, n, group, *args, readings)
        except LatexRefused:
            raise
        except DeriveError:
            continue  # the next expression names that quantity too (or fails of its own: raised below)
        why = re.sub(r"^.*?:\d+:\d+: ", "", str(first)).split(";")[0]
        line = src.line(group[0].toks[0].pos)
        return [
            replace(c, notes=(*c.notes, f"the links before the expression on line {line} are not read: {why}"))
            for c in chains
        ]
    return _after_quantity_derivative(src, blk, n, group, args, readings, first)


def _not_by_quantity(src: _Source, group: list, steps: list, notation: Notation) -> None:
    r"""Bad input, said here (the parser says it too, later, for the whole chain), where a link differentiates
    by a value of a function — statnotes' ``\frac{\partial J}{\partial y_c}`` with y_c = σ_c(z), ``diff(J,
    y(c))``: the chain rule through a quantity, not a variable (:func:`_after_quantity_derivative` checks
    the links after it)."""
    for st in steps:
        for f, a in _calls(st.text):
            parts = [p for _, p in split_top(a, (",",))] if f == "diff" else []
            if len(parts) == 2 and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*\(.*\)", parts[1].strip()):
                src.fail(
                    group[0].toks[0].pos if group[0].toks else 0,
                    f"differentiate with respect to a plain name or an entry x[j]: {parts[1].strip()!r} is a "
                    f"value of a function (the chain rule through it is not read)",
                )
    # σ_c of σ_i(z) without its argument (statnotes' ∂σ_c/∂z_i): said here too, so the links after it are read
    for name, vector, index in notation.families.values():
        bare = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_(])"
        if vector and index and any(re.search(bare, st.text) for st in steps):
            src.fail(
                group[0].toks[0].pos if group[0].toks else 0,
                f"{name} is a function of the vector {vector}; write it applied, {name}_{index}({vector})",
            )


_BY_QUANTITY = re.compile(r"differentiate with respect to a plain name or an entry")


def _after_quantity_derivative(src, blk, n, group, args, readings, exc) -> list:
    r"""The links of an equation after the expressions that differentiate by a quantity, not a variable —
    statnotes' ``\frac{\partial J}{\partial z_i}=\frac{\partial J}{\partial y_c}\frac{\partial y_c}{\partial
    z_i}=…=y_i-\delta_{ic}``, ∂J/∂y_c with y_c = σ_c(z): the chain rule written through y_c, which is not read.
    Each later link is the author's claim, checked as a chain from the first expression that reads, with a
    note saying the links before it are not read; the equation's error is raised where none does."""
    if not _BY_QUANTITY.search(str(exc)) or any(link.conditions or link.reason for link in group[1:]):
        raise exc
    while len(group) >= 3 and not (group[0].implied or group[0].beside):
        group = [_Link(None, None, group[1].toks), *group[2:]]
        try:
            chains = _equation(src, blk, n, group, *args, readings)
        except LatexRefused:
            raise
        except DeriveError:
            continue
        why = re.sub(r"^.*?:\d+(?::\d+)?: ", "", str(exc)).split(";")[0]
        line = src.line(group[0].toks[0].pos)
        return [
            replace(c, notes=(*c.notes, f"the links before the expression on line {line} are not read: {why}"))
            for c in chains
        ]
    raise exc


def _stated(chain: Chain, facts: tuple) -> Chain:
    r"""The chain with the block's stated facts; a joint law the chain's H, I imply and the author also
    states (% assume: p(x, y) \text{ law}) is the author's, so a refutation by a drawn law stands."""
    if not chain.prose_facts.startswith(information.PROSE):
        return replace(chain, facts=chain.facts + facts)
    said = {t for _, t in facts}
    return replace(chain, facts=tuple(f for f in chain.facts if f[1] not in said) + facts, prose_facts="")


# d2l's "Since $\mathbf{y}$ is a one-hot vector of length $q$": the label's entries add up to 1
_ONE_HOT = re.compile(
    r"\$\s*(?:\\(?:mathbf|boldsymbol|vec)\s*\{\s*)?([A-Za-z])\s*\}?\s*\$,?\s+(?:is|are)\s+(?:an?\s+)?one-hot\b"
)
_NEAR = 2000  # how far before a display its prose is read for such a hypothesis (characters)


def _one_hot(src: _Source, pos: int) -> list:
    """The names the prose shortly before ``pos`` calls one-hot, with the line saying so (``[("y", 315)]``),
    nearest last."""
    return [(m.group(1), src.line(m.start())) for m in _ONE_HOT.finditer(src.text, max(0, pos - _NEAR), pos)]


# d2l's "the probability to be classified as positive is $\pi_i= p_{\theta}(y_i = 1 \mid x_i)$"
_PROBABILITY_IS = re.compile(r"\bprobabilit(?:y|ies)\b[^.$]{0,80}?\bis\s+\$\s*\\?([A-Za-z]+)_\{?\s*([A-Za-z])\s*\}?")


def _probabilities(src: _Source, pos: int) -> list:
    """The families the prose shortly before ``pos`` calls a probability, with the line saying so
    (``[("pi", "i", 527)]``), nearest last."""
    return [
        (m.group(1), m.group(2), src.line(m.start()))
        for m in _PROBABILITY_IS.finditer(src.text, max(0, pos - _NEAR), pos)
    ]


# d2l's "following a $k$-class multinoulli distribution with probabilities $\boldsymbol{\pi} =$ ($\pi_{1}, \ldots,
# \pi_{k}$)": a vector of probabilities, its entries in (0, 1) adding up to 1
_PROBABILITY_VECTOR = re.compile(
    r"\bprobabilities\s+\$\s*(?:\\(?:boldsymbol|mathbf|vec)\s*\{\s*)?\\?([A-Za-z]+)\s*\}?\s*=?\s*\$?\s*=?\s*\(?"
    r"\s*\$?\s*\(?\s*\\?\1_\{?\s*1\s*\}?\s*,\s*\\[lc]?dots\s*,\s*\\?\1_\{?\s*([A-Za-z])\s*\}?"
)


def _probability_vectors(src: _Source, pos: int) -> list:
    """The vectors of probabilities the prose shortly before ``pos`` names entry by entry, with their size and
    the line saying so (``[("pi", "k", 642)]``), nearest last."""
    return [
        (m.group(1), m.group(2), src.line(m.start()))
        for m in _PROBABILITY_VECTOR.finditer(src.text, max(0, pos - _NEAR), pos)
    ]


def _prose_given(src: _Source, blk: Block, chain: Chain) -> Chain:
    r"""A chain summing the entries of a vector the prose just before its display calls one-hot (d2l's
    ``\sum_{j=1}^q y_j \log \sum_k \exp(o_k) - … = \log \sum_k \exp(o_k) - …``, "Since $\mathbf{y}$ is a
    one-hot vector"): the hypothesis ``\sum_{j=1}^q y_j = 1`` is the prose's, not written, so a link refuted
    without it and not refuted under it is inconclusive, saying what to state (``Chain.prose_given``); a
    link refuted under it (a planted error at a one-hot y) stays refuted, and a proof without it stands."""
    if chain.error or chain.definition or chain.unread or chain.prose_given:
        return chain
    # the sum over y's entries may be the chain's own or one a definition it unfolds writes (d2l's
    # \partial_{o_j} l(\mathbf{y}, \hat{\mathbf{y}}), l = -\sum_{j=1}^q y_j \log \hat{y}_j: its index renamed j1)
    texts = [st.text for st in chain.steps] + [t.split("=", 1)[-1] for _, t in chain.lets]
    for name, said in reversed(_one_hot(src, blk.start)):
        for text in texts:
            for m in re.finditer(r"\((\w+), ([^,()]+), ([^,()]+)\)\)", text):
                idx, lo, hi = m.groups()
                if f"{name}[{idx}]" in text:
                    given = f"Sum({name}[{idx}], ({idx}, {lo}, {hi})) = 1"
                    shown = re.sub(r"(?<=[A-Za-z])[0-9]+$", "", idx)  # j1, a definition's j renamed: j as written
                    if shown in chain.assumptions:  # j free in the link (\partial_{o_j}): the line states another
                        seen = {w for t in texts for w in WORD.findall(t)}
                        shown = next((c for c in "kmlrstuv" if c not in seen), shown)
                    line = f"% given: \\sum_{{{shown}={lo}}}^{{{hi}}} {name}_{shown} = 1"
                    words = f"{name} is one-hot, line {said}"
                    return replace(chain, prose_given=f"{given}\t{line}\t{words}")
    for name, idx, said in reversed(_probabilities(src, blk.start)):
        base = "pi_" if name == "pi" else name  # the reader's name of \pi_i's family
        if any(re.search(rf"(?<![\w]){re.escape(base)}\[", st.text) for st in chain.steps):
            shown = f"\\{name}" if name in GREEK else name
            words = f"{name}_{idx} is a probability, line {said}"
            said = f"0 < {shown}_{idx} < 1 for every {idx}"
            return replace(chain, prose_given=f"range {base}\t{said}\t{words}\t% assume: {shown}_{idx} > 0")
    for name, size, said in reversed(_probability_vectors(src, blk.start)):
        base = "pi_" if name == "pi" else name
        # an entry over 1..size in a sum of the chain: pi[j] with (j, 1, k)
        for st in chain.steps:
            for m in re.finditer(rf"\((\w+), 1, {re.escape(size)}\)", st.text):
                idx = m.group(1)
                if re.search(rf"(?<![\w]){re.escape(base)}\[{idx}\]", st.text):
                    shown = f"\\{name}" if name in GREEK else name
                    line = f"0 < {shown}_{idx} < 1 for every {idx} and \\sum_{{{idx}=1}}^{{{size}}} {shown}_{idx} = 1"
                    words = f"{name} is a vector of probabilities, line {said}"
                    pos = f"% assume: {shown}_{idx} > 0"
                    return replace(chain, prose_given=f"simplex {base} {size}\t{line}\t{words}\t{pos}")
    return chain


_PROSE_FACT = re.compile(
    r"\b(independent(?:ly)?|i\.i\.d\.?|iid|zero mean|mean zero|unit variance|identically distributed)\b", re.I
)
_RANDOM = re.compile(r"(?<![A-Za-z0-9_])(E|Var|Cov)\(")


def _facts_in_prose(src: _Source, blk: Block, chain: Chain, prose: str) -> Chain:
    """A chain of expectations whose random variables the section's prose describes (d2l's
    initialisation: "the weights are drawn independently … zero mean and variance σ²"), with no
    ``% assume:`` fact: its links are checked without those facts, and a refutation is
    ``inconclusive`` naming what the prose says and what to state (``Chain.prose_facts``). A proof
    stands: facts only narrow the distributions, so a link that holds for every one holds under them.
    Checked without those facts, d2l's Var[o_i] = Σ_j E[w_ij² x_j²] − 0 is refuted — a hypothesis
    the prose states, so never a refutation."""
    said = _PROSE_FACT.search(prose)
    if said is None or chain.error or chain.definition or not any(_RANDOM.search(s.text) for s in chain.steps):
        return chain
    return _one_of_a_family(replace(chain, prose_facts=said.group(1)))


def _one_of_a_family(chain: Chain) -> Chain:
    """cs231n's ``\\sum_i^n \\text{Var}(x_i)\\text{Var}(w_i) = (n \\text{Var}(w)) \\text{Var}(x)``, "all
    w_i, x_i identically distributed" in prose: a plain ``w`` inside ``E``/``Var``/``Cov`` beside the
    family ``w[i]`` (which the grammar refuses as one name used two ways) is read as one more random
    variable ``w_any``, tied to the family by no fact — so a link that needs it to share their law is
    refuted on the draws and, the prose stating facts, inconclusive; never a proof that assumes it."""
    texts = [s.text for s in chain.steps]
    family = {m.group(1) for t in texts for m in re.finditer(r"(?<![A-Za-z0-9_])([a-z])\[", t)}
    plain = {
        n
        for n in family
        for t in texts
        if re.search(rf"(?:E|Var|Cov)\((?:[^()]*[^A-Za-z0-9_])?{n}(?![A-Za-z0-9_\[(])", t)
    }
    if not plain:
        return chain
    sub = lambda t: re.sub(  # noqa: E731
        rf"(?<![A-Za-z0-9_])({'|'.join(sorted(plain))})(?![A-Za-z0-9_\[(])", r"\1_any", t
    )
    steps = tuple(replace(s, text=sub(s.text)) for s in chain.steps)
    note = ", ".join(f"{n} beside {n}_i: read as one more random variable {n}_any" for n in sorted(plain))
    return replace(chain, steps=steps, notes=chain.notes + (note,))


_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(")


def _calls(text: str) -> list:
    """``[(f, "x + h"), …]``: every function applied in ``text`` (the grammar's text) and its arguments."""
    out = []
    for m in _CALL.finditer(text):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        out.append((m.group(1), text[m.end() : j - 1]))
    return out


def _not_difference_quotient(src: _Source, group: list, steps: list) -> None:
    r"""A derivative of a function written ``=`` to that function taken at a step that appears on that side
    only — cs231n's ``\frac{df(x)}{dx} = \frac{f(x + h) - f(x)}{h} \hspace{0.1in} \text{(bad, do not use)}``,
    a numerical gradient: its author means ≈ for a small h (equal only as h → 0), so a refutation for
    some f and h would refute what was not meant. Bad input naming the step; only where the other side
    holds no derivative (``\frac{dz}{dx} = \frac{dz}{dy}\frac{dy}{dx}`` is checked as before). The chain rule,
    ``\frac{d}{dx} f(g(x)) = f'(g(x))g'(x)``, takes f at no new name and is checked as before."""
    from mathcheck.parser import reserved

    for a, b in zip(steps, steps[1:]):
        if b.relation != "=":
            continue
        for d, q in ((a.text, b.text), (b.text, a.text)):
            if "diff(" not in d and "prime(" not in d or "diff(" in q or "prime(" in q or "Limit(" in q:
                # a derivative on both sides (dz/dx = dz/dy dy/dx) is no difference quotient, nor one under
                # its limit (\lim_{h \to 0}: the step is bound, the derivative's definition)
                continue
            here = set(WORD.findall(d))
            for f, args in _calls(q):
                if f in _PARSER_FUNCTIONS or f not in here:
                    continue
                step = sorted(set(WORD.findall(args)) - here - reserved() - {f for f, _ in _calls(args)})
                if step:
                    h = step[0]
                    src.fail(
                        group[0].toks[0].pos,
                        f"a difference quotient in {h} equals the derivative of {f} only as {h} → 0 ({q} takes "
                        f"{f} at a step {h} that {d} lacks): write \\approx, or \\lim_{{{h} \\to 0}}",
                    )


def _no_empty_link(src: _Source, blk: Block, group: list) -> None:
    for link in group:
        if not link.toks:
            at = link.at.pos if link.at is not None else blk.body
            what = (
                f"nothing after {src.text[link.at.pos : link.at.end]!r}"
                if link.at is not None
                else "the chain has no first expression"
            )
            src.fail(at, what)


def _not_equivalence(src: _Source, group: list, arrow: Tok) -> None:
    r"""``A \iff B`` claims both directions: read only after a function's definition (true by fiat, so
    A ⟺ B is B). ``x = 2 \iff x^2 = 4`` is false (x = −2), and checking x² = 4 given x = 2 — or with
    x = 2 read as x's definition — proved it."""
    if arrow.text in _EQUIVALENT and (
        len(group) != 2 or group[1].relation != "=" or _lhs_shape(group[0].toks)[1] is None
    ):
        src.fail(
            arrow.pos,
            f"\\{arrow.text} claims both directions, and mathcheck checks one: write \\Rightarrow for the "
            f"direction you claim (C = D checked given A = B)",
        )


def _claimed_premise(src: _Source, group: list, arrow: Tok, notation: Notation, doc: _Document, block_lets) -> None:
    r"""A premise that is no definition is a hypothesis of the equation after the arrow — unless it is
    before ``\iff`` (both directions claimed; checking one would prove what was not claimed), or it
    gives a defined function another form that is not read as its redefinition (the right side in f, or
    another definition written in f): as the hypothesis ``f(x) = e^x`` with f = 1/x unfolded, 1/x = eˣ,
    ``\frac{df}{dx} = e^x`` after it was refuted."""
    _not_equivalence(src, [], arrow)  # a function's definition it was not: A ⟺ B is more than B given A
    head, params = _lhs_shape(group[0].toks)
    try:
        name = Reader(head, src, Notation(notation.indices, notation.indexed, {}, notation.variables)).read()
        steps = _steps(src, group, notation)
    except DeriveError:
        return
    said = f"{steps[0].text} = {steps[-1].text}" if len(steps) == 2 and steps[1].relation == "=" else ""
    before = [text for _, n, text, _ in doc.defs if n == name][-1:]
    if params and (name in block_lets or before and before != [said]):  # the same definition again is fine
        src.fail(
            group[0].toks[0].pos,
            f"{name} is defined again here, before \\{arrow.text}: as a hypothesis about the {name} defined "
            f"before, this is not what it means; give this function its own name",
        )


def _restated_premise(src: _Source, group: list, notation: Notation, doc: _Document) -> bool:
    r"""A premise that is the definition in force word for word (a blog's ``\sigma(x) = \frac{1}{1+e^{-x}}
    \Rightarrow 1 - \sigma(x) = …`` under a later heading, after :func:`_restates`): its author restates
    the definition, a claim — checked (proved) rather than taken as a hypothesis; the next equation
    needs no hypothesis, the definition being unfolded."""
    if len(group) != 2 or group[1].relation != "=" or group[1].define:
        return False
    head, params = _lhs_shape(group[0].toks)
    try:
        name = Reader(head, src, Notation(notation.indices, notation.indexed, {}, notation.variables)).read()
        steps = _steps(src, group, notation)
    except DeriveError:
        return False
    said = f"{steps[0].text} = {steps[-1].text}"
    return bool(params) and [text for _, n, text, _ in doc.defs if n == name][-1:] == [said]


def _family_derivative(group: list, name: str):
    r"""cs231n's gates, ``f_c(x) = c + x \rightarrow \frac{df}{dx} = 1`` and ``f_a(x) = ax \rightarrow
    \frac{df}{dx} = a``: the premise defines ``f_c``, one of a family its author calls f, and the
    derivative after the arrow is written of the family's letter — it is f_c's (the author's meaning; read
    as another f it was refused, :func:`_names_premise`). ``(the group with f_c in the derivatives'
    numerators, the reading said)`` where the premise's name is a letter with a one-token subscript, the
    equation writes that letter only as the numerator of ``\frac{d f}{…}`` or ``\frac{\partial f}{…}``
    (never alone, never f_c itself); else None."""
    base, _, sub = name.partition("_")
    if not name or not sub or len(base) != 1 or not re.fullmatch(r"[A-Za-z0-9]", sub):
        return None
    toks = [t for link in group for t in link.toks]
    at = [k for k, t in enumerate(toks) if t.kind == "ch" and t.text == base]
    numerator = [
        k
        for k in at
        if k >= 3
        and toks[k - 3].kind == "cmd"
        and toks[k - 3].text == "frac"
        and toks[k - 2].text == "{"
        and toks[k - 1].text in ("d", "partial")
        and k + 1 < len(toks)
        and toks[k + 1].text == "}"
    ]
    if not at or numerator != at:
        return None
    out = []
    for link in group:
        renamed = []
        for t in link.toks:
            if any(t is toks[k] for k in at):
                renamed += [t, Tok("ch", "_", t.end, t.end), Tok("num" if sub.isdigit() else "ch", sub, t.end, t.end)]
            else:
                renamed.append(t)
        out.append(replace(link, toks=renamed))
    return (
        out,
        f"d{base}/dx after the arrow is read as d{name}/dx: the function the premise defines, of the family {base}",
    )


def _names_premise(src: _Source, group: list, chains: list, name: str) -> None:
    r"""After ``f_c(x) = c + x \rightarrow``, the equation must be about f_c: cs231n writes
    ``\frac{df}{dx} = 1`` there, meaning f_c's derivative — read as the f defined before, it was false."""
    for chain in chains:
        if chain.steps and name not in {w for s in chain.steps for w in WORD.findall(s.text)}:
            src.fail(
                group[0].toks[0].pos,
                f"the equation after the arrow does not name {name}, which the equation before it defines: "
                f"which function it is about is not written (e.g. \\frac{{d{name}}}{{dx}})",
            )


def _after_groups(toks: list, k: int, n: int) -> int:
    """The index after ``n`` brace groups from ``toks[k]`` (len(toks) where they do not close)."""
    for _ in range(n):
        if k >= len(toks) or toks[k].text != "{":
            return len(toks)
        depth = 0
        while k < len(toks):
            depth += toks[k].kind == "ch" and toks[k].text == "{"
            depth -= toks[k].kind == "ch" and toks[k].text == "}"
            k += 1
            if depth == 0:
                break
    return k


def _leibniz_fraction(term: list, k: int) -> set | None:
    r"""The indices of a Leibniz derivative ``\frac{\partial z_i}{\partial W_{ij}}`` at ``term[k]`` (a name
    by a name, each with its subscripts), counted once each: free in i and j, never i summed over the
    fraction's two parts; None where ``term[k]`` is no such fraction (``\frac{\partial}{\partial x_k}``, an
    operator, applies to what follows, which :func:`_free_indices` counts as before)."""
    t = term[k]
    if not (t.kind == "cmd" and t.text in ("frac", "dfrac") and k + 1 < len(term) and term[k + 1].text == "{"):
        return None
    mid = _after_groups(term, k + 1, 1)
    end = _after_groups(term, mid, 1)
    num, den = term[k + 2 : mid - 1], term[mid + 1 : end - 1]
    if end > len(term) or not (num and den) or num[0].text != "partial" or den[0].text != "partial" or len(num) < 2:
        return None
    out = set()
    for part in (num[1:], den[1:]):
        found = _free_indices(part)
        if found is None or found[1]:
            return None
        out |= found[0]
    return out


def _free_indices(toks: list):
    """The free indices of an expression in Einstein's convention, or None where the convention
    does not fit it: per term (split at top-level + and −) the single-letter subscripts counted,
    a bracketed or braced part adding its own free indices; an index twice in a term is summed, once
    free, three times (or once more beside a part that sums it) ill-formed; every term must leave the
    same free set. ``(free, summed)``, two sets."""
    terms, depth, cur = [], 0, []
    for t in toks:
        if t.kind == "ch" and t.text in "([{":
            depth += 1
        elif t.kind == "ch" and t.text in ")]}":
            depth -= 1
        if depth == 0 and t.kind == "ch" and t.text in "+-":
            terms.append(cur)
            cur = []
        else:
            cur.append(t)
    terms.append(cur)
    frees, summed = [], set()
    for term in terms:
        if not term:
            continue
        counts: dict = {}
        inner_summed: set = set()
        k = 0
        while k < len(term):
            t = term[k]
            leibniz = _leibniz_fraction(term, k)
            if leibniz is not None:  # ∂z_i/∂W_{ij}: one factor free in i and j, none summed (i is no product's)
                for x in leibniz:
                    counts[x] = counts.get(x, 0) + 1
                k = _after_groups(term, k + 1, 2)
                continue
            if t.kind == "ch" and t.text in "([{":
                close = {"(": ")", "[": "]", "{": "}"}[t.text]
                d, j = 0, k
                while j < len(term):
                    d += term[j].kind == "ch" and term[j].text == t.text
                    d -= term[j].kind == "ch" and term[j].text == close
                    if d == 0:
                        break
                    j += 1
                inner = _free_indices(term[k + 1 : j])
                if inner is None:
                    return None
                for x in inner[0]:
                    counts[x] = counts.get(x, 0) + 1
                inner_summed |= inner[1]
                k = j + 1
                continue
            if t.kind == "ch" and t.text == "_" and k + 1 < len(term):
                nxt = term[k + 1]
                if nxt.kind == "ch" and nxt.text == "{":
                    d, j = 0, k + 1
                    while j < len(term):
                        d += term[j].text == "{"
                        d -= term[j].text == "}"
                        if d == 0:
                            break
                        j += 1
                    sub = term[k + 2 : j]
                else:
                    sub, j = [nxt], k + 1
                if 0 < len(sub) <= 4 and all(x.kind == "ch" and len(x.text) == 1 and x.text.islower() for x in sub):
                    for x in sub:
                        counts[x.text] = counts.get(x.text, 0) + 1
                k = j + 1
                continue
            k += 1
        if any(c > 2 for c in counts.values()) or inner_summed & set(counts):
            return None
        summed |= inner_summed | {x for x, c in counts.items() if c == 2}
        frees.append(frozenset(x for x, c in counts.items() if c == 1))
    if len(set(frees)) > 1:
        return None
    return (set(frees[0]) if frees else set(), summed)


def _not_einstein(src: _Source, group: list) -> None:
    r"""Refuse an equation written in Einstein's summation convention: d2l's ``\frac{d}{dx_k}x_ia_{ij}x_j
    = a_{kj}x_j + x_ia_{ik}`` sums over the repeated i and j, and read with x_i, a_ij as plain names it
    was refuted. The convention is read where it fits the whole equation — an index repeated in a term,
    and every term of every side leaving the same free indices — and no ``\sum`` is written; then the
    equation is bad input naming the index (``\frac{\partial L}{\partial w_i} = x_i \delta_i`` does not
    fit, its left side free in i and its right side not, and is read as written)."""
    if any(t.kind == "cmd" and t.text in ("sum", "prod") for link in group for t in link.toks):
        return
    sides = [_free_indices(link.toks) for link in group]
    if any(x is None for x in sides) or len({frozenset(f) for f, _ in sides}) != 1 or not any(r for _, r in sides):
        return
    src.fail(
        group[0].toks[0].pos if group[0].toks else 0,
        "an index repeats within a term and no \\sum is written: Einstein's summation convention, which "
        "is not read (x_i a_{ij} x_j read as plain names would be another claim); write the sums, e.g. "
        "\\sum_i \\sum_j x_i a_{ij} x_j",
    )


def _fresh(text: str, known: set) -> set:
    """The names of ``text`` (grammar) that ``known`` lacks: neither functions applied, nor indices a
    sum binds, nor mathcheck's own words."""
    from mathcheck.parser import reserved

    bound = set(re.findall(r"(?<![\w])\(([A-Za-z_]\w*), ", text))
    applied = set(re.findall(r"([A-Za-z_]\w*)\(", text))
    return set(WORD.findall(text)) - known - bound - applied - reserved() - {GENERIC_SIZE}


def _about_random_variables(text: str) -> bool:
    """Whether a side (grammar text) applies a probability operator (E, Var, Cov, KL, a distribution)."""
    from mathcheck.parser import PROBABILITY

    return bool(
        re.search(r"(?<![\w])(" + "|".join(map(re.escape, PROBABILITY)) + r")\(", text)
        or re.search(r"(?<![\w])P\([^()]*[=<>]", text)  # P(X = 1): an event (latex/probability.py)
    )


def _not_unrelated(src: _Source, group: list, steps: list, doc: _Document, stated: set, since: int) -> None:
    r"""Refuse a link between new quantities: each side names one that nothing before this block has
    used, defined or declared, and the other side lacks — d2l's Zipf law ``\log n_i = -\alpha \log i + c``
    (α and c constants of a fit) and ``\tilde{\theta} = 2 \bar{X_n} = \frac{2}{n} \sum_{i=1}^n X_i``
    (X̄_n named by the link) state what a quantity is, or a model, not an identity in free values;
    read as one they were refuted. ``\sin^2 x + \cos^2 x = 1`` (new names on one side only) is a claim."""
    # what the block's own first link defined (θ̃ = 2 X̄_n) does not make X̄_n known
    known = stated | set(doc.unread) | {w for line, _, text, _ in doc.defs if line < since for w in WORD.findall(text)}
    known |= {name for _, name, _, _ in doc.defs}
    for k in range(1, len(steps)):
        if _about_random_variables(steps[k - 1].text) or _about_random_variables(steps[k].text):
            continue  # E[X] = \sum_i x_i p_i: X is a random variable, not a new quantity (probability.check decides)
        left, right = _fresh(steps[k - 1].text, known), _fresh(steps[k].text, known)
        if left - right and right - left:
            at = group[k].at
            src.fail(
                at.pos if at is not None else 0,
                f"{', '.join(sorted(left - right))} and {', '.join(sorted(right - left))} appear first here, on "
                f"either side of {steps[k].relation}: the link relates new quantities (a definition, a law, a "
                f"model), not an identity; write a definition with := or % let:, or % mathcheck: skip",
            )


def _not_redefined_unread(src: _Source, group: list, lets, doc: _Document, here: int, blk: Block) -> None:
    r"""Refuse a chain that would unfold a definition the document gave another form since, in a
    display that was not read: d2l defines $f(x) = \log(1+(x-1)^{10})$ in prose, then works the product
    rule with ``f(x+\epsilon) = g(x+\epsilon)\cdot h(x+\epsilon)`` (not read) — the next display's f is
    g·h, and unfolded as the logarithm it was refuted."""
    for line, text in lets:
        name = text.split("=")[0].split("(")[0].strip()
        if line < doc.unread.get(name, 0) < here:
            src.fail(
                group[0].toks[0].pos if group[0].toks else blk.body,
                f"{name} is defined on line {line}, then given another form in a display mathcheck does not "
                f"read (line {doc.unread[name]}); which {name} is meant here is unclear — make that display "
                f"readable, or give the new quantity another name",
            )


def _not_related_by_prose(src: _Source, group: list, steps: list, doc: _Document, unknown) -> None:
    r"""Refuse a link that goes through a definition and whose sides share no unknown function (one side
    may have none): d2l's ``\beta_i := p(x_i)/q(x_i)``, then "it follows that" ``\beta_i = \exp(h(x_i))``
    for a classifier h — p, q and h are related by what the prose says of h (a model), and read for
    every p, q and h the link was refuted; its product rule ``\frac{f(x+\epsilon) - f(x)}{\epsilon} =
    g(x)\frac{dh}{dx}(x) + …`` means f = g·h, not the f the prose defined before. (A link in unknown
    functions alone, ``\frac{d}{dx} f(g(x)) = f'(x) g'(x)``, is still checked for every function.)"""

    def has(u, t):
        return re.search(rf"(?<![A-Za-z0-9_]){u}\(", t) is not None

    unknown = set(unknown) - doc.names()  # a function the document defines is no unknown (g(x) = ax^2 + …)

    def side(text):
        direct = {u for u in unknown if has(u, text)}
        via = {u for _, t in doc.needed([text]) for u in unknown if has(u, t.split("=", 1)[1])}
        return direct, via

    for k in range(1, len(steps)):
        (ld, lv), (rd, rv) = side(steps[k - 1].text), side(steps[k].text)
        left, right = ld | lv, rd | rv
        through = doc.needed([steps[k - 1].text]) or doc.needed([steps[k].text])
        if (left or right) and not left & right and through:
            at = group[k].at
            src.fail(
                at.pos if at is not None else 0,
                f"the link relates {', '.join(sorted(left)) or 'no unknown function'} to "
                f"{', '.join(sorted(right)) or 'no unknown function'} through a definition: they are related "
                f"only by what the prose says (a model, another f), "
                f"so the link is not checked for every function; state the relation with % let: or % given:",
            )


def _side_equations(src: _Source, groups: list) -> list:
    r"""Equations set side by side on a row, ``u(a, b) = (a+b)^2, \qquad v(a, b) = (a-b)^2``: the
    second is an equation of its own (a function's definition), not a condition of the first — d2l's
    multivariate chain rule defines f, u, v, a, b so, and v's definition was read as a hypothesis of u's
    (then a claim about the unknown u, 30 s to a time-out). Only ``f(x, y) = …`` is split off: a
    condition is never written so, while ``x = 1`` after ``\quad`` may be one."""
    out = []
    for group in groups:
        out.append(group)
        for link in group:
            for cond in list(link.conditions):
                body = [t for t in cond if not (t.kind == "cmd" and t.text in _SPACING) and t.text != "&"]
                while body and body[0].kind == "ch" and body[0].text in ",;":
                    body = body[1:]
                body, word = _after_and(src, body)
                while body and body[-1].kind == "ch" and body[-1].text in ".,;":
                    body = body[:-1]
                top = {id(t) for t in _top(body)}
                rels = [k for k, t in enumerate(body) if id(t) in top and _relation_of(t) is not None]
                if len(rels) >= 2 and rels[0] > 0 and all(b - a > 1 for a, b in zip(rels, rels[1:] + [len(body) + 1])):
                    # a chain, A = B = C, after \quad: a claim set beside the first, never its hypothesis (the
                    # softmax derivative's "∂e^{z_i}/∂z_j = δ_ij e^{z_i}, \quad ∂N/∂z_j = Σ_k δ_jk e^{z_k} = e^{z_j}"
                    # made the second chain a given of the first)
                    link.conditions.remove(cond)
                    text = _plain(src, cond)
                    link.reason = "; ".join(r for r in link.reason.split("; ") if r != text)
                    cuts = [*rels, len(body)]
                    chain = [_Link(None, None, body[: rels[0]])]
                    chain += [_Link(_relation_of(body[a]), body[a], body[a + 1 : b]) for a, b in zip(cuts, cuts[1:])]
                    out.append(chain)
                    continue
                if len(rels) != 1 or _relation_of(body[rels[0]]) != "=" or not body[rels[0] + 1 :]:
                    continue
                lhs = body[: rels[0]]
                # H(X) = -\sum_i p_i \log p_i \textrm{, where } p_i = P(X_i); \mathbf{h}^{(l)} = f_l(…) \textrm{ and
                # thus } \mathbf{o} = …: a name defined beside a definition, never swallowed as its reason
                # — only a name the equation does not write (f(x) = x^2 \text{ where } x = 3 is a point, a condition)
                named = (
                    word in _DEFINING_WORDS
                    and _defined_name(lhs) is not None
                    and _defined_name(group[0].toks) is not None
                    and not _names_in(lhs) & _names_in([t for g in group for t in g.toks])
                )
                shaped = word in ("", "and") and (
                    (_lhs_shape(lhs)[1] is not None and len(_lhs_shape(lhs)[0]) == 1) or _derivative_lhs(lhs, src)
                )
                if not shaped and not (named and len(group) == 2 and group[1].relation == "="):
                    continue
                link.conditions.remove(cond)
                text = _plain(src, cond)
                link.reason = "; ".join(r for r in link.reason.split("; ") if r != text)
                out.append([_Link(None, None, lhs, beside=True), _Link("=", body[rels[0]], body[rels[0] + 1 :])])
    return out


_DEFINING_WORDS = ("where", "and thus", "and so", "and", "with")


def _without_maps_to(toks: list) -> list:
    r"""``x\mapsto a=\sigma(w^t x+b)=\sigma(z)`` (statnotes' logistic model, "a function:"): a display that
    opens with a variable and ``\mapsto`` names the function's argument, then gives its value — the
    equations after it, here a's and z's definitions, are read; before, ``\mapsto`` made the display bad
    input. Only a single letter at the very start."""
    if len(toks) > 2 and toks[0].kind == "ch" and len(toks[0].text) == 1 and toks[0].text.isalpha():
        if toks[1].kind == "cmd" and toks[1].text in ("mapsto", "longmapsto"):
            return toks[2:]
    return toks


def _applied_once(toks: list) -> tuple:
    r"""``\sigma(u + b)``, ``\sigma\left(z\right)``: (the function's token, the argument's tokens) where
    ``toks`` is one function, a command or a letter, applied to one parenthesised argument; else None."""
    toks = [t for t in toks if not (t.kind == "cmd" and t.text in ("left", "right"))]
    if len(toks) < 4 or toks[1].text != "(" or toks[-1].text != ")" or not (toks[0].kind in ("cmd", "ch")):
        return None
    depth = 0
    for k, t in enumerate(toks[1:], 1):
        depth += t.kind == "ch" and t.text == "("
        depth -= t.kind == "ch" and t.text == ")"
        if depth == 0 and k != len(toks) - 1:
            return None  # \sigma(a)(b), \sigma(a) + c: not one application
    body = toks[2:-1]
    if not body or any(t.kind == "ch" and t.text == "," for t in body):
        return None
    return toks[0], body


def _named_argument(src: _Source, groups: list, doc: "_Document") -> list:
    r"""``a^{(i)}=\sigma(w^t x^{(i)}+b)=\sigma(z^{(i)})`` ("corresponding a's and z's are defined through",
    statnotes' logistic regression): a name defined as a function applied, then that function applied to a
    name new here — the author names the argument, ``z^{(i)} = w^t x^{(i)} + b``: read as a second equation
    (a definition when z is fresh), never the claim σ(E) = σ(z) in a free z, from which ∂a/∂z was 0 and the
    true a(1 − a) refuted. Only where z appears nowhere before (not defined, used or in the chain's other
    links): of a quantity known before, f(E) = f(z) is a claim (cos(x) = cos(−x) holds, x = −x not)."""
    out = []
    for group in groups:
        out.append(group)
        if len(group) != 3 or _defined_name(group[0].toks) is None or group[0].implied:
            continue
        if any(link.relation != "=" or link.define or link.conditions for link in group[1:]):
            continue
        first, last = _applied_once(group[1].toks), _applied_once(group[2].toks)
        if first is None or last is None or (first[0].kind, first[0].text) != (last[0].kind, last[0].text):
            continue
        z = last[1]
        named = _names_in(z)
        try:  # z^{(i)} is the name z_i once read: fresh as the reader names it (z_i defined before is no new z)
            read = Reader(list(z), src, Notation(set(), set(), {}, set())).read()
        except DeriveError:
            continue
        if _defined_name(z) is None or not named or not WORD.fullmatch(read) or read in doc.names() | doc.used:
            continue
        if named & (_names_in(group[0].toks) | _names_in(first[1])):
            continue
        out[-1] = group[:2]
        shown = (group[2].at.pos, group[2].toks[-1].end)  # the display's "= \sigma(z)", where the author names z
        out.append([_Link(None, None, z, beside=True), _Link("=", group[2].at, first[1], shown=shown)])
    return out


def _after_and(src: _Source, body: list) -> tuple:
    r"""The tokens after a leading ``\textrm{and}`` (``\text{ and }``, ``\mbox{and}``), else ``body``:
    d2l's ``\frac{\partial J}{\partial L} = 1 \; \textrm{and} \; \frac{\partial J}{\partial s} = 1``
    states two derivatives — read as a condition, the second was the first's hypothesis, never checked.
    Only a derivative or ``f(x, …) = …`` after it is split off (:func:`_side_equations`); after "where",
    "and thus", "and", "with" a name's definition beside a definition too. ``(the tokens, the words)``."""
    if len(body) > 3 and body[0].kind == "cmd" and body[0].text in ("text", "textrm", "mbox") and body[1].text == "{":
        arg, j = _group(body, 1, src, "\\text")
        word = " ".join(src.text[arg[0].pos : arg[-1].end].split()).strip(" ,.:;").lower() if arg else ""
        if word in _DEFINING_WORDS:
            return body[j:], word
    return body, ""


def _derivative_lhs(lhs: list[Tok], src: _Source) -> bool:
    r"""``\frac{\partial f}{\partial y}``, ``\frac{df}{dx}`` (at a point: ``(x)``) as a whole left side: a
    derivative stated beside another (cs231n's ``\frac{\partial f}{\partial x} = y \hspace{0.5in}
    \frac{\partial f}{\partial y} = x``) is a claim of its own, never a hypothesis of the first."""
    if not lhs or lhs[0].kind != "cmd" or lhs[0].text not in ("frac", "dfrac", "tfrac"):
        return False
    num, j = _group(lhs, 1, src, "\\frac")
    _, j = _group(lhs, j, src, "\\frac")
    rest = lhs[j:]
    d = num[:1] if num[:1] and num[0].text != "mathrm" else num[2:3]
    return bool(d) and d[0].text in ("d", "partial") and (not rest or rest[0].text == "(" and rest[-1].text == ")")


def _is_fact(src, d) -> bool:
    from mathcheck.latex import probability

    return probability.is_fact(src.text[d.toks[0].pos : d.toks[-1].end]) if d.toks else False


def _fact(src, d, notation) -> str:
    from mathcheck.latex import probability

    return probability.fact(src, d, lambda toks: Reader(toks, src, notation).read())


def _premise(src: _Source, group: list, notation: Notation) -> tuple:
    """The premise of an implication, ``A = B \\Rightarrow …``, as a hypothesis: never checked (its
    author does not claim it), the next equation is checked given it."""
    if any(link.define or link.relation in ("≈",) for link in group[1:]):
        src.fail(group[1].at.pos, "an implication's premise is read as a relation, e.g. x > 0 \\Rightarrow x^2 > 0")
    steps = _steps(src, group, notation)
    text = steps[0].text + "".join(f" {s.relation} {s.text}" for s in steps[1:])
    return ((steps[0].line, text),)


def _misapplied(text: str, doc: _Document) -> bool:
    """Whether ``text`` applies a function the document defines to another number of arguments than
    its definition has (``f(x, y, z)`` after ``f(x) = c``)."""
    arity = {}
    for _, name, d, _ in doc.defs:
        head = d.split("=", 1)[0].strip()
        if head.endswith(")") and "(" in head:
            arity[name] = head.count(",") + 1
    for name, n in arity.items():
        for m in re.finditer(rf"(?<![A-Za-z0-9_]){name}\(", text):
            depth, count, k = 0, 1, m.end()
            while k < len(text) and not (text[k] == ")" and depth == 0):
                depth += text[k] in "([" and 1 or -(text[k] in ")]")
                count += text[k] == "," and depth == 0
                k += 1
            if count != n:
                return True
    return False


_APPLIED = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\((.+)\)")


def _shifted_definition(src: _Source, group: list, notation: Notation, doc: _Document, block_lets: set):
    r"""d2l's derivative rules from first principles, ``f(x+\epsilon) = g(x+\epsilon) + h(x+\epsilon)
    \approx …`` (then ``g(h(x+\epsilon))``, ``g(x+\epsilon)\cdot h(x+\epsilon)``): the first link says what
    f is, ``f(t) = g(t) + h(t)``, for the chain and after it — a definition, even of an f the prose
    defined before (a logarithm: read as that f the product rule was refuted). It is one only where the
    right side is the left side's argument put into unknown functions, with neither f nor that
    argument's names left over, and the chain goes on; anything else is None (a claim, as before:
    ``f(x+1) = (x+1)^2`` after ``f(x) = x^2`` is checked)."""
    from mathcheck.parser import ParseError, parse_definition

    if len(group) < 3 or group[1].relation != "=" or group[1].define or _lhs_shape(group[0].toks)[1] is not None:
        return None
    try:
        lhs = Reader(group[0].toks, src, notation).read()
        rhs = Reader(group[1].toks, src, notation).read()
    except DeriveError:
        return None
    m = _APPLIED.fullmatch(lhs)
    if m is None or WORD.fullmatch(m.group(2)) or "," in m.group(2) or "(" in m.group(2):
        return None
    name, arg = m.groups()
    names = set(WORD.findall(rhs.replace(f"({arg})", "(")))
    t = next(p for p in ("t", "u", "s", "t_1", "t_2") if p not in names | {name})
    body = rhs.replace(f"({arg})", f"({t})")
    unknown = (notation.unknown | doc.unknown) - doc.names() - {name}
    if (
        name in names
        or set(WORD.findall(arg)) & set(WORD.findall(body))
        or not any(re.search(rf"(?<![A-Za-z0-9_]){u}\(", body) for u in unknown)
        or any(name in WORD.findall(d.split("=", 1)[1]) for _, other, d, _ in doc.defs if other != name)
    ):
        return None
    text = f"{name}({t}) = {body}"
    try:
        parse_definition(text)
    except ParseError:
        return None
    line = src.line(group[0].toks[0].pos)
    what = f"line {line}" + (f" (redefines {name})" if name in doc.names() | block_lets else "")
    lets = doc.needed([body])
    doc.defs.append((line, name, text, False))
    doc.functions[name] = name
    notation.functions[name] = name
    notation.defined.add(name)
    lhs_src = " ".join(src.text[group[0].toks[0].pos : group[0].toks[-1].end].split())
    rhs_src = " ".join(src.text[group[1].at.pos : group[1].toks[-1].end].split())
    steps = (Line(line, None, lhs, "", lhs_src), Line(src.line(group[1].at.pos), "=", rhs, group[1].reason, rhs_src))
    found = _unknown_in(doc, notation, [text] + [d for _, d in lets])
    return Chain(
        what,
        src.path,
        line,
        {},
        (),
        steps,
        lets,
        definition=text,
        unknown=found,
        implicit=tuple(u for u in found if u in doc.implicit),
    )


def _equation(src, blk, n, group, label, notation, doc, block_lets, assumptions, given, chain_lets, readings):
    """The chain (or definition) of the ``n``-th equation of a block: a list of one, or two where a
    chain starts by defining a name (``L = -\\log p = \\log(1/p)``: L defined, then the rest checked)."""
    listed = _listed_quantities(group, doc)
    if listed:  # d2l's H(X), H(Y) \le H(X, Y) \le H(X) + H(Y): each of the list related to what follows
        first = [replace(group[0], toks=listed[0])] + group[1:]
        out = _equation(src, blk, n, first, label, notation, doc, block_lets, assumptions, given, chain_lets, readings)
        for toks in listed[1:]:
            alone = [replace(group[0], toks=toks), group[1]]
            out += _equation(
                src, blk, n, alone, label, notation, doc, block_lets, assumptions, given, chain_lets, readings
            )
        return out
    definition = _definition(src, group, notation, doc, block_lets)
    if definition is not None:
        return [definition]
    recurrence = _recurrence(src, group, notation)
    if recurrence:  # x_{t+1} = x_t - \eta\lambda x_t = (1 - \eta\lambda) x_t: the rest given the recurrence
        rest = [_Link(None, None, group[1].toks, "")] + group[2:]
        (line, text), used = recurrence
        given = tuple(given) + (((line, text),) if used else ())
        readings = list(readings) + [f"{text}: the recurrence that defines the sequence, not checked"]
        return _equation(src, blk, 1, rest, label, notation, doc, block_lets, assumptions, given, chain_lets, readings)
    shifted = _shifted_definition(src, group, notation, doc, block_lets)
    if (len(group) > 2 and not group[1].define and group[2].relation in ("=", "≈")) or shifted is not None:
        definition = shifted or _definition(src, group[:2], notation, doc, block_lets, computed=True)
        if definition is not None:
            rest = [_Link(None, None, group[1].toks, "")] + group[2:]
            try:
                return [definition] + _equation(
                    src, blk, 1, rest, None, notation, doc, block_lets, assumptions, given, chain_lets, readings
                )
            except LatexRefused:
                raise
            except DeriveError as exc:  # the definition stands; the rest alone is bad input
                k = _defines_first(src, rest, exc)
                if k:  # … or read after the likelihood it defines, under the prose's probabilities
                    chains, k = _from_readable(
                        src, blk, rest, k, notation, doc, block_lets, assumptions, given, chain_lets, readings
                    )
                    why = re.sub(r"^.*?:\d+:\d+: ", "", str(exc)).split(":")[0]
                    note = (
                        f"the links before the expression on line {src.line(rest[k].toks[0].pos)} are not read: {why}"
                    )
                    if chains:
                        return [definition] + [replace(c, notes=(*c.notes, note)) for c in chains]
                line = src.line(group[1].toks[0].pos)
                return [definition, Chain(f"line {line}", src.path, line, error=str(exc))]
    if doc.lead:
        src.fail(
            group[0].toks[0].pos if group[0].toks else blk.body,
            f"the prose before this display ends '{doc.lead}': the equation is a condition there, not a "
            f"claim, and is not checked (if it is a claim, reword the prose; else % mathcheck: skip)",
        )
    if any(link.define for link in group):
        at = next(link.at for link in group if link.define)
        src.fail(
            at.pos,
            "a definition sign (:=, \\equiv, \\triangleq) stands once, between a name and "
            "what it means, e.g. s := \\sigma(z)",
        )
    head = _unreadable_head(src, group, notation)
    if head is not None:  # d2l's I("0010") = -\log(p("0010")) = -\log(2^{-4}) = 4: the readable tail alone
        at, exc = head
        line = src.line(group[0].toks[0].pos if group[0].toks else blk.body)
        rest = [_Link(None, None, group[at + 1].toks, "")] + group[at + 2 :]
        doc.unread.update({name: line for name in _defined_in(src, blk)})  # as for a display not read
        return [Chain(f"line {line}", src.path, line, error=str(exc))] + _equation(
            src, blk, 1, rest, None, notation, doc, block_lets, assumptions, given, chain_lets, readings
        )
    tail = _unreadable_tail(src, group, notation)
    if tail is not None:  # d2l's e^x = \sum_{n=0}^\infty \frac{x^n}{n!} = 1 + x + \cdots: the readable head alone
        at, exc = tail
        series = _series_tail(src, group, at, notation)
        if series is not None:  # … unless the written terms are the series' first ones: \cdots its rest
            written, written_text, tail_text, note = series
            out = _equation(
                src,
                blk,
                n,
                [*group[:at], replace(group[at], toks=written)],
                label,
                notation,
                doc,
                block_lets,
                assumptions,
                given,
                chain_lets,
                readings,
            )
            return [_with_series_tail(c, tail_text, note, src, group[at], written_text) for c in out]
        line = src.line(group[at].at.pos if group[at].at is not None else blk.body)
        return _equation(
            src, blk, n, group[:at], label, notation, doc, block_lets, assumptions, given, chain_lets, readings
        ) + [Chain(f"line {line}", src.path, line, error=str(exc))]
    assumptions, given = _conditions(src, group, notation, dict(assumptions), list(given))
    notation.excluded.clear()
    steps = _steps(src, group, notation)
    _not_einstein(src, group)  # after the reading: a notation the reader refuses is named first
    if (defined := _law_claim_definition(src, group, steps, doc)) is not None:
        return [defined]  # D_KL(P‖Q) = E_{x \sim P}[…], H(Y \mid X) = -E_{(x, y) \sim P}[…]: H, KL defined
    raw = steps
    _not_by_quantity(src, group, steps, notation)
    steps, law = _information(src, group, steps, doc)
    if steps is _INTRODUCED:  # I(X, Y) = H(X, Y) - H(Y | X) - H(X | Y): I(X, Y)'s definition
        line = src.line(group[0].toks[0].pos)
        chain = Chain(
            f"line {line}",
            src.path,
            line,
            steps=raw,
            notes=(f"definition of {raw[0].text}: the mutual information, in entropies; never unfolded",),
            unread="the mutual information introduced by entropies (later chains read it as latex/information.py does)",
        )
        doc.unread["I"] = line
        return [chain]
    if any(GENERIC_SIZE in s.text for s in steps) or any(GENERIC_SIZE in g for _, g in given):
        assumptions.setdefault(GENERIC_SIZE, ("positive", "integer"))  # \sum_i: 1..N_sum, N_sum ≥ 1
    name = (label if n == 0 else None) or f"line {src.line(blk.start) if n == 0 else steps[0].line}"
    line = src.line(blk.start) if n == 0 else steps[0].line
    texts = [s.text for s in steps] + [g for _, g in given] + [t for _, t in chain_lets]
    words = {w for t in texts for w in WORD.findall(t)}
    words |= {"pi"} if "pi_" in words else set()  # \pi_j's family is the reader's pi_[j]; the prose's pi
    later = sorted(words & set(doc.after) - doc.names())
    later = later or _labelled_after(src, texts, doc)
    if later:
        # "Here … $y_i=\sigma_i(z)$ is the softmax output": read that prose first, then this display again
        # (chains()); a name the display's own definition writes (t of J(z) = -Σ t_i log σ_i(z)) is its
        # free value there, read before the prose's case (t_i = δ_ic) as every one
        first, last = src.line(blk.start), src.line(blk.end)
        own = {w for ln, _, t, _ in doc.defs if first <= ln <= last for w in WORD.findall(t.split("=", 1)[1])}
        doc.pending_after |= {w for w in later if w not in own and w in doc.after_blocks}
        later = [w for w in later if w not in own]
    if later:
        src.fail(
            group[0].toks[0].pos if group[0].toks else blk.body,
            f"{later[0]} is given its meaning in the prose after this display (line {doc.after[later[0]]}), "
            f"which is not read before it; state it with % let: before the display",
        )
    used, doc.used = set(doc.used), doc.used | {w for t in texts for w in WORD.findall(t)}
    lets = doc.needed(texts) + chain_lets
    _one_family_one_reading(src, group[0].toks[0].pos if group[0].toks else blk.body, texts, lets)
    if any(GENERIC_SIZE in t for _, t in lets):
        assumptions.setdefault(GENERIC_SIZE, ("positive", "integer"))
    excluded = set(notation.excluded).union(*(doc.excluded.get(t, ()) for _, t in lets))
    lets = _fresh_bound(lets, texts)  # after the look-up: doc.excluded is keyed by each definition as given
    lets = _sized_by_chain(lets, texts)  # ŷ_i's \sum_j over all of o, where the chain sums o over 1..q
    excluded = _free_range(src, group[0].toks[0].pos if group[0].toks else blk.body, excluded, texts, lets)
    if any(hi == GENERIC_SIZE for _, _, hi in excluded):
        assumptions.setdefault(GENERIC_SIZE, ("positive", "integer"))
    excluded |= _differentiated_in_range(texts + [t for _, t in lets])
    given = tuple(given) + _excluded_hypotheses(excluded, assumptions, line)
    _counts(texts + [t for _, t in lets], assumptions)
    unknown = _unknown_in(doc, notation, texts + [t for _, t in lets])
    for u in unknown:
        if u in doc.unread:
            src.fail(
                group[0].toks[0].pos if group[0].toks else blk.body,
                f"{u} is defined in a display mathcheck does not read "
                f"(line {doc.unread[u]}), so it is not an unknown function here; make that display readable, "
                f"or state {u} with % let:",
            )
    _not_unrelated(
        src,
        group,
        steps,
        doc,
        used | set(assumptions) | {w for t in texts[len(steps) :] for w in WORD.findall(t)} | _law_names(law),
        src.line(blk.start),
    )
    _not_redefined_unread(src, group, lets, doc, src.line(blk.start), blk)
    _not_opaque(src, group, texts + [t for _, t in lets], doc, blk, set(assumptions))
    _not_another_layer(src, group, texts, doc, blk)
    _not_related_by_prose(src, group, steps, doc, unknown)
    _not_difference_quotient(src, group, steps)
    # a function the chain also applies as typeset, g(x + \epsilon), is one: read from its derivative alone it
    # may be a constant the prose names (\frac{d}{dx} C = 0), applied it is not
    applied = {
        u for u in unknown for st in steps if re.search(rf"(?<![\\A-Za-z0-9_{{]){u}\s*(\(|\\left\s*\()", st.source)
    }
    implicit = tuple(u for u in unknown if u in doc.implicit and u not in applied)
    readings = list(readings) + [f"{u} is read as an unknown function, from its derivative" for u in implicit]
    return [
        Chain(
            name,
            src.path,
            line,
            assumptions,
            tuple(given),
            tuple(steps),
            lets,
            notes=tuple(readings),
            unknown=unknown,
            implicit=implicit,
            facts=((line, law),) if law else (),
            prose_facts=information.PROSE + law if law else "",
        )
    ]


def _labelled_after(src: _Source, texts, doc: _Document) -> list:
    r"""The bases the prose after the display defines with a sample's label, ``$\delta^{(i)}=a^{(i)}-y^{(i)}$``
    (statnotes' logistic.tex:70), that the display writes as the labelled name ``delta_i`` (no sum over i
    makes it an entry): read before that prose, δ_i was a free value."""
    words = {w for t in texts for w in WORD.findall(t)}
    return sorted(
        base
        for base, b in doc.after_blocks.items()
        if any(w.startswith(base + "_") and w not in doc.names() for w in words)
        and re.match(r"\s*\\?[A-Za-z]+\s*\^", src.text[b.body : b.body_end])
    )


def _read_errors(src: _Source, group: list, notation: Notation) -> list:
    """Each expression of ``group`` read alone (a copy of the notation each): None where it reads, else
    the reader's error."""
    import copy

    out = []
    for link in group:
        try:
            Reader(list(link.toks), src, copy.deepcopy(notation)).read()
            out.append(None)
        except LatexRefused:
            raise
        except DeriveError as e:
            out.append(e)
    return out


def _unreadable_head(src: _Source, group: list, notation: Notation) -> tuple | None:
    """``(k, error)`` where the chain's expressions up to k are bad input and those after k read, two or
    more: each link is its author's claim, so the readable tail is checked as a chain of its own (d2l's
    self-information, ``I(\\textrm{"0010"}) = - \\log (p(\\textrm{"0010"})) = - \\log(\\frac{1}{2^4}) = 4``:
    the code word is no expression, the last link is arithmetic). Only where the links left out carry no
    condition (a ``\\quad x \\ge 0`` there may be the whole chain's hypothesis), none is an
    arrow's or beside another equation, and the first expression is unreadable; None otherwise."""
    if len(group) < 3 or any(link.implied or link.beside or link.define for link in group):
        return None
    errors = _read_errors(src, group, notation)
    bad = [k for k, e in enumerate(errors) if e is not None]
    if not bad or bad[-1] > len(group) - 3 or errors[0] is None:
        return None  # all read, too short a tail, or an unreadable one in the middle: the chain's error
    last, exc = bad[-1], errors[bad[-1]]
    if _UNREAD_HEAD.search(str(errors[0])):
        return None  # a quantity defined in a display not read: _after_unread_head drops it, with a note
    if any(link.conditions for link in group[: last + 2]):
        return None
    return last, exc


def _unreadable_tail(src: _Source, group: list, notation: Notation) -> tuple | None:
    """``(k, error)`` where the chain's expressions from k on are bad input, k ≥ 2, and the last one is:
    the readable head is checked as a chain of its own (d2l's ``e^{x} = \\sum_{n = 0}^\\infty
    \\frac{x^{n}}{n!} = 1 + x + \\frac{x^2}{2} + \\cdots``: the series is read, the elided terms are
    not), as :func:`_unreadable_head` does the other way — only where the links left out carry no
    condition (one at the row's end may be the whole chain's hypothesis), none is an arrow's or beside
    another equation or a definition sign; None otherwise."""
    if len(group) < 3 or any(link.implied or link.beside or link.define for link in group):
        return None
    errors = _read_errors(src, group, notation)
    bad = [k for k, e in enumerate(errors) if e is not None]
    if not bad or bad[0] < 2 or errors[-1] is None:
        return None  # all read, too short a head, or the last one reads: the chain's error stays
    first, exc = bad[0], errors[bad[0]]
    if any(link.conditions for link in group[first:]):
        return None
    return first, exc


_ELIDED = ("cdots", "ldots", "dots")


def _series_tail(src: _Source, group: list, at: int, notation: Notation) -> tuple | None:
    r"""d2l's ``e^{x} = \sum_{n = 0}^\infty \frac{x^{n}}{n!} = 1 + x + \frac{x^2}{2} + \frac{x^3}{6} + \cdots``:
    the last expression is written terms then ``+ \cdots`` after a series to ∞ in the expression before it.
    Where the written terms are, one by one, the series' first terms (SymPy: each term equal to the body at
    n = a, a + 1, …), the ellipsis is the series' remaining terms, the same body from n = a + k on — the
    only rest that makes the written terms the series' own. ``(written tokens, their reading, the expression
    as read, note)``; None where any of it is otherwise (the ellipsis elsewhere, fewer than two terms, a term that is
    not the series' own — a reordering or skipped zero terms are the author's to say: left bad input)."""
    if at != len(group) - 1 or at < 1 or group[at].relation != "=" or group[at].conditions or group[at].reason:
        return None
    toks = list(group[at].toks)
    while toks and toks[-1].kind == "ch" and toks[-1].text in ".,;":
        toks.pop()
    if len(toks) < 3 or not (toks[-1].kind == "cmd" and toks[-1].text in _ELIDED):
        return None
    if not (toks[-2].kind == "ch" and toks[-2].text == "+"):
        return None
    written = toks[:-2]
    if any(t.kind == "cmd" and t.text in _ELIDED for t in written):
        return None
    try:
        series = Reader(list(group[at - 1].toks), src, copy.deepcopy(notation)).read()
        text = Reader(list(written), src, copy.deepcopy(notation)).read()
    except LatexRefused:
        raise
    except DeriveError:
        return None
    m = re.fullmatch(r"Sum\((.*)\)", series)
    parts = split_top(m.group(1), (",",)) if m else []
    if len(parts) != 2 or not re.fullmatch(r"\([A-Za-z]\w*, -?\d+, oo\)", parts[1][1]):
        return None
    body = parts[0][1]
    index, start, _ = parts[1][1][1:-1].split(", ")
    terms = _terms(text)
    if terms is None or len(terms) < 2 or not _first_terms(body, index, int(start), terms, text):
        return None
    rest = f"Sum({body}, ({index}, {int(start) + len(terms)}, oo))"
    note = (
        f"\\{toks[-1].text} read as the series' remaining terms, {rest}: the {len(terms)} terms written are its "
        f"first {len(terms)}, {index} = {start} to {int(start) + len(terms) - 1}"
    )
    return written, text, f"{text} + {rest}", note


def _terms(text: str) -> list[str] | None:
    """The top-level terms of ``text`` with their signs (``1 + u - (u^2)/2`` → ``1``, ``u``, ``-(u^2)/2``);
    None where a sign does not separate two terms (``2*-x``, ``1e-5``)."""
    out = []
    for sep, part in split_top(text, ("+", "-")):
        if not part:
            if sep is None and not out:
                out.append("")  # a leading minus: joined to the next term below
                continue
            return None
        if part[-1] in "*/^(" or re.search(r"(?<![A-Za-z0-9_])[0-9.]+e$", part):
            return None
        out.append(("-" if sep == "-" else "") + part)
    if out and out[0] == "":
        return None  # a leading minus on its own, never reached by the reader's output
    return out


def _first_terms(body: str, index: str, start: int, terms: list[str], whole: str) -> bool:
    """Whether ``terms`` are ``body`` at ``index`` = start, start + 1, … in order, and add up to ``whole``."""
    import sympy as sp

    from mathcheck.parser import ParseError, parse_many

    try:
        parsed = parse_many([body, whole, *terms])
    except (ParseError, ValueError, TypeError):
        return False
    general, total, written = parsed[0], parsed[1], parsed[2:]
    if sp.simplify(total - sp.Add(*written)) != 0:
        return False
    at = [s for s in general.free_symbols if s.name == index]
    if len(at) != 1:
        return False
    for k, term in enumerate(written):
        own = general.subs(at[0], start + k)
        if own.has(sp.nan, sp.zoo) or sp.simplify(sp.expand_func(own - term)) != 0:
            return False
    return True


def _with_series_tail(chain: Chain, text: str, note: str, src: _Source, link, written: str) -> Chain:
    """The chain whose last expression is the series' written terms, with the ellipsis read as its rest
    (:func:`_series_tail`): that expression's reading and its source as typeset, ``\\cdots`` included."""
    if not chain.steps or chain.error or chain.steps[-1].text != written:
        return chain
    last = chain.steps[-1]
    source = " ".join(src.text[(link.at or link.toks[0]).pos : link.toks[-1].end].split())
    steps = (*chain.steps[:-1], replace(last, text=text, source=source))
    return replace(chain, steps=steps, notes=(*chain.notes, note))


def _listed_quantities(group: list, doc: _Document) -> list | None:
    """``H(X), H(Y) \\le H(X, Y)`` (d2l :199): the tokens of each entropy the first side lists, where the
    document means H, I as information quantities (:func:`_information`) and the first relation is an
    inequality; None otherwise (``x, y \\ge 0`` is a condition, never split into claims)."""
    if len(group) < 2 or group[1].relation not in ("<=", "<", ">=", ">") or not group[0].toks:
        return None
    top = {id(t) for t in _top(group[0].toks)}
    parts = _split(group[0].toks, lambda t: t.kind == "ch" and t.text == "," and id(t) in top)
    if len(parts) < 2:
        return None
    for part in parts:
        if not (
            len(part) >= 4
            and part[0].kind == "ch"
            and part[0].text in ("H", "I")
            and (part[0].text in doc.unread or part[0].text in doc.opaque)
            and part[1].text == "("
            and part[-1].text == ")"
        ):
            return None
    return parts


def _law_names(law) -> set:
    """The law and its variables a chain in H, I declares (``p(x, y) law``): the chain's own, never new."""
    return set(WORD.findall(law)) - {"law"} if law else set()


def _information(src: _Source, group: list, steps, doc: _Document):
    r"""d2l's ``H(Y \mid X) = H(X, Y) - H(X)`` after H's defining displays (``-E_{x \sim P}[…]``) were
    not read: H, I of random variables as expectations under one joint law (latex/information.py),
    so the link is checked, not refused. Only where the document means them so: H or I defined in a
    display not read, or defined with another number of arguments (d2l's self-information I(X))."""
    templated, law = _law_templates(steps, doc)
    if law is not None:
        doc.law_names |= {m.group(1) for m in re.finditer(r"([a-z])\(", law)}
        return templated, law
    used = information.names(s.text for s in steps)
    arity = {name: d.split("=", 1)[0].count(",") + 1 for _, name, d, _ in doc.defs}
    meant = {n for n in used if n in doc.unread or n in doc.opaque or (n in arity and n == "I" and arity[n] == 1)}
    if not used or used - meant:
        return steps, None
    at = getattr(src, "log2_from", None)
    base2 = at is not None and group[0].toks and group[0].toks[0].pos >= at
    if (introduced := _introduced(src, group, steps, doc)) is not None:
        return introduced, None
    doc.info_used |= {
        (m.group(1), 2 if m.group(3) else 1) for s in steps for m in information.QUANTITY.finditer(s.text)
    }
    steps, law = information.rewrite(steps, bool(base2))
    if law is not None:
        doc.law_names |= {m.group(1) for m in re.finditer(r"([a-z])\(", law)}
    return steps, law


def _introduced(src: _Source, group: list, steps, doc: _Document):
    r"""d2l's ``I(X, Y) = H(X, Y) - H(Y \mid X) - H(X \mid Y)``: the first display of the mutual information
    I(X, Y) (I was the self-information I(X) before), by one ``=`` in entropies — its definition, shown and
    never unfolded; later chains in I(X, Y) read it as information.py does (the same quantity). A
    :class:`Chain` marker for the caller, else None."""
    m = information.QUANTITY.fullmatch(steps[0].text)
    if m is None or m.group(1) != "I" or m.group(3) != ", " or len(steps) != 2 or len(group) != 2:
        return None
    if ("I", 2) in doc.info_used or ("I", 2) in doc.laws_of or group[1].relation != "=":
        return None
    rest = information.names([steps[1].text])
    if rest != {"H"}:
        return None
    doc.info_used.add(("I", 2))
    return _INTRODUCED


_ROW_LHS = re.compile(
    r"(?:^|\\\\|&)\s*((?:\\[A-Za-z]+|[A-Za-z])(?:_\{[^{}=]*\}|_\\?[A-Za-z0-9]+)?)\s*"
    r"(?:\([^()=]*\))?\s*(?:=|:=|\\coloneqq|\\triangleq|\\equiv|\\stackrel|\\overset)"
)


def _defined_in(src: _Source, blk: Block) -> set:
    """The names a display defines on its rows' left sides (``H(X) = -\\sum_i …``, ``L_i = …``), as
    the reader would name them: for a display that is not read, so a later link in them is never
    refuted as if they were unknown (entropy H is one function, not any)."""
    names = set()
    for m in _ROW_LHS.finditer(src.text[blk.body : blk.body_end]):  # ^: the body's start
        try:
            toks = tokenize(src, blk.body + m.start(1), blk.body + m.end(1))
            name = Reader(toks, src, Notation(set(), set(), {}, set())).read()
        except (DeriveError, LatexRefused):
            continue
        if WORD.fullmatch(name):
            names.add(name)
    return names


def _unknown_in(doc: _Document, notation: Notation, texts) -> tuple:
    """The unknown functions (``f`` of ``f(x)``) that ``texts`` apply: read in this block, or in an
    earlier one whose definition a chain unfolds (``$s = f(z)$``, then ``s^2``)."""
    doc.unknown |= notation.unknown
    doc.implicit |= notation.implicit
    return tuple(sorted(u for u in doc.unknown if any(re.search(rf"(?<![A-Za-z0-9_]){u}\(", t) for t in texts)))


_CONDITION_WORDS = (
    "for",
    "if",
    "when",
    "whenever",
    "where",
    "provided",
    "assuming",
    "for all",
    "forall",
    "for any",
    "for every",
    "with",
    "and",
)


def _recurrence(src: _Source, group: list, notation: Notation) -> tuple:
    """``x_{t+1} = x_t - \\eta \\lambda x_t``, ``v_t = \\beta v_{t-1} + g_{t, t-1}``: a term of a sequence
    written by other terms of it is the sequence's recurrence — how its author defines it, never an
    identity to check (d2l's momentum was refuted so). ``((line, "x[t + 1] = …"), used)``: a hypothesis
    of the links after it where they use the term; a recurrence alone is bad input naming it; ``()``
    for anything else."""
    if group[1].relation != "=" or group[1].define:
        return ()
    try:  # a side that cannot be read is reported where the chain is read, as before
        lhs = Reader(group[0].toks, src, notation).read()
        term = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)\[([^\[\]]*)\]", lhs)
        if term is None:
            return ()
        rhs = Reader(group[1].toks, src, notation).read()
    except DeriveError:
        return ()
    others = re.findall(rf"(?<![A-Za-z0-9_]){term.group(1)}\[([^\[\]]*)\]", rhs)
    if not any(k != term.group(2) for k in others):  # a_i = a_i(1 - a_i) + a_i^2 is a claim about one a_i
        return ()
    if len(group) == 2:
        src.fail(
            group[0].toks[0].pos,
            f"{lhs} = {rhs}: a recurrence, which defines the terms of {term.group(1)}, not an identity "
            f"mathcheck checks (% mathcheck: skip, or write what it implies as a chain)",
        )
    rest = [Reader(link.toks, src, notation).read() for link in group[2:]]
    used = any(lhs.replace(" ", "") in t.replace(" ", "") for t in rest)  # else the rest needs no hypothesis
    return (src.line(group[1].at.pos), f"{lhs} = {rhs}"), used


_COUNT = re.compile(r", \(([A-Za-z][A-Za-z0-9_]*), ([01]), ([A-Za-z][A-Za-z0-9_]*)\)\)")


def _counts(texts, assumptions: dict) -> None:
    """``\\sum_{j=1}^{n_\\textrm{in}}``: a sum's upper bound that is a name is a count, an integer ≥ its
    lower bound 1 (≥ 0 from 0) — as N_sum of ``\\sum_j`` is. Drawn as any real, d2l's variance of a
    layer's output was refuted at n_in = −1 (a sum of −1 terms). A name the chain declares keeps that."""
    for text in texts:
        for _, lo, hi in _COUNT.findall(text):
            # \sum_{i=0}^{n} \sum_{j=1}^{i}: an outer sum's index is no name to assume anything of
            if hi not in assumptions and hi not in (GENERIC_SIZE, "oo") and f"({hi}, " not in text:  # oo: a series
                assumptions[hi] = ("positive", "integer") if lo == "1" else ("nonnegative", "integer")


_RANGE = re.compile(r", \(([A-Za-z][A-Za-z0-9_]*), ([^,()]+), ([^,()]+)\)\)")


def _free_range(src: _Source, pos: int, excluded: set, texts, lets) -> set:
    """The free indices of a Kronecker delta (:func:`_free_deltas`), each given the range of the sums
    the chain writes or unfolds — statnotes' σ_i(z) = e^{z_i}/Σ_{k=1}^n e^{z_k} makes i, j of
    ∂σ_i(z)/∂z_j = σ_i(z)(δ_ij − σ_j(z)) indices of 1..n, its author's classes; with no sum, the generic
    range 1..N_sum. Sums over several ranges leave the index's range unsaid: bad input."""
    if not any(hi == FREE_RANGE for _, _, hi in excluded):
        return excluded
    ranges = {m.group(2, 3) for t in list(texts) + [t for _, t in lets] for m in _RANGE.finditer(t)}
    if len(ranges) > 1:
        free = sorted(name for name, _, hi in excluded if hi == FREE_RANGE)
        src.fail(
            pos,
            f"\\delta of {', '.join(free)}: the chain's sums run over several ranges, so the range of "
            f"{free[0]} is not said; declare it, % assume: {free[0]} \\in \\mathbb{{Z}} and % given: 1 \\le {free[0]} \\le n",
        )
    lo, hi = ranges.pop() if ranges else ("1", GENERIC_SIZE)
    return {(name, lo, hi) if h == FREE_RANGE else (name, a, h) for name, a, h in excluded}


_BINDS = re.compile(r"(?<![A-Za-z0-9_])(?:Sum|Product)\(")


def _bound_spans(text: str, name: str) -> list:
    """The spans of ``text``'s ``Sum(…)``/``Product(…)`` that bind ``name``."""
    spans = []
    for m in _BINDS.finditer(text):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        if re.search(rf", \({re.escape(name)}, [^,()]+, [^,()]+\)\)$", text[m.start() : j]):
            spans.append((m.start(), j))
    return spans


def _free_in(text: str, name: str) -> bool:
    """Whether ``name`` occurs in ``text`` outside every sum or product that binds it."""
    spans = _bound_spans(text, name)
    word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
    return any(not any(a <= w.start() < b for a, b in spans) for w in word.finditer(text))


def _fresh_bound(lets: tuple, texts) -> tuple:
    r"""``lets`` with each summation index a definition binds renamed where the chain uses that letter
    freely — statnotes' ``J(z) = -\sum_{i=1}^n \delta_{ic}\log\sigma_i(z)``, then ``\frac{\partial J}{\partial
    z_i}``: J's i is bound, the chain's i is one class (as the author means; the same letter made the
    chain bad input, "a summation index"). A definition that also writes the letter outside the sums
    that bind it is left as it is."""
    words = {w for t in texts for w in WORD.findall(t)}
    out = []
    for line, text in lets:
        head, eq, body = text.partition("=")
        for name in sorted({m.group(1) for m in _RANGE.finditer(body)} & words - set(WORD.findall(head))):
            if _free_in(body, name) or not any(_free_in(t, name) for t in texts):
                continue
            taken = words | {w for _, t in lets for w in WORD.findall(t)}
            fresh = next(f"{name}{k}" for k in range(1, 100) if f"{name}{k}" not in taken)
            body = re.sub(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", fresh, body)
        out.append((line, head + eq + body))
    return tuple(out)


_ENTRY = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\[([A-Za-z0-9_, ]+)\]$")


def _summed_vectors(text: str) -> dict:
    """``{vector: {(lo, hi), …}}``: the ranges over which ``text``'s sums run through a vector's entries
    (``Sum(exp(o[k]), (k, 1, q))``: o over (1, q)) — the entry indexed by the sum's own index alone."""
    out: dict = {}
    for m in re.finditer(r"(?<![A-Za-z0-9_])Sum\(", text):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        whole = text[m.start() : j]
        r = re.search(r", \(([A-Za-z][A-Za-z0-9_]*), ([^,()]+), ([^,()]+)\)\)$", whole)
        if r is None:
            continue
        for v in re.findall(rf"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)\[{re.escape(r.group(1))}\]", whole):
            out.setdefault(v, set()).add((r.group(2), r.group(3)))
    return out


def _sized_by_chain(lets: tuple, texts) -> tuple:
    r"""``lets`` with a definition's sum over all of a vector's entries (no range written, so 1..N_sum) run over
    the range the chain writes for that vector's entries: d2l's ``\hat{y}_i = \frac{\exp(o_i)}{\sum_j \exp(o_j)}``
    unfolded in ``… \log \frac{\exp(o_j)}{\sum_{k=1}^q \exp(o_k)}`` — o has q entries there, and "all of them"
    is 1..q (left 1..N_sum, the author's unfolding was refuted at N_sum ≠ q). Only where every sum the chain and
    its other definitions write over the vector's entries runs over one range, from 1 to one name, and only for
    the entries of a family normalised by that sum (``y_hat(i) = …``): a plain sum ``S = \\sum_i x_i`` beside a
    partial ``\\sum_{i=1}^k x_i`` is not made that partial sum."""
    written: dict = {}
    for t in list(texts) + [t for _, t in lets]:
        for v, ranges in _summed_vectors(t).items():
            written.setdefault(v, set()).update(ranges)
    out = []
    for line, text in lets:
        head, eq, body = text.partition("=")
        generic = {v for v, ranges in _summed_vectors(body).items() if ranges == {("1", GENERIC_SIZE)}}
        sizes = {hi for v in generic for lo, hi in written.get(v, set()) - {("1", GENERIC_SIZE)} if lo == "1"}
        family = re.fullmatch(r"\s*[A-Za-z][A-Za-z0-9_]*\([A-Za-z]\)\s*", head)
        if family and len(sizes) == 1 and all(len(written[v] - {("1", GENERIC_SIZE)}) == 1 for v in generic):
            size = sizes.pop()
            if WORD.fullmatch(size) and set(_summed_vectors(body)) == generic and GENERIC_SIZE not in head:
                body = re.sub(rf"(?<![A-Za-z0-9_]){GENERIC_SIZE}(?![A-Za-z0-9_])", size, body)
        out.append((line, head + eq + body))
    return tuple(out)


def _differentiated_in_range(texts) -> set:
    """``{("q", "1", "K")}``: the derivative by an entry ``y_q`` of what holds a sum over the entries
    ``y_k``, k = 1..K — ``\\frac{\\partial}{\\partial y_q} \\frac12 \\sum_{k=1}^K (t_k - y_k)^2 = -(t_q - y_q)``:
    its author means y_q one of the y_k, q in 1..K (a hypothesis stated with the chain, as for
    ``\\sum_{k \\ne i}``); read without it, the link was refuted at q = K + 1, where the derivative is 0.
    Only where every other index of the entry is the same in both (``w_{hm}`` and ``w_{im}`` in a sum over
    i: h in its range) and the index is a free name, bound by no sum."""
    calls = [c for t in texts for c in _calls(t)]
    sums = [split_top(a, (",",)) for f, a in calls if f == "Sum"]
    bound = {lim[1:-1].split(",")[0].strip() for parts in sums for _, lim in parts[1:]}
    out = set()
    for f, a in calls:
        parts = [p for _, p in split_top(a, (",",))]
        m = _ENTRY.match(parts[1]) if f == "diff" and len(parts) >= 2 else None
        if m is None:
            continue
        base, at = m.group(1), [x.strip() for x in m.group(2).split(",")]
        for body, *limits in ([p for _, p in parts] for parts in sums):
            for lim in limits:
                k, lo, hi = ([x for _, x in split_top(lim[1:-1], (",",))] + ["", ""])[:3]
                if not (lim.startswith("(") and lo and hi):
                    continue
                for entry in re.findall(rf"(?<![A-Za-z0-9_]){re.escape(base)}\[([^\[\]]*)\]", body):
                    idx = [x.strip() for x in entry.split(",")]
                    if len(idx) != len(at) or k not in idx:
                        continue
                    p = idx.index(k)
                    same = all(x == y for j, (x, y) in enumerate(zip(idx, at)) if j != p)
                    if same and at[p] != k and at[p] not in bound and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", at[p]):
                        out.add((at[p], lo, hi))
    return out


def _excluded_hypotheses(excluded: set, assumptions: dict, line: int) -> tuple:
    """``\\sum_{k \\ne i}`` is read as the sum over 1..N_sum less the term at i, which is the sum its
    author means when i is one of 1..N_sum: i an integer in that range, a hypothesis stated with the
    chain (``given: 1 <= i <= N_sum``; ``excluded``: ``{("i", "1", "N_sum")}``)."""
    for name, _, _ in sorted(excluded):
        assumptions[name] = tuple(dict.fromkeys(assumptions.get(name, ()) + ("integer",)))
    return tuple((line, f"{lo} <= {name} <= {hi}") for name, lo, hi in sorted(excluded))


def _conditions(src: _Source, group, notation: Notation, assumptions: dict, given: list):
    """The conditions an equation is written under, as hypotheses of its links (issue 28, item 4):
    ``\\sqrt{x^2} = x, \\quad x \\ge 0`` and ``\\quad\\text{for } x > 0`` are checked given x ≥ 0, never
    refuted at x < 0. A reason is a condition when it is math alone after ``\\quad`` or ``,`` (``x \\ge
    0``, ``x \\in (0, 1)``, ``n \\in \\mathbb{N}``) or starts with for/if/when/where/``\\forall``; a reason
    in words (``\\text{(chain rule)}``, ``since $a = b$``) stays a reason. A condition that cannot be a
    hypothesis (``i \\ne j``) makes the equation bad input: checked without it, it could be refuted."""
    for link in group:
        for toks in link.conditions:
            for kind, what in _condition_items(src, toks, notation):
                if kind == "given":
                    given.append((src.line(toks[0].pos), what))
                else:
                    name, props = what
                    assumptions[name] = tuple(dict.fromkeys(assumptions.get(name, ()) + props))
    return assumptions, tuple(given)


def _condition_items(src: _Source, toks: list, notation: Notation) -> list:
    """``[("given", "x >= 0"), ("assume", ("n", ("nonnegative", "integer")))]`` for one reason's
    tokens, or ``[]`` when the reason is not a condition."""
    body, k = [], 0
    while k < len(toks):
        t = toks[k]
        if (
            t.kind == "cmd"
            and t.text in ("text", "textrm", "mbox", "textit", "mathrm")
            and k + 1 < len(toks)
            and toks[k + 1].text == "{"
        ):
            arg, k = _group(toks, k + 1, src, "\\text")
            word = " ".join(src.text[arg[0].pos : arg[-1].end].split()).strip(" ,.:;()").lower() if arg else ""
            if word and word not in _CONDITION_WORDS:
                return []  # words: a reason, not a condition ("for", "if", … lead one in)
            continue
        if (t.kind == "cmd" and (t.text == "forall" or t.text in _SPACING)) or (t.kind == "ch" and t.text in "&~"):
            pass
        else:
            body.append(t)
        k += 1
    while body and body[0].kind == "ch" and body[0].text in ",;":
        body = body[1:]
    while body and body[-1].kind == "ch" and body[-1].text in ",;.":
        body = body[:-1]
    if len(body) > 2 and body[0].text == "(" and body[-1].text == ")" and _wraps(body):
        body = body[1:-1]  # (x > 0)
    if not any(_relation_of(t) or (t.kind == "cmd" and t.text in ("in", "ne", "neq")) for t in _top(body)):
        return []
    parts = _split_brackets(body, lambda t: t.kind == "ch" and t.text in ",;")
    out, names = [], []
    for part in parts:
        if not part:
            continue
        top = _top(part)
        rel_at = [
            j
            for j, t in enumerate(part)
            if id(t) in {id(x) for x in top} and (_relation_of(t) or (t.kind == "cmd" and t.text == "in"))
        ]
        if not rel_at:
            if _word(part) is None:
                return []  # "x > 0, so that …": not a list of conditions
            names.append(part)  # x, y \in \mathbb{R}: names before the set
            continue
        out += _one_condition(src, names + [part], part, rel_at, notation)
        names = []
    return out


def _wraps(body) -> bool:
    """The first bracket closes at the last token: ``(x > 0)``, not ``(a)(b)``."""
    depth = 0
    for k, t in enumerate(body):
        depth += t.kind == "ch" and t.text in "([{"
        depth -= t.kind == "ch" and t.text in ")]}"
        if depth == 0 and k < len(body) - 1:
            return False
    return True


def _split_brackets(toks, sep):
    """:func:`_split`, with ``[ ]`` (an interval's brackets) nesting too."""
    return _split(toks, sep, "{([", "})]")


def _one_condition(src: _Source, named: list, part: list, rel_at: list, notation: Notation) -> list:
    """One condition: ``x \\in S``, ``a \\le x < b``, ``x \\neq 0``."""
    at = part[rel_at[0]]
    if at.kind == "cmd" and at.text == "in":
        spelled = "".join(t.text for t in part[rel_at[0] + 1 :] if t.text not in "{}")
        lhs_names = [p if p is not part else part[: rel_at[0]] for p in named]
        if spelled in _SET_PROPERTIES:
            out = []
            for p in lhs_names:
                name = Reader(p, src, notation).read()
                if not WORD.fullmatch(name):
                    src.fail(at.pos, f"the condition '{src.text[part[0].pos : part[-1].end]}': a set is read for names")
                out.append(("assume", (name, _SET_PROPERTIES[spelled])))
            return out
        interval = part[rel_at[0] + 1 :]
        if len(lhs_names) == 1 and len(interval) >= 5 and interval[0].text in "([" and interval[-1].text in ")]":
            inner = _split_brackets(interval[1:-1], lambda t: t.kind == "ch" and t.text == ",")
            if len(inner) == 2 and all(inner):
                x = Reader(lhs_names[0], src, notation).read()
                lo, hi = (Reader(b, src, notation).read() for b in inner)
                left = "<=" if interval[0].text == "[" else "<"
                right = "<=" if interval[-1].text == "]" else "<"
                return [("given", f"{lo} {left} {x}"), ("given", f"{x} {right} {hi}")]
        src.fail(
            at.pos,
            f"the condition '{src.text[part[0].pos : part[-1].end]}' is not read as a hypothesis (sets "
            f"read: \\mathbb{{R}}, \\mathbb{{N}}, \\mathbb{{Z}} and their signs, intervals (a, b), [a, b]); "
            f"checked without it the equation could be refuted — write it as % given: or % assume:",
        )
    if len(named) > 1:
        src.fail(at.pos, "a condition on several names is read for \\in: x, y \\in \\mathbb{R}")
    sides = _split(part, lambda t: _relation_of(t) is not None)
    rels = [_relation_of(part[j]) for j in rel_at]
    if "!=" in rels:
        if len(rels) == 1 and "".join(t.text for t in sides[1]) == "0":
            name = Reader(sides[0], src, notation).read()
            if WORD.fullmatch(name):
                return [("assume", (name, ("nonzero",)))]
        if len(rels) == 1:  # ∂a_j/∂z_i = -a_i a_j, i \neq j: two indices, a hypothesis i != j
            names = [Reader(side, src, notation).read() for side in sides]
            # only indices of entries (z_i of a vector a definition takes): x_i^2 = 1, i \ne j stays bad input
            if set(names) <= notation.free | notation.indices and names[0] != names[1]:
                return [("given", f"{names[0]} != {names[1]}")]
        src.fail(
            at.pos,
            f"the condition '{src.text[part[0].pos : part[-1].end]}' is not read as a hypothesis "
            f"(≠ is read as x \\neq 0 only); checked without it the equation could be refuted",
        )
    if any(r == "≈" for r in rels) or any(not side for side in sides):
        return []
    texts = [Reader(side, src, notation).read() for side in sides]
    return [("given", " ".join(x for pair in zip(texts, rels + [""]) for x in pair).strip())]


def _steps(src: _Source, links, notation) -> list:
    steps = _read_steps(src, links, notation)
    # d2l's \epsilon\left(g(x) + …\right) after g(x+\epsilon): ε is a value the chain adds to x, so
    # ε(…) is a product — read as a function it made the chain bad input ("used both as a function")
    texts = [s.text for s in steps]
    values = {
        u
        for u in notation.unknown - notation.defined
        if any(re.search(rf"(?<![A-Za-z0-9_]){u}\(", t) for t in texts)
        and any(re.search(rf"[A-Za-z0-9_]\([^()]*(?<![A-Za-z0-9_]){u}(?![A-Za-z0-9_(])[^()]*\)", t) for t in texts)
    }
    if not values:
        return steps
    notation.variables |= values
    return _read_steps(src, links, notation)


def _read_steps(src: _Source, links, notation) -> list:
    steps = []
    for link in links:
        while link.toks and (
            link.toks[-1].kind == "ch"
            and link.toks[-1].text in "&~"
            or link.toks[-1].kind == "cmd"
            and link.toks[-1].text in _SPACING
        ):
            link.toks.pop()  # the next row's alignment and indentation are not this link's
        while len(link.toks) > 1 and link.toks[0].kind == "cmd" and link.toks[0].text in ("quad", "qquad"):
            link.toks.pop(0)  # nor the space after an arrow (\rightarrow \hspace{0.3in} \frac{d\sigma}{dx})
        text = Reader(link.toks, src, notation).read()
        first = link.at or link.toks[0]
        span = link.shown or (first.pos, link.toks[-1].end)
        source = re.sub(r"\\label\{[^{}]*\}|\\nonumber\b|\\notag\b", "", src.text[span[0] : span[1]])
        source = " ".join(source.split())
        line = src.line(first.pos)
        steps.append(Line(line, link.relation, text, link.reason, source))
    return steps


def _top(toks):
    """The tokens of ``toks`` outside braces and parentheses."""
    out, depth = [], 0
    for t in toks:
        if t.kind == "ch" and t.text in "{(":
            depth += 1
        elif t.kind == "ch" and t.text in "})":
            depth -= 1
        elif depth == 0:
            out.append(t)
    return out


_LAYERED = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9]*)_layer_(\w+)")


def _not_another_layer(src: _Source, group: list, texts: list, doc: _Document, blk: Block) -> None:
    r"""Refuse a chain in a layer's array (:meth:`Reader.layer_entry`) whose letter the document defines at
    another layer's label only: backprop notes define ``\delta_i^{(l)} = \frac{\partial J}{\partial z_i^{(l)}}``
    for every layer l, then write ``\delta_j^{(l+1)}`` — read as a free array (the labels' shift is not read),
    a claim in it could be refuted where its author means the definition at l + 1."""
    defined = {m.group(1): (m.group(2), line) for line, name, _, _ in doc.defs if (m := _LAYERED.fullmatch(name))}
    defined |= {m.group(1): (m.group(2), line) for name, line in doc.opaque.items() if (m := _LAYERED.fullmatch(name))}
    for text in texts:
        for m in _LAYERED.finditer(text):
            base, label = m.group(1), m.group(2)
            if base in defined and defined[base][0] != label:
                src.fail(
                    group[0].toks[0].pos if group[0].toks else blk.body,
                    f"{base} is defined at layer ({_shown_label(defined[base][0])}) (line {defined[base][1]}); at "
                    f"layer ({_shown_label(label)}) it is that definition with the label shifted, which is not "
                    f"read; define it at this layer too, or % mathcheck: skip",
                )


def _shown_label(word: str) -> str:
    """``lplus1`` → ``l+1``, as typeset."""
    return word.replace("plus", "+").replace("minus", "-")


def _not_opaque(
    src: _Source, group: list, texts: list, doc: _Document, blk: Block, declared: set = frozenset()
) -> None:
    r"""Refuse a chain in a name defined by a right side that is not read (:func:`_unread_definition`):
    d2l's ``\hat{y} = \mathbf{w}^\top \mathbf{x} + b``, then a link in ŷ — read as a free value, it
    could be refuted where the author meant w·x + b."""
    from mathcheck.parser import reserved

    # l(y, y_hat) = … (a definition the grammar refused): y_hat is its parameter there, not ŷ
    head = re.fullmatch(r"([A-Za-z]\w*)\((\w+(?:, \w+)*)\)", texts[0]) if len(group) == 2 else None
    bound = set(head.group(2).split(", ")) if head and head.group(1) not in reserved() | _PARSER_FUNCTIONS else set()
    # a name the chain itself declares (% assume: c \in \mathbb{R}) is the chain's own quantity: Goodfellow's
    # log-sum-exp chain holds for every real c, so for c = max_i x_i of the prose too
    for name in sorted({w for t in texts for w in WORD.findall(t)} & set(doc.opaque) - bound - declared):
        src.fail(
            group[0].toks[0].pos if group[0].toks else blk.body,
            f"{name} is defined in a display mathcheck does not read (line {doc.opaque[name]}), so it is not "
            f"a free value here; make that display readable, or state {name} with % let:",
        )
