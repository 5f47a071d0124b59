"""THE function table: one entry per function of the grammar, read by the parser, the LaTeX reader
and every numeric backend.

An entry says how the parser builds the function in SymPy (``build``, from the SymPy arguments) and
— only where that introduces a SymPy function class the walkers must evaluate (``sympy``, the name
of the class) — its implementations for the three backends: ``math`` (Python floats,
:mod:`mathcheck.numeric.floats`), ``torch`` (tensors with autograd, :mod:`mathcheck.numeric.evaluate`)
and ``mpmath`` (:mod:`mathcheck.numeric.precise`). A function SymPy already writes with other
functions (``sigmoid`` is ``1/(1 + exp(−x))``) needs only ``build``: every backend evaluates it
through what it is built of. Adding a grammar function is one entry here; the real example is
``softsign``:

    Function("softsign", build=lambda x: x / (1 + sp.Abs(x)), doc="x/(1 + |x|)"),

    >>> from mathcheck.parser import parse
    >>> parse("softsign(x)")
    x/(Abs(x) + 1)
    >>> lookup("abs").name, lookup("softsign").arity
    ('Abs', (1,))

Nothing here imports SymPy or torch at import time (``mathcheck --help`` stays light): builders use
the lazy ``sp``, implementations import torch and mpmath when first called.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from mathcheck.lazy import sympy as sp

VARIADIC = None  # arity of a function of one or more arguments


@dataclass(frozen=True)
class Function:
    """One grammar function. ``arity``: the argument counts allowed (``VARIADIC``: one or more);
    ``guard``: the parser's bound on a numeric argument (``"exp"``: |x| ≤ 10^6, ``"size"``: at most
    ``LIMITS.factorial``); ``usage``: the message for a wrong argument count; ``latex``: the LaTeX
    control words read as this function (``\\ln``, ``\\arcsin``); ``grammar=False``: evaluated by
    the walkers but not a name users may call (SymPy produces it, e.g. ``sign``)."""

    name: str
    build: Callable | None = None
    doc: str = ""
    arity: tuple | None = (1,)
    sympy: str | type | None = None
    math: Callable | None = None
    torch: Callable | None = None
    mpmath: Callable | None = None
    guard: str | None = None
    aliases: tuple = ()
    latex: tuple = ()
    usage: str | None = None
    grammar: bool = True

    def cls(self) -> type | None:
        """The SymPy class the walkers evaluate for this entry (None: built of other functions);
        ``sympy`` names it in SymPy's namespace, or is the class itself (a function SymPy lacks)."""
        if self.sympy is None or isinstance(self.sympy, type):
            return self.sympy
        return getattr(sp, self.sympy)

    def message(self) -> str:
        if self.usage:
            return self.usage
        if self.arity is VARIADIC:
            return f"{self.name} takes one or more arguments, e.g. {self.name}(a, b)"
        return f"{self.name} takes one argument"


class Refused(ValueError):
    """A builder's refusal of its arguments; ``arg`` is the index of the argument at fault."""

    def __init__(self, what: str, arg: int = -1):
        super().__init__(what)
        self.arg = arg


# --- implementations the walkers need beyond a library call ------------------------------------------


def _t(name):
    """``torch.<name>``, imported when first called (the float backend never imports torch)."""

    def call(*xs):
        import torch

        return getattr(torch, name)(*xs)

    call.__name__ = name
    return call


def _mp(name):
    def call(*xs):
        import mpmath

        return getattr(mpmath, name)(*xs)

    call.__name__ = name
    return call


def _normal_pdf(x, mu, var):
    """N(x | μ, v) = exp(−(x − μ)²/(2v))/√(2πv); a variance that is a number must be positive."""
    if var.is_number and not var.is_positive:
        raise Refused("a normal density's variance must be positive", 2)
    return sp.exp(-((x - mu) ** 2) / (2 * var)) / sp.sqrt(2 * sp.pi * var)


def _gamma(x: float) -> float:
    if x <= 0 and x == int(x):
        raise ValueError("pole of gamma")
    return math.gamma(x)


