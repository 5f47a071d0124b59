"""Hand-written ``torch.autograd.Function``s — a forward and its own backward — our own rewrites in the
style of Megatron-LM's single-partition cross-entropy (``_VocabParallelCrossEntropy`` in
megatron/core/tensor_parallel/cross_entropy.py @ d98e8a64ddf34856e74b24714e3bedb2f5a39553: the
softmax saved in forward, the gradient softmax − onehot formed in backward) and of the fused softmax
kernels' reference backward (gpt-neox megatron/model/fused_softmax.py @
ea7aefd8f8e183256992d9fede4d7c71a46d67a5: y·(g − Σ g·y)), with bugs planted in the backward only:
the forward is right, so only the gradient properties can catch them.
"""

import torch


class _Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = torch.softmax(x, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None


class _SoftmaxBackwardNoCentring(_Softmax):
    """Planted bug: the backward drops − Σ g·y (diag(y) for diag(y) − y yᵀ)."""

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return y * g, None


def softmax(x, dim):
    return _Softmax.apply(x, dim)


def softmax_backward_no_centring(x, dim):
    return _SoftmaxBackwardNoCentring.apply(x, dim)


class _CrossEntropy(torch.autograd.Function):
    """Mean over the batch of −log softmax(z)_y; class indices only."""

    @staticmethod
    def forward(ctx, logits, target):
        z = logits - logits.max(dim=-1, keepdim=True).values
        e = z.exp()
        s = e.sum(dim=-1, keepdim=True)
        loss = (s.log().squeeze(-1) - z.gather(-1, target[:, None]).squeeze(-1)).mean()
        ctx.save_for_backward(e / s, target)
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        softmax, target = ctx.saved_tensors
        grad = softmax.clone()
        grad[torch.arange(grad.shape[0]), target] -= 1.0
        return grad * grad_output / grad.shape[0], None


class _CrossEntropyBackwardNoMean(_CrossEntropy):
    """Planted bug: the backward forgets the 1/B of the forward's mean."""

    @staticmethod
    def backward(ctx, grad_output):
        softmax, target = ctx.saved_tensors
        grad = softmax.clone()
        grad[torch.arange(grad.shape[0]), target] -= 1.0
        return grad * grad_output, None


def cross_entropy(logits, target):
    return _CrossEntropy.apply(logits, target)


def cross_entropy_backward_no_mean(logits, target):
    return _CrossEntropyBackwardNoMean.apply(logits, target)


CASES = [
    ("softmax", "softmax", [], None),
    ("softmax_backward_no_centring", "softmax", [], "jacobian"),
    ("cross_entropy", "cross-entropy", [], None),
    ("cross_entropy_backward_no_mean", "cross-entropy", [], "gradient"),
]
