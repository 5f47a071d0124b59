"""A whitelist parser for the formulas a user types: Python's ``ast`` in, SymPy objects out.

User strings never reach ``eval``, ``exec``, ``sympify`` or ``parse_expr`` (they execute code).
:func:`parse` reads the text with :func:`ast.parse` (which only *parses*), walks the tree, and builds
each SymPy object itself from a node type on the whitelist; anything else is a :class:`ParseError`
whose ``str()`` is one line naming the offending token and what is allowed. The parser knows
nothing of tensors.

The grammar (``^`` is accepted for ``**``)::

    expr    := number | name | name[index, ...] | expr OP expr | -expr | +expr | (expr)
               | FUNC(expr) | binomial(expr, expr) | atan2(expr, expr) | log(expr, base)
               | diff(expr, name[, order]) | diff(expr, name[index])
               | logsumexp(expr, ...) | Max(expr, ...) | Min(expr, ...) | Max(expr, (name, a, b))
               | Sum(expr, (name, expr, expr)[, ...]) | Product(expr, (name, expr, expr)[, ...])
               | Sum(expr, (name, expr, oo))      (a series: summed to convergence on the numeric side)
               | Integral(expr, (name, lo, hi))   (lo, hi: expr, oo or -oo; a definite integral over real x)
               | Limit(expr, (name, a))           (the two-sided limit as real name → a, a finite)
               | Subs(expr, (name, a))            (expr with the real name put to a: Leibniz's dy/du at u)
               | DEF | DEF(expr, ...)                      (a ``let`` definition, expanded as a tree)
    OP      := + - * / ** ^      (also − · ×)
    FUNC    := exp log log2 log10 sqrt sin cos tan cot sec csc sinh cosh tanh asin acos atan asinh
               acosh atanh erf erfc gamma lgamma loggamma Abs abs sigmoid softplus relu factorial
               softsign step (max, min: Max, Min) — the function table, :mod:`mathcheck.numeric.functions`
    const   := pi π E e      (e is Euler's number unless declared a variable: e^x is exp(x))
    number  := 2 | 0.25 | 1e-10   (a decimal is the exact fraction written: 0.1 is 1/10)
    name    := letters, digits, _ ; Greek letters as written or by name (σ = sigma, β1 = beta1,
               λ = lambda); gamma is a symbol where it is not called

Definitions: ``sigmoid(x) = 1/(1 + exp(−x))``, ``softplus(x) = log(1 + exp(x))``,
``relu(x) = Max(x, 0)``, ``softsign(x) = x/(1 + |x|)``, ``logsumexp(a, b, …) = log(exp(a) + exp(b) + …)``, ``log(x, b) =
log(x)/log(b)``; ``lgamma`` is SymPy's ``loggamma`` (log Γ(x), real for x > 0). A user's
definitions (:class:`Definition`, from ``let mu = …`` or ``let f(t) = …``) are expanded in the
syntax tree before anything is built, and the size limits apply again after expansion. A
definition or assumption that would hide a constant or a function is refused in one line.

Symbols are real unless ``assume`` says otherwise; a name used as a summation index or bound is an
integer. Work is bounded before SymPy sees it: input length, nesting depth, size of numbers,
exponents, factorials and binomials, derivative order and numeric sum bounds (see ``LIMITS``).

    >>> e = parse("sigmoid(x) + log(exp(y))", {"y": ("positive",)})
    >>> sorted(str(s) for s in e.free_symbols)
    ['x', 'y']
"""

from __future__ import annotations

import ast
import copy
import math
import re
import warnings
from dataclasses import dataclass
from fractions import Fraction

from mathcheck.lazy import sympy as sp
from mathcheck.numeric import functions


class ParseError(ValueError):
    """Input outside the grammar or the limits; ``str()`` is one line for the CLI."""


@dataclass(frozen=True)
class Limits:
    length: int = 2000  # characters per formula
    depth: int = 60  # nesting of brackets
    tree_depth: int = 200  # nesting of the syntax tree (a long sum nests one level a term)
    digits: int = 60  # digits of a numeric literal
    exponent: int = 100  # |numeric exponent|
    number_bits: int = 20000  # size of a number SymPy would compute eagerly (base ** exponent)
    factorial: int = 300  # largest numeric argument of factorial / binomial
    order: int = 4  # largest derivative order
    sum_bound: int = 1000  # |numeric sum bound|
    sum_terms: int = 20000  # terms of nested sums together (a symbolic range counts as 6)
    nodes: int = 600  # syntax-tree nodes per formula
    expanded: int = 3000  # syntax-tree nodes per formula once its let definitions are expanded


LIMITS = Limits()

PROPERTIES = ("real", "positive", "nonnegative", "negative", "nonzero", "integer")
# called like functions, but with ranges or a variable: built here; prime(f(u), k) is f's k-th
# derivative at u
SYNTAX = ("diff", "Sum", "Product", "prime", "Integral", "Limit", "Subs")
INFINITY = "oo"  # ∞, read only as a limit of an Integral or the upper bound of a Sum (nowhere a value)
CONSTANTS = ("pi", "E")
EULER = "e"  # Euler's number unless declared a variable (assume:, or used as an index)
SYMBOL_OR_FUNCTION = ("gamma",)  # γ: the function when called, a symbol otherwise (LayerNorm's gain)
# probability's operators (docs/probability.md): unevaluated heads, decided by userexpr.probability
PROBABILITY = {
    "E": 1,
    "Var": 1,
    "Cov": 2,
    "KL": 2,
    "Normal": 2,
    "Bernoulli": 1,
    "Uniform": 2,
    "Exponential": 1,
    "Laplace": 2,
    "Pr": 2,  # P(X = 1 | Y = 0), rewritten by _events to Pr((X == 1,), (Y == 0,)): the event, its condition
}


def reserved() -> set:
    """Every name the grammar keeps for itself: the function table's names, the syntax, the constants."""
    return functions.names() | set(SYNTAX) | set(CONSTANTS)


def _allowed() -> str:
    unary = [f.name for f in functions.entries() if f.arity == (1,) and f.name not in ("log2", "log10")]
    return (
        "numbers, names, + - * / ** ^, parentheses, exp log "
        + " ".join(n for n in unary if n != "exp")
        + ", max min abs, log(x, b), log2, log10, binomial(n, k), atan2(y, x), logsumexp(a, b, ...)"
        + ", Max(a, b, ...), Min(a, b, ...), diff(f, x[, order]), diff(f, x[j]), Sum(f, (i, a, b))"
        + ", Product(f, (i, a, b)), Integral(f, (x, a, b)) (a, b may be oo, -oo), Limit(f, (h, a)), x[i], pi, E, e"
        + ", Greek letters (σ or sigma)"
    )


ALLOWED = _allowed()

# Greek letters as written → the names they are spelled with (σ and sigma are one symbol); Σ and Π
# are left out on purpose: write Sum(...) and Product(...)
GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "ϵ": "epsilon",
    "ζ": "zeta",
    "η": "eta",
    "θ": "theta",
    "ϑ": "theta",
    "ι": "iota",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "µ": "mu",
    "ν": "nu",
    "ξ": "xi",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "ς": "sigma",
    "τ": "tau",
    "υ": "upsilon",
    "φ": "phi",
    "ϕ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
    "Γ": "Gamma",
    "Δ": "Delta",
    "Θ": "Theta",
    "Λ": "Lambda",
    "Ξ": "Xi",
    "Φ": "Phi",
    "Ψ": "Psi",
    "Ω": "Omega",
}
SIGNS = {"−": "-", "·": "*", "×": "*", "⋅": "*"}
_LAMBDA = "_lambda"  # `lambda` is a Python keyword: rewritten before ast.parse, renamed back after

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,30}$")
_KEYWORD_LAMBDA = re.compile(r"(?<![A-Za-z0-9_])lambda(?![A-Za-z0-9_])")


def normalise(text: str) -> str:
    """Greek letters and the signs people type (−, ·, ×) as the grammar's ASCII: ``σ^2`` → ``sigma^2``.

    >>> normalise("μ + 2·σ − β1")
    'mu + 2*sigma - beta1'
    """
    if not isinstance(text, str) or text.isascii():
        return text
    return "".join(GREEK.get(c) or SIGNS.get(c) or c for c in text)


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}


