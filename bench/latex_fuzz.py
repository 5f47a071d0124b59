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
* ``crash``: any other exception;
* ``hang``: a case that ran past ``CASE_SECONDS`` (reader and oracle together; a failure). Where the
  reader answered and only the fuzzer's own SymPy evaluation of the expected value runs past
  ``ORACLE_SECONDS``, the case is ``skipped`` with that reason (``--defs``, seed 0, case 66).

``--hand``: the notation issue 28 added, which SymPy does not print as people write it — unknown
functions ``f\\left(…\\right)``, ``\\operatorname{LSE}\\left(…\\right)`` and their derivatives
``f'\\left(…\\right)`` inside the same random trees, printed by a small subclass of SymPy's printer;
the reading is compared with one random smooth function substituted for each unknown on both sides.
Sums over an index as people write them join the trees: ``\\sum_{j=1}^{3} c_{j} …`` and the bare
``\\sum_{j} c_{j} …`` (mathcheck's generic range 1..N_sum; both sides compared at N_sum = 3, the
coefficients c_1..c_3 drawn once for both), a nested sum over the next index (k, l, m).

``--json`` prints the counts and every mismatch and crash with its LaTeX and a replay line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import sympy as sp

from mathcheck.budget import attempt

NAMES = "x y z a b w".split()
SYMBOLS = {n: sp.Symbol(n, real=True) for n in NAMES}
FUNCTIONS = (
    sp.sin,
    sp.cos,
    sp.tan,
    sp.exp,
    sp.log,
    sp.sinh,
    sp.cosh,
    sp.tanh,
    sp.asin,
    sp.acos,
    sp.atan,
    sp.Abs,
    sp.sqrt,
)


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


UNKNOWN = {n: sp.Function(n, real=True) for n in ("f", "g", "LSE")}
# a sum's coefficient c_j, its index, and the generic size a bare \sum_j runs to (mathcheck's N_sum)
# (a nested sum takes the next index: people never rebind j inside a sum over j)
COEF, GENERIC = sp.IndexedBase("c"), sp.Symbol("N_sum", integer=True, positive=True)
INDICES = {d: sp.Symbol(n, integer=True) for d, n in zip(range(4, 0, -1), "jklm")}
TERMS = 3  # the generic size substituted on both sides before comparing


def hand_expression(rng: random.Random, depth: int = 4) -> sp.Expr:
    """A random tree as :func:`expression`, with the notation issue 28 added and SymPy does not print
    as people write it: unknown functions applied, ``f(…)``, ``\\operatorname{LSE}(…)``, and their
    derivatives at a point, ``f'(…)`` (``Subs(Derivative(f(ξ), ξ), ξ, …)``), and sums over an index
    as people write them, ``\\sum_{j=1}^{3} c_{j} …`` and the bare ``\\sum_{j} c_{j} …`` (mathcheck's
    generic range 1..N_sum)."""
    if depth == 0 or rng.random() < 0.25:
        return expression(rng, 0)
    kind = rng.choice(("uf", "uf", "prime", "tree", "tree", "sum"))
    if kind == "sum":
        bound = rng.choice((sp.Integer(TERMS), GENERIC))
        j = INDICES[depth]
        return sp.Sum(COEF[j] * hand_expression(rng, depth - 1), (j, 1, bound))
    if kind == "tree":  # one level of the ordinary tree over hand-notation children
        a, b = hand_expression(rng, depth - 1), hand_expression(rng, depth - 1)
        op = rng.choice(("add", "mul", "div", "pow", "fn", "diff"))
        if op == "add":
            return a + b
        if op == "mul":
            return a * b
        if op == "div":
            return a / b
        if op == "pow":
            return a ** rng.choice((2, 3, sp.Rational(1, 2)))
        if op == "diff":
            v = SYMBOLS[rng.choice(NAMES[:3])]
            return sp.Derivative(a * v, v, evaluate=False)
        return rng.choice(FUNCTIONS)(a)
    f = UNKNOWN[rng.choice(list(UNKNOWN))]
    a = hand_expression(rng, depth - 1)
    if kind == "uf":
        return f(a)
    xi = sp.Dummy("xi", real=True)
    return sp.Subs(sp.Derivative(f(xi), xi), xi, a)


