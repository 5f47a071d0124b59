"""Verdicts as plain JSON, and back, without running anything the text says.

The proof cache stores verdicts in files anyone with write access to the cache folder can edit, so
reading one must never execute code (``pickle`` would) and must never hand back something other
than what was written. This module is the whole format:

* ``None``, ``bool``, ``int``, ``str`` and ``float`` are JSON values (a float's ``repr`` is exact:
  ``0.1`` comes back as the same double, ``NaN`` and ``Infinity`` included); a tuple is an array;
* anything else is an object tagged by ``"$"``: ``{"$": "list"|"dict", "items": ...}``,
  ``{"$": "sympy", "srepr": "Add(Symbol('x'), Integer(1))"}``, a dataclass of ours
  ``{"$": "data", "type": "verdict.NumericVerdict", "fields": {...}}`` (only the classes of
  :data:`CLASSES`, fields checked against their annotations), and references to the claim
  being proved, ``{"$": "mutant", "name": ...}`` / ``{"$": "claim", "id": ...}``, re-attached
  from the registry's claim, never stored as code.

SymPy expressions are printed by :class:`Printer` (SymPy's ``srepr``, plus assumptions of undefined
functions) and rebuilt by :func:`read_sympy`, a reader of ours: it parses the text with ``ast`` and
allows only calls of SymPy classes (``issubclass(getattr(sympy, name), Basic)``, a few more
named in :data:`_EXTRA`), literal numbers, strings only where a name goes (``Symbol('x')``) and
literal keyword values (``integer=True``). No ``eval``, no ``sympify`` of text. Nodes are rebuilt
with evaluation off, so ``Eq(f(M), Matrix(...))`` stays an equation, and the rebuilt expression
must print back to the same text, else the value is rejected. Reading is bounded: no Float beyond
1e±1000, no integer over 4,096 bits, no ``AlgebraicNumber`` or ``CRootOf`` (their constructors
compute), at most 100,000 nodes an expression, 20 seconds a value (see the constants below).

:func:`dumps` refuses (returns None) a value that would not come back exactly — the caller then
computes it afresh instead of storing something else::

    >>> from mathcheck.lazy import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> text = dumps((sp.Eq(x, x, evaluate=False), 0.1))
    >>> print(text)
    [{"$":"sympy","srepr":"Equality(Symbol('x', positive=True), Symbol('x', positive=True))"},0.1]
    >>> loads(text)
    (Eq(x, x), 0.1)
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import math
import re
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: SymPy is imported where an expression is read
    from mathcheck.lazy import sympy as sp

MAX_DEPTH = 200  # nesting of JSON values and of SymPy expressions; deeper is rejected, never a crash

# What one entry may hold: reading it must take bounded time and memory, whoever wrote it. Far above
# what mathcheck writes (docs/cache.md gives the largest values of a full catalog run).
MAX_TEXT = 2_000_000  # characters of one expression's srepr
MAX_NODES = 100_000  # calls, names and literals in one expression
MAX_INT_BITS = 4_096  # an integer literal (~1233 digits): Integer, Rational, a Dummy's index
MAX_FLOAT_EXPONENT = 1_000  # |decimal exponent| of a Float: printing Float('1e3000000') takes minutes
MAX_FLOAT_DIGITS = 1_100  # characters of a Float's text (1e1000 is printed with all its digits)
MAX_PRECISION = 4_096  # bits of a Float's precision=
READ_SECONDS = 20.0  # one value read (a whole entry), every expression in it together
#: Classes whose construction computes (minimal polynomials, root isolation) however it is called.
_REFUSED = ("AlgebraicNumber", "ComplexRootOf", "CRootOf", "RootOf", "RootSum", "Poly", "PurePoly", "GroebnerBasis")
_FLOAT_TEXT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?")
_DEADLINE = [math.inf]  # time.monotonic() by which the value being read must be read


class Unserializable(ValueError):
    """A value this format cannot store exactly: it is not cached."""


class Malformed(ValueError):
    """A stored text that is not a faithful value of this format; ``str()`` says why, in one line."""


# --- the dataclasses a cache entry may hold --------------------------------------------------

#: Every dataclass of ``mathcheck.verdict`` (new ones included), and these.
CLASSES = ("symbolic.decide.Decision", "symbolic.steps.StepResult", "symbolic.steps.PartResult")


def _tag_of(cls) -> str | None:
    module = cls.__module__
    if module == "mathcheck.verdict":
        return f"verdict.{cls.__qualname__}"
    tag = f"{module.removeprefix('mathcheck.')}.{cls.__qualname__}"
    return tag if tag in CLASSES else None


def _class_of(tag: str):
    module, _, name = tag.rpartition(".")
    if not (module == "verdict" or tag in CLASSES) or not name.isidentifier():
        raise Malformed(f"type {tag!r} is not one mathcheck stores")
    cls = getattr(importlib.import_module(f"mathcheck.{module}"), name, None)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and _tag_of(cls) == tag):
        raise Malformed(f"type {tag!r} is not one mathcheck stores")
    return cls


_SIMPLE = {
    "str": (str,),
    "int": (int,),
    "float": (float, int),
    "bool": (bool,),
    "None": (type(None),),
    "tuple": (tuple,),
    "list": (list,),
    "dict": (dict,),
}


def _split_union(annotation: str) -> list[str]:
    """``"tuple[int, str] | None"`` → ``["tuple[int, str]", "None"]`` (only top-level ``|``)."""
    out, depth, start = [], 0, 0
    for n, ch in enumerate(annotation):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "|" and depth == 0:
            out.append(annotation[start:n].strip())
            start = n + 1
    return out + [annotation[start:].strip()]


@lru_cache(maxsize=None)
def _field_types(cls) -> dict:
    """Field name → the Python types its annotation allows, or None for no check (``Any``)."""
    import sys

    module = sys.modules[cls.__module__]
    out = {}
    for f in dataclasses.fields(cls):
        allowed = []
        for alt in _split_union(f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "Any")):
            name = alt.partition("[")[0].strip()
            if name in _SIMPLE:
                allowed += _SIMPLE[name]
            elif dataclasses.is_dataclass(getattr(module, name, None)):  # Decision | None, ...
                allowed.append(getattr(module, name))
            else:  # Any, a typing alias, ...: the field's own __post_init__ checks, if any
                allowed = None
                break
        out[f.name] = None if allowed is None else tuple(allowed)
    return out


# --- SymPy expressions as text ----------------------------------------------------------------

#: SymPy classes ``srepr`` names that are not attributes of the ``sympy`` package.
_EXTRA = {
    "ExprCondPair": "sympy.functions.elementary.piecewise",
    "Str": "sympy.core.symbol",
    "AppliedPredicate": "sympy.assumptions.assume",
}
#: Function classes of ours, rebuilt by name from the function that makes them.
_OUR_FUNCTIONS = {"PE": ("mathcheck.derivations.combinatorics", "sinusoidal_function")}
#: Classes whose first positional argument may be a string (a name or a decimal), and only it.
_NAMED = ("Symbol", "Dummy", "Wild", "Function", "Str", "Float")


@lru_cache(maxsize=1)
def _names() -> tuple[dict, dict]:
    """The classes and constants :func:`read_sympy` may name."""
    import sympy
    from sympy import Basic
    from sympy.matrices import MatrixBase

    classes, constants = {}, {}
    for name in dir(sympy):
        obj = getattr(sympy, name)
        if isinstance(obj, type) and issubclass(obj, (Basic, MatrixBase)):
            classes[name] = obj
        elif isinstance(obj, Basic):
            constants[name] = obj
    for name, module in _EXTRA.items():
        classes[name] = getattr(importlib.import_module(module), name)
    return classes, constants


@lru_cache(maxsize=1)
def _assumptions() -> frozenset:
    from sympy.core.assumptions import _assume_defined

    return frozenset(_assume_defined)


def _our_function(name: str):
    module, factory = _OUR_FUNCTIONS[name]
    return getattr(importlib.import_module(module), factory)()


@lru_cache(maxsize=1)
def _printer():
    from sympy.core.function import AppliedUndef
    from sympy.printing.repr import ReprPrinter

    class Printer(ReprPrinter):
        """``srepr``, keeping the assumptions of undefined functions (``srepr`` drops them)."""

        def _print_FunctionClass(self, expr):
            if issubclass(expr, AppliedUndef):
                kwargs = "".join(f", {k}={v!r}" for k, v in sorted(expr._kwargs.items()))
                return f"Function({expr.__name__!r}{kwargs})"
            return expr.__name__

        def _print_Add(self, expr, order=None):  # the stored order of the terms, not the printed one:
            return f"{type(expr).__name__}({', '.join(map(self._print, expr.args))})"  # rebuilt unevaluated

        _print_Mul = _print_Add

        def _print_Symbol(self, expr):  # equal symbols print alike, whichever variant SymPy's cache holds
            facts = dict(_canonical_assumptions(tuple(sorted(expr._assumptions_orig.items()))))
            if expr.is_Dummy:
                facts["dummy_index"] = expr.dummy_index
            kwargs = "".join(f", {k}={v!r}" for k, v in facts.items())
            return f"{type(expr).__name__}({expr.name!r}{kwargs})"

    return Printer()


@lru_cache(maxsize=None)
def _canonical_assumptions(given: tuple) -> tuple:
    """One spelling per set of equivalent assumptions: the facts SymPy deduces from ``given``, then,
    in sorted order, each dropped that the others still imply.

    ``Symbol('k', integer=True)`` and ``Symbol('k', integer=True, real=True)`` are equal, and SymPy's
    cache may hand back either inside an expression; printed as they were given, one stored text
    would mix them and not print back to itself.

        >>> _canonical_assumptions((("integer", True), ("real", True)))
        (('integer', True),)
        >>> _canonical_assumptions((("positive", True), ("real", True)))
        (('positive', True),)
    """
    from sympy import Symbol

    full = Symbol("_", **dict(given)).assumptions0
    keep = dict(sorted(full.items()))
    for fact in sorted(full):
        fewer = {k: v for k, v in keep.items() if k != fact}
        if Symbol("_", **fewer).assumptions0 == full:
            keep = fewer
    return tuple(keep.items())


def print_sympy(expr) -> str:
    return _printer().doprint(expr)


def _negated(node):
    """``-oo``, the one negative constant ``srepr`` prints as such."""
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Name)
        and node.operand.id == "oo"
    ):
        from sympy import S

        return S.NegativeInfinity
    return None


def _literal(node):
    """A keyword value or a number: True/False/None, an int or a float (a leading minus allowed)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _literal(node.operand)
        if type(value) not in (int, float):
            raise Malformed("a minus sign before something that is not a number")
        return -value
    if isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (bool, int, float)):
        if type(node.value) is int and node.value.bit_length() > MAX_INT_BITS:
            raise Malformed(f"an integer of {node.value.bit_length()} bits (more than {MAX_INT_BITS})")
        return node.value
    raise Malformed(f"{type(node).__name__} where a literal was expected")


