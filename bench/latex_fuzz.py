"""A differential fuzzer for the LaTeX reader: random SymPy expressions printed by SymPy's own
``latex()`` must read back (``mathcheck.latex.translate``, then the text grammar's parser) to the
same expression.

    python bench/latex_fuzz.py [--cases N] [--seed S] [--json] [--case K]

Case ``k`` of seed ``S`` is drawn from ``random.Random(f"{S}:{k}")`` alone, so any case replays on
its own (``--case k``). An expression is a random tree of depth ≤ 4 over the real symbols
``x y z a b w``, small integers and rationals: ``+ − × ÷``, powers (integer, 1/2, 1/3, symbolic),
``sqrt``, n-th roots, ``exp log sin cos tan sinh cosh tanh asin acos atan Abs``, Leibniz
derivatives ``Derivative(f, x)`` (SymPy prints ``\\frac{d}{d x} f``: the term after the operator,
the case issue 28 found misread) and function powers (``\\sin^{2}{…}``). Each case is

* ``same``: the read expression is the printed one, node for node (``srepr``), or equal to it after
  ``doit()`` (a derivative is evaluated by the parser);
* ``equal``: a different tree that agrees with it at 4 random points to 1e-20 relative (mpmath,
  30 digits) — counted, not a failure: SymPy rebuilds some trees on printing (``x^{-1}`` as ``\\frac{1}{x}``);
* ``skipped``: SymPy folded the tree into a complex or infinite constant (``log(-1)`` is ``iπ``, printed
  ``i \\pi``, and ``i`` is a variable in mathcheck's LaTeX) — not a reading of what people write;
The symbols are declared (as ``% assume: x, y, z, a, b, w \\in \\mathbb{R}`` would): SymPy prints
``x (y + 1)`` as ``x \\left(y + 1\\right)``, which an undeclared name would make a function applied.

* ``refused``: the reader says one line (a notation it does not read) — counted, not a failure;
* ``mismatch``: the reading differs in value — a misreading, the failure this bench hunts;
* ``crash``: any other exception.

``--json`` prints the counts and every mismatch and crash with its LaTeX and a replay line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import sympy as sp

NAMES = "x y z a b w".split()
SYMBOLS = {n: sp.Symbol(n, real=True) for n in NAMES}
FUNCTIONS = (sp.sin, sp.cos, sp.tan, sp.exp, sp.log, sp.sinh, sp.cosh, sp.tanh, sp.asin, sp.acos,
             sp.atan, sp.Abs, sp.sqrt)


def expression(rng: random.Random, depth: int = 4) -> sp.Expr:
    """A random expression tree (see the module docstring). ``expression(random.Random("0:1"))``
    is the same tree on every machine."""
    if depth == 0 or rng.random() < 0.25:
        r = rng.random()
        if r < 0.7:
            return SYMBOLS[rng.choice(NAMES)]
        if r < 0.9:
            return sp.Integer(rng.randint(1, 9))
        return sp.Rational(rng.randint(1, 9), rng.randint(2, 9))
    kind = rng.choice(("add", "sub", "mul", "div", "pow", "fn", "fn", "fnpow", "root", "diff", "neg"))
    a = expression(rng, depth - 1)
    if kind == "fn":
        return rng.choice(FUNCTIONS)(a)
    if kind == "fnpow":
        return rng.choice((sp.sin, sp.cos, sp.tanh, sp.log))(a) ** rng.choice((2, 3, sp.Rational(1, 2)))
    if kind == "root":
        return sp.root(a, rng.choice((3, 4)))
    if kind == "neg":
        return -a
    if kind == "diff":
        v = SYMBOLS[rng.choice(NAMES[:3])]
        return sp.Derivative(a * v, v, evaluate=False)
    b = expression(rng, depth - 1)
    if kind == "add":
        return a + b
    if kind == "sub":
        return a - b
    if kind == "mul":
        return a * b
    if kind == "div":
        return a / b
    return a ** (rng.choice((2, 3, -1, -2, sp.Rational(1, 2))) if rng.random() < 0.6 else b)


def _values(e: sp.Expr, point: dict):
    try:
        v = sp.N(e.subs(point), 30)
    except Exception:  # noqa: BLE001 — an expression SymPy cannot evaluate there: no evidence
        return None
    return complex(v) if v.is_number and v.is_finite else None


def compare(expr: sp.Expr, rng: random.Random) -> tuple[str, str, str]:
    """``(outcome, latex, read)`` for one expression: see the module docstring."""
    from mathcheck import latex, parser
    from mathcheck.chains import DeriveError

    tex = sp.latex(expr)
    if expr.has(sp.I, sp.zoo, sp.nan, sp.oo):
        return "skipped", tex, "SymPy simplified it to a complex or infinite constant, which LaTeX spells as a variable i"
    try:
        text = latex.translate(tex, variables=NAMES)  # as % assume: x, y, … \in \mathbb{R} declares them
    except DeriveError as exc:
        return "refused", tex, str(exc)
    try:
        got = parser.parse(text)
    except (ValueError, DeriveError) as exc:
        return "refused", tex, f"{text}: {exc}"
    want = expr.doit()
    if sp.srepr(got) in (sp.srepr(expr), sp.srepr(want)) or sp.srepr(got.doit()) == sp.srepr(want):
        return "same", tex, text
    agree = 0
    for _ in range(4):
        point = {SYMBOLS[n]: sp.Rational(rng.randint(-300, 300), 97) for n in NAMES}
        point = {s: v if v != 0 else sp.Rational(1, 3) for s, v in point.items()}
        u = _values(want, point)
        v = _values(got.doit().subs({sp.Symbol(n, real=True): SYMBOLS[n] for n in NAMES}), point)
        if u is None and v is None:
            continue
        if u is None or v is None or abs(u - v) > 1e-20 * max(1.0, abs(u)):
            return "mismatch", tex, text
        agree += 1
    return ("equal" if agree else "same-unevaluable"), tex, text


def run(cases: int, seed: int, only: int | None = None) -> dict:
    counts = {"same": 0, "equal": 0, "same-unevaluable": 0, "refused": 0, "skipped": 0, "mismatch": 0, "crash": 0}
    bad, refusals = [], {}
    ks = [only] if only is not None else range(cases)
    start = time.perf_counter()
    for k in ks:
        rng = random.Random(f"{seed}:{k}")
        expr = expression(rng)
        try:
            outcome, tex, text = compare(expr, rng)
        except Exception as exc:  # noqa: BLE001 — a crash is what we count
            outcome, tex, text = "crash", sp.latex(expr), f"{type(exc).__name__}: {exc}"
        counts[outcome] += 1
        if outcome in ("mismatch", "crash"):
            bad.append({"case": k, "outcome": outcome, "latex": tex, "read": text, "sympy": sp.srepr(expr),
                        "replay": f"python bench/latex_fuzz.py --seed {seed} --case {k}"})
        elif outcome == "refused":
            why = text.split(": ", 1)[-1][:60]
            refusals[why] = refusals.get(why, 0) + 1
    return {"cases": len(ks), "seed": seed, **counts, "seconds": round(time.perf_counter() - start, 1),
            "refusals": dict(sorted(refusals.items(), key=lambda kv: -kv[1])[:10]), "bad": bad}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--case", type=int, default=None, help="replay one case")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    out = run(a.cases, a.seed, a.case)
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        print(" ".join(f"{k}={out[k]}" for k in ("cases", "same", "equal", "same-unevaluable", "refused", "skipped",
                                                  "mismatch", "crash", "seconds")))
        for b in out["bad"]:
            print(f"{b['outcome']}: {b['latex']}  read as  {b['read']}  ({b['replay']})")
    return 1 if out["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
