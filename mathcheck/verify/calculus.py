"""Numeric checks for §4 (calculus and optimisation)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options, symbol
from mathcheck.verify._compare import Comparison, dtype, generator
from mathcheck.verify.evaluate import evaluate

SIZES = (2, 5, 64, 512)
# (name, scale, shift): ordinary logits, large-magnitude logits, and a huge common offset that
# overflows a naive exp but not F.softmax.
LOGITS = (("randn", 1.0, 0.0), ("large x30", 30.0, 0.0), ("offset +1000", 3.0, 1000.0))


def _env(eq, z_values, s_values, n):
    syms = {s.name: s for s in eq.free_symbols if hasattr(s, "name")}
    bases = {b.label.name: b for b in eq.atoms(__import__("sympy").IndexedBase)}
    idx = torch.arange(1, n + 1, dtype=z_values.dtype)
    env = {}
    if "n" in syms:
        env[syms["n"]] = n
    if "i" in syms:
        env[syms["i"]] = idx[:, None]
    if "j" in syms:
        env[syms["j"]] = idx[None, :]
    if "z" in bases:
        env[bases["z"]] = z_values
    if "s" in bases:
        env[bases["s"]] = s_values
    return env


def softmax_jacobian(statements: dict, options: Options) -> NumericVerdict:
    """The statements against ``torch.func.jacrev(F.softmax)`` on random float64 logits.

    ``jacobian``: the closed form (s = F.softmax(z)) against the autograd Jacobian, entry (i, j);
    ``rows``: each row sum of the autograd Jacobian against the statement's right-hand side;
    ``symmetric``: J − Jᵀ from autograd against the right-hand side; ``normalised``: Σ F.softmax(z).
    """
    cmp = Comparison("torch.func.jacrev(torch.nn.functional.softmax)", options, atol=1e-12, rtol=1e-9)
    g = generator(options)
    dt = dtype(options)
    for n in SIZES:
        for name, scale, shift in LOGITS:
            z = (torch.randn(n, generator=g, dtype=dt) * scale + shift).to(options.device)
            s = F.softmax(z, dim=0)
            J = torch.func.jacrev(lambda x: F.softmax(x, dim=0))(z)
            where = {"n": n, "logits": name}
            for part, eq in statements.items():
                rhs = evaluate(eq.rhs, _env(eq, z, s, n), dtype=dt, device=options.device)
                if part == "jacobian":
                    cmp.compare(f"{part} n={n} {name}", J, rhs, **where)
                elif part == "rows":
                    cmp.compare(f"{part} n={n} {name}", J.sum(1), rhs.reshape(-1) if rhs.ndim else rhs, **where)
                elif part == "symmetric":
                    cmp.compare(f"{part} n={n} {name}", J - J.T, rhs, **where)
                elif part == "normalised":
                    cmp.compare(f"{part} n={n} {name}", s.sum(), rhs, **where)
                else:
                    raise KeyError(f"softmax_jacobian: no numeric check for part {part!r}")
    return cmp.verdict()