def _build(node, depth: int = 0):
    if depth > MAX_DEPTH:
        raise Malformed("expression nested too deeply")
    classes, constants = _names()
    if isinstance(node, ast.Name):
        if node.id in constants:
            return constants[node.id]
        raise Malformed(f"name {node.id!r} is not a SymPy constant")
    if isinstance(node, ast.Attribute):
        import sympy

        if isinstance(node.value, ast.Name) and node.value.id == "Q":
            pred = getattr(sympy.Q, node.attr, None)
            if isinstance(pred, sympy.assumptions.assume.Predicate):
                return pred
        raise Malformed("attribute access other than Q.<predicate>")
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_build(e, depth + 1) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Call):
        return _call(node, depth)
    negated = _negated(node)
    return _literal(node) if negated is None else negated


def _within_budget() -> None:
    if time.monotonic() > _DEADLINE[0]:
        raise Malformed(f"it takes more than {READ_SECONDS:g} s to read")


def _float_text(text: str) -> None:
    """A Float's decimal text within the bounds (``Float('1e3000000')`` is refused unbuilt)."""
    if len(text) > MAX_FLOAT_DIGITS:
        raise Malformed(f"a Float of more than {MAX_FLOAT_DIGITS} characters")
    match = _FLOAT_TEXT.fullmatch(text)
    if match is None:
        raise Malformed("a Float whose text is not a decimal number")
    exponent = match.group(2)
    if exponent and len(exponent) > 8 or exponent and abs(int(exponent[1:])) > MAX_FLOAT_EXPONENT:
        raise Malformed(f"a Float beyond 1e±{MAX_FLOAT_EXPONENT}")


