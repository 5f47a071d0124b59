"""Numeric checks for §6 (combinatorics and positions)."""

from __future__ import annotations

import math

import sympy as sp
import torch

from mathcheck.verdict import NumericVerdict
from mathcheck.verify import Options
from mathcheck.verify._compare import Comparison, dtype
from mathcheck.verify.evaluate import evaluate

D_MODEL = 512
POSITIONS = 2048
SHIFTS = (1, 7, 100, 1000)


def sinusoidal_table(length: int, d: int, dt=torch.float64) -> torch.Tensor:
    """The Transformer's table, written as PyTorch code writes it (the "Annotated Transformer")."""
    position = torch.arange(length, dtype=dt).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2, dtype=dt) * (-math.log(10000.0) / d))
    pe = torch.zeros(length, d, dtype=dt)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def _env(eq, positions, k, m, dt):
    names = {s.name: s for s in eq.free_symbols if isinstance(s, sp.Symbol)}
    env = {}
    if "pos" in names:
        env[names["pos"]] = positions.to(dt).reshape(-1, 1)
    if "k" in names:
        env[names["k"]] = float(k)
    if "m" in names:
        env[names["m"]] = m
    if "i" in names:
        env[names["i"]] = torch.arange(m, dtype=dt).reshape(1, -1)
    return env


def sinusoidal_relative_position(statements: dict, options: Options) -> NumericVerdict:
    """The statements against a d=512 table of 2048+1000 positions, for shifts k in SHIFTS.

    ``shift``: the statement's right-hand side, evaluated at every (pos, i), against the table's
    rows pos+k; ``rotation``: MᵀM at every (i, k) against the identity; ``dot``: the table's
    PE(pos)·PE(pos+k) against the statement, at every pos.
    """
    dt = dtype(options)
    m = D_MODEL // 2
    pe = sinusoidal_table(POSITIONS + max(SHIFTS), D_MODEL, dt)
    cmp = Comparison("sinusoidal table (torch.sin/torch.cos, float64), d=512, pos < 2048",
                     options, atol=1e-9, rtol=1e-9)
    pos = torch.arange(POSITIONS)
    for k in SHIFTS:
        for part, eq in statements.items():
            env = _env(eq, pos, k, m, dt)
            if part == "shift":
                rhs = evaluate(eq.rhs, env, dtype=dt)  # (2, 1, positions, m)
                table = torch.stack([pe[pos + k, 0::2], pe[pos + k, 1::2]]).unsqueeze(1)
                cmp.compare(f"shift k={k}", table, rhs, k=k)
            elif part == "rotation":
                MtM = evaluate(eq.lhs, env, dtype=dt)  # (2, 2, 1, m): MᵀM at every frequency
                rhs = evaluate(eq.rhs, env, dtype=dt)
                cmp.compare(f"rotation k={k}", MtM, rhs.reshape(2, 2, *([1] * (MtM.ndim - 2))), k=k)
            elif part == "dot":
                rhs = evaluate(eq.rhs, env, dtype=dt).reshape(-1)
                table = (pe[pos] * pe[pos + k]).sum(-1)
                cmp.compare(f"dot k={k}", table, rhs.expand_as(table), k=k)
            else:
                raise KeyError(f"sinusoidal_relative_position: no numeric check for part {part!r}")
    return cmp.verdict()