def _loggamma(x: float) -> float:
    if x <= 0:  # SymPy's loggamma is complex there; math.lgamma would give log|Γ| instead
        raise ValueError("loggamma of a nonpositive number")
    return math.lgamma(x)


def _factorial(n: float) -> float:
    if n == int(n):
        if n < 0:
            raise ValueError("factorial of a negative integer")
        return float(math.factorial(int(n)))
    return _gamma(n + 1)


def _binomial(n: float, k: float) -> float:
    if n == int(n) and k == int(k) and n >= 0:  # exact; 0 outside 0 ≤ k ≤ n
        n, k = int(n), int(k)
        return float(math.comb(n, k)) if 0 <= k <= n else 0.0
    return _gamma(n + 1) / (_gamma(k + 1) * _gamma(n - k + 1))


def _torch_gamma(x):
    """Γ(x) = sign · exp(lgamma(x)); the sign is (−1)^⌈−x⌉ for negative x, poles give NaN."""
    import torch

    sign = torch.where(x > 0, torch.ones_like(x), (-1.0) ** torch.ceil(-x))
    pole = (x <= 0) & (x == torch.round(x))
    return torch.where(pole, torch.full_like(x, float("nan")), sign * torch.exp(torch.lgamma(x)))


def _torch_loggamma(x):
    import torch

    return torch.where(x > 0, torch.lgamma(x), torch.full_like(x, float("nan")))


def _torch_gamma_ratio(top, *bottom):
    """Γ(top + 1)/Π Γ(b + 1), exact at integers when every argument is a scalar (n!, C(n, k) with 0
    outside 0 ≤ k ≤ n); signed elsewhere: Γ is negative on (−1, 0), (−3, −2), …"""
    vals = (top,) + bottom
    if all(v.ndim == 0 for v in vals):
        xs = [float(v) for v in vals]
        if all(x == int(x) for x in xs):
            if len(xs) == 1:
                return float(math.factorial(int(xs[0]))) if xs[0] >= 0 else float("nan")
            n, k = int(xs[0]), int(xs[1])
            if n >= 0:
                return float(math.comb(n, k)) if 0 <= k <= n else 0.0
    if bottom:  # binomial(n, k) = Γ(n + 1)/(Γ(k + 1) Γ(n − k + 1))
        bottom = (bottom[0], top - bottom[0])
    out = _torch_gamma(top + 1)
    for t in bottom:
        out = out / _torch_gamma(t + 1)
    return out


def _torch_extreme(pick):
    def call(*xs):
        import torch

        vals = torch.broadcast_tensors(*xs)
        out = vals[0]
        for v in vals[1:]:
            out = getattr(torch, pick)(out, v)
        return out

    return call


def _torch_kronecker(i, j):
    import torch

    return torch.eq(torch.as_tensor(i), torch.as_tensor(j)).double()


def _float_sign(x: float) -> float:
    return float((x > 0) - (x < 0))


def _step(x: float, at0=0.5) -> float:
    """Heaviside's step: 1 for x > 0, 0 for x < 0, ``at0`` at 0 (``step(t)`` is SymPy's Heaviside(t, 1))."""
    return 1.0 if x > 0 else 0.0 if x < 0 else float(at0)


def _torch_step(x, at0=0.5):
    import torch

    x = torch.as_tensor(x)
    return torch.where(
        x > 0, torch.ones_like(x), torch.where(x < 0, torch.zeros_like(x), torch.full_like(x, float(at0)))
    )


def _mp_step(x, at0=0.5):
    import mpmath

    return mpmath.mpf(1) if x > 0 else mpmath.mpf(0) if x < 0 else mpmath.mpf(at0)


def _log_base(x, b=None):
    if b is None:
        return sp.log(x)
    if b.is_number and (b.is_positive is not True or b == 1):
        raise Refused("a logarithm's base must be a positive number other than 1", 1)
    return sp.log(x) / sp.log(b)  # log_b x = ln x / ln b


