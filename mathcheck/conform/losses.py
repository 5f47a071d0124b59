"""Properties of softmax, log-softmax, cross-entropy and KL callables.

References: softmax-simplex's exp(c + z_i)/Σ_k exp(c + z_k) at c = −max z (its shift-invariant
part shows this is softmax for every c); softmax-jacobian's s_i(δ_ij − s_j);
cross-entropy-softmax-gradient's s_j − δ_jy; cross-entropy-decomposition's −Σ p log q and
H(p) + KL(p‖q); kl-distillation's batchmean Σ p log(p/q)/B and its asymmetric pair.
"""

from __future__ import annotations

from typing import Callable

import torch

from mathcheck.conform import formulas as fm
from mathcheck.conform.property import (
    F64,
    Outcome,
    Property,
    call,
    call_tensor,
    compare,
    draw,
    tolerance,
    worst_comparison,
)


def derived_softmax(z: torch.Tensor) -> torch.Tensor:
    """Row-wise (last axis) softmax from softmax-simplex's shift-invariant part, c = −max z."""
    n = z.shape[-1]
    rows = z.reshape(-1, n)
    e = fm.softmax()
    out = torch.vmap(lambda r: fm.ev(e, {"z": r, "c": -r.max(), "n": n}, grid={"i": n}))(rows)
    return out.reshape(z.shape)


def derived_log_softmax(z: torch.Tensor) -> torch.Tensor:
    """Row-wise log-softmax: cross-entropy-softmax-gradient's log(exp(z_y)/Σ_k exp(z_k)), log
    expanded, at z − max z (softmax-simplex's shift leaves the ratio unchanged)."""
    n = z.shape[-1]
    rows = z.reshape(-1, n)
    e = fm.log_softmax_expanded()
    return torch.vmap(lambda r: fm.ev(e, {"z": r - r.max(), "n": n}, grid={"y": n}))(rows).reshape(z.shape)


def _logits(gen, s, simple, scale=1.0):
    return draw(gen, s["B"], s["N"], simple=simple) * scale


def _as(x):
    return torch.as_tensor(x).detach().to(F64)


def _grad(fn, z, other):
    """∂fn(z, other)/∂z by autograd: ``(gradient, None)``, or ``(None, outcome)`` when the callable
    raised or its result is not differentiable (a crash, for the shrinker)."""
    x = z.clone().requires_grad_()
    out, err = call_tensor(fn, x, other)
    if err:
        return None, err
    try:
        (g,) = torch.autograd.grad(out, x)
    except Exception as exc:  # noqa: BLE001 - not differentiable
        return None, Outcome(False, float("inf"), note=f"autograd raised {type(exc).__name__}: {exc}", crashed=True)
    return g, None


def _soft_ce_gradient(q, p, T: float, n: int) -> torch.Tensor:
    """kl-distillation's soft-ce-gradient (q − p)/T, row by row: q the student's, p the target."""
    e = fm.soft_ce_gradient()
    return torch.vmap(lambda qr, pr: fm.ev(e, {"q": qr, "p": pr, "T": T}, grid={"i": n}))(q, p)


# --- softmax / log-softmax ------------------------------------------------------------------------------


def _values(log: bool):
    def check(fn, s, gen, simple, variant):
        z = _logits(gen, s, simple, 3.0)
        ref = derived_log_softmax(z) if log else derived_softmax(z)
        outs = []
        for dim, x, back in ((-1, z, lambda t: t), (0, z.T.contiguous(), lambda t: t.T)):
            out, err = call_tensor(fn, x, dim)
            if err:
                return err
            outs.append(
                compare(
                    back(_as(out)),
                    ref,
                    tolerance(s["N"], 1 + float(z.abs().max())),
                    f"{'log ' if log else ''}exp(z_i − max z)/Σ_k exp(z_k − max z), derived (dim={dim})",
                )
            )
        return worst_comparison(*outs)

    return check