def _call(node: ast.Call, depth: int):
    classes, _ = _names()
    _within_budget()
    if isinstance(node.func, ast.Name):
        name = node.func.id
        if name in _REFUSED:
            raise Malformed(f"{name}(...), whose construction alone may take unbounded time")
        if name in classes:
            cls = classes[name]
        elif name in _OUR_FUNCTIONS:
            cls = _our_function(name)
        else:
            raise Malformed(f"a call of {name!r}, which is not a SymPy class")
    elif isinstance(node.func, ast.Call):  # Function('f')(x): the inner call makes the class
        cls = _call(node.func, depth + 1)
        from sympy.core.function import UndefinedFunction

        if not isinstance(cls, UndefinedFunction):
            raise Malformed("a call of something other than an undefined function")
        name = None
    else:
        raise Malformed("a call of something other than a SymPy class")
    args = []
    for n, a in enumerate(node.args):
        if isinstance(a, ast.Constant) and isinstance(a.value, str):
            # A string is a name or a decimal, never an expression: SymPy would parse (eval) one
            # handed to most constructors, so only these take a string, and only first.
            if n != 0 or name not in _NAMED:
                raise Malformed(f"a string argument to {name or 'a function'}")
            args.append(a.value)
        else:
            args.append(_build(a, depth + 1))
    kwargs = {}
    for kw in node.keywords:  # only what the printer writes: assumptions, a Dummy's index, a precision
        value = _literal(kw.value)
        if not (
            kw.arg in _assumptions()
            and type(value) is bool
            or kw.arg in ("dummy_index", "precision")
            and type(value) is int
        ):
            raise Malformed(f"keyword {kw.arg or '**'}={value!r} in an expression")
        kwargs[kw.arg] = value
    if name == "Float" and args and isinstance(args[0], str):
        _float_text(args[0])
    if name == "Float" and not 0 < kwargs.get("precision", 53) <= MAX_PRECISION:
        raise Malformed(f"a Float of precision {kwargs['precision']} (at most {MAX_PRECISION} bits)")
    if name == "Function" and (len(args) != 1 or not isinstance(args[0], str)):
        raise Malformed("Function takes one name")
    try:
        return _construct(cls, args, kwargs)
    except (Malformed, RecursionError):
        raise
    except Exception as exc:  # noqa: BLE001 - SymPy refuses the arguments: the entry is malformed, never trusted
        raise Malformed(f"{name or 'function'}(...) could not be built: {type(exc).__name__}") from None