def _hand_printer():
    from sympy.core.function import AppliedUndef
    from sympy.printing.latex import LatexPrinter

    class Hand(LatexPrinter):
        """SymPy's LaTeX, with unknown functions as people write them: ``f\\left(x\\right)``,
        ``\\operatorname{LSE}\\left(x\\right)``, ``f'\\left(x\\right)``; inverse functions as
        ``\\sin^{-1}``."""

        def _name(self, f):
            n = f.__name__
            return n if len(n) == 1 else f"\\operatorname{{{n}}}"

        def _print_Function(self, expr, exp=None):
            if not isinstance(expr, AppliedUndef):
                return super()._print_Function(expr, exp)
            out = f"{self._name(expr.func)}\\left({', '.join(self._print(a) for a in expr.args)}\\right)"
            return out if exp is None else f"\\left({out}\\right)^{{{exp}}}"

        def _print_Indexed(self, expr):
            return f"{self._print(expr.base.label)}_{{{', '.join(self._print(i) for i in expr.indices)}}}"

        def _print_Sum(self, expr):
            (j, lo, hi), body = expr.limits[0], expr.function
            # the body parenthesised unless it is one factor: the reader's sum takes the term after it
            inner = self._print(body)
            if isinstance(body, sp.Add):
                inner = f"\\left({inner}\\right)"
            if hi == GENERIC:
                return f"\\sum_{{{self._print(j)}}} {inner}"
            return f"\\sum_{{{self._print(j)}={self._print(lo)}}}^{{{self._print(hi)}}} {inner}"

        def _print_Subs(self, expr):
            d = expr.expr
            if isinstance(d, sp.Derivative) and isinstance(d.expr, AppliedUndef) and len(expr.point) == 1:
                return f"{self._name(d.expr.func)}'\\left({self._print(expr.point[0])}\\right)"
            return super()._print_Subs(expr)

    return Hand({"inv_trig_style": "power"})  # asin as people write it, \sin^{-1}


def _values(e: sp.Expr, point: dict):
    """``e`` at ``point`` as an mpmath number (30 digits), or None where SymPy cannot evaluate it.
    mpmath, not ``complex``: a value past 1e308 (case 877 of ``--hand``, an exp of a tower) is finite
    and compared exactly as a small one, where Python's ``abs(u - v)`` overflowed and crashed the bench."""
    try:
        v = sp.N(e.subs(point), 30)
        if not (v.is_number and v.is_finite):
            return None
        return v._to_mpmath(110)  # 110 bits ≥ 30 digits
    except Exception:  # noqa: BLE001 — an expression SymPy cannot evaluate there: no evidence
        return None


def _summed(e: sp.Expr, coefs: dict) -> sp.Expr:
    """``e`` with every sum expanded over ``TERMS`` terms (the generic size, found by name, set to it)
    and its coefficients given ``coefs`` (``{"c[1]": value, …}``, matched by name: the parser builds a
    ``c`` and an ``N_sum`` of its own), so the printed and the read side get the same values."""
    e = e.subs({s: TERMS for s in e.free_symbols if s.name == GENERIC.name}).doit()
    return e.subs({a: coefs[str(a)] for a in e.atoms(sp.Indexed) if str(a) in coefs})


def _by_value(want: sp.Expr, have: sp.Expr, rng: random.Random) -> str:
    """``mismatch``, ``equal`` or ``same-unevaluable``: the printed and the read expression at 4 random
    points (a point where neither evaluates is skipped; one side alone evaluating is a mismatch)."""
    agree = 0
    for _ in range(4):
        point = {SYMBOLS[n]: sp.Rational(rng.randint(-300, 300), 97) for n in NAMES}
        point = {s: v if v != 0 else sp.Rational(1, 3) for s, v in point.items()}
        u, v = _values(want, point), _values(have, point)
        if u is None and v is None:
            continue
        if u is None or v is None or _differ(u, v):
            return "mismatch"
        agree += 1
    return "equal" if agree else "same-unevaluable"


def _differ(u, v) -> bool:
    """``u`` and ``v`` disagree beyond 1e-20 relative."""
    return abs(u - v) > 1e-20 * max(1, abs(u))


