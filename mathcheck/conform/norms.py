"""Properties of LayerNorm and RMSNorm factories ``make(D, eps) -> nn.Module``.

The module is built under a seeded RNG (``torch.random.fork_rng``) and used in float64 as made, in
eval mode (an affine part is expected at its initial identity, as ``nn.LayerNorm``/``nn.RMSNorm``
make it). Every property runs at ``variant.eps``: the eps the module holds, ``--eps``, or the one
measured from its outputs (:func:`configure`); 0.1 when nothing else is known.
References: layernorm-statistics' y, mean, variance σ²/(σ²+ε) and Jacobian; RMSNorm's y, mean
square m/(m+ε) and Jacobian (δ_ij − y_i y_j/n)/√(m+ε), read from rmsnorm-statistics by :func:`formulas.rmsnorm`.
"""

from __future__ import annotations

from typing import Callable

import torch

from mathcheck.conform import formulas as fm
from mathcheck.conform.property import (
    F64,
    Outcome,
    Property,
    build_module,
    call,
    call_tensor,
    compare,
    draw,
    first_output,
    float32_against_float64,
    tolerance,
)

EPS = 0.1  # asked of a factory: large enough that σ²/(σ²+ε) is far from 1 and biased/unbiased variances differ
EPS_NAMES = ("eps", "variance_epsilon", "epsilon", "variance_eps", "norm_eps", "layer_norm_eps")


def eps_of(variant) -> float:
    return EPS if variant.eps is None else variant.eps


def eps_parameter(make) -> str | None:
    """The name of the constructor's eps parameter (one of ``EPS_NAMES``), or None: then eps is
    passed second by position, ``make(D, eps)``. By name whenever the constructor has one, never by
    position: gpt-neox's ``RMSNorm(dim, p=-1., eps=1e-8)`` given ``(D, 0.1)`` becomes a *partial*
    RMSNorm over 10% of the features, silently.

    >>> eps_parameter(lambda dim, p=-1.0, eps=1e-8: None)
    'eps'
    >>> eps_parameter(lambda D, e: None) is None
    True
    """
    import inspect

    try:
        params = inspect.signature(make).parameters
    except (TypeError, ValueError):
        return None
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return next((n for n in EPS_NAMES if n in params and params[n].kind in named), None)