#: Classes that take no ``evaluate`` keyword and whose constructor computes nothing costly; any
#: other class is rebuilt with ``evaluate=False`` or not at all (a hostile ``Poly(Pow(x + 1, 10**9))``).
_PLAIN = {
    "Symbol",
    "Dummy",
    "Wild",
    "Str",
    "Integer",
    "Rational",
    "Float",
    "Indexed",
    "IndexedBase",
    "Idx",
    "Tuple",
    "MatrixSymbol",
    "Sum",
    "Product",
    "Limit",
    "Integral",
    "Lambda",
    "ExprCondPair",
    "MutableDenseMatrix",
    "ImmutableDenseMatrix",
    "Function",
    "Transpose",
    "Adjoint",
    "Inverse",
    "Trace",
    "Determinant",
    "MatrixElement",
    "Identity",
    "ZeroMatrix",
    "OneMatrix",
}
_BUILT: dict = {}  # (class, args, keywords) → the object: chains of steps repeat their subexpressions


def _construct(cls, args, kwargs):
    """``cls(*args)`` as it was printed: unevaluated where the class allows it (``Eq(x, x)`` stays
    an equation, and a hostile ``Pow(10, 10**4000)`` is not computed)."""
    try:
        key = (cls, tuple((type(a), a) for a in args), tuple(sorted(kwargs.items())))
        hash(key)
    except TypeError:  # a Matrix's rows are lists
        key = None
    if key is not None and key in _BUILT:
        return _BUILT[key]
    if cls.__name__ in _PLAIN and _names()[0].get(cls.__name__) is cls:
        obj = cls(*args, **kwargs)
    else:
        try:
            obj = cls(*args, evaluate=False, **kwargs)
        except TypeError:
            raise Malformed(f"{cls.__name__} cannot be rebuilt unevaluated") from None
    if key is not None:
        if len(_BUILT) > 200_000:
            _BUILT.clear()
        _BUILT[key] = obj
    return obj