def _simplex(log: bool):
    def check(fn, s, gen, simple, variant):
        z = _logits(gen, s, simple, 3.0)
        out, err = call_tensor(fn, z, -1)
        if err:
            return err
        p = _as(out).exp() if log else _as(out)
        one = fm.ev(fm.softmax_normalised(), {})
        return worst_comparison(
            compare(p.sum(-1), one.expand(p.shape[:-1]), tolerance(s["N"]), "Σ_j s_j = 1 (derived)"),
            compare(p.clamp(max=0.0), torch.zeros_like(p), 0.0, "s_j ≥ 0"),
            compare((p - 1).clamp(min=0.0), torch.zeros_like(p), tolerance(s["N"]), "s_j ≤ 1"),
        )

    return check


def _shift(fn, s, gen, simple, variant):
    z = _logits(gen, s, simple, 3.0)
    c = draw(gen, s["B"], 1, simple=simple) * 10
    a, err = call_tensor(fn, z, -1)
    if err:
        return err
    b, err = call_tensor(fn, z + c, -1)
    if err:
        return err
    return compare(
        _as(b),
        _as(a),
        tolerance(s["N"], 1 + float((z + c).abs().max())),
        "f(z + c) = f(z) (softmax-simplex 'shift-invariant')",
    )


def _jacobian(fn, s, gen, simple, variant):
    z = _logits(gen, s, simple, 2.0)[0]
    n = z.shape[0]
    J, err = call(torch.autograd.functional.jacobian, lambda x: fn(x, -1), z)
    if err:
        return err
    sm = derived_softmax(z[None])[0]
    ref = fm.ev(fm.softmax_jacobian(), {"s": sm, "n": n}, grid={"i": n, "j": n})
    return compare(J, ref, tolerance(n), "∂s_i/∂z_j = s_i(δ_ij − s_j), derived, against autograd of the callable")


def _log_gradient(fn, s, gen, simple, variant):
    z = _logits(gen, s, simple, 2.0)[0]
    n = z.shape[0]
    y = int(torch.randint(n, (1,), generator=gen))
    x = z.clone().requires_grad_()
    out, err = call_tensor(fn, x, -1)
    if err:
        return err
    (g,) = torch.autograd.grad(-out[y], x)
    sm = derived_softmax(z[None])[0]
    ref = fm.ev(fm.ce_gradient(), {"s": sm, "n": n, "y": y + 1}, grid={"j": n})
    return compare(g, ref, tolerance(n), "∂(−log s_y)/∂z_j = s_j − δ_jy, derived, against autograd")


def _large(log: bool):
    def check(fn, s, gen, simple, variant):
        z = _logits(gen, s, simple)
        z = z / z.abs().max() * 1e4
        out, err = call_tensor(fn, z, -1)
        if err:
            return err
        out = _as(out)
        ref = derived_log_softmax(z) if log else derived_softmax(z)
        if not bool(torch.isfinite(out).all()):
            idx = tuple(torch.nonzero(~torch.isfinite(out))[0].tolist())
            return Outcome(
                False,
                float("inf"),
                0.0,
                idx,
                float(ref[idx]),
                float(out[idx]),
                "a finite result at logits up to ±1e4 (subtract the maximum before exp"
                + (", and take log-sum-exp rather than the log of a softmax)" if log else ")"),
            )
        return compare(out, ref, tolerance(s["N"], 1e4), "the derived (shifted) value at logits up to ±1e4")

    return check


def _float32(kind_call):
    def check(fn, s, gen, simple, variant):
        args64, n, scale = kind_call(gen, s, simple)
        a, err = call_tensor(fn, *args64)
        if err:
            return err
        b, err = call_tensor(
            fn, *[x.float() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in args64]
        )
        if err:
            return err
        return compare(
            _as(b),
            _as(a),
            tolerance(n, scale, torch.float32),
            "the float32 result against the float64 one (tolerance from float32's eps)",
        )

    return check


