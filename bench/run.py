"""mathcheck's benchmarks: every figure a ratio measured in one run.

    python bench/run.py --write-docs   # everything (several minutes on 2 cores), into docs/performance.md
    python bench/run.py --quick        # smaller sizes, for a smoke run, into a scratch file
    python bench/run.py --only 1 8     # some sections (numbers as printed)

Without ``--write-docs`` (or ``-o FILE``) the report goes to a scratch file in the temporary
directory, so a smoke run never rewrites the committed docs/performance.md. Other benchmark
modules join in when present: bench/check_bench.py and bench/conform_bench.py, each with a
``rows()`` function that returns a list of dicts (one table row each).

Targets live here, not in timed tests (tests assert behaviour; machines are shared and noisy).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from mathcheck.procs import child_dies_with_parent  # a killed bench leaves no mathcheck run behind

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def median_time(cmd: list[str], runs: int, env=None) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(preexec_fn=child_dies_with_parent, args=cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def paired(cmd: list[str], base: list[str], runs: int, env=None) -> tuple[float, float, float]:
    """Median seconds of ``cmd`` and of ``base``, and the median of their ratios, the two run
    alternately (each ratio from neighbouring runs: a shared machine's load cancels out)."""
    a, b, ratios = [], [], []
    for _ in range(runs):
        for cmd_, out in ((base, b), (cmd, a)):
            t = time.perf_counter()
            subprocess.run(
                preexec_fn=child_dies_with_parent, args=cmd_, check=True, capture_output=True, env=env, cwd=ROOT
            )
            out.append(time.perf_counter() - t)
        ratios.append(a[-1] / b[-1])
    return statistics.median(a), statistics.median(b), statistics.median(ratios)


def user_env(**extra) -> dict:
    """The environment as a user has it: bytecode caching on (a CI or sandbox may switch it off with
    PYTHONDONTWRITEBYTECODE; click's .pyc files exist from its install, mathcheck's then would not)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    env.update(extra)
    return env


# --- 1. start-up ---------------------------------------------------------------------------------


def startup(quick: bool) -> tuple[list[str], dict]:
    runs = 7 if quick else 15
    py = sys.executable
    env = user_env()
    click_cmd = [py, "-c", "import click"]
    for cmd in ([py, "-m", "mathcheck", "--help"], [py, "-m", "mathcheck", "list"]):  # .pyc files, list's index
        subprocess.run(preexec_fn=child_dies_with_parent, args=cmd, check=True, capture_output=True, env=env, cwd=ROOT)
    helps, base_h, help_ratio = paired([py, "-m", "mathcheck", "--help"], click_cmd, runs, env)
    lists, base_l, list_ratio = paired([py, "-m", "mathcheck", "list"], click_cmd, runs, env)
    base = statistics.median([base_h, base_l])
    imported = subprocess.run(
        preexec_fn=child_dies_with_parent,
        args=[py, "-X", "importtime", "-m", "mathcheck", "list"],
        capture_output=True,
        text=True,
    ).stderr
    heavy = sorted(
        {m for m in ("sympy", "torch", "numpy", "matplotlib") if f" {m}\n" in imported or f"| {m}\n" in imported}
    )
    prove_imports = subprocess.run(
        preexec_fn=child_dies_with_parent,
        args=[py, "-X", "importtime", "-m", "mathcheck", "prove", "cross-entropy-decomposition", "--no-cache"],
        capture_output=True,
        text=True,
    ).stderr
    used = sorted({m for m in ("sympy", "torch", "matplotlib", "rich") if f"| {m}\n" in prove_imports})
    lines = [
        '| command | median (s) | ratio to `python -c "import click"` | target |',
        "|---|---|---|---|",
        f'| `python -c "import click"` | {base:.3f} | 1.00 | |',
        f"| `mathcheck --help` | {helps:.3f} | {help_ratio:.2f} | ≤ 1.3 |",
        f"| `mathcheck list` | {lists:.3f} | {list_ratio:.2f} | ≤ 1.3 |",
        "",
        f"Each ratio is the median of {runs} ratios of neighbouring runs (the commands alternate, so the load of a "
        "shared machine cancels out), with bytecode caching on as a user has it. "
        f"Heavy modules imported by `mathcheck list`: {', '.join(heavy) or 'none'}. "
        f"`mathcheck prove cross-entropy-decomposition` imports {', '.join(used)} (it needs SymPy to derive "
        "and torch to check; matplotlib is not imported).",
    ]
    return lines, {"help_ratio": help_ratio, "list_ratio": list_ratio}


# --- 2. symbolic cost against the explicit way ---------------------------------------------------


def _explicit_softmax(n: int, zero) -> float:
    import sympy as sp

    z = sp.symbols(f"z0:{n}")
    s = [1 / sum(sp.exp(z[k] - z[i]) for k in range(n)) for i in range(n)]  # difference does not cancel
    sp.core.cache.clear_cache()  # each way timed from a cold SymPy cache: a repeat would be a lookup
    t = time.perf_counter()
    for i in range(n):
        for j in range(n):
            e = sp.diff(s[i], z[j]) - s[i] * ((1 if i == j else 0) - s[j])
            assert zero(e), (n, i, j)
    return time.perf_counter() - t


def _explicit_layernorm(n: int, zero) -> float:
    import sympy as sp

    x = sp.symbols(f"x0:{n}", real=True)
    mean = sum(x) / n
    var = sum((xi - mean) ** 2 for xi in x) / n
    y = [(xi - mean) / sp.sqrt(var) for xi in x]
    sp.core.cache.clear_cache()
    t = time.perf_counter()
    assert zero(sum(y))  # mean 0
    assert zero(sum(yi**2 for yi in y) / n - 1)  # biased variance 1
    return time.perf_counter() - t


def _general(claim_id: str, parts: tuple[str, ...]) -> float | None:
    from mathcheck import registry
    from mathcheck.symbolic import steps

    try:
        c = registry.get(claim_id)
    except registry.UnknownClaim:
        return None
    # the parts in order up to the last one asked for, as the engine checks them: a lemma may cite
    # only a part proved before it, and the parts after the last do not bear on these
    last = max((i for i, p in enumerate(c.parts) if p.name in parts), default=len(c.parts) - 1)
    from sympy.core.cache import clear_cache

    clear_cache()  # the same proof is timed once per row: from a cold SymPy cache each time
    t = time.perf_counter()
    for r in steps.check_parts(c.parts[: last + 1], c.context):
        if r.name in parts or not parts:
            assert r.status == "proved", (claim_id, r.name, r.status)
    return time.perf_counter() - t


def symbolic(quick: bool) -> tuple[list[str], dict]:
    import sympy as sp

    from mathcheck.budget import attempt

    fastest = lambda e: sp.expand(sp.numer(sp.together(e))) == 0  # noqa: E731
    simp = lambda e: sp.simplify(e) == 0  # noqa: E731
    sizes = (2, 4, 8) if quick else (2, 4, 8, 16)
    general = _general("softmax-jacobian", ("jacobian",))
    lines = [
        "**softmax-jacobian** — general proof (symbolic n, part `jacobian`) against the explicit way "
        "(n symbols, s_i = 1/Σ_k exp(z_k − z_i), all n² entries, one zero test each):",
        "",
        "| n | general proof (s) | explicit, `expand(numer(together(e)))` (s) | explicit, `simplify` (s) | "
        "ratio explicit-fastest / general |",
        "|---|---|---|---|---|",
    ]
    ratios = {}
    for n in sizes:
        g = _general("softmax-jacobian", ("jacobian",))  # the same proof covers every n: timed per row
        fast = _explicit_softmax(n, fastest)
        simp_t = "—"
        if n <= 4:
            ok, t = attempt(lambda: _explicit_softmax(n, simp), 120)
            simp_t = f"{t:.2f}" if ok else "> 120"
        ratios[n] = fast / g
        lines.append(f"| {n} | {g:.3f} | {fast:.2f} | {simp_t} | {fast / g:.0f}× |")
    lines += ["", "`simplify` is not run past n = 4 (measured here earlier: ≈ 31 s at n = 6, ≈ 170 s at n = 8).", ""]
    ln_parts = ("mean", "variance", "variance-limit")  # the statements the explicit way checks
    if _general("layernorm-statistics", ln_parts) is not None:
        lines += [
            "**layernorm-statistics** — general proof (parts `mean`, `variance`, `variance-limit`, symbolic n) "
            "against the explicit way (n symbols; Σ y_i = 0 and (1/n)Σ y_i² = 1 for y = (x − mean)/σ, ε = 0):",
            "",
            "| n | general proof (s) | explicit, `expand(numer(together(e)))` (s) | ratio explicit / general |",
            "|---|---|---|---|",
        ]
        for n in (2, 8, 16) if quick else (2, 8, 16, 32, 64):
            ok, t = attempt(lambda: _explicit_layernorm(n, fastest), 120)
            g = _general("layernorm-statistics", ln_parts)
            lines.append(f"| {n} | {g:.3f} | {t:.2f} | {t / g:.2f}× |" if ok else f"| {n} | {g:.3f} | > 120 | — |")
        lines += [
            "",
            "The general proof costs the same at every n; the explicit way grows with n and overtakes it "
            "between the sizes where the ratio crosses 1.",
            "",
        ]
    del general
    return lines, {"softmax_ratio_16": ratios.get(16)}


# --- 3. Monte Carlo at scale ----------------------------------------------------------------------

MC_CHILD = r"""
import json, resource, statistics, sys, time
import torch
from mathcheck.numeric import stats
from mathcheck.verify import linear_algebra as la
torch.set_num_threads(1)  # as the engine runs every check (bit-for-bit reproducible); bare randn the same
d, n, dtype_name, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
dtype = getattr(torch, dtype_name)
chunk = max(1, stats.CHUNK_ELEMENTS // d)

def once(which):
    t = time.perf_counter()
    if which == "check":
        stats.stream_moments(la._draw("normal", d, 0.0, 1.0, 0.0, 1.0, dtype), n, chunk, seed=0)
    else:  # bare torch.randn drawing the same numbers in the same chunks
        g = torch.Generator().manual_seed(0)
        done = 0
        while done < n:
            size = min(chunk, n - done)
            torch.randn(size, d, generator=g, dtype=dtype); torch.randn(size, d, generator=g, dtype=dtype)
            done += size
    return time.perf_counter() - t

if mode == "check":  # alone, so that the peak RSS is the check's
    once("check")  # warm-up: first calls pay one-off set-up in torch
    out = {"seconds": statistics.median(once("check") for _ in range(3))}
else:  # "pair": check and bare alternate, so that a shared machine's load drifts out of the ratio
    once("check"); once("bare")
    reps = 3 if once("bare") > 1.0 else 9
    runs = [(once("check"), once("bare")) for _ in range(reps)]
    out = {"bare": statistics.median(b for _, b in runs), "ratio": statistics.median(c / b for c, b in runs),
           "reps": reps}
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def monte_carlo(quick: bool) -> tuple[list[str], dict]:
    from mathcheck import registry
    from mathcheck.verify import linear_algebra as la
    from mathcheck.numeric import stats

    plan = la.qk_plan(registry.get("qk-variance").statements())
    tests = len(plan)
    sizes = {d: stats.sample_size(la._delta(d), tests) for d in sorted({s[1] for _, _, s in plan})}
    settings = {s for _, _, s in plan}  # the parts share a setting's draws (one Monte Carlo run each)
    pairs = sum(sizes[s[1]] for s in settings)
    old_pairs = stats.sample_size(la.DELTA, tests) * len(settings)
    dims = (64, 512) if quick else (64, 512, 4096)
    lines = [
        f"**qk-variance** — the power analysis in `numeric/stats.py` sizes each of its {tests} z-tests so that "
        f"a relative error of {la.DELTA_SMALL:.0%} at d_k ≤ 512 ({la.DELTA:.0%} above) is rejected with power "
        "1 − 1e-6 at a family false-alarm rate of 1e-6 (kurtosis − 1 ≤ 3): N = "
        + ", ".join(f"{n} at d_k = {d}" for d, n in sizes.items())
        + f" pairs; {pairs} pairs in all over {len(settings)} settings, against {old_pairs} when every "
        "setting was sized for "
        f"{la.DELTA:.0%} (the cost of the finer resolution: {pairs / old_pairs:.1f}× the draws; its "
        "time is qk-variance's row in section 7). "
        "Peak RSS of a process running the check alone (torch alone ≈ 220 MB), its time the median of 3 "
        "runs after a warm-up; the throughput ratio against bare `torch.randn` drawing the same numbers in "
        "the same chunks is the median of the ratios of neighbouring runs in another process (check and "
        "bare alternate, 9 pairs when a run is under 1 s, else 3), so that the load of a shared machine "
        "cancels out. Everything on one intra-op thread, as the engine runs every check.",
        "",
        "| d_k | N | dtype | check (s) | bare randn (s) | throughput ratio | peak RSS check (MB) | "
        "one-shot would need (MB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    worst = {"rss": 0.0, "ratio": 0.0}
    for d in dims:
        n = sizes[d]
        for dtype in ("float64", "float32"):
            res = {}
            for mode in ("check", "pair"):
                out = subprocess.run(
                    preexec_fn=child_dies_with_parent,
                    args=[sys.executable, "-c", MC_CHILD, str(d), str(n), dtype, mode],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=ROOT,
                )
                res[mode] = json.loads(out.stdout)
            ratio = res["pair"]["ratio"]
            one_shot = 2 * d * n * (8 if dtype == "float64" else 4) / 2**20
            worst["rss"] = max(worst["rss"], res["check"]["rss_mb"])
            worst["ratio"] = max(worst["ratio"], ratio)
            lines.append(
                f"| {d} | {n} | {dtype} | {res['check']['seconds']:.2f} | {res['pair']['bare']:.2f} | "
                f"{ratio:.2f} (target ≤ 1.5) | {res['check']['rss_mb']:.0f} (target ≤ 512) | {one_shot:.0f} |"
            )
    return lines, worst


# --- 4. the whole catalog -------------------------------------------------------------------------


def catalog(quick: bool) -> tuple[list[str], dict]:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache_dir:
        env["MATHCHECK_CACHE_DIR"] = cache_dir
        cmd = [sys.executable, "-m", "mathcheck", "prove", "--all"]
        t = time.perf_counter()
        cold = subprocess.run(preexec_fn=child_dies_with_parent, args=cmd, capture_output=True, text=True, env=env)
        cold_s = time.perf_counter() - t
        warm_s = median_time(cmd, 3, env=env)
        t = time.perf_counter()
        par = subprocess.run(
            preexec_fn=child_dies_with_parent,
            args=cmd + ["-j", "2", "--no-cache"],
            capture_output=True,
            text=True,
            env=env,
        )
        par_s = time.perf_counter() - t
    claims = subprocess.run(
        preexec_fn=child_dies_with_parent,
        args=[sys.executable, "-m", "mathcheck", "list", "--json"],
        capture_output=True,
        text=True,
    ).stdout
    count = len(json.loads(claims)["claims"])
    lines = [
        f"`mathcheck prove --all` over {count} claims (exit codes: cold {cold.returncode}, -j 2 {par.returncode}):",
        "",
        "| run | wall (s) | target |",
        "|---|---|---|",
        f"| cold (empty cache) | {cold_s:.1f} | ≤ 60 |",
        f"| warm (cache current) | {warm_s:.2f} | ≤ 3 |",
        f"| cold, `-j 2 --no-cache` | {par_s:.1f} | |",
    ]
    return lines, {"cold": cold_s, "warm": warm_s, "parallel": par_s}


# --- 5. numeric checks against gradcheck -----------------------------------------------------------


def numeric(quick: bool) -> tuple[list[str], dict]:
    import torch
    import torch.nn.functional as F

    from mathcheck import registry
    from mathcheck.verify.calculus import _env
    from mathcheck.numeric.evaluate import evaluate

    J_rhs = registry.get("softmax-jacobian").part("jacobian").statement
    lines = [
        "Softmax: our check (closed form derived by SymPy, evaluated by torch, against the autograd Jacobian) "
        "against `torch.autograd.gradcheck` on the same function, float64, median of 5:",
        "",
        "| n | ours (ms) | gradcheck (ms) | gradcheck fast_mode (ms) | gradcheck / ours |",
        "|---|---|---|---|---|",
    ]

    def ours(z):
        s = F.softmax(z, 0)
        J = torch.autograd.functional.jacobian(lambda x: F.softmax(x, 0), z, vectorize=True)
        rhs = evaluate(J_rhs.rhs, _env(J_rhs, z, s, z.numel()))
        return torch.allclose(J, rhs, atol=1e-12, rtol=1e-9)

    def timed(fn, runs=5):
        out = []
        for _ in range(runs):
            t = time.perf_counter()
            assert fn()
            out.append(time.perf_counter() - t)
        return statistics.median(out) * 1e3

    for n in (8, 64, 512):
        z = torch.randn(n, dtype=torch.float64, requires_grad=True)
        a = timed(lambda: ours(z.detach()))
        b = timed(lambda: torch.autograd.gradcheck(lambda x: F.softmax(x, 0), (z,)))
        c = timed(lambda: torch.autograd.gradcheck(lambda x: F.softmax(x, 0), (z,), fast_mode=True))
        lines.append(f"| {n} | {a:.2f} | {b:.1f} | {c:.2f} | {b / a:.0f}× |")
    lines += [
        "",
        "gradcheck compares autograd with finite differences (a check of autograd); ours compares the "
        "derived closed form with autograd (a check of the derivation). Both are float64.",
    ]
    return lines, {}


# --- 6. budgets -------------------------------------------------------------------------------------


def budgets(quick: bool) -> tuple[list[str], dict]:
    import sympy as sp

    from mathcheck.symbolic.decide import zero_test

    xs = sp.symbols("x1:10")
    S = sum(xs)
    e = sp.expand(S**8) * S**4 - S**12  # true, but every strategy must expand a 12th power
    t = time.perf_counter()
    d = zero_test(e, attempt_s=2, total_s=4)
    took = time.perf_counter() - t
    lines = [
        f"A pathological zero test, `expand((x1+…+x9)**8)·(x1+…+x9)**4 − (x1+…+x9)**12` (plain `simplify` "
        f"ran 104 s here), with a 2 s budget per attempt and 4 s in all: answered `{d.status}` "
        f"({d.how}) in {took:.2f} s (target: budget + 1 s = 5 s)."
    ]
    return lines, {"budget_seconds": took}


def slowest(quick: bool) -> tuple[list[str], dict]:
    """Where the time goes: each claim's symbolic and numeric seconds, and a profile of the slowest."""
    import cProfile
    import pstats

    from mathcheck import registry
    from mathcheck.engine import verdict
    from mathcheck.verify import Options

    rows = []
    for e in registry.entries():
        v = verdict(e, "prove", Options())
        rows.append((v.symbolic.seconds + v.numeric.seconds, v.symbolic.seconds, v.numeric.seconds, e.id, v.status))
    rows.sort(reverse=True)
    lines = [
        "Each claim proved in one process (imports already paid), slowest first:",
        "",
        "| claim | status | symbolic (s) | numeric (s) |",
        "|---|---|---|---|",
    ]
    lines += [f"| {cid} | {st} | {sy:.2f} | {nu:.2f} |" for _, sy, nu, cid, st in rows]
    worst = rows[0][3]
    prof = cProfile.Profile()
    prof.enable()
    verdict(registry.entry(worst), "prove", Options(seed=1))
    prof.disable()
    stats = pstats.Stats(prof)
    top = sorted(
        (
            (v[3], f"{Path(k[0]).name}:{k[2]}")
            for k, v in stats.stats.items()
            if "mathcheck" in k[0] or "sympy" in k[0] or "torch" in k[0]
        ),
        reverse=True,
    )[:8]
    lines += [
        "",
        f"Profile of `{worst}` (seed 1; cumulative seconds of the heaviest calls):",
        "",
        "| function | cumulative (s) |",
        "|---|---|",
    ]
    lines += [f"| `{name}` | {cum:.2f} |" for cum, name in top]
    return lines, {}


# --- 8. writeups ----------------------------------------------------------------------------------


def _timed(cmd: list[str], env) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its children, e.g. pdflatex) of one run that must succeed."""
    r0, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    out = subprocess.run(preexec_fn=child_dies_with_parent, args=cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()[-500:]}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def writeups(quick: bool) -> tuple[list[str], dict]:
    """`writeup --all` cold and warm (verdicts and plots cached), as PDF, Markdown and --docs."""
    py = sys.executable
    runs = 1 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = user_env(MATHCHECK_CACHE_DIR=str(tmp / "cache"))
        w = [py, "-m", "mathcheck", "writeup", "--all"]
        (tmp / "cold").mkdir()
        cold, cold_cpu = _timed(w + ["-o", str(tmp / "cold" / "catalog.tex"), "--pdf", "-j", "2"], env)
        prove_warm = median_time([py, "-m", "mathcheck", "prove", "--all"], runs, env=env)
        rows = []

        def measure(label, make_cmd, note=""):
            walls, cpus = zip(*(_timed(make_cmd(n), env) for n in range(runs)))
            med = statistics.median(walls)
            rows.append((label, med, statistics.median(cpus), note))
            return med

        for n in range(runs):
            (tmp / f"pdf{n}").mkdir()
            (tmp / f"md{n}").mkdir()
        pdf_new = measure(
            "warm, `-o catalog.tex --pdf` into a new directory (one pdflatex pass: the settled "
            ".aux/.toc come from the cache)",
            lambda n: w + ["-o", str(tmp / f"pdf{n}" / "catalog.tex"), "--pdf"],
            "≤ 20",
        )
        pdf_same = measure(
            "warm, `-o catalog.tex --pdf` again, nothing changed (PDF current: no pdflatex)",
            lambda n: w + ["-o", str(tmp / "pdf0" / "catalog.tex"), "--pdf"],
            "≤ 20",
        )
        _timed(w + ["-o", str(tmp / "claims.md")], env)  # the PNG plots (the cold run drew PDFs)
        md = measure(
            "warm, `-o claims.md` into a new directory", lambda n: w + ["-o", str(tmp / f"md{n}" / "claims.md")]
        )
        subprocess.run(
            preexec_fn=child_dies_with_parent,
            args=w + ["--docs", str(tmp / "docs")],
            capture_output=True,
            env=env,
            cwd=ROOT,
        )
        before = {p: p.stat().st_mtime_ns for p in (tmp / "docs").rglob("*") if p.is_file()}
        docs = measure("warm, `--docs DIR` again, nothing changed", lambda n: w + ["--docs", str(tmp / "docs")])
        after = {p: p.stat().st_mtime_ns for p in (tmp / "docs").rglob("*") if p.is_file()}
    lines = [
        f"`mathcheck writeup --all` over the whole catalog, each in its own process (all exit 0); warm = "
        "every verdict and plot in the cache, filled by the cold run. CPU = user + system seconds of the "
        "command and its children (pdflatex): on a loaded machine the wall time grows, the CPU time does not. "
        f"The ratio is to `mathcheck prove --all` warm ({prove_warm:.2f} s wall), measured in the same run.",
        "",
        "| run | wall (s) | CPU (s) | wall ratio to `prove --all` warm | target, wall (s) |",
        "|---|---|---|---|---|",
        f"| cold (empty cache), `-o catalog.tex --pdf -j 2` | {cold:.1f} | {cold_cpu:.1f} | {cold / prove_warm:.1f} | |",
    ]
    lines += [
        f"| {label} | {sec:.2f} | {cpu:.2f} | {sec / prove_warm:.1f} | {note} |" for label, sec, cpu, note in rows
    ]
    lines += [
        "",
        f"`--docs` on an unchanged catalog rewrote {sum(before[p] != after.get(p) for p in before)} "
        f"of its {len(before)} files (files are written only when their content changes; catalog.pdf is "
        "compiled only when the digest of its .tex and plots, stamped into the PDF, changed).",
    ]
    return lines, {"cold": cold, "pdf_warm": pdf_new, "pdf_current": pdf_same, "markdown": md, "docs": docs}


# --- 12. the first ten minutes ----------------------------------------------------------------------


def _finder_us(py: str, env) -> int | None:
    """Microseconds the editable install's finder (``__editable___mathcheck_*_finder``, run by its
    .pth file in ``site`` for every Python process of the venv) takes to import, by ``-X importtime``."""
    err = subprocess.run(
        preexec_fn=child_dies_with_parent,
        args=[py, "-X", "importtime", "-c", "import click"],
        capture_output=True,
        text=True,
        env=env,
    ).stderr
    found = [int(line.split("|")[1]) for line in err.splitlines() if "__editable___mathcheck" in line]
    return max(found) if found else None


def first_minutes(quick: bool) -> tuple[list[str], dict]:
    """Issue 33's figures, side by side in one run, through the console script as a user types it:
    `list` and `--help` against `import click`; a warm `prove --all` against `list`; the first
    `writeup --all` after `prove --all` (the mutants not cached yet) and a second one. With
    ``$MATHCHECK_BENCH_CACHE`` (a folder a `prove --all` filled) the cold prove is not repeated, and
    ``--quick`` leaves the writeups out (the first one refutes every mutant: minutes)."""
    runs = 7 if quick else 15
    py = sys.executable
    script = str(Path(py).parent / "mathcheck")
    reused = os.environ.get("MATHCHECK_BENCH_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = user_env(MATHCHECK_CACHE_DIR=reused or str(tmp / "cache"))
        click_cmd = [py, "-c", "import click"]
        # mathcheck's bytecode, as any first run writes it and pip writes it for a regular install: a
        # machine with PYTHONDONTWRITEBYTECODE=1 (this one) would otherwise compile cli.py from source
        # at every start (about 10 ms, click's own .pyc being there since its install)
        subprocess.run(
            preexec_fn=child_dies_with_parent,
            args=[py, "-m", "compileall", "-q", str(ROOT / "mathcheck")],
            check=True,
            capture_output=True,
        )
        for cmd in ([script, "--help"], [script, "list"]):  # list's index
            subprocess.run(
                preexec_fn=child_dies_with_parent, args=cmd, check=True, capture_output=True, env=env, cwd=ROOT
            )
        helps, base_h, help_ratio = paired([script, "--help"], click_cmd, runs, env)
        lists, base_l, list_ratio = paired([script, "list"], click_cmd, runs, env)
        prove_cold, _ = _timed([script, "prove", "--all"], env)  # cold, or (reused) the run that writes views
        warm, list_w, warm_ratio = paired([script, "prove", "--all"], [script, "list"], runs, env)
        heavy = subprocess.run(
            preexec_fn=child_dies_with_parent,
            args=[
                py,
                "-c",
                "import sys, runpy; sys.argv = ['mathcheck', 'prove', '--all']\n"
                "try: runpy.run_module('mathcheck', run_name='__main__')\nexcept SystemExit: pass\n"
                "print(*sorted({'sympy', 'torch'} & set(sys.modules)))",
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        ).stdout.splitlines()[-1:]
        first = second = None
        if not quick:
            (tmp / "first").mkdir()
            (tmp / "second").mkdir()
            first, first_cpu = _timed([script, "writeup", "--all", "-o", str(tmp / "first" / "claims.md")], env)
            second, second_cpu = _timed([script, "writeup", "--all", "-o", str(tmp / "second" / "claims.md")], env)
    finder = _finder_us(py, env)
    base = statistics.median([base_h, base_l])
    lines = [
        "Measured in one run through the console script `mathcheck` (as the README's install makes it: the "
        "editable install's finder, then `mathcheck.cli`), "
        + (
            "in a cache folder a `prove --all` had filled (`$MATHCHECK_BENCH_CACHE`)."
            if reused
            else "in a fresh cache folder."
        ),
        "",
        "| figure | median (s) | ratio | target |",
        "|---|---|---|---|",
        f'| `python -c "import click"` | {base:.3f} | 1.00 | |',
        f"| `mathcheck --help` / `import click` | {helps:.3f} | {help_ratio:.2f} | ≤ 1.3 |",
        f"| `mathcheck list` / `import click` | {lists:.3f} | {list_ratio:.2f} | ≤ 1.3 |",
        f"| `mathcheck prove --all` warm / `mathcheck list` | {warm:.3f} | {warm_ratio:.1f} | ≤ 10 (≤ 1 s) |",
        f"| `mathcheck prove --all` {'first run here (writes the views it lacks)' if reused else 'cold (empty cache)'} | "
        f"{prove_cold:.1f} | | |",
    ]
    if first is not None:
        lines += [
            f"| first `writeup --all -o claims.md` after `prove --all` / that `prove --all` "
            f"({'warm' if reused else 'cold'}) | {first:.1f} | "
            f"{first / prove_cold:.2f} | (refutes every mutant: not cached by `prove`) |",
            f"| second `writeup --all -o claims.md` / `prove --all` warm | {second:.2f} | {second / warm:.1f} | |",
        ]
    lines += [
        "",
        f"Each ratio of two commands is the median of {runs} ratios of neighbouring runs (the two alternate). "
        f"The editable install's finder takes {finder if finder is not None else '—'} µs to import, in every "
        "Python process of the venv (`import click` included, so the ratios above carry it on both sides). "
        "mathcheck's bytecode is compiled first (`python -m compileall mathcheck`): this machine sets "
        "PYTHONDONTWRITEBYTECODE=1, under which every start would compile `cli.py` again. "
        f"A warm `prove --all` imports {', '.join(heavy) if heavy and heavy[0] else 'neither SymPy nor torch'}."
        + (
            f" CPU seconds of the writeups (user + system, with children): first {first_cpu:.1f}, second "
            f"{second_cpu:.1f}."
            if first is not None
            else " The writeups are not measured with `--quick`."
        ),
    ]
    return lines, {
        "help_ratio": help_ratio,
        "list_ratio": list_ratio,
        "warm_ratio": warm_ratio,
        "warm": warm,
        "prove_cold": prove_cold,
        "writeup_first": first,
        "writeup_second": second,
    }


# --- other benchmark modules (bench/check_bench.py, bench/conform_bench.py), when present --------------

EXTRA = (
    ("check_bench", "Checking your own identities"),
    ("conform_bench", "Conformance"),
    ("model_bench", "Whole models"),
)


def _table(rows) -> list[str]:
    """Rows (dicts) as a Markdown table, columns in the order the rows name them."""
    rows = list(rows)
    if not rows or not isinstance(rows[0], dict):
        return [str(r) for r in rows]
    keys = list(dict.fromkeys(k for r in rows for k in r))
    cell = lambda v: (f"{v:.3g}" if isinstance(v, float) else "" if v is None else str(v)).replace("|", "\\|")  # noqa: E731
    return ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)] + [
        "| " + " | ".join(cell(r.get(k)) for k in keys) + " |" for r in rows
    ]


def _extra(module_name: str):
    def section(quick: bool) -> tuple[list[str], dict]:
        import importlib
        import inspect

        module = importlib.import_module(module_name)
        params = inspect.signature(module.rows).parameters
        rows = module.rows(quick=quick) if "quick" in params else module.rows()
        return [f"From `bench/{module_name}.py` (`rows()`):", "", *_table(rows)], {}

    return section


def _extra_sections() -> tuple:
    import importlib.util

    bench = str(Path(__file__).resolve().parent)
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return tuple((title, _extra(name)) for name, title in EXTRA if importlib.util.find_spec(name) is not None)


SECTIONS = (
    ("Start-up", startup),
    ("Symbolic cost that does not grow with the dimension", symbolic),
    ("Monte Carlo at scale", monte_carlo),
    ("The whole catalog", catalog),
    ("Numeric checks", numeric),
    ("Time budgets", budgets),
    ("Where the time goes", slowest),
    ("Writeups", writeups),
)
FIRST_MINUTES = ("The first ten minutes", first_minutes)  # numbered after the other modules' sections


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write-docs", action="store_true", help="write docs/performance.md (the committed report)")
    ap.add_argument(
        "-o",
        "--output",
        default=None,
        help="write here (default: a scratch file, or with --write-docs docs/performance.md)",
    )
    ap.add_argument("--only", nargs="*", help="section numbers to run (as printed)")
    args = ap.parse_args()
    if args.output is None:
        args.output = str(
            ROOT / "docs" / "performance.md"
            if args.write_docs
            else Path(tempfile.gettempdir()) / "mathcheck-performance.md"
        )
    command = (
        f"python bench/run.py{' --quick' if args.quick else ''}"
        f"{' --only ' + ' '.join(args.only) if args.only else ''}{' --write-docs' if args.write_docs else ''}"
    )
    header = [
        "# Performance",
        "",
        f"Measured by `{command}` on {dt.date.today().isoformat()}: "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"sympy {metadata.version('sympy')}, torch {metadata.version('torch')}. "
        "The machine is shared and noisy: compare the ratios, not the seconds.",
        "",
    ]
    sections = {}
    for number, (title, fn) in enumerate(SECTIONS + _extra_sections() + (FIRST_MINUTES,), start=1):
        if args.only and str(number) not in args.only:
            continue
        print(f"[{number}] {title} ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        lines, _ = fn(args.quick)
        sections[number] = [
            f"## {number}. {title}",
            "",
            *lines,
            "",
            f"_(section took {time.perf_counter() - t:.0f} s; `{command}`, {dt.date.today().isoformat()})_",
            "",
        ]
    out = Path(args.output)
    old = out.read_text(encoding="utf-8") if out.is_file() else ""
    out.write_text("\n".join(merge(old, header, sections, partial=bool(args.only))))
    print(f"wrote {args.output}", file=sys.stderr)


def merge(old: str, header: list[str], sections: dict, partial: bool) -> list[str]:
    """The report: ``sections`` (number → lines) replace the numbered sections of the same number in
    ``old`` (the file as it was); the others, and the sections written by hand (a heading without a
    number, e.g. "The test suite"), stay. A partial run (``--only``) keeps the old header too."""
    numbered, by_hand, head, current = {}, [], [], None
    for line in old.splitlines():
        if line.startswith("## "):
            number = line[3:].split(".", 1)[0]
            current = numbered.setdefault(int(number), []) if number.isdigit() else by_hand
        (head if current is None else current).append(line)
    numbered.update(sections)
    lines = head if partial and head else header
    for number in sorted(numbered):
        lines = lines + numbered[number]
    return lines + by_hand + ([""] if by_hand and by_hand[-1] else [])


if __name__ == "__main__":
    main()