def no_eps_parameter(make) -> str | None:
    """Why ``make`` takes no eps at all, or None (it does: by name, or second by position). A
    constructor whose second parameter is optional and not an eps (x-transformers'
    ``LayerNorm(dim, unit_offset=False)``, ``SimpleRMSNorm(dim, **kwargs)``, nanoGPT-fork
    ``RMSNorm(ndim)``) is built ``make(D)``: eps given second would land in ``unit_offset`` and move
    the gain (0.9 + 0.1 in float32 is 1 − 1.5e-8, a false alarm). A required second parameter is
    the factory contract ``make(D, eps)`` and gets eps, as before; the eps tested at is then the one
    the module holds or is measured to use (:func:`configure`).

    >>> no_eps_parameter(lambda dim, unit_offset=False: None)
    "its second parameter 'unit_offset' is not an eps"
    >>> no_eps_parameter(lambda dim, **kwargs: None), no_eps_parameter(lambda D, e: None)
    ('it takes one size parameter and no eps', None)
    """
    import inspect

    if eps_parameter(make):
        return None
    try:
        params = [
            p
            for p in inspect.signature(make).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return None  # a builtin without a signature: make(D, eps), its first call says
    if len(params) < 2:
        return "it takes one size parameter and no eps"
    if params[1].default is not params[1].empty:
        return f"its second parameter {params[1].name!r} is not an eps"
    return None


def build(make, D, eps, gen, dtype=F64) -> tuple[torch.nn.Module | None, Outcome | None]:
    name = eps_parameter(make)
    if name is None and no_eps_parameter(make):
        return build_module(make, (D,), gen, "make(D)", dtype)
    if name is None:
        return build_module(make, (D, eps), gen, "make(D, eps)", dtype)
    return build_module(make, (D,), gen, f"make(D, {name}=eps)", dtype, kwargs={name: eps})


def eps_line(make) -> str:
    """The report's line on how eps reaches the constructor, when by name differs from second by
    position (gpt-neox's ``RMSNorm(dim, p, eps)``; not ``LlamaRMSNorm(hidden_size, eps)``)."""
    import inspect

    name = eps_parameter(make)
    why = no_eps_parameter(make)
    if why:
        return f"constructor: takes no eps ({why}): built make(D), eps read from the module"
    if not name:
        return ""
    try:
        second = list(inspect.signature(make).parameters)[1:2]
    except (TypeError, ValueError):
        second = []
    return "" if second == [name] else f"constructor: eps passed by name, make(D, {name}=…)"


def held_eps(module) -> tuple[str, float] | None:
    """(attribute, value) of the eps the module holds, or None (nanoGPT's LayerNorm hard-codes 1e-5
    in its forward; x-transformers' norms take none)."""
    for name in EPS_NAMES:
        v = getattr(module, name, None)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return name, float(v)
    return None


def measured_eps(module, kind: str, D: int, gen) -> float | None:
    """The eps a module behaves as having, read from its outputs: mean(y²) = m/(m + ε) (the
    rmsnorm-statistics ``mean-square`` part; layernorm-statistics' ``variance``: σ²/(σ² + ε)), so
    ε = m·(1/mean(y²) − 1). Measured at rows with m ≈ 1, then again at m ≈ the first estimate, where
    ε is half the denominator and the estimate is good to a few units of the precision's ε; rounded
    to the shortest decimal within 1e-5 of it. None when the outputs give no estimate."""
    x = draw(gen, 8, D).to(F64)
    stat = (lambda t: t.var(-1, unbiased=False)) if kind == "layernorm" else (lambda t: (t**2).mean(-1))
    x = x / stat(x)[:, None].sqrt()  # m = 1 per row
    est = None
    for _ in range(2):
        out, err = call_tensor(module, x)
        if err:
            return None
        r = stat(out.detach().to(F64))
        m = stat(x)
        e = float((m * (1 / r - 1)).median())
        if not e == e or e == float("inf"):
            return None
        est = max(e, 0.0)
        if est <= 1e-30:
            return 0.0
        x = x * est**0.5  # next rows have m ≈ ε
    for digits in range(1, 13):
        short = float(f"{est:.{digits}g}")
        if abs(short - est) <= 1e-5 * est:
            return short
    return est


def configure(make, kind: str, variant, gen) -> tuple[float | None, str]:
    """The eps to test at, and a line saying where it came from: ``--eps`` (checked against what
    the module holds), the module's own attribute, or the one measured from its outputs. A factory
    that ignores its eps argument is reported as such, and tested at the eps it does use."""
    asked = eps_of(variant)
    m, err = build(make, NORM["D"], asked, gen)
    if err:
        return variant.eps, ""
    held = held_eps(m)
    src = "--eps" if variant.eps is not None else "asked of the factory"
    if held is not None:
        name, value = held
        if value == asked:
            return asked, f"eps {asked:g} ({src}; the module's {name})"
        ignores = "takes no eps" if no_eps_parameter(make) else "ignores its eps argument"
        return value, (
            f"eps {value:g}: the module's {name} (the factory {ignores}: {src} {asked:g}); tested at {value:g}"
        )
    eff = measured_eps(m, kind, NORM["D"], gen)
    if eff is None or abs(eff - asked) <= 1e-5 * max(asked, 1e-30):
        return asked, f"eps {asked:g} ({src}; measured from the outputs: the same)"
    ignores = "takes no eps" if no_eps_parameter(make) else "ignores its eps argument"
    return eff, (
        f"eps {eff:g}: measured from the outputs (the module holds no numeric eps and {ignores}: "
        f"{src} {asked:g}); tested at {eff:g}"
    )


def _apply(module, x):
    return call_tensor(module, x)


def _on_output(prop, shift: float = 0.0):
    """A property of the module's float64 output ``y`` on a drawn ``x`` (+ ``shift``):
    ``prop(x, y, s) -> Outcome``; a failing outcome when ``make`` or the forward pass fails."""

    def check(make, s, gen, simple, variant):
        m, err = build(make, s["D"], eps_of(variant), gen)
        if err:
            return err
        x = _x(gen, s, simple) + shift
        out, err = _apply(m, x)
        if err:
            return err
        return prop(x, out.detach().to(F64), dict(s, eps=eps_of(variant)))

    return check


def _rows(expr, x, n, eps, extra=None, grid=None):
    return torch.vmap(lambda r: fm.ev(expr, {"x": r, "n": n, "epsilon": eps, **(extra or {})}, grid=grid or {}))(
        x.reshape(-1, n)
    )


def _x(gen, s, simple):
    return draw(gen, s["B"], s["L"], s["D"], simple=simple) * 2 + 0.5


def constant_gain(y, ref) -> float | None:
    """c when ``y`` = c·``ref`` at every entry (to 1e-9 relative) with c ≠ 1, else None: said with a
    failure, never allowed — a (1 + weight) gain with weight built at 1 (Liger-Kernel's test copy of
    GemmaRMSNorm: 2×) reads the same as a constant-factor bug (a sum for a mean at eps 0: 1/√D×).

    >>> import torch; constant_gain(torch.tensor([2., -4.]), torch.tensor([1., -2.]))
    2.0
    """
    nz = ref.abs() > 1e-6 * float(ref.abs().max())
    if not bool(nz.any()):
        return None
    c = (y[nz] / ref[nz]).median()
    if abs(float(c) - 1.0) < 1e-6 or not bool(torch.allclose(y, c * ref, rtol=1e-9, atol=0.0)):
        return None
    return float(c)


def _matches(y_expr):
    def prop(x, y, s):
        ref = _rows(y_expr(), x, s["D"], s["eps"], grid={"i": s["D"]}).reshape(x.shape)
        o = compare(y, ref, tolerance(s["D"], float(ref.abs().max())), "y, derived, entry by entry")
        c = None if o.ok or y.shape != ref.shape else constant_gain(y, ref)
        if c is not None:
            o.note = ((o.note + "; ") if o.note else "") + (
                f"yours is {c:.6g}× the derived at every entry: a gain of {c:.6g} as the module is built (the kind "
                f"takes its affine part at identity), or a constant-factor bug"
            )
        return o

    return _on_output(prop)


@_on_output
def _ln_mean(x, y, s):
    zero = fm.ev(fm.layernorm_mean(), {})
    return compare(
        y.sum(-1), zero.expand(x.shape[:-1]), tolerance(s["D"], 3.0), "Σ_i y_i = 0 (layernorm-statistics 'mean')"
    )


@_on_output
def _ln_variance(x, y, s):
    ref = _rows(fm.layernorm_variance(), x, s["D"], s["eps"]).reshape(x.shape[:-1])
    return compare(
        y.var(-1, unbiased=False), ref, tolerance(s["D"], 3.0), "the biased variance of y = σ²/(σ² + ε), derived"
    )


def _jacobian(jac_expr, extra=lambda x, n, eps: {}):
    def check(make, s, gen, simple, variant):
        eps = eps_of(variant)
        m, err = build(make, s["D"], eps, gen)
        if err:
            return err
        x = _x(gen, s, simple)[0, 0]
        n = s["D"]
        # the row fed as (1, 1, D): the kind is documented on (B, L, D), and real norms index their
        # input's leading axes (a 1-D row broke x.shape[:2] unpacking, a false alarm)
        J, err = call(torch.autograd.functional.jacobian, lambda t: first_output(m(t.reshape(1, 1, n))).reshape(n), x)
        if err:
            return err
        ref = fm.ev(jac_expr(), {"x": x, "n": n, "epsilon": eps, **extra(x, n, eps)}, grid={"i": n, "j": n})
        # entries are O(1/√(m + ε)), m the row's mean square (or variance): the scale of every term
        scale = 1 / (float(x.var(unbiased=False).clamp_min(0)) + eps) ** 0.5 + 1 / (float((x**2).mean()) + eps) ** 0.5
        return compare(J, ref, tolerance(n, scale), "∂y_i/∂x_j, derived, against autograd of the module")

    return check


def _ln_jacobian_values(x, n, eps):
    y = fm.ev(fm.layernorm(), {"x": x, "n": n, "epsilon": eps}, grid={"i": n})
    return {"y": y}


def _float32(make, s, gen, simple, variant):
    state = gen.get_state()
    m, err = build(make, s["D"], eps_of(variant), gen)
    if err:
        return err
    rebuild = lambda dtype: build(make, s["D"], eps_of(variant), torch.Generator().set_state(state), dtype)  # noqa: E731
    return float32_against_float64(m, rebuild, _x(gen, s, simple), lambda a: tolerance(s["D"], 3.0, torch.float32))


@_on_output
def _rms_mean_square(x, y, s):
    ref = _rows(fm.rmsnorm()["derived_mean_square"], x, s["D"], s["eps"]).reshape(x.shape[:-1])
    return compare((y**2).mean(-1), ref, tolerance(s["D"], 3.0), "mean(y²) = m/(m + ε), m = mean(x²), derived")


def _rms_centred(x, y, s):
    """RMSNorm does not subtract the mean: Σ y_i = 0 must *fail* on inputs with a nonzero mean."""
    return compare(
        y.sum(-1),
        torch.zeros(x.shape[:-1], dtype=F64),
        tolerance(s["D"], 3.0),
        "Σ_i y_i = 0 (LayerNorm's mean part; RMSNorm must not centre)",
    )


def _rms_jacobian_values(x, n, eps):
    y = fm.ev(fm.rmsnorm()["y"], {"x": x, "n": n, "epsilon": eps}, grid={"i": n})
    return {"y": y}


NORM = {"B": 2, "L": 3, "D": 8}
NMIN = {"B": 1, "L": 1, "D": 2}


def layernorm_properties() -> list[Property]:
    return [
        Property(
            "matches-derived",
            "layernorm-statistics",
            "y = (x − μ)/√(σ² + ε) with the biased σ²",
            _matches(fm.layernorm),
            NORM,
            NMIN,
        ),
        Property("mean-zero", "layernorm-statistics", "Σ_i y_i = 0", _ln_mean, NORM, NMIN),
        Property("variance", "layernorm-statistics", "biased variance of y = σ²/(σ² + ε)", _ln_variance, NORM, NMIN),
        Property(
            "jacobian",
            "layernorm-statistics",
            "∂y/∂x = (I − 11ᵀ/n − yyᵀ/n)/√(σ² + ε)",
            _jacobian(fm.layernorm_jacobian, _ln_jacobian_values),
            NORM,
            NMIN,
        ),
        Property(
            "float32-vs-float64",
            "layernorm-statistics",
            "float32 within float32's rounding of float64",
            _float32,
            NORM,
            NMIN,
        ),
    ]


def rmsnorm_properties() -> list[Property]:
    return [
        Property(
            "matches-derived",
            "rmsnorm-statistics",
            "y = x/√(mean(x²) + ε)",
            _matches(lambda: fm.rmsnorm()["y"]),
            NORM,
            NMIN,
        ),
        Property("mean-square", "rmsnorm-statistics", "mean(y²) = m/(m + ε)", _rms_mean_square, NORM, NMIN),
        Property(
            "not-mean-centred",
            "rmsnorm-statistics",
            "Σ y_i = 0 must not hold (no mean subtraction)",
            _on_output(_rms_centred, shift=1.0),
            NORM,
            NMIN,
            lambda v: "breaks",
        ),
        Property(
            "jacobian",
            "rmsnorm-statistics",
            "∂y/∂x = (I − yyᵀ/n)/√(m + ε)",
            _jacobian(lambda: fm.rmsnorm()["jacobian"], _rms_jacobian_values),
            NORM,
            NMIN,
        ),
        Property(
            "float32-vs-float64",
            "rmsnorm-statistics",
            "float32 within float32's rounding of float64",
            _float32,
            NORM,
            NMIN,
        ),
    ]


def norm_probe(fn, variant, gen, module) -> tuple[Callable[[], object], int]:
    """Precision probe (layernorm, rmsnorm): the built module on (2, 4, 64), reduction length 64."""
    x = draw(gen, 2, 4, 64) * 2 + 0.5
    return (lambda: module(x)), 64