def _token(node: ast.AST, text: str) -> str:
    """The source text of ``node``, shortened, for the one-line error."""
    seg = ast.get_source_segment(text, node) or type(node).__name__
    seg = " ".join(seg.split())
    return seg if len(seg) <= 40 else seg[:37] + "..."


def _reject(node: ast.AST, text: str, what: str | None = None, grammar: bool = False):
    """One line naming the offending token; the grammar follows only for a grammar error (an
    unknown construct), not for a limit or a value (``division by zero: 'x/0'``)."""
    tail = f"; allowed: {ALLOWED}" if grammar or what is None else ""
    raise ParseError(f"{what or 'not allowed'}: {_token(node, text)!r}{tail}")


def _prescan(text: str, limits: Limits, laws=frozenset()) -> str:
    if not isinstance(text, str):
        raise ParseError(f"a formula must be a string, not {type(text).__name__}")
    if len(text) > limits.length:
        raise ParseError(f"formula too long: {len(text)} characters, at most {limits.length}")
    if not text.strip():
        raise ParseError("empty formula")
    text = _events(normalise(text))
    bad = sorted({c for c in text if not (c.isascii() and (c.isprintable() or c in " \t"))})
    if bad:
        raise ParseError(f"character {bad[0]!r} not allowed; allowed: {ALLOWED}")
    if "|" in text and not laws and re.search(r"[A-Za-z]\w*\([^()|]*\|", text):
        raise ParseError(
            "p(z | x): a conditional is read for a declared law only; declare the joint law, e.g. "
            "'assume: p(x, z) law' (% assume: p(x, z) \\text{ law}), see docs/probability.md"
        )
    for c in _outside_events(text):  # the first character no formula needs (strings, statements, ...)
        if c in "'\"`;:\\@$!?{}&|~<>=%#" and not (c == "|" and laws):  # p(z | x) of a declared law
            raise ParseError(f"character {c!r} not allowed; allowed: {ALLOWED}")
    depth = worst = 0
    for c in text:
        depth += c in "(["
        depth -= c in ")]"
        worst = max(worst, depth)
    if worst > limits.depth:
        raise ParseError(f"nesting too deep: {worst} levels of brackets, at most {limits.depth}")
    if re.search(r"(?<![A-Za-z0-9_])" + _LAMBDA + r"(?![A-Za-z0-9_])", text):  # our stand-in for lambda
        raise ParseError(
            f"name {_LAMBDA!r} not allowed: a letter then letters, digits or single underscores (at most 31)"
        )
    return _KEYWORD_LAMBDA.sub(_LAMBDA, text.replace("^", "**"))


# P(X = 1), Pr(X <= a, Y > 0 | Z = 1): the probability of an event (docs/probability.md), rewritten
# before Python's ast reads it (P(X = a) would be a keyword argument) to the internal call
# Pr((X == 1, ...), (Z == 1,)); only a P or Pr whose argument holds a comparison is an event
_EVENT_HEAD = re.compile(r"(?<![A-Za-z0-9_.])(Pr|P)\s*\(")
_EVENT_REL = re.compile(r"<=|>=|==|!=|=|<|>")
_EVENT_USAGE = "an event is comparisons of random variables, e.g. P(X = 1), P(X <= a, Y > 0), P(X = 1 | Y = 0)"


def _top_split(text: str, seps: str) -> list[str]:
    """``text`` split at the characters of ``seps`` outside brackets."""
    out, depth, cur = [], 0, ""
    for c in text:
        depth += c in "(["
        depth -= c in ")]"
        if depth == 0 and c in seps:
            out.append(cur)
            cur = ""
        else:
            cur += c
    return out + [cur]