def compare_hand(expr: sp.Expr, rng: random.Random) -> tuple[str, str, str]:
    """:func:`compare` for :func:`hand_expression`: read with the unknown functions, then both sides
    with one random smooth function each (``mathcheck.userexpr.unknown.draws``) compared at 4 points."""
    from mathcheck import latex, parser
    from mathcheck.chains import DeriveError
    from mathcheck.userexpr import unknown

    tex = _hand_printer().doprint(expr)
    try:
        text = latex.translate(tex, variables=NAMES)
        got = parser.parse_many([text], unknown=set(UNKNOWN))[0]
    except (ValueError, DeriveError) as exc:
        return "refused", tex, str(exc)
    if expr.has(sp.I, sp.zoo, sp.nan, sp.oo):
        return "skipped", tex, "a complex or infinite constant"
    table = unknown.draws({f: 1 for f in UNKNOWN.values()}, rng.randint(0, 99))[0]
    (want,) = unknown.concrete([unknown.canonical(expr)], table)
    by_name = {f.__name__: lam for f, lam in table.items()}
    named = {f: by_name[f.__name__] for f in unknown.arities([got])}
    (have,) = unknown.concrete([unknown.canonical(got)], named)
    have = have.subs({sp.Symbol(n, real=True): SYMBOLS[n] for n in NAMES})
    if expr.has(sp.Sum):
        coefs = {f"c[{k}]": sp.Rational(rng.randint(-300, 300), 97) for k in range(1, TERMS + 1)}
        want, have = _summed(want, coefs), _summed(have, coefs)
    return _by_value(want, have, rng), tex, text


def compare(expr: sp.Expr, rng: random.Random) -> tuple[str, str, str]:
    """``(outcome, latex, read)`` for one expression: see the module docstring."""
    from mathcheck import latex, parser
    from mathcheck.chains import DeriveError

    tex = sp.latex(expr)
    if expr.has(sp.I, sp.zoo, sp.nan, sp.oo):
        return (
            "skipped",
            tex,
            "SymPy simplified it to a complex or infinite constant, which LaTeX spells as a variable i",
        )
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
    have = got.doit().subs({sp.Symbol(n, real=True): SYMBOLS[n] for n in NAMES})
    return _by_value(want, have, rng), tex, text


U = sp.Symbol("u", real=True)
CASE_SECONDS = 60
ORACLE_SECONDS = 20


def defined_expression(rng: random.Random) -> tuple[sp.Expr, sp.Expr]:
    """``(A, B)`` for ``--defs``: the meaning A of a name u defined inline in prose, and an expression B
    in u (a random tree with one of its symbols renamed u, or u added)."""
    meaning = expression(rng, 3)
    # inline, a name given a bare name or a number is a case or a point ("at $x = 0$"), never a definition:
    # a meaning is a formula in the variables
    while meaning.is_Atom or not meaning.free_symbols:
        meaning = expression(rng, 3)
    body = expression(rng)
    present = sorted((s for s in body.free_symbols if s.name in NAMES), key=lambda s: s.name)
    body = body.subs(present[0], U) if present else body + U
    if body.is_Symbol:  # u = 0 after "Let u = A" gives u another value (a redefinition), not a claim
        body = 2 * body + 1
    return meaning, body


