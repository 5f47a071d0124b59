"""A soundness fuzzer for what a derivation file says around its expressions: the ``≈`` bound of a
link and the ``let`` definitions (issue 32). Any verdict the case's truth contradicts is a bug.

    python bench/fuzz_directives.py [--surface bounds|definitions] [--cases N] [--seed S] [-j J]
                                    [--timeout T] [--case K] [--json]

Its two surfaces are also ``bench/fuzz.py --surfaces bounds,definitions`` (one fuzzer, one report): this
entry point runs :func:`bench.fuzz.fuzz` on one of them, with its worker pool (a process per worker,
one killed past its budget is a **hang**, one that dies a **crash**) and its counts; case ``k`` of
seed ``S`` is drawn from ``random.Random(f"{S}:{surface}:{k}")`` alone, so ``--case k`` replays it.
Each case is a chain file checked by :func:`mathcheck.derive.check_files`, the code ``mathcheck derive`` runs.

* **bounds**: ``x ≈ x + D  # within B`` (absolute) or ``x ≈ x*(1 + r)  # within B relative``
  (the relative error r/(1 + r) at every x ≠ 0), B one exact number (10^-a, m·10^-a, 2^-b) in a
  random spelling of it (``1/1000``, ``0.001``, ``1e-3``, ``10^-3``, ``10**(-3)``, ``1e−3`` with a
  Unicode minus, ``1/10^3``, a percentage), the error just inside or just outside B (by 10^-6 to
  1/2 of it), sometimes two links whose bounds add up; or a bound that is not a number (``1e-3e``,
  ``witin 1e-3``, ``2^-``), which must be bad input. Truth: exact rational arithmetic, D ≤ B.
* **definitions**: ``let`` lines in a random order (with unused ones mixed in) whose meaning
  depends on their being substitutions done hygienically: a definition pasted into a sum or a
  product over its free name, a forward reference under ``diff``, a function whose parameter is
  named like another definition's free name, a function whose own index an argument names; the
  right-hand side either the hygienic meaning (true) or the captured one (false). Some chains are
  bad by construction (a cycle, a built-in redefined) and must be refused. Truth: both sides built
  directly as SymPy objects, by hand, and compared at 50 digits at three points.

Counts: ``false_proofs`` (``proved``/``holds-within`` of a false case, or of one that must be
refused), ``false_refutations``, ``misread`` (a good chain refused as bad input), ``crashes``,
``hangs``; ``inconclusive`` is honest and counted apart.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import fuzz as base  # noqa: E402 - the one fuzzer: its pool, report and interrupt handling

SURFACES = ("bounds", "definitions")

# --- bounds ----------------------------------------------------------------------------------------

UNICODE_MINUS = "\u2212"


def _decimal(q: Fraction) -> str | None:
    """``q`` as an exact decimal (``Fraction(1, 1024)`` → ``'0.0009765625'``), or None when it has none."""
    d, twos, fives = q.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        return None
    k = max(twos, fives)
    digits = str(q.numerator * 10**k // q.denominator).rjust(k + 1, "0")
    return (digits[:-k] + "." + digits[-k:]).rstrip("0").rstrip(".") if k else digits


def bound_value(rng) -> tuple[Fraction, list[str]]:
    """A bound and every spelling of it this fuzzer writes."""
    kind = rng.choice(["ten", "mten", "two"])
    if kind == "two":
        b = rng.randint(3, 20)
        q = Fraction(1, 2**b)
        out = [f"2^-{b}", f"2**-{b}", f"2^(-{b})", f"1/{2**b}", f"1/2^{b}", f"2^{UNICODE_MINUS}{b}"]
    else:
        a = rng.randint(1, 9)
        m = 1 if kind == "ten" else rng.randint(2, 9)
        q = Fraction(m, 10**a)
        out = [
            f"{m}e-{a}",
            f"{m}E-{a}",
            f"{m}e{UNICODE_MINUS}{a}",
            f"{m}/{10**a}",
            f"{m}*10^-{a}",
            f"{m}*10**(-{a})",
            f"{m}/10^{a}",
            f"{m}·10^{UNICODE_MINUS}{a}",
        ]
        if m == 1:
            out += [f"10^-{a}", f"10**(-{a})", f"1/10^{a}", f"10^({UNICODE_MINUS}{a})"]
    dec = _decimal(q)
    if dec is not None and len(dec) < 24:
        out.append(dec)
    return q, out


BAD_BOUNDS = (
    "within {s}e",
    "within {s}x",
    "witin {s}",
    "wihtin {s}",
    "within {s}/",
    "within -{s}",
    "within 0*{s}",
    "within {s} of the true value",
    "within",
    "within e-3",
    "within {s}^",
)


def bounds_case(rng) -> dict:
    """A chain text and what it must be: ``holds-within``, ``refuted`` or ``bad-input``."""
    links = 1 if rng.random() < 0.7 else 2
    relative = links == 1 and rng.random() < 0.3
    lines, want, total_err, total_bound = ["## fuzz", "  x"], "holds-within", Fraction(0), Fraction(0)
    acc = "x"
    for _ in range(links):
        q, spellings = bound_value(rng)
        spelled = rng.choice(spellings)
        if rng.random() < 0.12:  # not a bound: refused, never read as a prefix
            reason = rng.choice(BAD_BOUNDS).format(s=spelled)
            lines.append(f"≈ {acc} + {q.numerator}/{q.denominator}   # {reason}")
            return {"text": "\n".join(lines) + "\n", "want": "bad-input", "true": False, "bound": reason}
        inside = rng.random() < 0.5
        delta = Fraction(1, 10 ** rng.randint(1, 6)) * rng.choice([1, 5])
        err = q * (1 - delta) if inside else q * (1 + delta)
        percent = relative and rng.random() < 0.3
        tail = " relative" if relative and not percent else ""
        shown = spelled
        if percent:  # the same number as a percentage: B·100 %
            shown = _decimal(q * 100) or f"{(q * 100).numerator}/{(q * 100).denominator}"
            tail = "%"
        if relative:  # x*(1 + r): relative error r/(1 + r) = err at every x ≠ 0
            r = err / (1 - err)
            acc = f"x*(1 + {r.numerator}/{r.denominator})"
        else:
            acc = f"{acc} + {err.numerator}/{err.denominator}"
        lines.append(f"≈ {acc}   # within {shown}{tail}")
        total_err += err
        total_bound += q
        if not inside:
            want = "refuted"
    true = want == "holds-within"
    assert (total_err <= total_bound) or not true  # the triangle inequality the statement is held to
    return {"text": "\n".join(lines) + "\n", "want": want, "true": true}


# --- definitions -----------------------------------------------------------------------------------

LETTERS = ("a", "b", "c", "d", "u", "v", "w", "q")
INDICES = ("i", "j", "k", "m")


def _defs_case(rng):
    """(lets, lhs text, the hygienic meaning as SymPy, the captured meaning as SymPy, assume)."""
    import sympy as sp

    names = rng.sample(LETTERS, 4)
    idx = rng.choice(INDICES)
    n = sp.Symbol("n", integer=True, positive=True)
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
    I = sp.Symbol(idx, real=True)  # free: the definition's own, not the index
    K = rng.randint(2, 5)
    kind = rng.choice(["sum", "product", "forward-diff", "forward-value", "param", "own-index", "nested"])
    a, b, c, d = names
    if kind == "sum":  # let c = K*i; Sum(c*y, (i, 1, n)): c is free of the sum, so n*K*i*y
        lets = [f"{c} = {K}*{idx}"]
        lhs = f"Sum({c}*y, ({idx}, 1, n))"
        k = sp.Symbol("kk", integer=True)
        good, bad = n * K * I * y, sp.Sum(K * k * y, (k, 1, n)).doit()
        return lets, lhs, good, bad, {"n": "positive,integer"}
    if kind == "product":
        lets = [f"{c} = {idx} + {K}"]
        lhs = f"Product({c}, ({idx}, 1, 3))"
        good, bad = (I + K) ** 3, sp.Integer((1 + K) * (2 + K) * (3 + K))
        return lets, lhs, good, bad, {}
    if kind == "forward-diff":  # a uses b, defined after it: diff(a, x) sees x through b
        lets = [f"{a} = {b}^2 + {K}*{b}", f"{b} = x*y"]
        lhs = f"diff({a}, x)"
        good, bad = 2 * x * y * y + K * y, sp.Integer(0)
        return lets, lhs, good, bad, {}
    if kind == "forward-value":
        lets = [f"{a} = {b} + {c}", f"{b} = {K}", f"{c} = {b}*x"]
        lhs = a
        good, bad = K + K * x, K * x  # bad: the forward reference b read as nothing (a defined name
        # cannot be written on the right as a free variable: it would be expanded too)
        return lets, lhs, good, bad, {}
    if kind == "param":  # let g = t; let f(t) = g + K*t; f(y): g's t is not f's parameter
        t = rng.choice(["t", "s", "z"])
        lets = [f"{a} = {t}", f"{b}({t}) = {a} + {K}*{t}"]
        lhs = f"{b}(y)"
        T = sp.Symbol(t, real=True)
        good, bad = T + K * y, (K + 1) * y
        return lets, lhs, good, bad, {}
    if kind == "own-index":  # f(u) sums over i; f(i): the argument's i is not the sum's
        xs = sp.IndexedBase("x")
        lets = [f"{a}(u) = Sum(u*x[{idx}], ({idx}, 1, 3))"]
        lhs = f"{a}({idx})"
        good = I * sum(xs[j] for j in (1, 2, 3))
        bad = sum(j * xs[j] for j in (1, 2, 3))
        return lets, lhs, good, bad, {}
    # nested: a sum inside a definition used inside a sum over the same index
    xs = sp.IndexedBase("x")
    lets = [f"{d} = Sum(x[{idx}], ({idx}, 1, 3))", f"{c} = {idx}"]
    lhs = f"Sum({d}*{c}, ({idx}, 1, 2))"
    S = sum(xs[j] for j in (1, 2, 3))
    good, bad = 2 * S * I, 3 * S
    return lets, lhs, good, bad, {}


def _sp_text(e) -> str:
    """A SymPy expression written in the grammar: x[1] as written, ** as ^."""
    import sympy as sp

    return sp.sstr(e, order="none").replace("**", "^")


def _differ(a, b, rng) -> bool | None:
    """Do ``a`` and ``b`` differ? At three random points, at 50 digits; None when undecided."""
    import sympy as sp

    syms = sorted((a - b).free_symbols | set((a - b).atoms(sp.Indexed)), key=str)
    seen = []
    for _ in range(3):
        pt = {s: sp.Rational(rng.randint(-40, 40), rng.randint(1, 9)) for s in syms}
        v = sp.N((a - b).xreplace(pt), 50)
        if not v.is_number:
            return None
        seen.append(abs(v) > sp.Float("1e-30", 50))
    return any(seen)


def definitions_case(rng) -> dict:
    """A chain with lets in a random order, ``lhs = rhs`` with rhs the hygienic or the captured meaning."""

    if rng.random() < 0.08:  # bad by construction: must be refused
        a, b = rng.sample(LETTERS, 2)
        lets = rng.choice(
            [
                [f"{a} = {b} + 1", f"{b} = {a}*x"],
                [f"{rng.choice(['exp', 'log', 'sigmoid', 'gamma', 'sqrt'])}(t) = t"],
                [f"{a}(t) = t^2"],
            ]
        )
        lhs = f"{a} + 1" if len(lets) == 1 and lets[0].startswith(f"{a}(") else f"{a}"
        text = "## fuzz\n" + "".join(f"let {line}\n" for line in lets) + f"  {lhs}\n= {lhs}\n"
        return {"text": text, "want": "bad-input", "true": False, "kind": "bad"}
    lets, lhs, good, bad, assume = _defs_case(rng)
    if _differ(good, bad, rng) is not True:
        return {"skipped": "the two meanings do not differ here"}
    true = rng.random() < 0.5
    rhs = good if true else bad
    pool = [
        f"{n} = {rng.randint(1, 9)}*y + 1"
        for n in LETTERS
        if all(not line.startswith(n) for line in lets) and n not in lhs
    ]
    lets = lets + rng.sample(pool, min(len(pool), rng.randint(0, 2)))  # unused ones, in the mix
    rng.shuffle(lets)
    head = "## fuzz\n" + ("assume: " + " ".join(f"{k}={v}" for k, v in assume.items()) + "\n" if assume else "")
    text = head + "".join(f"let {line}\n" for line in lets) + f"  {lhs}\n= {_sp_text(rhs)}\n"
    return {
        "text": text,
        "want": "proved" if true else "refuted",
        "true": true,
        "meaning": _sp_text(good),
        "captured": _sp_text(bad),
    }


# --- one case --------------------------------------------------------------------------------------


def draw(seed: int, k: int, surface: str) -> dict:
    rng = random.Random(f"{seed}:{surface}:{k}")
    case = bounds_case(rng) if surface == "bounds" else definitions_case(rng)
    return {"k": k, "surface": surface, **case}


def run_case(seed: int, k: int, timeout: float, surfaces, workdir) -> dict:
    """Case ``k`` of ``surfaces[0]`` through ``mathcheck derive``'s code; its status and the truth.
    (The signature of :func:`bench.fuzz.run_case`, which the shared pool's workers call.)"""
    surface = surfaces[0]
    case = draw(seed, k, surface)
    if "skipped" in case:
        return case
    from mathcheck import derive

    path = Path(workdir) / f"fuzz_{surface}_{seed}_{k}.derivation"
    path.write_text(case["text"], encoding="utf-8")
    t0 = time.perf_counter()
    try:
        report = derive.check_files([path], seed=seed, timeout=timeout)
        (chain,) = report.files[0][1]
        status, message = chain.status, chain.message
    except derive.DeriveError as exc:  # the file as a whole refused: bad input too
        status, message = "bad-input", str(exc)
    except Exception as exc:  # noqa: BLE001 - exactly what the fuzzer looks for
        status, message = "crash", "".join(traceback.format_exception_only(exc)).strip()[:300]
    return {**case, "status": status, "message": message, "seconds": round(time.perf_counter() - t0, 3)}


def classify(r: dict) -> str | None:
    """What a result is against its truth: None when honest."""
    status, want = r["status"], r["want"]
    if status == "crash":
        return "crashes"
    if status in ("proved", "holds-within"):
        return None if want in ("proved", "holds-within") else "false_proofs"
    if status == "refuted":
        return None if want == "refuted" else "false_refutations"
    if status == "bad-input":
        return None if want == "bad-input" else "misread"
    return None  # inconclusive: honest


def fuzz(
    surface: str, cases: int, seed: int = 0, jobs: int = 2, timeout: float = 10.0, only=None, progress: int = 0
) -> dict:
    """``python bench/fuzz.py --surfaces <surface>`` (one fuzzer, one report shape: :func:`bench.fuzz.fuzz`
    records these cases as it records the rule and exit cases), its counts read for this surface:
    ``cases`` drawn and decided, ``skipped``, ``inconclusive``."""
    report = base.fuzz(cases, seed, jobs, timeout, (surface,), only, progress)
    statuses = report["statuses"]
    report.update(
        surface=surface,
        cases=report["extra_cases"][surface],
        skipped=statuses.get(f"{surface} skipped", 0),
        inconclusive=statuses.get(f"{surface} inconclusive", 0),
    )
    return report


def main(argv=None) -> int:
    """``--surface S [options]`` is ``python bench/fuzz.py --surfaces S --timeout 10 [options]``: the one
    entry point, its options and its report (a later ``--timeout`` wins)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], add_help=False)
    ap.add_argument("--surface", choices=SURFACES, default="bounds")
    args, rest = ap.parse_known_args(argv)
    return base.main(["--surfaces", args.surface, "--timeout", "10", *rest])


if __name__ == "__main__":
    sys.exit(main())
