"""What the numeric checks of §9 (beyond the article) share: each statement's left side AND right
side against PyTorch's own implementation of the variant.

Every comparison is three-way: the statement's left-hand side and its right-hand side are evaluated
from the SymPy expressions (:mod:`mathcheck.numeric.evaluate`; derivatives by autograd through the
evaluated expression; products by ``torch.prod``), and each is compared with PyTorch's reference
(``F.scaled_dot_product_attention`` with ``is_causal``, ``enable_gqa`` or a float mask,
``nn.RMSNorm``, ``F.cross_entropy(label_smoothing=…)``, ``torch.logsumexp``, ``FlopCounterMode``,
autograd). Float64 by default, seeded. The statements go through :meth:`Comparison.agree`: each
side's tolerance is derived per entry from its rounding bound (the dtype's epsilon, the reductions,
the terms that cancel), and an SDPA reference adds its own (:func:`_attention_read`). Where PyTorch
is compared with PyTorch (a blockwise loop with SDPA, the cache with causal SDPA), and for
perplexity's product, ``tol = 16·N·eps``, N the largest size a case sums over (printed in the
reference line): a sum of N rounded terms drifts by at most about N·eps relative to its magnitude.
"""

from __future__ import annotations

import sympy as sp
import torch

from mathcheck.numeric.tolerance import library_tolerance, unit
from mathcheck.numeric.symbols import by_name
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype
from mathcheck.numeric.evaluate import evaluate


def _comparison(reference: str, options: Options, size: int) -> Comparison:
    """A Comparison for one check. A statement's sides are compared with PyTorch by
    :meth:`Comparison.agree` (tolerances derived per entry); an implementation compared with a
    library function (a blockwise loop with SDPA, a cache with causal SDPA) at
    atol = rtol = 16·size·eps(dtype), size the check's longest reduction, stated in its reference line."""
    eps = unit(dtype(options))
    tol = library_tolerance(size, dtype(options))
    return Comparison(
        f"{reference}; where a tolerance is not derived, atol = rtol = 16·N·eps = 16·{size}·{eps:.3g} = {tol:.3g}",
        options,
        atol=tol,
        rtol=tol,
    )


def _sides(
    cmp: Comparison, case: str, eq, ref, env, funcs=None, dt=torch.float64, reference_bound=0.0, **where
) -> None:
    """The statement's left side, its right side and PyTorch's ``ref``, three ways
    (:meth:`Comparison.agree`, tolerances derived); ``case`` starts with the part's name;
    ``reference_bound`` what is known of ``ref``'s own rounding (:func:`_attention_read`).

    A statement with a ``Product`` (perplexity's Π p_t) is evaluated factor by factor in ``dt``
    (:func:`_products`) and each side compared with ``ref`` at the check's 16·N·eps."""
    if not eq.atoms(sp.Product):
        cmp.agree(case, ref, eq, env, funcs, part=case.split()[0], dtype=dt, reference_bound=reference_bound, **where)
        return
    for name, side in (("lhs", eq.lhs), ("rhs", eq.rhs)):
        try:
            got = evaluate(_products(side, env, funcs, dt), env, funcs, dtype=dt)
        except ZeroDivisionError:  # e.g. 0/0 over an empty range of keys: undefined where PyTorch is not
            got = float("nan")
        cmp.compare(f"{case} {name}", ref, got, **where)


def _attention_read(cmp: Comparison, q: torch.Tensor, K: torch.Tensor, v: torch.Tensor) -> float:
    r"""A bound on SDPA's own rounding in one output entry :math:`\sum_k w_k v_k`,
    :math:`w = \mathrm{softmax}(q\cdot k_k/\sqrt d)` over the c rows of ``K``: SDPA recomputes
    each score, off by :math:`\delta \le (d+1)\varepsilon\,|q|\cdot|k_k|/\sqrt d`, which moves every
    weight by a factor within :math:`e^{\pm 2\delta}`; the weighted sum adds
    :math:`(c+1)\varepsilon\max|v|`. So :math:`(2\delta + (c+1)\varepsilon)\max_k|v_k|` — the size of
    the values, not of the (possibly cancelled) output, sets it.

        >>> q, K, v = torch.ones(4, dtype=torch.float64), torch.ones(3, 4, dtype=torch.float64), torch.ones(3)
        >>> 0 < _attention_read(Comparison("", Options()), q, K, v) < 1e-14
        True
    """
    d = q.shape[-1]
    delta = (d + 1) * cmp.eps * float((K.abs() @ q.abs()).max()) / d**0.5
    return (2 * delta + (K.shape[0] + 1) * cmp.eps) * float(v.abs().max())


def _products(e, env, funcs=None, dt=torch.float64):
    """Replace each ``Product(f, (t, a, b))`` by its value, ``torch.prod`` of f over t = a..b."""
    for prod in sorted(e.atoms(sp.Product), key=sp.default_sort_key):
        ((t, a, b),) = prod.limits
        lo, hi = int(evaluate(a, env, funcs, dtype=dt)), int(evaluate(b, env, funcs, dtype=dt))
        inner = dict(env)
        inner[t] = torch.arange(lo, hi + 1, dtype=dt)
        value = evaluate(prod.function, inner, funcs, dtype=dt)
        e = e.xreplace({prod: sp.Symbol(f"_prod{id(prod)}")})
        env[sp.Symbol(f"_prod{id(prod)}")] = torch.prod(value)
    return e


def _one_derivative(lhs, case: str):
    """The left side as ``F(D)`` around its one ``Derivative`` D: (D, F with D replaced by a
    placeholder symbol, the placeholder). A left side such as ``2·∂f/∂x_j`` is evaluated whole."""
    found = list(lhs.atoms(sp.Derivative))
    if len(found) != 1:
        raise KeyError(f"{case}: the left side has {len(found)} derivatives, not one: {lhs}")
    d = found[0]
    slot = sp.Dummy("D")
    return d, lhs.xreplace({d: slot}), slot


def _derivative(cmp, case, eq, wrt_name: str, tensor, at, env, funcs, dt, ref, **where):
    """``Derivative(f, x[u])`` on the left (inside any expression of it): autograd of the evaluated f
    in x, entries ``at`` (the values of u, 1-based, a tensor), put back into the left side; the right
    side evaluated at them; both against ``ref``."""
    d, outer, slot = _one_derivative(eq.lhs, case)
    x = tensor.detach().clone().requires_grad_()
    base = by_name(d.expr, kind=sp.IndexedBase)[wrt_name]
    env = dict(env)
    env[base] = x
    f = evaluate(d.expr, env, funcs, dtype=dt)
    (grad,) = torch.autograd.grad(f, x)
    lhs = evaluate(outer, {**env, slot: grad[at.long() - 1].detach()}, funcs, dtype=dt)
    cmp.compare(f"{case} lhs (autograd)", ref, lhs.detach(), **where)
    rhs = evaluate(eq.rhs, env, funcs, dtype=dt)
    cmp.compare(f"{case} rhs", ref, rhs.detach(), **where)
