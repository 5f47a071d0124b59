import sympy as sp
import torch

from mathcheck.numeric.evaluate import evaluate

n = sp.Symbol("n", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True)
z = sp.IndexedBase("z")


def test_sum_and_indexed():
    v = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    assert float(evaluate(sp.Sum(z[k] ** 2, (k, 1, n)), {n: 3, z: v})) == 14.0


def test_double_sum_and_kronecker_delta():
    v = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    e = sp.Sum(z[i] * z[j] * sp.KroneckerDelta(i, j), (i, 1, n), (j, 1, n))
    assert torch.isclose(evaluate(e, {n: 3, z: v}), (v**2).sum())


def test_broadcast_free_indices_give_a_matrix():
    v = torch.randn(4, dtype=torch.float64)
    idx = torch.arange(1, 5, dtype=torch.float64)
    J = evaluate(z[i] * (sp.KroneckerDelta(i, j) - z[j]), {z: v, i: idx[:, None], j: idx[None, :]})
    assert torch.allclose(J, torch.diag(v) - torch.outer(v, v))


def test_gradients_flow():
    v = torch.randn(3, dtype=torch.float64, requires_grad=True)
    out = evaluate(sp.log(sp.Sum(sp.exp(z[k]), (k, 1, n))), {n: 3, z: v})
    out.backward()
    assert torch.allclose(v.grad, torch.softmax(v.detach(), 0))
