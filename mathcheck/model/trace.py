"""Run a model once and record what its sub-layers did.

Every module gets a forward pre-hook and hook that keep a stack of module paths, so a call of
``F.scaled_dot_product_attention`` or a softmax, intercepted by a ``TorchFunctionMode``, is
attributed to the innermost module running it (``model.layers.0.self_attn``). Module outputs are
kept in completion order (children before parents), which is what lets a model-level failure be
pinned to the first module whose output went wrong.

    >>> import torch
    >>> m = torch.nn.Sequential(torch.nn.Linear(2, 2))
    >>> t = Trace(m)
    >>> with t:
    ...     _ = torch.softmax(m(torch.ones(1, 2)), -1)
    >>> [(c.path, c.kind) for c in t.calls], [p for p, *_ in t.outputs]
    ([('', 'softmax')], ['0', ''])
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

SOFTMAXES = (F.softmax, torch.softmax, torch.Tensor.softmax)
SDPA = F.scaled_dot_product_attention


@dataclass
class Call:
    """One intercepted call: where, what, its inputs and output (detached copies)."""

    path: str
    kind: str  # "sdpa" | "softmax"
    inputs: dict
    output: torch.Tensor
    index: int = 0  # the n-th call of this module in the forward


def _keep(x):
    return x.detach().clone() if isinstance(x, torch.Tensor) else x


def _bind_sdpa(args, kwargs) -> dict:
    names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
    out = {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None, "enable_gqa": False}
    out.update(dict(zip(names, args)))
    out.update(kwargs)
    return {k: _keep(v) for k, v in out.items()}


def _bind_softmax(args, kwargs) -> dict:
    out = {
        "input": args[0],
        "dim": args[1] if len(args) > 1 else kwargs.get("dim"),
        "dtype": kwargs.get("dtype", args[3] if len(args) > 3 else None),
    }
    if len(args) > 2 and isinstance(args[2], torch.dtype):  # torch.softmax(x, dim, dtype)
        out["dtype"] = args[2]
    return {k: _keep(v) for k, v in out.items()}


class _Intercept(TorchFunctionMode):
    def __init__(self, trace):
        super().__init__()
        self.trace = trace

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.is_floating_point() and not self.trace.in_tables():
            self.trace.op_dtypes.add(out.dtype)
            self.trace.dtypes_at.setdefault(self.trace.stack[-1] if self.trace.stack else "", set()).add(out.dtype)
        if func is SDPA:
            self.trace.record("sdpa", _bind_sdpa(args, kwargs), out)
        elif func in SOFTMAXES:
            self.trace.record("softmax", _bind_softmax(args, kwargs), out)
        return out


class Trace:
    """A context manager: while active, the model's calls and module outputs are recorded."""

    def __init__(self, model: torch.nn.Module, calls: bool = True):
        self.model = model
        self.names = {id(m): name for name, m in model.named_modules()}
        self.stack: list[str] = []
        self.entered: list[str] = []  # module paths in the order their forward began
        self.calls: list[Call] = []
        self.outputs: list[tuple[str, torch.Tensor, torch.Tensor | None]] = []  # (path, output, input)
        self.from_ids: set[int] = set()  # indices into outputs: modules given integer tensors and no floating one
        self._counts: dict = {}
        self.op_dtypes: set = set()  # the dtypes of every floating op's result, rotary tables' aside
        self.dtypes_at: dict[str, set] = {}  # the same, per innermost running module path
        self._tables = {
            name for name, m in model.named_modules() if isinstance(getattr(m, "inv_freq", None), torch.Tensor)
        }
        self._handles = []
        self._mode = _Intercept(self) if calls else None

    def in_tables(self) -> bool:
        """Inside a rotary module (its cos/sin tables are float32 by design, the same in every run)."""
        return bool(self.stack) and self.stack[-1] in self._tables

    def record(self, kind, inputs, out) -> None:
        path = self.stack[-1] if self.stack else ""
        n = self._counts.get((path, kind), 0)
        self._counts[(path, kind)] = n + 1
        self.calls.append(Call(path, kind, inputs, _keep(out), n))

    def _pre(self, module, args):
        self.stack.append(self.names.get(id(module), "?"))
        self.entered.append(self.stack[-1])

    def _post(self, module, args, kwargs, out):
        path = self.stack.pop() if self.stack else "?"
        first = out[0] if isinstance(out, (tuple, list)) and out else getattr(out, "logits", out)
        if isinstance(first, torch.Tensor) and first.is_floating_point() and first.dim() >= 2:
            # the first floating tensor passed positionally, else by keyword (transformers' decoder
            # layers call self_attn(hidden_states=…))
            given = [a for a in (*args, *(kwargs or {}).values()) if isinstance(a, torch.Tensor)]
            inp = next((a for a in given if a.is_floating_point()), None)
            if given and not any(a.is_floating_point() for a in given):  # an embedding of ids (and positions)
                self.from_ids.add(len(self.outputs))
            self.outputs.append((path, first.detach(), None if inp is None else inp.detach()))

    def __enter__(self):
        for m in self.model.modules():
            self._handles.append(m.register_forward_pre_hook(self._pre))
            self._handles.append(m.register_forward_hook(self._post, with_kwargs=True, always_call=True))
        if self._mode is not None:
            self._mode.__enter__()
        return self

    def __exit__(self, *exc):
        if self._mode is not None:
            self._mode.__exit__(*exc)
        for h in self._handles:
            h.remove()
        self._handles.clear()
        self.stack.clear()
        return False