def _unary(name, doc, sympy=None, math_fn=None, mp=None, torch_fn=None, **kw):
    """An entry that is one SymPy function class of one argument, with its library counterparts."""
    sympy = sympy or name
    return Function(
        name,
        build=lambda x, s=sympy: getattr(sp, s)(x),
        doc=doc,
        sympy=sympy,
        math=math_fn or getattr(math, name),
        torch=torch_fn or _t(name),
        mpmath=mp or _mp(name),
        **kw,
    )


TABLE: tuple = (
    _unary("exp", "e^x", guard="exp", latex=("exp",)),
    Function(
        "log",
        build=_log_base,
        doc="natural logarithm; log(x, b) = log(x)/log(b)",
        arity=(1, 2),
        sympy="log",
        math=math.log,
        torch=_t("log"),
        mpmath=_mp("log"),
        latex=("log", "ln"),
        usage="log takes one argument, or two: log(x, base)",
    ),
    Function("log2", build=lambda x: sp.log(x) / sp.log(2), doc="log(x)/log(2)"),
    Function("log10", build=lambda x: sp.log(x) / sp.log(10), doc="log(x)/log(10)"),
    Function("sqrt", build=lambda x: sp.sqrt(x), doc="x^(1/2)"),
    _unary("sin", "sine", latex=("sin",)),
    _unary("cos", "cosine", latex=("cos",)),
    _unary("tan", "tangent", latex=("tan",)),
    _unary("cot", "1/tan", math_fn=lambda x: 1 / math.tan(x), torch_fn=lambda x: 1 / _t("tan")(x), latex=("cot",)),
    _unary("sec", "1/cos", math_fn=lambda x: 1 / math.cos(x), torch_fn=lambda x: 1 / _t("cos")(x), latex=("sec",)),
    _unary("csc", "1/sin", math_fn=lambda x: 1 / math.sin(x), torch_fn=lambda x: 1 / _t("sin")(x), latex=("csc",)),
    _unary("sinh", "hyperbolic sine", guard="exp", latex=("sinh",)),
    _unary("cosh", "hyperbolic cosine", guard="exp", latex=("cosh",)),
    _unary("tanh", "hyperbolic tangent", latex=("tanh",)),
    _unary("asin", "arcsine", latex=("arcsin",)),
    _unary("acos", "arccosine", latex=("arccos",)),
    _unary("atan", "arctangent", latex=("arctan",)),
    _unary("asinh", "inverse hyperbolic sine"),
    _unary("acosh", "inverse hyperbolic cosine"),
    _unary("atanh", "inverse hyperbolic tangent"),
    _unary("erf", "error function"),
    _unary("erfc", "1 − erf(x)"),
    _unary("gamma", "Γ(x)", math_fn=_gamma, torch_fn=_torch_gamma, guard="size"),
    Function("lgamma", build=lambda x: sp.loggamma(x), doc="log Γ(x), real for x > 0", guard="size"),
    _unary("loggamma", "log Γ(x), real for x > 0", math_fn=_loggamma, torch_fn=_torch_loggamma, guard="size"),
    _unary("Abs", "|x|", math_fn=abs, torch_fn=_t("abs"), mp=_mp("fabs"), aliases=("abs",)),
    Function("sigmoid", build=lambda x: 1 / (1 + sp.exp(-x)), doc="1/(1 + e^(−x))", guard="exp"),
    Function("softplus", build=lambda x: sp.log(1 + sp.exp(x)), doc="log(1 + e^x)", guard="exp"),
    Function("relu", build=lambda x: sp.Max(x, 0), doc="Max(x, 0)"),
    Function(
        "normal_pdf",
        build=_normal_pdf,
        arity=(3,),
        doc="exp(−(x − μ)²/(2v))/√(2πv), the density of N(μ, v) at x",
        usage="normal_pdf takes three arguments: normal_pdf(x, mu, variance)",
    ),
    _unary(
        "factorial",
        "x!, exact at integers, Γ(x + 1) elsewhere",
        math_fn=_factorial,
        torch_fn=_torch_gamma_ratio,
        guard="size",
    ),
    Function("softsign", build=lambda x: x / (1 + sp.Abs(x)), doc="x/(1 + |x|)"),
    Function(
        "binomial",
        build=lambda n, k: sp.binomial(n, k),
        doc="n!/(k!(n − k)!), 0 outside 0 ≤ k ≤ n",
        arity=(2,),
        sympy="binomial",
        math=_binomial,
        torch=_torch_gamma_ratio,
        mpmath=_mp("binomial"),
        guard="size",
        usage="binomial takes two arguments, binomial(n, k)",
    ),
    Function(
        "atan2",
        build=lambda y, x: sp.atan2(y, x),
        doc="the angle of (x, y)",
        arity=(2,),
        sympy="atan2",
        math=math.atan2,
        torch=_t("atan2"),
        mpmath=_mp("atan2"),
        usage="atan2 takes two arguments, atan2(y, x)",
    ),
    Function(
        "logsumexp",
        build=lambda *xs: sp.log(sp.Add(*[sp.exp(x) for x in xs])),
        doc="log Σ exp(a_i)",
        arity=VARIADIC,
        guard="exp",
    ),
    Function(
        "Max",
        build=lambda *xs: sp.Max(*xs),
        doc="the largest argument",
        arity=VARIADIC,
        sympy="Max",
        math=max,
        torch=_torch_extreme("maximum"),
        mpmath=max,
        aliases=("max",),
        latex=("max",),
    ),
    Function(
        "Min",
        build=lambda *xs: sp.Min(*xs),
        doc="the smallest argument",
        arity=VARIADIC,
        sympy="Min",
        math=min,
        torch=_torch_extreme("minimum"),
        mpmath=min,
        aliases=("min",),
        latex=("min",),
    ),
    Function(
        "KroneckerDelta",
        build=lambda i, j: sp.KroneckerDelta(i, j),
        doc="1 where the indices i and j are equal, else 0 (the LaTeX reader's \\delta_{ij})",
        arity=(2,),
        sympy="KroneckerDelta",
        math=lambda i, j: float(i == j),
        torch=_torch_kronecker,
        mpmath=lambda i, j: float(i == j),
        usage="KroneckerDelta takes two indices, KroneckerDelta(i, j)",
    ),
    Function(
        "step",
        build=lambda t: sp.Heaviside(t, 1),
        doc="1 where t >= 0, 0 where t < 0 (the indicator 1(t >= 0): SymPy's Heaviside(t, 1))",
        sympy="Heaviside",
        math=_step,
        torch=_torch_step,
        mpmath=_mp_step,
    ),
    # evaluated, not callable: SymPy writes it (d|x|/dx) and the catalog's statements use it
    Function(
        "sign", doc="−1, 0 or 1", sympy="sign", math=_float_sign, torch=_t("sign"), mpmath=_mp("sign"), grammar=False
    ),
)