def _softmax_args(gen, s, simple):
    z = _logits(gen, s, simple, 3.0)
    return (z, -1), s["N"], 1 + float(z.abs().max())


ROWS = {"B": 3, "N": 8}
RMIN = {"B": 1, "N": 2}


def softmax_properties() -> list[Property]:
    return [
        Property(
            "matches-derived",
            "softmax-simplex",
            "equals exp(z_i)/Σ_k exp(z_k) along dim (dim=-1 and dim=0)",
            _values(False),
            ROWS,
            RMIN,
        ),
        Property("simplex", "softmax-simplex", "outputs in [0, 1], summing to 1", _simplex(False), ROWS, RMIN),
        Property("shift-invariance", "softmax-simplex", "softmax(z + c) = softmax(z)", _shift, ROWS, RMIN),
        Property("jacobian", "softmax-jacobian", "autograd Jacobian = diag(s) − s sᵀ", _jacobian, ROWS, RMIN),
        Property(
            "finite-large-logits",
            "softmax-simplex",
            "finite and correct at logits up to ±1e4",
            _large(False),
            ROWS,
            RMIN,
        ),
        Property(
            "float32-vs-float64",
            "softmax-simplex",
            "float32 within float32's rounding of float64",
            _float32(_softmax_args),
            ROWS,
            RMIN,
        ),
    ]


def log_softmax_properties() -> list[Property]:
    return [
        Property(
            "matches-derived",
            "cross-entropy-softmax-gradient",
            "equals log(exp(z_i)/Σ_k exp(z_k)) along dim (dim=-1 and dim=0)",
            _values(True),
            ROWS,
            RMIN,
        ),
        Property(
            "exp-on-simplex", "softmax-simplex", "exp of the output is on the simplex", _simplex(True), ROWS, RMIN
        ),
        Property(
            "gradient",
            "cross-entropy-softmax-gradient",
            "∂(−out_y)/∂z = softmax(z) − onehot(y)",
            _log_gradient,
            ROWS,
            RMIN,
        ),
        Property(
            "finite-large-logits",
            "softmax-simplex",
            "finite and correct at logits up to ±1e4",
            _large(True),
            ROWS,
            RMIN,
        ),
        Property(
            "float32-vs-float64",
            "softmax-simplex",
            "float32 within float32's rounding of float64",
            _float32(_softmax_args),
            ROWS,
            RMIN,
        ),
    ]


# --- cross-entropy ----------------------------------------------------------------------------------


def smoothed(p: torch.Tensor, variant) -> torch.Tensor:
    """PyTorch's label smoothing ε (``F.cross_entropy(…, label_smoothing=ε)``): the target p becomes
    (1 − ε)·p + ε/C, C classes; the loss is then the derived −Σ_i p_i log q_i at that target."""
    e = variant.label_smoothing or 0.0
    return p if not e else (1 - e) * p + e / p.shape[-1]


def _smoothing_note(variant) -> str:
    e = variant.label_smoothing
    return f", p smoothed to (1 − {e:g})·p + {e:g}/C" if e else ""


def _row_sum(expr, p, q):
    n = p.shape[-1]
    return torch.vmap(lambda pr, qr: fm.ev(expr, {"p": pr, "q": qr, "n": n}))(p, q)


def _ce_index(fn, s, gen, simple, variant):
    z = _logits(gen, s, simple, 3.0)
    y = torch.randint(s["N"], (s["B"],), generator=gen)
    out, err = call_tensor(fn, z, y)
    if err:
        return err
    p = smoothed(torch.nn.functional.one_hot(y, s["N"]).to(F64), variant)
    ref = _row_sum(fm.cross_entropy(), p, derived_softmax(z)).mean()
    return compare(
        _as(out),
        ref,
        tolerance(s["N"] + s["B"], 1 + float(z.abs().max())),
        "mean over the batch of −Σ_i p_i log q_i, p = onehot(target), q = softmax(logits)" + _smoothing_note(variant),
    )


