"""A soundness fuzzer: random statements whose truth we know, through ``check``, ``derive`` and the
claim API; any ``proved`` of a false one, or ``refuted`` of a true one, is a soundness bug.

    python bench/fuzz.py [--cases N] [--seed S] [-j J] [--timeout T] [--json]

Case ``k`` of seed ``S`` is drawn from ``random.Random(f"{S}:{k}")`` alone, so any case replays on
its own (``--case k``). A case is an expression ``E`` from the parser's grammar (sums, products,
quotients by ``b**2 + 1``, small powers, exp sin cos tanh sigmoid softplus Abs relu, log and sqrt of
positive arguments, over real ``x``, ``y`` and positive ``p``) and a relation:

* **true** pairs: ``E = E'`` where ``E'`` is ``E`` with one node rewritten by an identity that holds
  on the whole domain (``exp(a) = exp(a/2)**2``, ``sigmoid(a) = 1 - sigmoid(-a)``, ``Abs(a) =
  sqrt(a**2)``, ``log(P) = -log(1/P)`` for ``P > 0``, ...), or by SymPy's ``expand``/``together``;
  ``E + S >= E'`` (and ``<=`` mirrored) with ``S`` nonnegative by construction;
* **false** pairs: the same with a perturbation: a small term added, a sign flipped, a factor
  scaled, a variable shifted; ``E >= E' + exp(a)/1000`` for inequalities.

Every pair's truth is then confirmed independently of mathcheck, by mpmath at 50 digits at
eight points of the domain (five within ±3, three within ±30): a pair built true must hold to
1e-40 at every point, a false one be violated by more than 1e-9 at some point; a pair that is
neither is discarded (``skipped``): sampling can show a statement false, never true. Each remaining case runs
through :func:`mathcheck.usercheck.check` (or ``check_relation`` for an inequality), ``derive`` (a
one-link chain file) and the claim API (a claim module with one part, proved with the generic
check), in worker processes: an exception is a **crash**, a case past its wall-clock budget a
**hang**. ``--json`` prints ``{"cases", "false_proofs", "false_refutations", "misread", "crashes", "hangs",
"orphans", ...}`` with each offending case and a line that replays it.

Four surfaces draw cases of their own (``--surfaces``): ``bounds`` and ``definitions``
(:func:`directive_case`: bench/fuzz_directives.py's derivation files, through the same counts), ``rules`` (on by default; :func:`rule_case`:
each constructor of ``symbolic/rules/`` on random ranges in every convention — ordered, empty,
reversed, zero sizes, symbolic bounds pinned or free — a rewrite its side condition lets through
checked by our own Karr loop at a point of the hypotheses) and ``exits`` (:func:`exit_case`: a claim
module whose builder, module body, ``reference=``, ``check=`` or rule calls ``sys.exit(0)``, raises
``KeyboardInterrupt``, calls ``os._exit(0)`` or ``posix._exit(0)`` or hangs, through the API, the CLI (``-j 2``) and
``mathcheck.testing``; any success is a false one, a worker left running after ``kill -9`` of a hung
run an orphan; :data:`EXIT_CLI_SHARE` of the cases through a subprocess, the rest in the worker).
``cpu_seconds`` in the report: each surface's and the oracle's CPU (waited-for children included),
the cost of a case whatever the machine's load.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
import traceback
import zlib
from multiprocessing.connection import wait
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VARIABLES = {"x": (), "y": (), "p": ("positive",)}
SURFACES = ("check", "derive", "claim")
DPS = 50
TRUE_TOL, FALSE_GAP = 1e-40, 1e-9
ORACLE_SECONDS = 20.0  # building and settling one pair at 50 digits

# --- expressions: trees of (op, *children), printed in the parser's grammar -------------------

UNARY = ("exp", "sin", "cos", "tanh", "sigmoid", "softplus", "Abs", "relu", "neg")
POSITIVE_OF = ("square1", "expo", "p")  # a**2 + 1, exp(a), p: what log and sqrt may take


def leaf(rng):
    return rng.choice(
        [
            ("var", "x"),
            ("var", "x"),
            ("var", "y"),
            ("var", "p"),
            ("var", "p"),
            ("num", "2"),
            ("num", "3"),
            ("num", "1/2"),
        ]
    )


def tree(rng, depth):
    if depth <= 0 or rng.random() < 0.25:
        return leaf(rng)
    op = rng.choice(("add", "sub", "mul", "div", "pow", "unary", "unary", "log", "sqrt"))
    if op in ("add", "sub", "mul"):
        return (op, tree(rng, depth - 1), tree(rng, depth - 1))
    if op == "div":
        return ("div", tree(rng, depth - 1), tree(rng, depth - 2))
    if op == "pow":
        return ("pow", tree(rng, depth - 1), rng.choice((2, 3)))
    if op == "unary":
        f = rng.choice(UNARY)
        return (f, tree(rng, min(depth - 1, 1) if f == "exp" else depth - 1))  # no exp(exp(exp(..)))
    return (op, positive(rng, depth - 1))


def positive(rng, depth):
    kind = rng.choice(POSITIVE_OF)
    if kind == "p":
        return ("var", "p")
    if kind == "expo":
        return ("exp", tree(rng, min(depth, 1)))
    return ("square1", tree(rng, depth))


def text(t) -> str:
    op = t[0]
    if op in ("var", "num"):
        return t[1] if op == "var" or "/" not in t[1] else f"({t[1]})"
    if op == "raw":
        return t[1]
    a = [text(c) if isinstance(c, tuple) else str(c) for c in t[1:]]
    return {
        "add": lambda: f"({a[0]} + {a[1]})",
        "sub": lambda: f"({a[0]} - {a[1]})",
        "mul": lambda: f"{a[0]}*{a[1]}",
        "div": lambda: f"{a[0]}/(({a[1]})**2 + 1)",
        "pow": lambda: f"({a[0]})**{a[1]}",
        "neg": lambda: f"(-{a[0]})",
        "square1": lambda: f"(({a[0]})**2 + 1)",
    }.get(op, lambda: f"{op}({a[0]})")()


def nodes(t, path=()):
    """Every subtree with its path (for rewriting one node)."""
    yield path, t
    if t[0] not in ("var", "num", "raw"):
        for i, c in enumerate(t[1:], 1):
            if isinstance(c, tuple):
                yield from nodes(c, path + (i,))


def replace(t, path, new):
    if not path:
        return new
    i = path[0]
    return t[:i] + (replace(t[i], path[1:], new),) + t[i + 1 :]


def raw(s: str):
    return ("raw", s)


# Identities valid on the whole domain (x, y real; p > 0; the POSITIVE_OF forms > 0).
def rewrites(t):
    """The equal forms of node ``t`` (as raw text)."""
    a = text(t[1]) if len(t) > 1 and isinstance(t[1], tuple) else None
    op, out = t[0], []
    if op == "exp":
        out += [f"exp({a}/2)**2", f"(exp({a} + 1)/exp(1))", f"1/exp(-{a})"]
    if op == "sin":
        out += [f"2*sin({a}/2)*cos({a}/2)", f"cos({a} - pi/2)"]
    if op == "cos":
        out += [f"(1 - 2*sin({a}/2)**2)", f"sin({a} + pi/2)"]
    if op == "tanh":
        out += [f"(2*sigmoid(2*{a}) - 1)", f"((exp({a}) - exp(-{a}))/(exp({a}) + exp(-{a})))"]
    if op == "sigmoid":
        out += [f"(1 - sigmoid(-{a}))", f"(1/(1 + exp(-{a})))", f"((1 + tanh({a}/2))/2)"]
    if op == "softplus":
        out += [f"({a} + softplus(-{a}))", f"log(1 + exp({a}))"]
    if op == "Abs":
        out += [f"sqrt(({a})**2)", f"Abs(-{a})", f"(relu({a}) + relu(-{a}))"]
    if op == "relu":
        out += [f"(({a} + Abs({a}))/2)", f"Max(0, {a})"]
    if op == "log":
        out += [f"(-log(1/{a}))", f"(2*log(sqrt({a})))"]
    if op == "sqrt":
        out += [f"exp(log({a})/2)", f"({a}/sqrt({a}))"]
    if op == "pow":
        out += [f"({a})*({a})" if t[2] == 2 else f"({a})*({a})**2"]
    if op in ("add", "mul"):
        b = text(t[2])
        out += [f"({b} + {a})" if op == "add" else f"{b}*{a}"]
    if op == "sub":
        out += [f"({a} + (-1)*{text(t[2])})"]
    if op == "div":
        out += [f"{a}*(({text(t[2])})**2 + 1)**(-1)"]
    if op == "var":
        out += [f"({t[1]} + sin({t[1]})**2 + cos({t[1]})**2 - 1)"]
    return out


def perturbations(rng, t):
    """Forms of ``t`` that differ from it (as raw text); confirmed different at 50 digits later."""
    a = text(t)
    out = [f"({a} + 1/1000)", f"{a}*(1001/1000)", f"(-{a})", f"({a} - exp(x)/1000)"]
    if t[0] == "var":
        out.append(f"({t[1]} + 1/100)")
    if t[0] in ("sin", "cos"):
        out.append(("cos" if t[0] == "sin" else "sin") + text(t)[3:])
    if t[0] == "pow":
        out.append(f"({text(t[1])})**{5 - t[2]}")
    return out


NONNEGATIVE = ("({a})**2", "exp({a})", "Abs({a})", "softplus({a})", "sigmoid({a})", "relu({a})")


def draw(seed: int, k: int) -> dict:
    """Case ``k``: lhs, rhs, relation, whether it is meant true, and the assumptions it uses."""
    rng = random.Random(f"{seed}:{k}")
    e = tree(rng, rng.choice((2, 3, 3, 4)))
    while "var" not in {n[0] for _, n in nodes(e)}:  # a statement about numbers only: draw again
        e = tree(rng, rng.choice((2, 3, 3, 4)))
    truth = rng.random() < 0.5
    inequality = rng.random() < 0.25
    spots = list(nodes(e))
    path, node = rng.choice([s for s in spots if rewrites(s[1])])
    if rng.random() < 0.15:
        rhs, why = None, rng.choice(("expand", "together"))
    else:
        rhs, why = text(replace(e, path, raw(rng.choice(rewrites(node))))), f"rewrite {node[0]}"
    case = {"k": k, "lhs": text(e), "rhs": rhs, "relation": "=", "true": truth, "how": why}
    if not truth:
        ppath, pnode = rng.choice(spots)
        bad = rng.choice(perturbations(rng, pnode))
        if rhs is None:
            case["rhs_from"] = text(replace(e, ppath, raw(bad)))  # expand/together of the perturbed form
        else:
            case["rhs"] = text(replace(e, ppath, raw(bad)))
            case["how"] += f", perturb {pnode[0]}"
    if inequality:
        s = rng.choice(NONNEGATIVE).format(a=text(tree(rng, 1)))
        rel = rng.choice((">=", "<="))
        case["relation"] = rel
        case["slack"] = s if truth else f"(-exp({text(tree(rng, 1))})/1000)"
    return case


def materialise(case: dict):
    """Fill in rhs (SymPy's expand/together of the stated form) and the inequality's slack;
    ``(lhs, rhs, assumptions)`` as texts, assumptions only of the names used."""
    import sympy as sp

    from mathcheck.parser import parse_many

    lhs, rhs = case["lhs"], case["rhs"]
    if rhs is None:
        source = case.get("rhs_from", lhs)
        (e,) = parse_many([source], _used(source))
        rhs = sp.sstr(sp.expand(e) if case["how"] == "expand" else sp.together(e))
    if case["relation"] != "=":  # true: lhs + S >= rhs; false: lhs - small >= rhs... mirrored for <=
        case["equality"] = (lhs, rhs)
        slack = case["slack"]
        if case["relation"] == ">=":
            lhs = f"{lhs} + {slack}"
        else:
            rhs = f"{rhs} + {slack}"
    return lhs, rhs, _used(lhs + " " + rhs)


def _used(s: str) -> dict:
    import re

    names = set(re.findall(r"[A-Za-z_]\w*", s))
    return {v: props for v, props in VARIABLES.items() if v in names and props}


def truth(lhs: str, rhs: str, relation: str, assume: dict, k: int, meant: bool):
    """True, False or None (not clear), by mpmath at 50 digits (60 worked) at eight points of the domain.

    Sampling can show a statement false, never true: a pair is True only if it was built true
    (``meant``, by its identities) and agrees at every point; False if some point violates it by a
    clear margin; None otherwise (a perturbation that happens to change nothing, or shows only
    where we did not look) — such a case is skipped, not counted.

    Each side is compiled once (``lambdify`` to mpmath) and evaluated at exact rational points:
    five times cheaper than SymPy's ``subs`` + ``N`` and as independent of mathcheck. Rounding at
    60 digits cannot move a difference across either threshold (1e-40 true, 1e-9 false): on seed
    0's first 600 pairs it settled every one as ``subs`` + ``N`` did. A complex or infinite value
    (or an error) makes the pair unclear, as before."""
    import mpmath
    import sympy as sp

    from mathcheck.parser import parse_many

    L, R = parse_many([lhs, rhs], assume)
    syms = sorted(L.free_symbols | R.free_symbols, key=lambda s: s.name)
    fl, fr = (sp.lambdify(syms, side, modules="mpmath") for side in (L, R))
    rng = random.Random(f"truth:{k}")
    diffs = []
    with mpmath.workdps(DPS + 10):
        for n in range(8):
            span = 3000 if n < 5 else 30000  # mostly where functions bend, and a few far out
            point = [
                mpmath.mpf(rng.randint(1, span)) / 1000
                if s.is_positive
                else mpmath.mpf(rng.randint(-span, span)) / 1000
                for s in syms
            ]
            try:
                a, b = mpmath.mpmathify(fl(*point)), mpmath.mpmathify(fr(*point))
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                return None
            if not all(isinstance(v, mpmath.mpf) and mpmath.isfinite(v) for v in (a, b)):
                return None
            diffs.append((a - b) / (1 + max(abs(a), abs(b))))
    if relation == "=":
        if meant and all(abs(d) < TRUE_TOL for d in diffs):
            return True
        return False if any(abs(d) > FALSE_GAP for d in diffs) else None
    sign = 1 if relation == ">=" else -1
    if meant and all(sign * d > -TRUE_TOL for d in diffs):
        return True
    return False if any(sign * d < -FALSE_GAP for d in diffs) else None


# --- the three surfaces ---------------------------------------------------------------------------


def via_check(lhs, rhs, relation, assume, seed, timeout):
    if relation == "=":
        from mathcheck.usercheck import check

        return check(lhs, rhs, assume=assume, seed=seed, timeout=timeout).status
    from mathcheck.parser import parse_many
    from mathcheck.userexpr.relation import check_relation

    L, R = parse_many([lhs, rhs], assume)
    return check_relation(L, R, relation, assume, (), seed, timeout, lhs_text=lhs, rhs_text=rhs).status


def via_derive(lhs, rhs, relation, assume, seed, timeout, workdir, k):
    from mathcheck import derive

    path = Path(workdir) / f"case{k}.txt"
    specs = " ".join(n + "=" + ",".join(p) for n, p in assume.items())
    header = f"assume: {specs}\n" if assume else ""
    path.write_text(f"## case {k}\n{header}  {lhs}\n{relation} {rhs}  # fuzz\n")
    report = derive.check_files([str(path)], seed=seed, timeout=timeout)
    return report.status


CLAIM = """
from mathcheck.claim import Body, Mutant, Part, Step, relation
from mathcheck.parser import parse_many
from mathcheck.registry import claim


@claim(id={cid!r}, title="fuzz case", section="§9.99", zh="模糊测试", en="fuzz case")
def build():
    lhs, rhs = parse_many([{lhs!r}, {rhs!r}], {assume!r})
    rel = {relation!r}
    return Body(assumptions={assumptions!r}, parts=(Part("case", (Step(lhs, "as drawn"),
                Step(rhs, "rewritten", relation=rel))),),
                mutants=(Mutant("plus-one", "one added", (("case", relation(lhs, rhs + 1, rel)),)),
                         Mutant("minus-one", "one taken", (("case", relation(lhs, rhs - 1, rel)),))))
"""


def via_claim(lhs, rhs, relation, assume, seed, workdir, k):
    from mathcheck import engine, registry
    from mathcheck.verify import Options

    cid = f"fuzz-{seed}-{k}"
    path = Path(workdir) / f"fuzz_claim_{seed}_{k}.py"
    assumptions = tuple(f"{n} {','.join(p)}" for n, p in assume.items())
    path.write_text(CLAIM.format(cid=cid, lhs=lhs, rhs=rhs, assume=assume, assumptions=assumptions, relation=relation))
    registry.load_from(str(path))
    return engine.verdict(registry.entry(cid), "prove", Options(seed=seed)).status


# cases of their own, each with its truth: rule_case, exit_case, and bench/fuzz_directives.py's two
EXTRA_SURFACES = ("rules", "exits", "bounds", "definitions")
DIRECTIVE_SURFACES = ("bounds", "definitions")


def run_case(seed: int, k: int, timeout: float, surfaces, workdir) -> dict:
    """Draw, confirm and run case ``k`` through every surface; what each said (``extra``: the rule,
    exit, bounds and definitions surfaces' own case ``k``, each ``{"verdict": ..., ...}``)."""
    extra, cpu = {}, {}
    for surface in surfaces:
        if surface in EXTRA_SURFACES:
            c0 = cpu_seconds()
            extra[surface] = (
                rule_case(seed, k)
                if surface == "rules"
                else exit_case(seed, k, workdir)
                if surface == "exits"
                else directive_case(surface, seed, k, timeout, workdir)
            )
            cpu[surface] = cpu_seconds() - c0
    surfaces = [s for s in surfaces if s in SURFACES]
    if not surfaces:
        return {"k": k, "extra": extra, "no_expression": True, "cpu": cpu}
    r = _expression_case(seed, k, timeout, surfaces, workdir)
    return {**r, "extra": extra, "cpu": {**cpu, **r.get("cpu", {})}}


def cpu_seconds() -> float:
    """User + system CPU of this process and of its children it has waited for (a check's forked
    child, a `prove` subprocess): what a case costs, whatever the machine's load."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _expression_case(seed: int, k: int, timeout: float, surfaces, workdir) -> dict:
    case = draw(seed, k)
    from mathcheck.budget import attempt

    def settle():
        lhs, rhs, assume = materialise(case)
        meant = truth(lhs, rhs, case["relation"], assume, k, case["true"])
        if meant and case["relation"] != "=":  # true by construction only if E = E' itself holds
            base = case["equality"]
            meant = truth(*base, "=", _used(" ".join(base)), k, True) and meant
        return lhs, rhs, assume, meant

    c0 = cpu_seconds()
    try:  # the oracle's own SymPy work is bounded too: a pair it cannot settle in time is skipped
        ok, settled = attempt(settle, ORACLE_SECONDS)
    except Exception as exc:  # noqa: BLE001 - a pair we cannot build or confirm is not a case
        return {**case, "skipped": f"{type(exc).__name__}: {exc}"[:200]}
    cpu = {"oracle": cpu_seconds() - c0}
    if not ok:
        return {**case, "skipped": f"truth not settled within {ORACLE_SECONDS:g} s", "cpu": cpu}
    lhs, rhs, assume, meant = settled
    if meant is None:
        return {**case, "lhs": lhs, "rhs": rhs, "skipped": "truth not clear at 50 digits", "cpu": cpu}
    out = {**case, "lhs": lhs, "rhs": rhs, "assume": assume, "true": meant, "results": {}, "cpu": cpu}
    for surface in surfaces:
        t0, c0 = time.perf_counter(), cpu_seconds()
        try:
            if surface == "check":
                status = via_check(lhs, rhs, case["relation"], assume, seed, timeout)
            elif surface == "derive":
                status = via_derive(lhs, rhs, case["relation"], assume, seed, timeout, workdir, k)
            else:
                status = via_claim(lhs, rhs, case["relation"], assume, seed, workdir, k)
        except Exception as exc:  # noqa: BLE001 - exactly what the fuzzer looks for
            status = "crash: " + "".join(traceback.format_exception_only(exc)).strip()[:300]
        out["results"][surface] = (status, round(time.perf_counter() - t0, 3))
        cpu[surface] = cpu_seconds() - c0
    return out


# --- the rule surface: each constructor of symbolic/rules/ on random ranges and conventions ----------

RULES = (
    "delta_outside",
    "causal_mask",
    "join_ranges",
    "split_at",
    "split_last",
    "square_of_sum",
    "exchange_sums",
    "factor_in",
    "factor_out",
    "product_as_exp_sum",
    "small_remainder",
)


def _karr(e, env, values):
    """The value of ``e`` at ``env`` (symbol → int), every Σ/Π written out here by Karr's convention
    (b = a − 1 empty; b < a − 1: Σ_{a}^{b} = −Σ_{b+1}^{a−1}, Π inverted), ``causal(t, k)`` = [k ≤ t],
    entries from ``values`` — independent of the rule under test and of SymPy's ``doit``."""
    import sympy as sp

    if isinstance(e, (sp.Sum, sp.Product)):
        return _karr_loop(e.function, list(e.limits), env, values, isinstance(e, sp.Product))
    if isinstance(e, sp.Symbol):
        return sp.Integer(env[e]) if e in env else e
    if isinstance(e, sp.Indexed):
        return values(e.base.name, *[int(_karr(i, env, values)) for i in e.indices])
    if isinstance(e, sp.core.function.AppliedUndef) and e.func.__name__ == "causal":
        t, k = (int(_karr(a, env, values)) for a in e.args)
        return sp.Integer(1 if k <= t else 0)
    if not e.args:
        return e
    return e.func(*[_karr(a, env, values) for a in e.args])


def _karr_loop(f, limits, env, values, product):
    import sympy as sp

    if not limits:
        return _karr(f, env, values)
    (v, lo, hi), inner = limits[-1], limits[:-1]  # SymPy's order: the last limit is the outermost
    lo, hi = int(_karr(lo, env, values)), int(_karr(hi, env, values))
    flip = hi < lo - 1
    if flip:
        lo, hi = hi + 1, lo - 1
    terms = [_karr_loop(f, inner, {**env, v: n}, values, product) for n in range(lo, hi + 1)]
    out = sp.Mul(*terms) if product else sp.Add(*terms)
    return (1 / out if product else -out) if flip else out


def rule_case(seed: int, k: int) -> dict:
    """Rule case ``k``: one constructor of ``symbolic/rules/`` applied to an expression whose bounds
    are drawn in every convention (ordered, empty, reversed, zero sizes), symbolic bounds pinned by
    the hypotheses or left free (so a range may be either), and hypotheses that all hold at the
    drawn point. A side condition that passes must make the rewrite true at that point (the point is
    a model of the hypotheses): the rule's input and output are evaluated there by :func:`_karr`.
    ``verdict``: ``holds``, ``refused`` (the side condition), ``false proof`` or ``crash``.

        >>> rule_case(0, 1)["verdict"] in ("holds", "refused")
        True
    """
    import sympy as sp

    from mathcheck.symbolic import rules
    from mathcheck.symbolic.rules import Env, SideCondition

    rng = random.Random(f"rules:{seed}:{k}")
    a, b, c, t, u, i, j, kk, l = sp.symbols("a b c t u i j k l", integer=True)
    m = sp.Symbol("m", integer=True, positive=True)
    f, g, p = sp.IndexedBase("f"), sp.IndexedBase("g"), sp.IndexedBase("p", positive=True)
    base = rng.randint(-3, 3)
    point = {
        a: base,
        b: base + rng.choice((-3, -2, -1, -1, 0, 1, 2, 4)),  # b = a − 1: empty; below: reversed
        c: base + rng.randint(-4, 5),
        t: rng.randint(-4, 5),
        u: rng.randint(-4, 5),
        i: rng.randint(-4, 5),
        m: rng.randint(1, 4),
    }
    ends = (a, b, c, t, t + 1, t - 1, u, 0, 1, 2 * t, m - 1)
    A, B, C, D = (rng.choice(ends) for _ in range(4))
    name = rng.choice(RULES)
    rule, expr = {
        "delta_outside": lambda: (
            rules.delta_outside(),
            sp.Sum(f[kk] * sp.KroneckerDelta(kk, rng.choice((u, i, t + 1))), (kk, A, B)),
        ),
        "causal_mask": lambda: (rules.causal_mask(t), sp.Sum(sp.Function("causal")(t, kk) * f[kk], (kk, A, B))),
        "join_ranges": lambda: (rules.join_ranges(), sp.Sum(f[kk], (kk, A, B)) + sp.Sum(f[kk], (kk, B + 1, C))),
        "split_at": lambda: (rules.split_at(i, where=lambda x: True), sp.Sum(f[kk], (kk, A, B))),
        "split_last": lambda: (rules.split_last(B), sp.Sum(f[kk], (kk, A, B))),
        "square_of_sum": lambda: (rules.square_of_sum(j), sp.Sum(f[kk], (kk, A, B)) ** 2),
        "exchange_sums": lambda: (
            rules.exchange_sums(),
            sp.Sum(g[kk] * sp.Sum(f[l] * g[kk + l], (l, C, D)), (kk, A, B)),
        ),
        "factor_in": lambda: (rules.factor_in(), sp.Sum(f[kk] * sp.Sum(g[l], (l, C, D)), (kk, A, B))),
        "factor_out": lambda: (rules.factor_out(), sp.Sum(rng.choice((g[0], t, g[kk])) * f[kk], (kk, A, B))),
        "product_as_exp_sum": lambda: (rules.product_as_exp_sum(), sp.Product(rng.choice((p[kk], f[kk])), (kk, A, B))),
        "small_remainder": lambda: (rules.small_remainder(t, m), 7 * sp.floor(t / m) + sp.Mod(t, m)),
    }[name]()
    # hypotheses: relations true at the point, some pinning a symbol, a random few of them
    terms = [a, b, c, t, u, i, m, t + 1, b + 1, a - 1, sp.Integer(0), sp.Integer(1)]
    value = {x: int(_karr(x, point, None)) for x in terms}
    pool = []  # (relation, x, y): built only once drawn (a SymPy relational costs ~0.2 ms, the pool ~250)
    for x in terms:
        for y in terms:
            if x != y and not (x.is_number and y.is_number):
                pool += [(sp.Le, x, y)] * (value[x] <= value[y]) + [(sp.Lt, x, y)] * (value[x] < value[y])
    hyps = tuple(rel(x, y) for rel, x, y in rng.sample(pool, min(len(pool), rng.choice((0, 2, 5, 10, 20, 40)))))
    for s in rng.sample([a, b, c, t, u, i, m], rng.randint(0, 4)):  # pinned: a concrete bound, symbolically
        hyps += (sp.Le(s, point[s]), sp.Ge(s, point[s]))
    case = {"k": k, "rule": name}

    def shown(verdict, **more):  # the case in full (printing costs as much as drawing) only when it offends
        if verdict in ("holds", "refused"):
            return {**case, "verdict": verdict}
        return {
            **case,
            "expr": sp.sstr(expr),
            "point": {str(s): v for s, v in point.items()},
            "given": [sp.sstr(h) for h in hyps],
            "verdict": verdict,
            **more,
        }

    def values(base_name, *idx):
        r = random.Random(f"value:{seed}:{k}:{base_name}:{idx}")
        if base_name == "p":
            return sp.Rational(r.randint(1, 9), 4)
        return sp.Rational(r.choice((-9, -7, -5, -3, -2, 2, 3, 5, 7, 9)), 4)

    try:
        out = rule.applied(expr, Env(hypotheses=hyps, symbols=frozenset(expr.free_symbols)))
    except SideCondition:
        return shown("refused")
    except Exception as exc:  # noqa: BLE001 - a rule that raises anything else is a crash
        return shown("crash", error=f"{type(exc).__name__}: {exc}"[:300])
    try:
        before, after = (_karr(e, point, values) for e in (expr, out))
        gap = abs(sp.N(before - after, 30))
    except Exception as exc:  # noqa: BLE001 - the oracle could not evaluate: not a case
        return shown("skipped", error=f"{type(exc).__name__}: {exc}"[:300])
    if gap < 1e-20:
        return shown("holds")
    return shown("false proof", after=sp.sstr(out), values=[sp.sstr(before), sp.sstr(after)])


# --- the directive surfaces: bench/fuzz_directives.py's cases, in this fuzzer's shape ----------------

DIRECTIVE_VERDICTS = {
    "false_proofs": "false proof",
    "false_refutations": "false refutation",
    "misread": "misread",
    "crashes": "crash",
}


def directive_case(surface: str, seed: int, k: int, timeout: float, workdir) -> dict:
    """Case ``k`` of ``bounds`` or ``definitions`` (:func:`bench.fuzz_directives.run_case`), its
    ``verdict`` the status ``derive`` gave when the truth allows it (``refuted``, ``holds-within``,
    ``bad-input``, ...), else ``false proof``, ``false refutation``, ``misread`` or ``crash``."""
    from bench import fuzz_directives as fd

    r = fd.run_case(seed, k, timeout, (surface,), workdir)
    if "skipped" in r:
        return {**r, "verdict": "skipped"}
    kind = fd.classify(r)
    return {**r, "verdict": DIRECTIVE_VERDICTS[kind] if kind else r["status"]}


# --- the exit surface: user code that tries to end the run ---------------------------------------------

EXIT_PLACES = ("builder", "module", "reference", "check", "rule")
EXIT_HOWS = (
    "sys.exit(0)",
    "sys.exit()",
    "raise SystemExit(0)",
    "raise KeyboardInterrupt",
    "os._exit(0)",
    "import posix; posix._exit(0)",
    "raise GeneratorExit",
    "hang",
)
EXIT_VIAS = ("api", "cli", "cli -j 2", "testing")
EXIT_CLI_SHARE = 0.02  # of exit cases through a `prove --from` subprocess (~5 CPU-s each, its imports); the
# rest run in the fuzz worker (a forked process) through the API and mathcheck.testing (~0.1 s each)
EXIT_CLI_SECONDS = 240.0  # a `prove` of one small claim (60 s under a load of 20); past it: killed, a crash

EXIT_CLAIM = """
import os, sys, time
from mathcheck.claim import Body, Mutant, Part, Step
from mathcheck.lazy import sympy as sp
from mathcheck.registry import claim
from mathcheck.symbolic.rules import Rule


def leave(*args):
    {how}


{module}


def ref(x):
    {reference}
    return 2 * x


@claim(id={cid!r}, title="x + x = 2x", section="§9.99", zh="模糊测试", en="fuzz case"{extra})
def build():
    {builder}
    x = sp.Symbol("x", real=True)
    rule = Rule("a rule of mine", "law", leave if {rule} else (lambda e: e))
    return Body(assumptions=("x real",), parts=(Part("p", (Step(x + x, "twice"), Step(2 * x, "sum", rule))),),
                mutants=(Mutant("three", "3x", (("p", sp.Eq(x + x, 3 * x)),)),
                         Mutant("one", "x", (("p", sp.Eq(x + x, x)),))))
"""

EXIT_CHECK = """
import os, sys, time


def check(statements, options):
    {how}
"""


def exit_case(seed: int, k: int, workdir, vias=EXIT_VIAS) -> dict:
    """Exit case ``k``: a claim module whose ``place`` (its builder, the module itself, its
    ``reference=``, its ``check=``, a rule of its own) ends with ``how`` (``sys.exit(0)``,
    ``KeyboardInterrupt``, ``os._exit(0)``, a hang, ...), run ``via`` the API (``engine.verdict``),
    the CLI (``prove --from``, ``-j 2``) or ``mathcheck.testing``. The truth needs no oracle: the run
    must not succeed — an ``error`` naming the file (exit 4), or for a hang the CLI killed at its
    time limit. ``verdict``: ``error as it should``, ``false success``, ``orphan`` or ``crash``
    (``skipped`` for a case drawn through a way not in ``vias``)."""
    import subprocess

    from mathcheck.procs import kill_alone

    rng = random.Random(f"exits:{seed}:{k}")
    cli = rng.random() < EXIT_CLI_SHARE
    place = rng.choice(EXIT_PLACES)
    how = rng.choice(EXIT_HOWS if cli else EXIT_HOWS[:-1])  # a hang needs a process to kill: the CLI's
    via = rng.choice(EXIT_VIAS[1:3] if cli else EXIT_VIAS[::3])
    if via not in vias:
        return {"k": k, "place": place, "how": how, "via": via, "verdict": "skipped"}
    # The workdir's tag keeps two runs in one process apart: a claim id is registered for the process's
    # life, and a check= module stays in sys.modules, so a second run of case k would meet the first's.
    tag = f"{zlib.crc32(str(Path(workdir).resolve()).encode()):08x}"
    cid, stem = f"exit-{seed}-{k}-{tag}", f"fuzz_exit_{seed}_{k}_{tag}"
    statement = "time.sleep(3600)" if how == "hang" else how
    path, check_path = Path(workdir) / f"{stem}.py", Path(workdir) / f"{stem}_check.py"
    extra = {"reference": ", reference=ref", "check": f", check={stem + '_check:check'!r}"}.get(place, "")
    path.write_text(
        EXIT_CLAIM.format(
            how=statement,
            cid=cid,
            extra=extra,
            rule=place == "rule",
            module="leave()" if place == "module" else "",
            **{p: "leave()" if p == place else "pass" for p in ("reference", "builder")},
        )
    )
    check_path.write_text(EXIT_CHECK.format(how=statement))
    where = str(check_path if place == "check" else path)
    case = {"k": k, "place": place, "how": how, "via": via}
    if str(workdir) not in sys.path:  # a check= names a module of the workdir, for the api and testing alike
        sys.path.insert(0, str(workdir))
    try:
        if via == "api":
            from mathcheck import engine, registry
            from mathcheck.verify import Options

            try:
                (loaded,) = registry.load_from(str(path))
            except registry.LoadError as exc:
                ok = exc.exit_code == 4 and where in str(exc)
                return {**case, "verdict": "error as it should" if ok else "false success", "said": str(exc)[:300]}
            v = engine.verdict(registry.entry(loaded), "prove", Options(seed=seed))
            said = f"{v.status}: {v.error or ' '.join(v.numeric.details)}"
            ok = v.status == "error" and where in said
            return {**case, "verdict": "error as it should" if ok else "false success", "said": said[:300]}
        if via == "testing":
            from mathcheck import testing

            try:
                testing.assert_proved(cid, from_=str(path), mutants=False)
            except testing.ClaimFailed as exc:
                return {
                    **case,
                    "verdict": "error as it should" if where in str(exc) else "false success",
                    "said": str(exc)[:300],
                }
            return {**case, "verdict": "false success", "said": "assert_proved passed"}
        cmd = [sys.executable, "-m", "mathcheck", "prove", "--from", str(path), "--no-cache"]
        if via == "cli -j 2":  # a second, honest claim so that two workers run
            honest = Path(workdir) / f"{stem}_ok.py"
            honest.write_text(
                EXIT_CLAIM.format(
                    how="pass", cid=cid + "-ok", extra="", rule=False, module="", reference="pass", builder="pass"
                )
            )
            cmd += ["--from", str(honest), "-j", "2", cid, cid + "-ok"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(workdir)])}
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(workdir)
        )
        try:
            out, err = proc.communicate(timeout=EXIT_CLI_SECONDS if how != "hang" else 15)
        except subprocess.TimeoutExpired:  # kill -9 the run alone: its workers must die with it (no orphans)
            left = kill_alone(proc)
            verdict = "orphan" if left else "error as it should" if how == "hang" else "crash"
            return {**case, "verdict": verdict, "said": f"killed at the time limit; left running: {left}"}
        ok = proc.returncode == 4 and where in out + err and "Traceback" not in err
        # a hang the step's budget interrupted (a rule's alarm) ends the run inconclusive (exit 3), as
        # every time-out does (procs.user_code lets a budget through): not a success either
        ok |= how == "hang" and proc.returncode == 3 and "ran out of time" in out and "Traceback" not in err
        return {
            **case,
            "verdict": "error as it should" if ok else "false success" if proc.returncode == 0 else "crash",
            "said": f"exit {proc.returncode}: {(out + err)[-300:]}",
        }
    except Exception as exc:  # noqa: BLE001 - what the fuzzer looks for
        return {**case, "verdict": "crash", "said": f"{type(exc).__name__}: {exc}"[:300]}