def _closing(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at ``start``, or None."""
    depth = 0
    for k in range(start, len(text)):
        depth += text[k] in "(["
        depth -= text[k] in ")]"
        if depth == 0:
            return k
    return None


def _relations(item: str) -> list[tuple[int, str]]:
    """The comparisons of ``item`` outside brackets: ``[(position, "<="), ...]``."""
    out, depth, k = [], 0, 0
    while k < len(item):
        c = item[k]
        depth += c in "(["
        depth -= c in ")]"
        m = _EVENT_REL.match(item, k) if depth == 0 else None
        if m:
            out.append((k, m.group(0)))
            k = m.end()
            continue
        k += 1
    return out


def _comparison(item: str, whole: str) -> str:
    """One comparison of an event as Python reads it: ``X = 1`` → ``(X == 1)``; ``0 < X <= 1`` kept."""
    rels = _relations(item)
    cuts = [0] + [k for at, r in rels for k in (at, at + len(r))] + [len(item)]
    parts = [item[cuts[n] : cuts[n + 1]] for n in range(0, len(cuts), 2)]
    if not rels or any(not p.strip() for p in parts):
        raise ParseError(f"{whole.strip()!r}: {_EVENT_USAGE}")
    if any(r == "!=" for _, r in rels):
        raise ParseError(f"{whole.strip()!r}: '!=' in an event is not read; {_EVENT_USAGE}")
    if any(_events(p) != p for p in parts):
        raise ParseError(f"{whole.strip()!r}: a probability inside an event is not read; {_EVENT_USAGE}")
    out = parts[0].strip()
    for (_, r), p in zip(rels, parts[1:]):
        out += f" {'==' if r in ('=', '==') else r} {p.strip()}"
    return f"({out})"


def _events(text: str) -> str:
    """Each ``P(…)``/``Pr(…)`` whose argument holds a comparison rewritten to ``Pr((A, …), (B, …))``,
    the comparisons before and after its one ``|``; anything else left as it is.

        >>> _events("P(X = 1) + Pr(X <= a | Y > 0)")
        'Pr(((X == 1),), ()) + Pr(((X <= a),), ((Y > 0),))'
    """
    out, i = "", 0
    for m in _EVENT_HEAD.finditer(text):
        if m.start() < i:
            continue
        end = _closing(text, m.end() - 1)
        inside = text[m.end() : end] if end is not None else text[m.end() :]
        if not any(_relations(x) for x in _top_split(inside, ",|")):
            continue  # P(x), a function or a law: not an event
        whole = text[m.start() : (end + 1 if end is not None else len(text))]
        if end is None:
            raise ParseError(f"{whole.strip()!r}: the probability's parenthesis is not closed")
        sides = _top_split(inside, "|")
        if len(sides) > 2:
            raise ParseError(f"{whole.strip()!r}: one | at most (the event | the condition)")
        tuples = []
        for side in sides:
            items = _top_split(side, ",")
            tuples.append("(" + "".join(_comparison(x, whole) + ", " for x in items).rstrip() + ")")
        if len(tuples) == 1:
            tuples.append("()")
        out += text[i : m.start()] + f"Pr({tuples[0]}, {tuples[1]})"
        i = end + 1
    return out + text[i:]


def _outside_events(text: str) -> str:
    """``text`` without the events :func:`_events` wrote (their comparisons are the grammar's)."""
    out, i = "", 0
    for m in re.finditer(r"(?<![A-Za-z0-9_.])Pr\(\(\(", text):
        if m.start() < i:
            continue
        end = _closing(text, m.end() - 3)
        out += text[i : m.start()] + "Pr()"
        i = (end if end is not None else len(text) - 1) + 1
    return out + text[i:]


def _tree(text: str, limits: Limits, laws=frozenset()) -> tuple[ast.expr, str]:
    src = _prescan(text, limits, laws).strip()
    try:
        with warnings.catch_warnings():  # "invalid decimal literal" and friends: we refuse anyway
            warnings.simplefilter("ignore")
            tree = ast.parse(src, mode="eval")
    except SyntaxError as exc:
        raise ParseError(
            f"not a formula: {exc.msg} at column {exc.offset or 0} of {text.strip()!r}; allowed: {ALLOWED}"
        ) from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise ParseError(f"not a formula ({type(exc).__name__}); allowed: {ALLOWED}") from None
    _size(tree.body, limits)
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Name) and node.id == _LAMBDA:
            node.id = "lambda"
    return tree.body, src


def _size(tree: ast.AST, limits: Limits, nodes: int | None = None) -> None:
    """Refuse a tree deeper or larger than the limits (``nodes``: the expanded limit, after
    definitions are expanded)."""
    nodes = limits.nodes if nodes is None else nodes
    count = 0
    stack = [(tree, 1)]
    while stack:  # iterative, so a deep tree cannot blow the Python stack before it is refused
        node, depth = stack.pop()
        count += 1
        if depth > limits.tree_depth:
            raise ParseError(f"formula nested too deeply (over {limits.tree_depth} levels)")
        if count > nodes:
            raise ParseError(f"formula too large (over {nodes} syntax nodes)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


# --- which names are what ----------------------------------------------------------------------


@dataclass
class _Roles:
    integer: set
    indexed: set
    plain: set
    called: set
    bound: set  # summation indices: Sum(f, (i, a, b)) binds i


def _roles(trees) -> _Roles:
    r = _Roles(set(), set(), set(), set(), set())
    heads = set()  # the Name nodes in function position: f in f(x)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                r.called.add(node.func.id)
                heads.add(id(node.func))
                if node.func.id in ("Sum", "Product"):
                    for lim in node.args[1:]:
                        if isinstance(lim, ast.Tuple) and lim.elts and isinstance(lim.elts[0], ast.Name):
                            r.bound.add(lim.elts[0].id)
                        if isinstance(lim, ast.Tuple):
                            for x in lim.elts:
                                r.integer |= {n.id for n in ast.walk(x) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.Subscript):
                if isinstance(node.value, ast.Name):
                    r.indexed.add(node.value.id)
                idx = node.slice
                r.integer |= {n.id for n in ast.walk(idx) if isinstance(n, ast.Name)}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and id(node) not in heads:
                r.plain.add(node.id)
    return r


# --- definitions: let mu = ..., let f(t) = ... ----------------------------------------------------


@dataclass(frozen=True)
class Definition:
    """``let name = body`` or ``let name(p, ...) = body``: expanded where it is used, as a tree
    (so ``let s = a + b`` makes ``2*s`` mean ``2*(a + b)``), before any name is given a meaning."""

    name: str
    params: tuple
    body: str


_LET = re.compile(r"^\s*([^\s(=]+)\s*(?:\(([^)]*)\))?\s*=(?!=)\s*(.*)$", re.S)


def parse_definition(text: str) -> Definition:
    """``"mu = Sum(x[i], (i, 1, n))/n"`` or ``"f(t) = t^2"`` (what follows ``let``) → a Definition.

    >>> parse_definition("σ(t, u) = t*u")
    Definition(name='sigma', params=('t', 'u'), body='t*u')
    """
    m = _LET.match(normalise(text) if isinstance(text, str) else "")
    if not m or not m.group(3).strip():
        raise ParseError(f"let {text.strip()[:40]!r}: write 'let mu = expression' or 'let f(t) = expression'")
    name, params, body = m.group(1), m.group(2), m.group(3).strip()
    params = () if params is None else tuple(p.strip() for p in params.split(","))
    for n in (name,) + params:
        if not _NAME.match(n) or "__" in n:
            raise ParseError(
                f"let {name}: name {n!r} not allowed: a letter then letters, digits or single underscores (at most 31)"
            )
    _shadows(name, "let", function_too=True)
    for n in params:
        _shadows(n, f"let {name}: the parameter")
    if len(set(params)) != len(params):
        raise ParseError(f"let {name}: a parameter is named twice in ({', '.join(params)})")
    return Definition(name, params, body)


def _shadows(name: str, what: str, function_too: bool = False) -> None:
    """One line when a user's name would hide a constant or a function of the grammar
    (``function_too``: γ as well, which is otherwise a symbol where it is not called)."""
    if name in CONSTANTS or name == EULER:
        what_is = "the constant π" if name == "pi" else "Euler's number e"
        raise ParseError(f"{what} {name}: {name} is {what_is}; choose another name")
    if name in reserved() and (function_too or name not in SYMBOL_OR_FUNCTION):
        raise ParseError(f"{what} {name}: {name} is a built-in function; choose another name")


def _located(tree, at):
    """Every node of an expanded definition placed at its use, so an error quotes the user's line."""
    for node in ast.walk(tree):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(at, attr):
                setattr(node, attr, getattr(at, attr))
    return tree


class DefinitionError(ParseError):
    """A bad ``let``; ``name`` is the definition at fault, so a reader can name its line."""

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.name = name


def _limits(node):
    """The ranges a call binds: ``[(k, tuple), ...]`` for ``Sum``/``Product`` (every range) and
    ``Max``/``Min`` over a range; ``[]`` for any other node."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return []
    args = node.args
    if node.func.id in ("Sum", "Product", "Integral", "Limit", "Subs") or (
        node.func.id in ("Max", "Min") and len(args) == 2 and isinstance(args[1], ast.Tuple)
    ):
        return [
            (k, t)
            for k, t in enumerate(args[1:], start=1)
            if isinstance(t, ast.Tuple) and t.elts and isinstance(t.elts[0], ast.Name)
        ]
    return []


def _scope(node, k):
    """The subtrees the index of range ``k`` of ``node`` is bound in: the summand, and the bounds of
    the ranges inside it (SymPy's order: ``Sum(f, (i, 1, j), (j, 1, n))`` sums over i first)."""
    return [node.args[0]] + [x for t in node.args[1:k] if isinstance(t, ast.Tuple) for x in t.elts[1:]]


def _rename_free(tree, old: str, new: str):
    """Every free ``old`` in ``tree`` (not one a range inside it binds again) renamed ``new``, in place."""
    if isinstance(tree, ast.Name):
        if tree.id == old:
            tree.id = new
        return
    shadowing = [k for k, t in _limits(tree) if t.elts[0].id == old]
    if shadowing:  # the bounds outside the innermost rebinding still see the outer old
        k = shadowing[0]
        inside = {id(x) for x in _scope(tree, k)}
        for t in tree.args[k:]:
            for x in t.elts[1:] if isinstance(t, ast.Tuple) else [t]:
                if id(x) not in inside:
                    _rename_free(x, old, new)
        return
    for child in ast.iter_child_nodes(tree):
        _rename_free(child, old, new)


def _free_names(tree) -> set:
    """The names ``tree`` uses and does not bind (a called function's name is not one):
    ``Sum(x[i]*c, (i, 1, n))`` → {x, c, n}."""
    if isinstance(tree, ast.Name):
        return {tree.id}
    lims = _limits(tree)
    bound_in: dict = {}  # id(subtree) -> the indices bound there
    for k, t in lims:
        for x in _scope(tree, k):
            bound_in.setdefault(id(x), set()).add(t.elts[0].id)
    binders = {id(t.elts[0]) for _, t in lims}
    out = set()
    for child in ast.iter_child_nodes(tree):
        if isinstance(tree, ast.Call) and child is tree.func:
            continue
        parts = child.elts if lims and isinstance(child, ast.Tuple) else [child]
        for x in parts:
            if id(x) not in binders:
                out |= _free_names(x) - bound_in.get(id(x), set())
    return out


class _Fresh:
    """Names no formula, definition or parameter of this parse uses: ``i`` → ``i_1``, ``i_2``, …"""

    def __init__(self, used: set):
        self.used = set(used)

    def __call__(self, base: str) -> str:
        k = 1
        while True:
            name = f"{base[:24]}_{k}".replace("__", "_")
            if name not in self.used and name not in reserved() and _NAME.match(name):
                self.used.add(name)
                return name
            k += 1


def _rebind(tree, fresh: _Fresh, clash, scope=frozenset()):
    """Rename, in place, each range index of ``tree`` that ``clash(name)`` says would capture a
    definition's free name, or that a range around it already binds: alpha-renaming, the meaning is
    kept and every index is bound once. ``Sum(c, (i, 1, n))`` with ``let c = i`` → ``Sum(c, (i_1, 1, n))``."""
    for k, t in _limits(tree):
        old = t.elts[0].id
        if clash(old) or old in scope:
            new = fresh(old)
            for x in _scope(tree, k):
                _rename_free(x, old, new)
            t.elts[0].id = new
    bound = {t.elts[0].id: k for k, t in _limits(tree)}
    for child in ast.iter_child_nodes(tree):
        inner = set(scope)
        for name, k in bound.items():
            if any(child is x for x in _scope(tree, k)):
                inner.add(name)
        _rebind(child, fresh, clash, frozenset(inner))
    return tree


class _Expand(ast.NodeTransformer):
    """Each use of a definition replaced by its body (a function's by its body with the arguments
    put for its parameters, all at once). The bodies were made hygienic first (:func:`expand`):
    their parameters and indices have fresh names, so nothing an argument or a use names is captured."""

    def __init__(self, defs: dict, limits: Limits = LIMITS, avoid=()):
        self.defs = defs  # name -> (params, tree, params as written): params fresh names in the tree
        self.limits, self.grown = limits, 0
        self.avoid = set(avoid)  # names a fresh index must not take (every formula's)

    def _grow(self, tree):
        """Count what an expansion adds, so a chain of doubling definitions is refused early."""
        self.grown += sum(1 for _ in ast.walk(tree))
        if self.grown > self.limits.expanded:
            raise ParseError(
                f"formula too large (over {self.limits.expanded} syntax nodes) once its definitions are expanded"
            )
        return tree

    def visit_Name(self, node):
        d = self.defs.get(node.id)
        if d is None:
            return node
        if d[0]:
            raise ParseError(f"{node.id} is defined with parameters ({', '.join(d[2])}); write {node.id}(...)")
        return _located(copy.deepcopy(self._grow(d[1])), node)

    def visit_Call(self, node):
        if not isinstance(node.func, ast.Name):
            return self.generic_visit(node)
        for _, t in _limits(node):
            if t.elts[0].id in self.defs:
                raise ParseError(
                    f"{t.elts[0].id} is defined by let, so it cannot also be the index of "
                    f"{node.func.id}(...); rename the index"
                )
        if (
            node.func.id == "diff"
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Name)
            and node.args[1].id in self.defs
        ):
            return self._leibniz(node)
        if node.func.id not in self.defs:
            return self.generic_visit(node)
        name = node.func.id
        params, body, shown = self.defs[name]
        if not params:
            raise ParseError(f"{name} is defined without parameters; write {name}, not {name}(...)")
        args = [self.visit(a) for a in node.args]
        if node.keywords or len(args) != len(params):
            raise ParseError(
                f"{name} takes {len(params)} argument{'s' * (len(params) != 1)} "
                f"({', '.join(shown)}), not {len(node.args) + len(node.keywords)}"
            )
        values = dict(zip(params, args))
        _no_capture_by_diff(name, body, values)
        given = {n for a in args for n in _uses(a)}  # a body's index an argument names: renamed
        body = _rebind(
            copy.deepcopy(body), _Fresh(given | _uses(body) | set(self.defs) | self.avoid), lambda n: n in given
        )
        self._grow(body)
        for a in args:
            self._grow(a)

        class Put(ast.NodeTransformer):
            def visit_Name(self, n):
                return copy.deepcopy(values[n.id]) if n.id in values else n

        return _located(Put().visit(copy.deepcopy(body)), node)

    def _leibniz(self, node):
        """``diff(y, u)`` with ``let u = g(x)`` (and ``let y = f(g(x))``): Leibniz's dy/du, y written in
        u — each occurrence of u's meaning in y's a fresh variable U — differentiated by U and taken at
        u's meaning: ``Subs(diff(f(U), U), (U, g(x)))``, f'(g(x)). So d2l's chain rule ``\\frac{dy}{dx} =
        \\frac{dy}{du}\\frac{du}{dx}`` is f'(g(x))·g'(x), never 0 = 0·0. Refused where y is not written in u
        (no occurrence of u's meaning in it, or x left over besides), or u has parameters."""
        u = node.args[1].id
        params, meaning, _ = self.defs[u]
        if params or len(node.args) != 2:
            raise ParseError(f"diff(..., {u}): {u} is defined by let; differentiate with respect to a variable")
        body = self.visit(copy.deepcopy(node.args[0]))
        fresh = _Fresh(self.avoid | _uses(body) | _uses(meaning) | set(self.defs))
        var = fresh(u)
        self.avoid.add(var)
        shape = ast.dump(meaning)

        class Put(ast.NodeTransformer):
            found = 0

            def visit(self, n):
                if isinstance(n, ast.expr) and ast.dump(n) == shape:
                    Put.found += 1
                    return ast.Name(id=var, ctx=ast.Load())
                return super().visit(n)

        written = Put().visit(copy.deepcopy(body))
        left = _free_names(meaning) & _free_names(written)
        if not Put.found or left or not _free_names(meaning):
            raise ParseError(
                f"diff(..., {u}): {u} is defined by let, and what is differentiated is not written in "
                f"{u}'s meaning alone ({', '.join(sorted(left)) or 'it does not occur'}); differentiate "
                f"with respect to a variable"
            )
        at = copy.deepcopy(meaning)
        derivative = ast.Call(ast.Name(id="diff", ctx=ast.Load()), [written, ast.Name(id=var, ctx=ast.Load())], [])
        point = ast.Tuple([ast.Name(id=var, ctx=ast.Load()), at], ast.Load())
        return _located(ast.Call(ast.Name(id="Subs", ctx=ast.Load()), [derivative, point], []), node)


def _no_capture_by_diff(name: str, body, values: dict) -> None:
    """``let f(t) = diff(t*y, y)`` then ``f(y)``: the argument's y would be differentiated (3y², not
    y²). A derivative's variable is not a name that can be renamed away, so this is refused."""
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "diff"
            and len(node.args) > 1
        ):
            var = node.args[1].value if isinstance(node.args[1], ast.Subscript) else node.args[1]
            if not isinstance(var, ast.Name):
                continue
            inside = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)} & set(values)
            for p in inside:
                if var.id in {n.id for n in ast.walk(values[p]) if isinstance(n, ast.Name)}:
                    raise ParseError(
                        f"{name}(...): the argument uses {var.id}, which the definition of "
                        f"{name} differentiates by; rename it (or write the derivative out)"
                    )


