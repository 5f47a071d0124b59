"""Properties of LayerNorm and RMSNorm factories ``make(D, eps) -> nn.Module``.

The module is built under a seeded RNG (``torch.random.fork_rng``) and used in float64 as made
(an affine part is expected at its initial identity, as ``nn.LayerNorm``/``nn.RMSNorm`` make it).
References: layernorm-statistics' y, mean, variance σ²/(σ²+ε) and Jacobian; RMSNorm's y, mean
square m/(m+ε) and Jacobian (δ_ij − y_i y_j/n)/√(m+ε), read from rmsnorm-statistics by :func:`formulas.rmsnorm`.
"""

from __future__ import annotations

import torch

from mathcheck.conform import formulas as fm
from mathcheck.conform.property import (F64, Property, build_module, call, call_tensor, compare, draw, first_output,
                                        float32_against_float64, tolerance)

EPS = 0.1  # large enough that σ²/(σ²+ε) is far from 1 and biased/unbiased variances differ visibly


def build(make, D, eps, gen, dtype=F64):
    return build_module(make, (D, eps), gen, "make(D, eps)", dtype)


def _apply(module, x):
    return call_tensor(module, x)


def _on_output(prop, shift: float = 0.0):
    """A property of the module's float64 output ``y`` on a drawn ``x`` (+ ``shift``):
    ``prop(x, y, s) -> Outcome``; a failing outcome when ``make`` or the forward pass fails."""
    def check(make, s, gen, simple, variant):
        m, err = build(make, s["D"], EPS, gen)
        if err:
            return err
        x = _x(gen, s, simple) + shift
        out, err = _apply(m, x)
        if err:
            return err
        return prop(x, out.detach().to(F64), s)
    return check


def _rows(expr, x, n, extra=None, grid=None):
    return torch.vmap(lambda r: fm.ev(expr, {"x": r, "n": n, "epsilon": EPS, **(extra or {})},
                                      grid=grid or {}))(x.reshape(-1, n))


def _x(gen, s, simple):
    return draw(gen, s["B"], s["L"], s["D"], simple=simple) * 2 + 0.5


def _matches(y_expr):
    def prop(x, y, s):
        ref = _rows(y_expr(), x, s["D"], grid={"i": s["D"]}).reshape(x.shape)
        return compare(y, ref, tolerance(s["D"], float(ref.abs().max())), "y, derived, entry by entry")
    return _on_output(prop)


@_on_output
def _ln_mean(x, y, s):
    zero = fm.ev(fm.layernorm_mean(), {})
    return compare(y.sum(-1), zero.expand(x.shape[:-1]), tolerance(s["D"], 3.0),
                   "Σ_i y_i = 0 (layernorm-statistics 'mean')")


@_on_output
def _ln_variance(x, y, s):
    ref = _rows(fm.layernorm_variance(), x, s["D"]).reshape(x.shape[:-1])
    return compare(y.var(-1, unbiased=False), ref, tolerance(s["D"], 3.0),
                   "the biased variance of y = σ²/(σ² + ε), derived")


def _jacobian(jac_expr, extra=lambda x, n: {}):
    def check(make, s, gen, simple, variant):
        m, err = build(make, s["D"], EPS, gen)
        if err:
            return err
        x = _x(gen, s, simple)[0, 0]
        n = s["D"]
        J, err = call(torch.autograd.functional.jacobian, lambda t: first_output(m(t)), x)
        if err:
            return err
        ref = fm.ev(jac_expr(), {"x": x, "n": n, "epsilon": EPS, **extra(x, n)}, grid={"i": n, "j": n})
        return compare(J, ref, tolerance(n, 1 / EPS ** 0.5), "∂y_i/∂x_j, derived, against autograd of the module")
    return check


def _ln_jacobian_values(x, n):
    y = fm.ev(fm.layernorm(), {"x": x, "n": n, "epsilon": EPS}, grid={"i": n})
    return {"y": y}


def _float32(make, s, gen, simple, variant):
    m, err = build(make, s["D"], EPS, gen)
    if err:
        return err
    return float32_against_float64(m, _x(gen, s, simple), lambda a: tolerance(s["D"], 3.0, torch.float32))


@_on_output
def _rms_mean_square(x, y, s):
    ref = _rows(fm.rmsnorm()["derived_mean_square"], x, s["D"]).reshape(x.shape[:-1])
    return compare((y ** 2).mean(-1), ref, tolerance(s["D"], 3.0), "mean(y²) = m/(m + ε), m = mean(x²), derived")


def _rms_centred(x, y, s):
    """RMSNorm does not subtract the mean: Σ y_i = 0 must *fail* on inputs with a nonzero mean."""
    return compare(y.sum(-1), torch.zeros(x.shape[:-1], dtype=F64),
                   tolerance(s["D"], 3.0), "Σ_i y_i = 0 (LayerNorm's mean part; RMSNorm must not centre)")


def _rms_jacobian_values(x, n):
    y = fm.ev(fm.rmsnorm()["y"], {"x": x, "n": n, "epsilon": EPS}, grid={"i": n})
    return {"y": y}


NORM = {"B": 2, "L": 3, "D": 8}
NMIN = {"B": 1, "L": 1, "D": 2}


def layernorm_properties() -> list[Property]:
    return [
        Property("matches-derived", "layernorm-statistics", "y = (x − μ)/√(σ² + ε) with the biased σ²",
                 _matches(fm.layernorm), NORM, NMIN),
        Property("mean-zero", "layernorm-statistics", "Σ_i y_i = 0", _ln_mean, NORM, NMIN),
        Property("variance", "layernorm-statistics", "biased variance of y = σ²/(σ² + ε)", _ln_variance, NORM, NMIN),
        Property("jacobian", "layernorm-statistics", "∂y/∂x = (I − 11ᵀ/n − yyᵀ/n)/√(σ² + ε)",
                 _jacobian(fm.layernorm_jacobian, _ln_jacobian_values), NORM, NMIN),
        Property("float32-vs-float64", "layernorm-statistics", "float32 within float32's rounding of float64",
                 _float32, NORM, NMIN),
    ]


def rmsnorm_properties() -> list[Property]:
    return [
        Property("matches-derived", "rmsnorm-statistics", "y = x/√(mean(x²) + ε)",
                 _matches(lambda: fm.rmsnorm()["y"]), NORM, NMIN),
        Property("mean-square", "rmsnorm-statistics", "mean(y²) = m/(m + ε)", _rms_mean_square, NORM, NMIN),
        Property("not-mean-centred", "rmsnorm-statistics", "Σ y_i = 0 must not hold (no mean subtraction)",
                 _on_output(_rms_centred, shift=1.0), NORM, NMIN, lambda v: "breaks"),
        Property("jacobian", "rmsnorm-statistics", "∂y/∂x = (I − yyᵀ/n)/√(m + ε)",
                 _jacobian(lambda: fm.rmsnorm()["jacobian"], _rms_jacobian_values), NORM, NMIN),
        Property("float32-vs-float64", "rmsnorm-statistics", "float32 within float32's rounding of float64",
                 _float32, NORM, NMIN),
    ]