def _ce_probs(fn, s, gen, simple, variant):
    z = _logits(gen, s, simple, 3.0)
    p = derived_softmax(draw(gen, s["B"], s["N"], simple=simple))
    out, err = call_tensor(fn, z, p)
    if err:
        return err
    ref = _row_sum(fm.entropy_plus_kl(), smoothed(p, variant), derived_softmax(z)).mean()
    return compare(
        _as(out),
        ref,
        tolerance(s["N"] + s["B"], 1 + float(z.abs().max())),
        "mean over the batch of H(p) + KL(p‖q), derived (probability targets)" + _smoothing_note(variant),
    )


def _ce_gradient(fn, s, gen, simple, variant):
    z = _logits(gen, s, simple, 2.0)
    y = torch.randint(s["N"], (s["B"],), generator=gen)
    g, err = _grad(fn, z, y)
    if err:
        return err
    sm = derived_softmax(z)
    if variant.label_smoothing:  # a soft target: kl-distillation's (q − p)/T at T = 1
        p = smoothed(torch.nn.functional.one_hot(y, s["N"]).to(F64), variant)
        ref = _soft_ce_gradient(sm, p, 1.0, s["N"])
        return compare(
            g,
            ref / s["B"],
            tolerance(s["N"]),
            "(softmax(z) − p)/B, derived (soft-ce-gradient at T = 1)" + _smoothing_note(variant) + ", against autograd",
        )
    e = fm.ce_gradient()
    ref = torch.vmap(lambda sr, yr: fm.ev(e, {"s": sr, "n": s["N"], "y": yr + 1}, grid={"j": s["N"]}))(sm, y)
    return compare(g, ref / s["B"], tolerance(s["N"]), "(softmax(z) − onehot(y))/B, derived, against autograd")


def _ce_large(fn, s, gen, simple, variant):
    z = _logits(gen, s, simple)
    z = z / z.abs().max() * 1e4
    y = torch.randint(s["N"], (s["B"],), generator=gen)
    out, err = call_tensor(fn, z, y)
    if err:
        return err
    out = _as(out)
    p = smoothed(torch.nn.functional.one_hot(y, s["N"]).to(F64), variant)
    ref_mean = -(p * derived_log_softmax(z)).sum(1).mean()
    if not bool(torch.isfinite(out)):
        return Outcome(
            False,
            float("inf"),
            0.0,
            (),
            float(ref_mean),
            float(out),
            "a finite loss at logits up to ±1e4 (subtract the maximum before exp)",
        )
    return compare(out, ref_mean, tolerance(s["N"] + s["B"], 1e4), "the derived loss at logits up to ±1e4")


def _ce_args(gen, s, simple):
    z = _logits(gen, s, simple, 3.0)
    return (z, torch.randint(s["N"], (s["B"],), generator=gen)), s["N"] + s["B"], 1 + float(z.abs().max())


def cross_entropy_properties() -> list[Property]:
    return [
        Property(
            "matches-derived",
            "cross-entropy-decomposition",
            "class-index targets: mean of −log softmax(logits)[target]",
            _ce_index,
            ROWS,
            RMIN,
        ),
        Property(
            "probability-targets",
            "cross-entropy-decomposition",
            "probability targets: mean of H(p) + KL(p‖softmax(logits))",
            _ce_probs,
            ROWS,
            RMIN,
            lambda v: (
                (f"skip: the loss takes class indices only (with probability targets it raised {v.index_targets_only})")
                if v.index_targets_only
                else "holds"
            ),
        ),
        Property(
            "gradient",
            "cross-entropy-softmax-gradient",
            "∂loss/∂logits = (softmax − onehot)/B",
            _ce_gradient,
            ROWS,
            RMIN,
        ),
        Property(
            "finite-large-logits", "softmax-simplex", "finite and correct at logits up to ±1e4", _ce_large, ROWS, RMIN
        ),
        Property(
            "float32-vs-float64",
            "softmax-simplex",
            "float32 within float32's rounding of float64",
            _float32(_ce_args),
            ROWS,
            RMIN,
        ),
    ]