def compare_defs(pair: tuple, rng: random.Random) -> tuple[str, str, str]:
    """An inline definition read as a reader reads it: ``Let $u = A$.`` in prose, then a display
    ``$$ B = 0 $$``; the chain's first expression, with derive's let unfolded, must be B with u = A.
    Products print with ``\\cdot`` (an undeclared name before parentheses is a function applied)."""
    from mathcheck import latex, parser
    from mathcheck.chains import DeriveError

    meaning, body = pair
    if meaning.has(sp.I, sp.zoo, sp.nan, sp.oo) or body.has(sp.I, sp.zoo, sp.nan, sp.oo):
        return "skipped", "", "a complex or infinite constant"
    if any(U in d.variables for d in body.atoms(sp.Derivative)):  # d/du of u = A: no value to compare with
        return "skipped", "", "a derivative with respect to the defined name u"
    a, b = sp.latex(meaning, mul_symbol="dot"), sp.latex(body, mul_symbol="dot")
    doc = f"Let $u = {a}$ be given.\n\n$$ {b} = 0 $$\n"
    try:
        chains = latex.chains(doc, "fuzz.md", markdown=True)
        chain = next(c for c in chains if len(c.steps) == 2 and c.steps[1].text == "0")
        defs = [parser.parse_definition(t) for _, t in chain.lets]
        got = parser.parse_many([chain.steps[0].text], defs=defs, unused_ok=True)[0]
    except (ValueError, DeriveError, StopIteration) as exc:
        return "refused", doc, str(exc) or "no chain"
    if not any(t.startswith("u =") for _, t in chain.lets):
        return "mismatch", doc, f"u's definition not unfolded: {chain.steps[0].text}"
    ok, outcome = attempt(lambda: _unfolded_by_value(body, meaning, got, rng), ORACLE_SECONDS)
    if not ok:  # seed 0, case 66: sqrt(log(tanh(sqrt(log(u))))) at u = −∛b + w + z; the reader took 0.2 s
        return "skipped", doc, f"the fuzzer's own SymPy evaluation ran past {ORACLE_SECONDS} s"
    return outcome, doc, chain.steps[0].text


def _unfolded_by_value(body, meaning, got, rng) -> str:
    want = body.xreplace({U: meaning}).doit()  # u unfolded before any derivative is taken, as a reader does
    have = got.doit().subs({sp.Symbol(n, real=True): SYMBOLS[n] for n in NAMES})
    return _by_value(want, have, rng)


def run(cases: int, seed: int, only: int | None = None, hand: bool = False, defs: bool = False) -> dict:
    counts = {
        "same": 0,
        "equal": 0,
        "same-unevaluable": 0,
        "refused": 0,
        "skipped": 0,
        "mismatch": 0,
        "crash": 0,
        "hang": 0,
    }
    bad, refusals = [], {}
    ks = [only] if only is not None else range(cases)
    start = time.perf_counter()
    for k in ks:
        rng = random.Random(f"{seed}:{k}")
        expr = defined_expression(rng) if defs else hand_expression(rng) if hand else expression(rng)
        compare_one = compare_defs if defs else compare_hand if hand else compare
        try:
            ok, got = attempt(lambda: compare_one(expr, rng), CASE_SECONDS)
            outcome, tex, text = got if ok else ("hang", str(expr), f"ran past {CASE_SECONDS} s")
        except Exception as exc:  # noqa: BLE001 — a crash is what we count
            outcome, tex, text = "crash", str(expr), f"{type(exc).__name__}: {exc}"
        counts[outcome] += 1
        if outcome in ("mismatch", "crash", "hang"):
            bad.append(
                {
                    "case": k,
                    "outcome": outcome,
                    "latex": tex,
                    "read": text,
                    "sympy": sp.srepr(expr) if not defs else [sp.srepr(e) for e in expr],
                    "replay": f"python bench/latex_fuzz.py --seed {seed} --case {k}"
                    + (" --hand" if hand else "")
                    + (" --defs" if defs else ""),
                }
            )
        elif outcome == "refused":
            why = text.split(": ", 1)[-1][:60]
            refusals[why] = refusals.get(why, 0) + 1
    return {
        "cases": len(ks),
        "seed": seed,
        "notation": "defs" if defs else "hand" if hand else "sympy",
        **counts,
        "seconds": round(time.perf_counter() - start, 1),
        "refusals": dict(sorted(refusals.items(), key=lambda kv: -kv[1])[:10]),
        "bad": bad,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--case", type=int, default=None, help="replay one case")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--hand", action="store_true", help="unknown functions f(…), \\operatorname{LSE}(…), f'(…)")
    ap.add_argument("--defs", action="store_true", help="an inline definition in prose, $u = …$, unfolded in a display")
    a = ap.parse_args(argv)
    out = run(a.cases, a.seed, a.case, a.hand, a.defs)
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        print(
            " ".join(
                f"{k}={out[k]}"
                for k in (
                    "cases",
                    "same",
                    "equal",
                    "same-unevaluable",
                    "refused",
                    "skipped",
                    "mismatch",
                    "crash",
                    "seconds",
                )
            )
        )
        for b in out["bad"]:
            print(f"{b['outcome']}: {b['latex']}  read as  {b['read']}  ({b['replay']})")
    return 1 if out["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