def _order(trees: dict, names) -> list:
    """The definitions in dependency order (each after those its body uses): a cycle is refused."""
    deps = {n: {m for m in _uses(trees[n]) if m in trees and m != n} for n in names}
    out, state = [], {}

    def visit(n, path):
        if state.get(n) == "done":
            return
        if state.get(n) == "active":
            cycle = path[path.index(n) :] + [n]
            raise DefinitionError(
                f"let {n}: the definitions {' → '.join(cycle)} refer to each other in a "
                f"cycle; a definition cannot depend on itself",
                n,
            )
        state[n] = "active"
        for m in sorted(deps[n]):
            visit(m, path + [n])
        state[n] = "done"
        out.append(n)

    for n in names:
        visit(n, [])
    return out


def _uses(tree) -> set:
    """Every name ``tree`` mentions, a called one too (``f`` in ``f(x)``)."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def expand(defs, limits: Limits = LIMITS, used=()) -> dict:
    """Each definition's body as a tree, hygienic and with the definitions it uses expanded.

    Order-independent: ``let a = b + 1`` and ``let b = 5``, in either order, make ``a`` mean
    ``5 + 1``; a cycle is refused. Hygienic: a definition's parameters and indices get fresh names
    (``used``: names the formulas use, never chosen), so ``let g = t`` then ``let f(t) = g + t``
    makes ``f(3)`` mean ``t + 3``, not ``6``. Returns ``name -> (parameters, tree, parameters as
    written)``, the parameters in the tree under their fresh names.

        >>> from mathcheck.parser import Definition
        >>> t = expand([Definition("a", (), "b + 1"), Definition("b", (), "5")])
        >>> ast.unparse(t["a"][1])
        '5 + 1'
    """
    defs = list(defs)
    trees: dict = {}
    for d in defs:
        if d.name in trees:
            raise DefinitionError(f"let {d.name}: {d.name} is already defined; choose another name", d.name)
        try:
            trees[d.name], _ = _tree(d.body, limits)
        except ParseError as exc:
            raise DefinitionError(f"let {d.name}: {exc}", d.name) from None
        if d.name in _uses(trees[d.name]) and d.name not in d.params:
            raise DefinitionError(f"let {d.name}: the definition uses {d.name} itself", d.name)
    fresh = _Fresh(
        set(used)
        | {n for t in trees.values() for n in _uses(t)}
        | {d.name for d in defs}
        | {p for d in defs for p in d.params}
    )
    params, shown = {}, {d.name: d.params for d in defs}
    free = {d.name: _free_names(trees[d.name]) - set(d.params) for d in defs}
    for d in defs:  # fresh parameters, and fresh indices where another body's free name would be caught
        ps = tuple(fresh(p) for p in d.params)
        for p, q in zip(d.params, ps):
            _rename_free(trees[d.name], p, q)
        others = set().union(*(free[o.name] for o in defs if o.name != d.name))
        _rebind(trees[d.name], fresh, lambda name: name in others)
        params[d.name] = ps
    out: dict = {}
    for name in _order(trees, [d.name for d in defs]):
        try:
            tree = _Expand(out, limits, fresh.used).visit(trees[name])
            _size(tree, limits, limits.expanded)
        except DefinitionError:
            raise
        except ParseError as exc:
            raise DefinitionError(f"let {name}: {exc}", name) from None
        out[name] = (params[name], tree, shown[name])
    return {d.name: out[d.name] for d in defs}


def expand_uses(tree, table: dict, limits: Limits = LIMITS, fresh: _Fresh | None = None) -> ast.AST:
    """A formula's tree with its uses of the definitions in ``table`` (from :func:`expand`) put in,
    its own indices renamed first where a definition's free name would be captured:
    ``Sum(c, (i, 1, n))`` with ``let c = i`` is ``Sum(i, (i_1, 1, n))``, i free."""
    for node in ast.walk(tree):  # an index named like a definition: which would it mean? refused
        for _, t in _limits(node):
            if t.elts[0].id in table:
                raise ParseError(
                    f"{t.elts[0].id} is defined by let, so it cannot also be the index of "
                    f"{node.func.id}(...); rename the index"
                )
    free = set().union(*(_free_names(t) - set(ps) for ps, t, _ in table.values())) if table else set()
    fresh = fresh or _Fresh(_uses(tree) | free | set(table))
    _rebind(tree, fresh, lambda name: name in free)
    tree = _Expand(table, limits, fresh.used).visit(tree)
    _size(tree, limits, limits.expanded)
    return _rebind(tree, fresh, lambda name: False)  # every index bound once: no range inside a like-named one


def _conflict(props) -> tuple[str, str] | None:
    """The first two properties that cannot hold together (``positive`` and ``negative``), or None."""
    props = tuple(dict.fromkeys(props))
    for i, p in enumerate(props):
        for q in props[i + 1 :]:
            try:
                sp.Dummy(real=True, **{p: True, q: True})
            except Exception:  # noqa: BLE001 - SymPy's InconsistentAssumptions
                return p, q
    return None


def check_consistent(name: str, props) -> None:
    """One line naming the two conflicting properties, before any work is done."""
    pair = _conflict(props)
    if pair:
        raise ParseError(f"inconsistent assumptions for {name}: {pair[0]} and {pair[1]} cannot both hold; keep one")


def _symbol_assumptions(name: str, props, integer: bool) -> dict:
    kw = {"real": True}
    for p in props:
        if p not in PROPERTIES:
            raise ParseError(f"unknown property {p!r} for {name}; allowed: {', '.join(PROPERTIES)}")
        kw[p] = True
    if integer:
        kw["integer"] = True
    check_consistent(name, [p for p in kw if p != "real"])
    return kw


class _Builder:
    def __init__(self, text: str, symbols: dict, bases: dict, limits: Limits, unknown=frozenset(), laws=frozenset()):
        self.text, self.symbols, self.bases, self.limits = text, symbols, bases, limits
        self.laws = dict(laws)  # declared laws (p(x, z), q(z)): p(z | x) is read (symbolic/laws.py)
        self.unknown = {name: None for name in unknown}  # name -> its arity, once called
        self.bound: dict[str, object] = {}
        self.terms = 1  # how many terms the enclosing sums make (numeric checks evaluate them all)

    def fail(self, node, what=None, grammar: bool = False):
        _reject(node, self.text, what, grammar)

    def build(self, node):
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            self.fail(node)
        return method(node)

    def _Constant(self, node):
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(node, "only real numbers are allowed as constants")
        if isinstance(v, float):
            if not math.isfinite(v):
                self.fail(node, "number out of range")
            f = Fraction(repr(v))  # the literal as written (0.1 is 1/10), exact
            if len(str(f.numerator)) > self.limits.digits or len(str(f.denominator)) > self.limits.digits:
                self.fail(node, f"number has more than {self.limits.digits} digits")
            return sp.Rational(f.numerator, f.denominator)
        if v.bit_length() > self.limits.digits * 3.33:
            self.fail(node, f"number has more than {self.limits.digits} digits")
        return sp.Integer(v)

    def _Name(self, node):
        name = node.id
        if name == "pi":
            return sp.pi
        if name == "E" or (name == EULER and name not in self.symbols and name not in self.bases):
            return sp.E
        if name in self.bound:
            return self.bound[name]
        if name in SYMBOL_OR_FUNCTION and name in self.symbols:
            return self.symbols[name]
        if name in reserved():
            self.fail(node, f"{name} is a function; call it")
        if name in self.bases:
            self.fail(node, f"{name} is indexed elsewhere; write {name}[i]")
        return self.symbols[name]

    def _UnaryOp(self, node):
        if isinstance(node.op, ast.USub):
            return -self.build(node.operand)
        if isinstance(node.op, ast.UAdd):
            return self.build(node.operand)
        self.fail(node, "operator not allowed", grammar=True)

    def _BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            self.fail(node, "operator not allowed", grammar=True)
        a, b = self.build(node.left), self.build(node.right)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            self._number_size(node, a, b)
            return a * b
        if op == "/":
            if b == 0:
                self.fail(node, "division by zero")
            return a / b
        return self._pow(node, a, b)

    def _number_size(self, node, *xs):
        bits = sum(math.log2(abs(int(x.p)) + 1) + math.log2(int(x.q) + 1) for x in xs if x.is_Rational)
        if bits > self.limits.number_bits:
            self.fail(node, "number too large")

    def _pow(self, node, base, exponent):
        if exponent.is_number:
            if not exponent.is_real or exponent.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                self.fail(node, "exponent must be a finite real number")
            if abs(float(exponent)) > self.limits.exponent:
                self.fail(node, f"exponent too large (|exponent| ≤ {self.limits.exponent})")
            if exponent.is_Rational and exponent.q > self.limits.exponent:
                self.fail(node, f"exponent's denominator too large (≤ {self.limits.exponent})")
            if base.is_Rational:
                size = (math.log2(abs(int(base.p)) + 1) + math.log2(int(base.q) + 1)) * abs(float(exponent))
                if size > self.limits.number_bits:
                    self.fail(node, "number too large")
            if base == 0 and exponent.is_negative:
                self.fail(node, "division by zero")
        return sp.Pow(base, exponent)

    def _Subscript(self, node):
        if not isinstance(node.value, ast.Name) or node.value.id not in self.bases:
            self.fail(node, "only a name may be indexed", grammar=True)
        idx = node.slice
        parts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        indices = [self.build(p) for p in parts]
        for i, p in zip(indices, parts):
            if i.is_integer is not True:
                self.fail(p, "an index must be an integer expression")
        return self.bases[node.value.id][tuple(indices) if len(indices) > 1 else indices[0]]

    def _Call(self, node):
        if not isinstance(node.func, ast.Name):
            self.fail(node.func, "only the listed functions may be called", grammar=True)
        name = node.func.id
        if node.keywords:
            self.fail(node.keywords[0].value, "keyword arguments are not allowed", grammar=True)
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, "starred arguments are not allowed", grammar=True)
        if name == "Pr" and len(node.args) == 2 and all(isinstance(a, ast.Tuple) for a in node.args):
            return self._event(node)
        if name in ("Sum", "Product"):
            return self._sum(node, sp.Sum if name == "Sum" else sp.Product)
        if name == "Integral":
            return self._integral(node)
        if name == "Limit":
            return self._limit(node)
        if name == "Subs":
            return self._subs(node)
        if name == "diff":
            return self._diff(node)
        if name == "prime":
            return self._prime(node)
        if name in self.unknown:
            return self._unknown(node, name)
        if name in self.laws:
            return self._law(node, name)
        if name.startswith("E_") and name[2:] in self.laws:
            return self._law_expectation(node, name[2:])
        if name == "Pr":  # not an event (those are read above)
            self.fail(node, _EVENT_USAGE)
        if name in PROBABILITY:  # E(X), Var(X), Cov(X, Y): kept whole for userexpr.probability
            if len(node.args) != PROBABILITY[name]:
                self.fail(
                    node,
                    f"{name} takes {PROBABILITY[name]} argument(s): "
                    f"{dict(E='E(X^2)', Var='Var(X)', Cov='Cov(X, Y)', KL='KL(Normal(m1, v1), Normal(m2, v2))').get(name, name + '(...)')}",
                )
            return sp.Function(name)(*[self.build(a) for a in node.args])
        f = functions.lookup(name)
        if f is None:
            self.fail(node.func, f"unknown function {name}", grammar=True)
        if f.name in ("Max", "Min") and len(node.args) == 2 and isinstance(node.args[1], ast.Tuple):
            return self._extreme_over(node, f.cls())
        if (len(node.args) not in f.arity) if f.arity is not functions.VARIADIC else not node.args:
            self.fail(node, f.message())
        xs = [self.build(a) for a in node.args]
        for x, a in zip(xs, node.args):
            if f.guard == "size" and x.is_number and (not x.is_real or abs(float(x)) > self.limits.factorial):
                self.fail(a, f"{f.name} argument too large (≤ {self.limits.factorial})")
            if f.guard == "exp":
                self._exp_argument(x, a)
        try:
            return f.build(*xs)
        except functions.Refused as exc:
            self.fail(node.args[exc.arg], str(exc))

    _RELATIONS = {ast.Eq: "Eq", ast.LtE: "Le", ast.Lt: "Lt", ast.GtE: "Ge", ast.Gt: "Gt"}

    def _event(self, node):
        """``Pr((A, …), (B, …))`` (what :func:`_events` wrote for ``P(A, … | B, …)``): the head ``Pr``
        over two tuples of relations, the event and its condition (docs/probability.md)."""
        sides = []
        for tup in node.args:
            rels = []
            for c in tup.elts:
                if not isinstance(c, ast.Compare):
                    self.fail(c, _EVENT_USAGE)
                terms = [self.build(c.left)] + [self.build(x) for x in c.comparators]
                for op, a, b in zip(c.ops, terms, terms[1:]):
                    kind = self._RELATIONS.get(type(op))
                    if kind is None:
                        self.fail(c, _EVENT_USAGE)
                    rel = getattr(sp, kind)(a, b)
                    if rel in (sp.true, sp.false):
                        self.fail(c, f"this comparison is {rel} whatever the random variables are; {_EVENT_USAGE}")
                    rels.append(rel)
            sides.append(sp.Tuple(*rels))
        return sp.Function("Pr")(*sides)

    def _extreme_over(self, node, kind):
        """``Max(x[i], (i, 1, 4))``: the largest of x[1..4], written out (the range must be numeric:
        a maximum over a symbolic n has no finite form)."""
        lim = node.args[1]
        if len(lim.elts) != 3 or not isinstance(lim.elts[0], ast.Name) or lim.elts[0].id in reserved():
            self.fail(lim, f"write {kind.__name__}(f, (i, a, b)) with i a name")
        a, b = self.build(lim.elts[1]), self.build(lim.elts[2])
        if not (a.is_Integer and b.is_Integer) or not 1 <= int(b) - int(a) + 1 <= 100:
            self.fail(
                lim,
                f"{kind.__name__} over a range needs whole-number bounds, 1 to 100 terms apart "
                f"(for a symbolic size write it for a fixed one, e.g. {kind.__name__}(x[i], (i, 1, 4)))",
            )
        var = lim.elts[0].id
        saved = dict(self.bound)
        try:
            terms = []
            for k in range(int(a), int(b) + 1):
                self.bound[var] = sp.Integer(k)
                terms.append(self.build(node.args[0]))
        finally:
            self.bound = saved
        return kind(*terms)

    def _exp_argument(self, x, node):
        if x.is_number and x.is_real and abs(float(x)) > 10**6:
            self.fail(node, "argument too large (|argument| ≤ 10^6)")

    def _sum(self, node, kind):
        word = kind.__name__
        if len(node.args) < 2 or not all(isinstance(a, ast.Tuple) for a in node.args[1:]):
            self.fail(node, f"write {word}(f, (i, a, b))")
        limits = []
        saved, saved_terms = dict(self.bound), self.terms
        try:
            for lim in node.args[1:]:
                if len(lim.elts) != 3 or not isinstance(lim.elts[0], ast.Name):
                    self.fail(lim, f"a {word.lower()}'s range is (i, a, b) with i a name")
                var = lim.elts[0].id
                if var in reserved() or var in self.bases:
                    self.fail(lim.elts[0], "a summation index must be a plain name")
                a = self.build(lim.elts[1])
                series = kind is sp.Sum and isinstance(lim.elts[2], ast.Name) and lim.elts[2].id == INFINITY
                if not series and any(isinstance(n, ast.Name) and n.id == INFINITY for n in lim.elts[1:]):
                    # oo was a free name here (an integer sampled: Σ x^n/n! to "oo = 4" refuted e^x)
                    self.fail(
                        lim, f"oo is read only as a Sum's upper bound, Sum(f, (n, a, oo)); not in a {word}'s range"
                    )
                b = sp.oo if series else self.build(lim.elts[2])  # Σ_{n=a}^∞: a series, its upper bound oo
                for x, el in ((a, lim.elts[1]),) + (() if series else ((b, lim.elts[2]),)):
                    if x.is_integer is not True:
                        self.fail(el, "a sum bound must be an integer expression")
                    if x.is_number and abs(int(x)) > self.limits.sum_bound:
                        self.fail(el, f"sum bound too large (|bound| ≤ {self.limits.sum_bound})")
                sym = self.symbols[var]
                self.bound[var] = sym
                limits.append((sym, a, b))
                span = int(b - a) + 1 if (b - a).is_number and b is not sp.oo else 6
                self.terms *= max(span, 1)
                if self.terms > self.limits.sum_terms:
                    self.fail(node, f"sums too large (over {self.limits.sum_terms} terms together)")
            f = self.build(node.args[0])
        finally:
            self.bound, self.terms = saved, saved_terms
        return kind(f, *limits)

    def _integral(self, node):
        """``Integral(f, (x, a, b))``: ∫_a^b f dx, x a real variable bound in f (never the free x of
        the rest of the link: SymPy's ``Integral`` keeps it bound), a and b expressions or ``oo``/``-oo``.
        One range per ``Integral`` (nest them for a double integral); no indefinite integral (an
        antiderivative is known only up to a constant, so no equation with one is true as printed).

            >>> parse("Integral(x^2, (x, 0, 1)) + x").free_symbols
            {x}
        """
        if (
            len(node.args) != 2
            or not isinstance(node.args[1], ast.Tuple)
            or len(node.args[1].elts) != 3
            or not isinstance(node.args[1].elts[0], ast.Name)
        ):
            self.fail(
                node,
                "write Integral(f, (x, a, b)): one variable, both limits (oo for ∞); "
                "an indefinite integral is read only with limits",
            )
        lim = node.args[1]
        var = lim.elts[0].id
        if var in reserved() or var in self.bases or var == INFINITY:
            self.fail(lim.elts[0], "the variable of integration must be a plain name")
        x = self.symbols[var]
        if x.is_integer:
            self.fail(lim.elts[0], f"{var} is an integer elsewhere (an index); integrate over another name")
        a, b = self._integral_limit(lim.elts[1]), self._integral_limit(lim.elts[2])
        saved = dict(self.bound)
        try:
            self.bound[var] = x
            f = self.build(node.args[0])
        finally:
            self.bound = saved
        return sp.Integral(f, (x, a, b))

    def _limit(self, node):
        """``Limit(f, (h, a))``: lim_{h→a} f, two-sided, h a real variable bound in f (as an integral's)
        and a finite point (no h in it). SymPy's ``Limit`` is kept unevaluated: the symbolic side
        settles it (:mod:`mathcheck.symbolic.limits`), the numeric side approaches it at each point.

            >>> parse("Limit(((x + h)^2 - x^2)/h, (h, 0))").free_symbols
            {x}
        """
        if (
            len(node.args) != 2
            or not isinstance(node.args[1], ast.Tuple)
            or len(node.args[1].elts) != 2
            or not isinstance(node.args[1].elts[0], ast.Name)
        ):
            self.fail(node, "write Limit(f, (h, a)): one variable and the finite point it tends to")
        var, at = node.args[1].elts
        if var.id in reserved() or var.id in self.bases or var.id == INFINITY:
            self.fail(var, "the variable of a limit must be a plain name")
        h = self.symbols[var.id]
        if h.is_integer:
            self.fail(var, f"{var.id} is an integer elsewhere (an index); take the limit over another name")
        if any(isinstance(n, ast.Name) and n.id in (INFINITY, var.id) for n in ast.walk(at)):
            self.fail(at, "a limit is read at a finite point that does not use its own variable")
        a = self.build(at)
        saved = dict(self.bound)
        try:
            self.bound[var.id] = h
            f = self.build(node.args[0])
        finally:
            self.bound = saved
        return sp.Limit(f, h, a, dir="+-")

    def _subs(self, node):
        """``Subs(f, (u, a))``: f with the real variable u (bound in f) put to a — what Leibniz's dy/du
        at u = g(x) is (:meth:`_Expand._leibniz`). Kept a SymPy ``Subs`` where f has an unknown
        function (f'(g(x)), checked for every function), else done.

            >>> parse("Subs(diff(sin(u), u), (u, x^2))")
            cos(x**2)
        """
        if (
            len(node.args) != 2
            or not isinstance(node.args[1], ast.Tuple)
            or len(node.args[1].elts) != 2
            or not isinstance(node.args[1].elts[0], ast.Name)
        ):
            self.fail(node, "write Subs(f, (u, a)): one variable and the value put for it")
        var, at = node.args[1].elts
        if var.id in reserved() or var.id in self.bases or var.id == INFINITY:
            self.fail(var, "the variable of Subs must be a plain name")
        u = self.symbols[var.id]
        if u.is_integer:
            self.fail(var, f"{var.id} is an integer elsewhere (an index); put another name")
        a = self.build(at)
        saved = dict(self.bound)
        try:
            self.bound[var.id] = u
            f = self.build(node.args[0])
        finally:
            self.bound = saved
        out = sp.Subs(f, u, a)
        return out if f.atoms(sp.core.function.AppliedUndef) else out.doit()

    def _integral_limit(self, el):
        """A limit: ``oo``, ``-oo`` (∞, −∞) or a real expression (the variable of integration is not
        bound in it)."""
        if isinstance(el, ast.Name) and el.id == INFINITY:
            return sp.oo
        if (
            isinstance(el, ast.UnaryOp)
            and isinstance(el.op, ast.USub)
            and isinstance(el.operand, ast.Name)
            and el.operand.id == INFINITY
        ):
            return -sp.oo
        if any(isinstance(n, ast.Name) and n.id == INFINITY for n in ast.walk(el)):
            self.fail(el, "oo is read only as a whole limit, oo or -oo")
        return self.build(el)

    def _law(self, node, name: str):
        """``p(x, z)``, ``p(z | x)`` of a declared law: the head ``Law:p`` applied to the tuple of its
        variables and the tuple of those it is conditioned on (:mod:`mathcheck.symbolic.laws`)."""
        shown = f"{name}(x, z) or {name}(z | x)"
        left, right, bar = [], [], False
        for a in node.args:
            if isinstance(a, ast.BinOp) and isinstance(a.op, ast.BitOr) and not bar:
                bar = True
                left.append(a.left)
                right.append(a.right)
            else:
                (right if bar else left).append(a)
        out = []
        for side in (left, right):
            for a in side:
                if not isinstance(a, ast.Name) or a.id in reserved() or a.id in self.bases:
                    self.fail(a, f"{name}(…) takes the names of its variables, e.g. {shown}")
                out.append(self.build(a))
        if not left:
            self.fail(node, f"{name}() needs a variable, e.g. {shown}")
        return sp.Function(f"Law:{name}")(sp.Tuple(*out[: len(left)]), sp.Tuple(*out[len(left) :]))

    def _law_expectation(self, node, name: str):
        r"""``E_q(f)``: the expectation of f under the declared law q, over q's variables;
        ``E_q(f, z)`` names them (LaTeX's ``\mathbb{E}_{z \sim q}``), and they must be q's."""
        over = self.laws.get(name, ())
        if len(node.args) not in (1, 1 + len(over)):
            self.fail(node, f"E_{name} takes one argument: E_{name}(log(p(x, z)) - log({name}(z)))")
        named = [a.id if isinstance(a, ast.Name) else None for a in node.args[1:]]
        if named and sorted(map(str, named)) != sorted(over):
            self.fail(node, f"E_{name}(…, {', '.join(map(str, named))}): {name} is a law of {', '.join(over)}")
        return sp.Function(f"E:{name}")(self.build(node.args[0]))

    def _unknown(self, node, name: str):
        """``f(x, y)``: an undefined function (real-valued), one arity throughout."""
        if not node.args:
            self.fail(node, f"{name}() needs an argument")
        if self.unknown[name] not in (None, len(node.args)):
            self.fail(
                node,
                f"{name} is called with {self.unknown[name]} and with {len(node.args)} arguments; "
                f"one function has one number of arguments",
            )
        self.unknown[name] = len(node.args)
        return sp.Function(name, real=True)(*[self.build(a) for a in node.args])

    def _prime(self, node):
        """``prime(f(u))``, ``prime(f(u), 2)``: f', f'' at u (f one argument: unknown or listed)."""
        if (
            len(node.args) not in (1, 2)
            or not isinstance(node.args[0], ast.Call)
            or not isinstance(node.args[0].func, ast.Name)
            or len(node.args[0].args) != 1
        ):
            self.fail(node, "write prime(f(u)) or prime(f(u), order) for f one function of one argument")
        order = 1
        if len(node.args) == 2:
            o = node.args[1]
            if not (isinstance(o, ast.Constant) and type(o.value) is int and 1 <= o.value <= self.limits.order):
                self.fail(o, f"the order of a derivative is a whole number 1..{self.limits.order}")
            order = o.value
        inner = node.args[0]
        if inner.func.id in ("diff", "Sum", "Product", "prime"):
            self.fail(inner, "prime applies to a function, f(u)")
        at = self.build(inner.args[0])
        xi = sp.Dummy("xi", real=True)
        if inner.func.id in self.unknown:
            if self.unknown[inner.func.id] not in (None, 1):
                self.fail(inner, f"{inner.func.id}' is read for a function of one argument")
            self.unknown[inner.func.id] = 1
            return sp.Subs(sp.Derivative(sp.Function(inner.func.id, real=True)(xi), (xi, order)), xi, at)
        g = functions.lookup(inner.func.id)
        if g is None or 1 not in g.arity or g.arity is functions.VARIADIC:
            self.fail(inner.func, f"prime: {inner.func.id} is not a function of one argument")
        return sp.diff(g.build(xi), xi, order).subs(xi, at)

    def _diff(self, node):
        if len(node.args) not in (2, 3):
            self.fail(node, "write diff(f, x) or diff(f, x, order)")
        var = node.args[1]
        indexed = isinstance(var, ast.Subscript) and isinstance(var.value, ast.Name) and var.value.id in self.bases
        if not indexed and (
            not isinstance(var, ast.Name)
            or var.id in self.bases
            or (var.id in reserved() and var.id not in self.symbols)
        ):
            self.fail(var, "differentiate with respect to a plain name or an entry x[j]")
        order = 1
        if len(node.args) == 3:
            o = node.args[2]
            if not (isinstance(o, ast.Constant) and type(o.value) is int and 1 <= o.value <= self.limits.order):
                self.fail(o, f"the order of a derivative is a whole number 1..{self.limits.order}")
            order = o.value
        x = self.build(var)
        if indexed and x.free_symbols & set(self.bound.values()):
            self.fail(var, "differentiate with respect to an entry whose index is not summed over")
        if x.is_integer:
            self.fail(var, "cannot differentiate with respect to an integer")
        return sp.Derivative(self.build(node.args[0]), (x, order))


def parse_many(
    texts,
    assume: dict | None = None,
    limits: Limits = LIMITS,
    defs=(),
    unused_ok: bool = False,
    unknown=(),
    laws=(),
) -> tuple:
    """Parse several formulas that share their symbols (a check's two sides).

    ``unknown``: names of *unknown functions* (the LaTeX reader's ``f(x)``, ``L(theta)``): called,
    they are SymPy undefined functions (real-valued), checked for every function by
    :mod:`mathcheck.userexpr.unknown`; never a name of the function table or a symbol as well.

    ``laws``: declared laws, ``{name: (variable, ...)}`` (``assume: p(x, z), q(z) laws``): ``p(x, z)``, ``p(z | x)``,
    ``E_q(f)`` are read as :mod:`mathcheck.symbolic.laws` says.

    ``defs``: :class:`Definition` values (``let``), expanded where the formulas use them;
    ``unused_ok``: an assumption on a name the formulas do not use is ignored (a chain's
    assumptions cover all its lines), not an error (a single check's ``--assume``)."""
    assume = {normalise(k): tuple(v) for k, v in (assume or {}).items()}
    laws = dict(laws)
    parsed = [_tree(t, limits, laws) for t in texts]
    if defs:
        used = {n for t, _ in parsed for n in _uses(t)}
        table = expand(defs, limits, used)
        fresh = _Fresh(used | {n for _, t, _ in table.values() for n in _uses(t)} | set(table))
        parsed = [(expand_uses(t, table, limits, fresh), src) for t, src in parsed]
    else:
        table = {}
    trees = [t for t, _ in parsed]
    roles = _roles(trees)
    for name in sorted(set(assume) & set(table)):
        raise ParseError(
            f"assume names {name!r}, which let defines; state a property of it as a "
            f"hypothesis instead, e.g. 'given: {name} > 0'"
        )
    for name in sorted(set(assume) & set(CONSTANTS)):
        _shadows(name, "assume:")
    unknown = frozenset(unknown)
    for name in sorted(unknown):
        if not _NAME.match(name) or "__" in name or name in reserved():
            raise ParseError(
                f"{name!r} cannot name an unknown function (a letter, then letters, digits or "
                f"single underscores, not a listed function)"
            )
        if name in roles.plain | roles.indexed | roles.integer:
            raise ParseError(
                f"{name} is used both as a function, {name}(...), and as a value; write {name}(x) "
                f"everywhere or rename one of them"
            )
    for name in sorted(roles.called - unknown):
        if name in set(GREEK.values()) and name not in reserved():
            hint = "; the logistic function is sigmoid(x)" if name == "sigma" else ""
            raise ParseError(
                f"{name} is a Greek letter, a symbol, not a function: define it with "
                f"'let {name}(t) = ...' or call a listed function{hint}"
            )
        if name in laws or name.startswith("E_") and name[2:] in laws:
            continue
        if name.startswith("E_") and _NAME.match(name[2:]) and name[2:] not in reserved():
            raise ParseError(
                f"{name}(…): an expectation under {name[2:]}, which is no declared law; declare it, e.g. "
                f"'assume: p(x, z), {name[2:]}(z) laws' (docs/probability.md)"
            )
        if name not in reserved() and name not in PROBABILITY:
            raise ParseError(f"unknown function {name!r}; allowed: {ALLOWED}")
    for name in sorted(roles.plain & roles.called & set(SYMBOL_OR_FUNCTION)):
        raise ParseError(
            f"{name} is used both as the function {name}(...) and as a symbol; rename the symbol (e.g. {name}1)"
        )
    names = (roles.plain | roles.indexed | roles.integer) - set(CONSTANTS)
    if EULER in names and EULER not in assume and EULER not in roles.indexed | roles.integer:
        names.discard(EULER)  # Euler's number: e^x is exp(x) unless e is declared a variable
    for name in sorted(names):
        if not _NAME.match(name) or "__" in name:
            raise ParseError(
                f"name {name!r} not allowed: a letter then letters, digits or single underscores (at most 31)"
            )
    for name in sorted(names & reserved() - (set(SYMBOL_OR_FUNCTION) - roles.called)):
        raise ParseError(f"{name!r} is a function name, not a variable: call it, {name}(...), or rename the variable")
    for name in sorted(set(assume) - names):
        if unused_ok:
            del assume[name]
            continue
        raise ParseError(f"--assume names {name!r}, which the formulas do not use")
    for name in sorted(set(assume) & roles.bound):
        # the index runs over its range; SymPy would read a property of it as a fact about every
        # term (Sum(Abs(i), (i, -3, 3)) with i positive becomes Sum(i, ...) = 0, issue 21)
        raise ParseError(
            f"--assume names {name!r}, a summation index: it takes every value of its "
            f"range, so it has no properties of its own; remove the assumption"
        )
    symbols, bases = {}, {}
    try:
        for name in sorted(names):
            props = assume.get(name, ())
            if name in roles.indexed:
                if name in roles.integer:
                    raise ParseError(f"{name!r} is used both as an indexed name and as an index")
                bases[name] = sp.IndexedBase(name, **_symbol_assumptions(name, props, False))
            else:
                symbols[name] = sp.Symbol(name, **_symbol_assumptions(name, props, name in roles.integer))
    except ParseError:
        raise
    except Exception as exc:  # noqa: BLE001 - SymPy's InconsistentAssumptions and friends
        raise ParseError(f"inconsistent assumptions: {' '.join(str(exc).split())}"[:200]) from None
    out = []
    for text, (tree, src) in zip(texts, parsed):
        try:
            out.append(_Builder(src, symbols, bases, limits, unknown, laws).build(tree))
        except ParseError:
            raise
        except RecursionError:
            raise ParseError("formula nested too deeply") from None
        except Exception as exc:  # noqa: BLE001 - whatever SymPy raises while building is bad input
            raise ParseError(f"cannot build {text.strip()[:40]!r}: {type(exc).__name__}: {exc}"[:300]) from None
    return tuple(out)


def parse(text: str, assume: dict | None = None, limits: Limits = LIMITS, defs=()) -> sp.Basic:
    """One formula as a SymPy expression (see the module docstring for the grammar)."""
    return parse_many([text], assume, limits, defs)[0]


def parse_assumption(spec: str) -> tuple[str, tuple[str, ...]]:
    """``"n=positive,integer"`` → ``("n", ("positive", "integer"))``."""
    name, sep, props = normalise(spec).partition("=")
    name = name.strip()
    if not sep or not _NAME.match(name) or "__" in name:
        raise ParseError(f"--assume {spec!r}: write NAME=PROP[,PROP], e.g. n=positive,integer")
    out = tuple(p.strip() for p in props.split(",") if p.strip())
    if not out:
        raise ParseError(f"--assume {spec!r}: no property; allowed: {', '.join(PROPERTIES)}")
    for p in out:
        if p not in PROPERTIES:
            raise ParseError(f"--assume {spec!r}: unknown property {p!r}; allowed: {', '.join(PROPERTIES)}")
    check_consistent(name, out)
    return name, out