# --- KL --------------------------------------------------------------------------------------------------


def _dists(gen, s, simple):
    p = derived_softmax(draw(gen, s["B"], s["N"], simple=simple))
    q = derived_softmax(draw(gen, s["B"], s["N"], simple=simple))
    return p, q


def _kl_value(fn, s, gen, simple, variant):
    p, q = _dists(gen, s, simple)
    out, err = call_tensor(fn, q.log(), p)
    if err:
        return err
    ref = fm.ev(fm.kl_batchmean(), {"p": p, "q": q, "n": s["N"], "B": s["B"]})
    return compare(
        _as(out),
        ref,
        tolerance(s["N"] * s["B"], 10.0),
        "KL(p‖q) = Σ_{b,i} p log(p/q)/B, derived (kl-distillation 'batchmean')",
    )


def _kl_direction(fn, s, gen, simple, variant):
    pl, ql = fm.kl_asymmetric_pair()
    p, q = torch.tensor([pl], dtype=F64), torch.tensor([ql], dtype=F64)
    out, err = call_tensor(fn, q.log(), p)
    if err:
        return err
    ref = fm.ev(fm.kl_batchmean(), {"p": p, "q": q, "n": 2, "B": 1})
    return compare(
        _as(out), ref, tolerance(2), f"KL(p‖q) at the claim's pair p = {pl}, q = {ql} (KL(q‖p) differs there)"
    )


def _kl_gibbs(fn, s, gen, simple, variant):
    p, q = _dists(gen, s, simple)
    a, err = call_tensor(fn, q.log(), p)
    if err:
        return err
    b, err = call_tensor(fn, p.log(), p)
    if err:
        return err
    tol = tolerance(s["N"] * s["B"])
    return worst_comparison(
        compare(_as(a).clamp(max=0.0), torch.zeros(()), tol, "KL(p‖q) ≥ 0 (Gibbs)"),
        compare(_as(b), torch.zeros(()), tol, "KL(p‖p) = 0"),
    )


def _kl_args(gen, s, simple):
    p, q = _dists(gen, s, simple)
    return (q.log(), p), s["N"] * s["B"], 10.0


# --- distillation: kl --temperature T, fn(student_logits, teacher_logits) ----------------------------------


def _distill_args(gen, s, simple):
    return _logits(gen, s, simple, 3.0), _logits(gen, s, simple, 3.0)


def _distill_value(fn, s, gen, simple, variant):
    """T²·KL(softmax(v/T) ‖ softmax(z/T)), batchmean: kl-distillation's 'batchmean' rhs at the two
    tempered softmaxes, times the T² the claim's high-temperature part multiplies the gradient by."""
    T = variant.temperature
    z, v = _distill_args(gen, s, simple)
    out, err = call_tensor(fn, z, v)
    if err:
        return err
    p, q = derived_softmax(v / T), derived_softmax(z / T)
    ref = T**2 * fm.ev(fm.kl_batchmean(), {"p": p, "q": q, "n": s["N"], "B": s["B"]})
    return compare(
        _as(out),
        ref,
        tolerance(s["N"] * s["B"], 10.0 * T**2),
        f"T²·Σ_b KL(softmax(v/T) ‖ softmax(z/T))/B at T = {T:g}, derived (kl-distillation 'batchmean')",
    )


def _distill_gradient(fn, s, gen, simple, variant):
    """∂loss/∂z = T²·(q − p)/(T·B): the soft-ce-gradient part's (q − p)/T (the entropy of the
    teacher does not depend on z), times T², over the batch."""
    T = variant.temperature
    z, v = _distill_args(gen, s, simple)
    g, err = _grad(fn, z, v)
    if err:
        return err
    ref = _soft_ce_gradient(derived_softmax(z / T), derived_softmax(v / T), T, s["N"])
    return compare(
        g,
        T**2 * ref / s["B"],
        tolerance(s["N"], T),
        f"T²·(q − p)/(T·B) at T = {T:g}, derived (soft-ce-gradient), against autograd",
    )