# --- workers: each case in a process that is killed past its budget --------------------------------


def _worker(conn, parent, seed, timeout, surfaces, workdir):
    from mathcheck.procs import die_with_parent

    die_with_parent(parent)  # a killed fuzz run leaves no worker behind (kill -9 included)
    _warm()
    conn.send("ready")  # the clock of the first case starts now, not while torch and SymPy import
    while True:
        k = conn.recv()
        if k is None:
            return
        conn.send(run_case(seed, k, timeout, surfaces, workdir))


WARM_SECONDS = 600.0  # a worker's imports, on a loaded machine


def _warm():
    """Import what every surface uses, once per worker: a case's budget (a hang past it) is its own
    work, not the worker's start-up (90 s at a load of 30 once made case 0 a "hang")."""
    import mpmath  # noqa: F401
    import sympy  # noqa: F401
    import torch  # noqa: F401

    from mathcheck import derive, engine, registry, usercheck  # noqa: F401
    from mathcheck.symbolic import rules  # noqa: F401
    from mathcheck.userexpr import relation  # noqa: F401


class Pool:
    def __init__(self, jobs, seed, timeout, surfaces, workdir):
        self.ctx = multiprocessing.get_context("fork")
        self.args = (seed, timeout, surfaces, workdir)
        self.workers = [self._spawn() for _ in range(jobs)]
        for w in self.workers:  # started together, warmed in parallel
            self._ready(w)

    def _ready(self, w):
        """Wait for the worker's imports; one that dies or never gets ready stops the run (no case is
        to blame)."""
        if not w["conn"].poll(WARM_SECONDS):
            raise RuntimeError(f"a fuzz worker did not start within {WARM_SECONDS:g} s")
        if w["conn"].recv() != "ready":
            raise RuntimeError("a fuzz worker started wrongly")

    def _spawn(self):
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=_worker, args=(child, os.getpid(), *self.args), daemon=True)
        p.start()
        return {"proc": p, "conn": parent, "k": None, "since": 0.0}

    def run(self, ks, budget, on_result):
        todo = list(ks)[::-1]
        while todo or any(w["k"] is not None for w in self.workers):
            for w in self.workers:
                if w["k"] is None and todo:
                    w["k"], w["since"] = todo.pop(), time.monotonic()
                    w["conn"].send(w["k"])
            busy = [w for w in self.workers if w["k"] is not None]
            ready = wait([w["conn"] for w in busy], timeout=1.0)
            for w in busy:
                if w["conn"] in ready:
                    try:
                        result = w["conn"].recv()
                    except EOFError:  # the worker died (a segfault, the OOM killer): a crash
                        result = {"k": w["k"], "died": True}
                        self._replace(w)
                    on_result(result)
                    w["k"] = None
                elif time.monotonic() - w["since"] > budget:
                    on_result({"k": w["k"], "hang": round(time.monotonic() - w["since"], 1)})
                    self._replace(w)
                    w["k"] = None

    def _replace(self, w):
        w["proc"].kill()
        w["proc"].join()
        w.update(self._spawn())
        self._ready(w)

    def close(self):
        for w in self.workers:
            if w["k"] is None:
                w["conn"].send(None)
                w["proc"].join(5)
            if w["proc"].is_alive():  # busy (a run stopped early) or stuck
                w["proc"].kill()
                w["proc"].join()


