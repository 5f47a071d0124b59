"""mathcheck/model/trace.py: what one traced forward records."""

import torch
from torch import nn

from mathcheck.model.trace import Trace


class Inner(nn.Module):
    def forward(self, hidden_states=None):
        return hidden_states * 2


class Outer(nn.Module):
    """Calls its child by keyword, as transformers' decoder layers call ``self_attn(hidden_states=…)``."""

    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(hidden_states=x) + 1


def test_a_module_called_by_keyword_has_its_input_recorded():
    # without its input, a module where two runs part cannot be told from one they merely pass
    # through: a padding failure in transformers' Llama named model.layers.0, not its self_attn
    model, x = Outer(), torch.ones(2, 3)
    with Trace(model) as trace:
        model(x)
    (path, out, inp), _ = trace.outputs
    assert path == "inner" and torch.equal(inp, x) and torch.equal(out, 2 * x)