_CACHE: dict = {}  # what each reader derives from the table, rebuilt when TABLE is replaced (a test's entry)


def _derived(key: str, make):
    table, value = _CACHE.get(key, (None, None))
    if table is not TABLE:
        value = make()
        _CACHE[key] = (TABLE, value)
    return value


def entries() -> tuple:
    """The table's entries users may call."""
    return tuple(f for f in TABLE if f.grammar)


def lookup(name: str) -> Function | None:
    """The entry called ``name`` (or one of its aliases), or None."""
    return _derived("names", lambda: {n: f for f in entries() for n in (f.name,) + f.aliases}).get(name)


def names() -> set:
    """Every name the grammar calls a function by (aliases included)."""
    return {n for f in entries() for n in (f.name,) + f.aliases}


def latex_words() -> dict:
    """``{LaTeX control word: grammar name}`` (``\\ln`` → ``log``, ``\\max`` → ``Max``)."""
    return {w: f.name for f in entries() for w in f.latex}


def implementations(backend: str) -> dict:
    """``{SymPy class: implementation}`` for ``backend`` (``"math"``, ``"torch"`` or ``"mpmath"``)."""
    return _derived(
        backend, lambda: {f.cls(): getattr(f, backend) for f in TABLE if f.sympy and getattr(f, backend) is not None}
    )
