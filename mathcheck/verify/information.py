"""Numeric checks for §5 (information theory)."""

from __future__ import annotations

import sympy as sp
import torch
import torch.nn.functional as F

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype, generator
from mathcheck.verify.evaluate import evaluate

# PyTorch's own functions behind the names the derivations use. F.kl_div takes its *input* in log
# space and computes KL(target ‖ exp(input)): KL(a‖b) is kl_div(log b, a), not kl_div(log a, b).
TORCH_FUNCTIONS = {
    "CrossEntropy": lambda a, b: F.cross_entropy(b.log().unsqueeze(0), a.unsqueeze(0)),
    "H": lambda a: torch.distributions.Categorical(probs=a).entropy(),
    "KL": lambda a, b: F.kl_div(b.log(), a, reduction="sum"),
}
REFERENCE = ("F.cross_entropy(log q, p) [probability targets], "
             "torch.distributions.Categorical(p).entropy(), F.kl_div(log q, p, reduction='sum')")


def _cases(options: Options):
    g = generator(options, salt=5)
    dt = dtype(options)
    for n in (2, 10, 1000):
        for name, scale in (("softmax(randn)", 1.0), ("peaked softmax(8·randn)", 8.0)):
            p = F.softmax(torch.randn(n, generator=g, dtype=dt) * scale, 0)
            q = F.softmax(torch.randn(n, generator=g, dtype=dt) * scale, 0)
            yield f"n={n} {name}", n, p, q
        u = torch.full((n,), 1.0 / n, dtype=dt)
        yield f"n={n} p uniform", n, u, F.softmax(torch.randn(n, generator=g, dtype=dt), 0)


def _env(eq, n, p, q):
    env = {}
    for b in eq.atoms(sp.IndexedBase):
        env[b] = {"p": p, "q": q}[b.label.name]
    for s in eq.free_symbols:
        if getattr(s, "name", None) == "n":
            env[s] = n
    for f in eq.atoms(sp.core.function.AppliedUndef):  # H(p) with p bare: bind the base's label too
        for a in f.args:
            if isinstance(a, sp.IndexedBase):
                env[a] = {"p": p, "q": q}[a.label.name]
    return env


def cross_entropy_decomposition(statements: dict, options: Options) -> NumericVerdict:
    """Both sides evaluated with PyTorch's functions on random and peaked distributions."""
    cmp = Comparison(REFERENCE, options, atol=1e-12, rtol=1e-10)
    for case, n, p, q in _cases(options):
        for part, eq in statements.items():
            env = _env(eq, n, p, q)
            lhs = evaluate(eq.lhs, env, TORCH_FUNCTIONS, dtype=p.dtype)
            rhs = evaluate(eq.rhs, env, TORCH_FUNCTIONS, dtype=p.dtype)
            cmp.compare(f"{part} {case}", lhs, rhs, n=n)
    return cmp.verdict()