BAD = ("false_proofs", "false_refutations", "misread", "crashes", "hangs", "orphans")  # each must stay 0


def fuzz(
    cases: int,
    seed: int = 0,
    jobs: int = 1,
    timeout: float = 5.0,
    surfaces=SURFACES,
    only=None,
    progress: int = 0,
    hang_after: float | None = None,
) -> dict:
    """Run the cases; the report (counts first, then the offending cases with replay lines)."""
    ks = [only] if only is not None else range(cases)
    report = {
        "cases": 0,
        "false_proofs": 0,
        "false_refutations": 0,
        "misread": 0,
        "crashes": 0,
        "hangs": 0,
        "orphans": 0,
        "extra_cases": {s: 0 for s in surfaces if s in EXTRA_SURFACES},
        "skipped": 0,
        "seed": seed,
        "timeout": timeout,
        "surfaces": list(surfaces),
        "statuses": {},
        "surface_seconds": {},
        "cpu_seconds": {},  # per surface (and the oracle), summed over the cases: user + system
        "offending": [],
    }
    # each surface within its own timeout, with margin for a loaded machine
    budget = (
        hang_after
        if hang_after is not None
        else len(surfaces) * timeout * 3 + 30 + (EXIT_CLI_SECONDS + 10 if "exits" in surfaces else 0)
    )
    done, start = [0], time.perf_counter()

    def record(r):
        done[0] += 1
        if progress and done[0] % progress == 0:  # partial counts survive a run stopped early
            counts = {k: report[k] for k in ("cases",) + BAD + ("extra_cases",)}
            print(
                f"fuzz: {done[0]} drawn, {time.perf_counter() - start:.0f} s: {json.dumps(counts)}",
                file=sys.stderr,
                flush=True,
            )
        k = r["k"]
        replay = f"python bench/fuzz.py --seed {seed} --case {k} --timeout {timeout:g} --json"
        for surface, seconds in r.get("cpu", {}).items():
            report["cpu_seconds"][surface] = round(report["cpu_seconds"].get(surface, 0) + seconds, 3)
        for surface, e in r.get("extra", {}).items():
            verdict = e["verdict"]
            key = f"{surface} {verdict}" + (f" ({e['rule']})" if surface == "rules" else "")
            report["statuses"][key] = report["statuses"].get(key, 0) + 1
            if verdict == "skipped":
                continue
            report["extra_cases"][surface] += 1
            kind = {
                "false proof": "false_proofs",
                "false success": "false_proofs",
                "crash": "crashes",
                "orphan": "orphans",
                "false refutation": "false_refutations",
                "misread": "misread",
            }.get(verdict)
            if kind:
                report[kind] += 1
                report["offending"].append(
                    {"kind": verdict, "k": k, "surface": surface, **e, "replay": replay + f" --surfaces {surface}"}
                )
                if progress:
                    print(f"fuzz: {json.dumps(report['offending'][-1])}", file=sys.stderr, flush=True)
        if r.get("no_expression"):
            return
        if "skipped" in r:
            report["skipped"] += 1
            return
        report["cases"] += 1
        if "hang" in r or "died" in r:
            kind = "hangs" if "hang" in r else "crashes"
            report[kind] += 1
            report["offending"].append(
                {
                    "kind": kind[:-1],
                    "k": k,
                    "replay": replay,
                    **({"seconds": r["hang"]} if "hang" in r else {"died": True}),
                }
            )
            if progress:
                print(f"fuzz: {json.dumps(report['offending'][-1])}", file=sys.stderr, flush=True)
            return
        for surface, (status, seconds) in r["results"].items():
            report["surface_seconds"][surface] = round(report["surface_seconds"].get(surface, 0) + seconds, 3)
            key = f"{'true' if r['true'] else 'false'} {surface} {status.split(':')[0]}"
            report["statuses"][key] = report["statuses"].get(key, 0) + 1
            kind = (
                "crash"
                if status.startswith("crash") or status == "error"
                else "false proof"
                if status == "proved" and not r["true"]
                else "false refutation"
                if status == "refuted" and r["true"]
                else "bad input"
                if status == "bad-input"
                else None
            )
            if kind is None:
                continue
            if kind != "bad input":
                report[
                    {"crash": "crashes", "false proof": "false_proofs", "false refutation": "false_refutations"}[kind]
                ] += 1
            assume = " ".join(f"--assume {n}={','.join(p)}" for n, p in r["assume"].items())
            cli = (
                f"mathcheck check {json.dumps(r['lhs'])} {json.dumps(r['rhs'])} {assume} --seed {seed}".strip()
                if r["relation"] == "="
                else None
            )
            report["offending"].append(
                {
                    "kind": kind,
                    "k": k,
                    "surface": surface,
                    "status": status,
                    "lhs": r["lhs"],
                    "relation": r["relation"],
                    "rhs": r["rhs"],
                    "assume": r["assume"],
                    "true": r["true"],
                    "how": r["how"],
                    "replay": replay,
                    **({"cli": cli} if cli else {}),
                }
            )
            if progress:
                print(f"fuzz: {json.dumps(report['offending'][-1])}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="mathcheck-fuzz-") as workdir:  # chain files, claim modules
        if jobs == 0:  # in this process (a test, a debugger): no hang detection
            for k in ks:
                record(run_case(seed, k, timeout, surfaces, workdir))
        else:
            pool = Pool(jobs, seed, timeout, surfaces, workdir)
            try:
                pool.run(ks, budget, record)
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the report of the cases done so far
                report["stopped_after"] = done[0]
            finally:
                pool.close()
    report["seconds"] = round(time.perf_counter() - start, 1)
    report["offending"].sort(key=lambda o: (o["k"], o.get("surface", "")))
    report["statuses"] = dict(sorted(report["statuses"].items()))
    return report


def _interrupt(signum, frame):
    # once: a second SIGTERM (`timeout` forwards one, a process-group kill sends another) must not
    # interrupt the clean-up that writes the report of the cases done so far
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="worker processes (0: in this process, no hang detection)",
    )
    ap.add_argument("--timeout", type=float, default=5.0, help="budget of each check, in seconds")
    ap.add_argument(
        "--surfaces",
        default=",".join(SURFACES + ("rules",)),
        help="comma-separated among check,derive,claim (an expression pair's surfaces), rules (the "
        "rule constructors on random ranges), exits (user code that exits or hangs; a "
        f"{EXIT_CLI_SHARE:.0%} share through a subprocess), bounds and definitions (a derivation "
        "file's ≈ bounds and let lines, bench/fuzz_directives.py); default: check,derive,claim,rules",
    )
    ap.add_argument("--case", type=int, default=None, help="replay this one case")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--progress", type=int, default=0, metavar="N", help="counts on stderr every N cases")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    surfaces = tuple(s for s in args.surfaces.split(",") if s)
    if not set(surfaces) <= set(SURFACES + EXTRA_SURFACES):
        ap.error(f"--surfaces: choose among {', '.join(SURFACES + EXTRA_SURFACES)}")
    report = fuzz(args.cases, args.seed, args.jobs, args.timeout, surfaces, args.case, args.progress)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(
            f"{report['cases']} cases ({report['skipped']} drawn pairs skipped: truth not clear), "
            f"{report['seconds']} s: {report['false_proofs']} false proofs, {report['false_refutations']} "
            f"false refutations, {report['misread']} misread, {report['crashes']} crashes, {report['hangs']} hangs, "
            f"{report['orphans']} orphans; cases of the other surfaces: {report['extra_cases']}"
        )
        for o in report["offending"]:
            print(
                f"  {o['kind']}: case {o['k']} {o.get('surface', '')}: {o.get('lhs', '')} "
                f"{o.get('relation', '')} {o.get('rhs', '')}  [{o.get('status', '')}]"
            )
            print(f"    replay: {o['replay']}" + (f"\n    or: {o['cli']}" if o.get("cli") else ""))
    return 1 if sum(report[k] for k in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