class _budget:
    """The time within which one value must be read (:data:`READ_SECONDS`), checked at every call
    the reader builds: the bounds above keep each call cheap, this keeps their number in check."""

    def __enter__(self):
        _DEADLINE[0] = time.monotonic() + READ_SECONDS

    def __exit__(self, *exc):
        _DEADLINE[0] = math.inf


def read_sympy(text: str) -> sp.Basic:
    """The SymPy object :func:`print_sympy` printed as ``text``; :class:`Malformed` if the text is
    anything else (it must print back to itself)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise Malformed(f"an expression that is not a string of at most {MAX_TEXT} characters")
    if _DEADLINE[0] == math.inf:  # read on its own, not as part of a value: its own budget
        with _budget():
            return read_sympy(text)
    try:
        tree = ast.parse(text, mode="eval")
        if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
            raise Malformed(f"an expression of more than {MAX_NODES} nodes")
        expr = _build(tree.body)
        again = print_sympy(expr)
        _within_budget()
    except (SyntaxError, ValueError, RecursionError, MemoryError, TypeError) as exc:
        if isinstance(exc, Malformed):
            raise
        raise Malformed(f"an expression that does not parse: {type(exc).__name__}") from None
    if again != text:
        raise Malformed("an expression that does not rebuild as written")
    return expr


# --- values -----------------------------------------------------------------------------------


def _is_sympy(value) -> bool:
    import sys

    if "sympy" not in sys.modules:
        return False
    from sympy import Basic
    from sympy.matrices import MatrixBase

    return isinstance(value, (Basic, MatrixBase)) or (isinstance(value, type) and issubclass(value, Basic))


def encode(value, depth: int = 0) -> None | bool | int | float | str | list | dict:
    """``value`` as JSON-ready data; :class:`Unserializable` if this format cannot hold it."""
    if depth > MAX_DEPTH:
        raise Unserializable("nested too deeply")
    if value is None or type(value) in (bool, int, str, float):
        return value
    if type(value) is tuple:
        return [encode(v, depth + 1) for v in value]
    if type(value) is list:
        return {"$": "list", "items": [encode(v, depth + 1) for v in value]}
    if type(value) is dict:
        return {"$": "dict", "items": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    from mathcheck.claim import Claim, Mutant

    if type(value) is Mutant:
        return {"$": "mutant", "name": value.name}
    if type(value) is Claim:
        return {"$": "claim", "id": value.id}
    if _is_sympy(value):
        return {"$": "sympy", "srepr": print_sympy(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        tag = _tag_of(type(value))
        if tag is None:
            raise Unserializable(f"{type(value).__qualname__} is not a class mathcheck stores")
        return {
            "$": "data",
            "type": tag,
            "fields": {f.name: encode(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)},
        }
    raise Unserializable(f"a {type(value).__qualname__} value")


def _keys(obj: dict, *expected: str) -> None:
    if set(obj) != {"$", *expected}:
        raise Malformed(f"a {obj.get('$')!r} object with keys {sorted(obj)}")


def decode(data, claim=None, depth: int = 0, _exprs: dict | None = None) -> Any:
    """The value :func:`encode` made ``data`` from; ``claim`` resolves mutant and claim references."""
    if _exprs is None and _DEADLINE[0] == math.inf:
        with _budget():
            return decode(data, claim, depth, {})
    if depth > MAX_DEPTH:
        raise Malformed("nested too deeply")
    exprs = {} if _exprs is None else _exprs
    if data is None or type(data) in (bool, int, str, float):
        return data
    if type(data) is list:
        return tuple(decode(v, claim, depth + 1, exprs) for v in data)
    if type(data) is not dict or not isinstance(data.get("$"), str):
        raise Malformed(f"a {type(data).__name__} where a value was expected")
    tag = data["$"]
    if tag in ("list", "dict"):
        _keys(data, "items")
        if type(data["items"]) is not list:
            raise Malformed(f"{tag} items that are not a list")
        items = [decode(v, claim, depth + 1, exprs) for v in data["items"]]
        if tag == "list":
            return items
        if not all(type(kv) is tuple and len(kv) == 2 for kv in items):
            raise Malformed("dict items that are not pairs")
        try:
            return dict(items)
        except TypeError:
            raise Malformed("a dict key that cannot be a key") from None
    if tag == "sympy":
        _keys(data, "srepr")
        text = data["srepr"]
        if text not in exprs:
            exprs[text] = read_sympy(text)
        return exprs[text]
    if tag == "mutant":
        _keys(data, "name")
        for m in getattr(claim, "mutants", ()):
            if m.name == data["name"]:
                return m
        raise Malformed(f"mutant {data['name']!r} is not one of this claim's")
    if tag == "claim":
        _keys(data, "id")
        if claim is None or data["id"] != claim.id:
            raise Malformed(f"claim {data['id']!r} is not the claim being read")
        return claim
    if tag == "data":
        _keys(data, "type", "fields")
        if type(data["type"]) is not str or type(data["fields"]) is not dict:
            raise Malformed("a data object without a type name and fields")
        cls = _class_of(data["type"])
        types = _field_types(cls)
        if set(data["fields"]) != set(types):
            raise Malformed(f"{data['type']} with fields {sorted(data['fields'])}, not {sorted(types)}")
        values = {}
        for name, raw in data["fields"].items():
            v = decode(raw, claim, depth + 1, exprs)
            allowed = types[name]
            if allowed is not None and (not isinstance(v, allowed) or type(v) is bool and bool not in allowed):
                raise Malformed(f"{data['type']}.{name} is a {type(v).__name__}")
            values[name] = v
        try:
            return cls(**values)
        except Exception as exc:  # noqa: BLE001 - __post_init__ rejects a value (e.g. an unknown status)
            raise Malformed(f"{data['type']} rejects its fields: {exc}") from None
    raise Malformed(f"unknown object type {tag!r}")


def same(a, b) -> bool:
    """Exactly the same value: same types all the way down, floats bit for bit (NaN equals NaN),
    SymPy objects equal and printed alike (an undefined function is rebuilt as an equal class)."""
    if _is_sympy(a):
        return _is_sympy(b) and a == b and print_sympy(a) == print_sympy(b)
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a == b and math.copysign(1, a) == math.copysign(1, b) or (math.isnan(a) and math.isnan(b))
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


def canonical(data) -> str:
    """The one text of JSON-ready ``data``: sorted keys, no spaces, ASCII."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def dumps(value, claim=None) -> str:
    """``value`` as canonical JSON text; :class:`Unserializable` (with the reason) unless it reads
    back exactly (see :func:`same`)."""
    try:
        text = canonical(encode(value))
        back = loads(text, claim)
    except Malformed as exc:
        raise Unserializable(f"does not read back: {exc}") from None
    except RecursionError:
        raise Unserializable("nested too deeply") from None
    if not same(back, value):
        raise Unserializable("reads back as a different value")
    return text


def loads(text: str, claim=None) -> Any:
    """The value of a :func:`dumps` text; :class:`Malformed` for anything else."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Malformed(f"not JSON ({type(exc).__name__})") from None
    return decode(data, claim)