def _distill_zero(fn, s, gen, simple, variant):
    z, _ = _distill_args(gen, s, simple)
    out, err = call_tensor(fn, z, z.clone())
    if err:
        return err
    return compare(
        _as(out),
        torch.zeros(()),
        tolerance(s["N"] * s["B"], variant.temperature**2),
        "the loss is 0 when the student's logits are the teacher's (Gibbs: KL(p‖p) = 0)",
    )


def distill_properties() -> list[Property]:
    return [
        Property(
            "matches-derived",
            "kl-distillation",
            "fn(z, v) = T²·KL(softmax(v/T) ‖ softmax(z/T)), mean over the batch",
            _distill_value,
            ROWS,
            RMIN,
        ),
        Property(
            "gradient",
            "kl-distillation",
            "∂loss/∂z = T(q − p)/B (the T² keeps the gradient's scale)",
            _distill_gradient,
            ROWS,
            RMIN,
        ),
        Property(
            "gibbs", "gibbs-inequality", "0 when the student's logits equal the teacher's", _distill_zero, ROWS, RMIN
        ),
        Property(
            "float32-vs-float64",
            "kl-distillation",
            "float32 within float32's rounding of float64",
            _float32(lambda gen, s, simple: (_distill_args(gen, s, simple), s["N"] * s["B"], 10.0)),
            ROWS,
            RMIN,
        ),
    ]


def kl_properties() -> list[Property]:
    return [
        Property(
            "matches-derived", "kl-distillation", "fn(log q, p) = KL(p‖q) per sample (batchmean)", _kl_value, ROWS, RMIN
        ),
        Property(
            "direction",
            "kl-distillation",
            "KL(p‖q), not KL(q‖p), at the claim's asymmetric pair",
            _kl_direction,
            {},
            {},
        ),
        Property("gibbs", "gibbs-inequality", "KL ≥ 0, and 0 when q = p", _kl_gibbs, ROWS, RMIN),
        Property(
            "float32-vs-float64",
            "kl-distillation",
            "float32 within float32's rounding of float64",
            _float32(_kl_args),
            ROWS,
            RMIN,
        ),
    ]


def softmax_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe (softmax, log-softmax): (4, 64) logits over the last axis; n = 64."""
    z = draw(gen, 4, 64) * 3
    return (lambda: fn(z, -1)), 64


def index_targets_only(fn, gen) -> str:
    """The exception a cross-entropy raises on probability targets (B, C) after running on class
    indices — it takes class indices only (nanoGPT's ``F.cross_entropy(…, ignore_index=-1)`` wrappers,
    fused kernels) — or "" when it takes both."""
    z, p = draw(gen, 4, 16) * 3, draw(gen, 4, 16).softmax(-1)
    _, err = call_tensor(fn, z, p)
    return err.note.removeprefix("the callable raised ") if err and err.crashed and err.error else ""


def cross_entropy_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: (4, 16) logits and class targets; n = 20."""
    z, t = draw(gen, 4, 16) * 3, torch.randint(16, (4,), generator=gen)
    return (lambda: fn(z, t)), 20


def kl_probe(fn, variant, gen, module=None) -> tuple[Callable[[], object], int]:
    """Precision probe: KL(p ‖ q) on (4, 16), or distillation's fn(student, teacher) at a temperature."""
    if variant.temperature is not None:  # distillation: fn(student_logits, teacher_logits)
        z, v = draw(gen, 4, 16) * 3, draw(gen, 4, 16) * 3
        return (lambda: fn(z, v)), 64
    p, q = draw(gen, 4, 16).softmax(-1), draw(gen, 4, 16).softmax(-1)
    return (lambda: fn(q.log(), p)), 64
