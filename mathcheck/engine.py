"""The pipeline: claim → derive (SymPy, checked steps) → verify (torch) → verdict.

    >>> from mathcheck.registry import get
    >>> verdict = prove(get("cross-entropy-decomposition"), Options(seed=0))  # doctest: +SKIP
    >>> verdict.status                                                        # doctest: +SKIP
    'proved'
"""

from __future__ import annotations

import time
import traceback

from mathcheck.symbolic import decide, walker
from dataclasses import dataclass

from mathcheck.claim import Claim, Mutant, Source, relation_of
from mathcheck.verdict import (ClaimVerdict, MutantVerdict, NumericVerdict, RefuteVerdict,
                               SymbolicVerdict, combine, mutant_status)
from mathcheck.verify import Options, resolve


def derive(claim: Claim, attempt_s: float = decide.DEFAULT_ATTEMPT_S,
           step_s: float = decide.DEFAULT_STEP_S) -> SymbolicVerdict:
    """Check every step of every part of the claim."""
    start = time.perf_counter()
    parts = walker.check_parts(claim.parts, claim.context, attempt_s, step_s)
    statuses = {p.status for p in parts}
    status = "error" if "error" in statuses else "refuted" if "refuted" in statuses \
        else "inconclusive" if "inconclusive" in statuses else "proved"
    general = False not in [p.general for p in parts] and True in [p.general for p in parts]
    return SymbolicVerdict(status, general, parts, time.perf_counter() - start)


def _numeric_error(claim: Claim, options: Options, exc: BaseException) -> NumericVerdict:
    line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return NumericVerdict("error", claim.check, 0, None, seed=options.seed, details=(line,))


def verify(claim: Claim, statements: dict, options: Options) -> NumericVerdict:
    """Run the claim's numeric check on ``statements`` (the derived ones or a mutant's).

    On one intra-op thread: torch splits a reduction across threads in chunks that depend on the
    thread count, which changes the last bits of a sum; with one thread the same seed and options
    give the same numbers in any process and for any ``-j``."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        fn = resolve(claim.check)
        if getattr(fn, "wants_claim", False):  # the generic check reads the claim's parts and context
            return fn(statements, options, claim=claim)
        return fn(statements, options)
    except Exception as exc:  # reported as an "error" verdict, never as a pass
        return _numeric_error(claim, options, exc)
    finally:
        torch.set_num_threads(threads)


def replay_flags(options: Options, from_=()) -> str:
    """The options that change a result, as command-line flags (the seed is always written)."""
    flags = ""
    if options.dtype != "float64":
        flags += f" --dtype {options.dtype}"
    if options.device != "cpu":
        flags += f" --device {options.device}"
    for spec in from_:
        flags += f" --from {spec}"
    return flags


def prove(claim: Claim, options: Options = Options()) -> ClaimVerdict:
    symbolic = derive(claim)
    numeric = verify(claim, claim.statements(), options)
    status = combine(symbolic.status, numeric.status)
    return ClaimVerdict(claim, status, symbolic, numeric, options.seed)


def _symbolic_refutation(claim: Claim, mutant: Mutant):
    """Decide each replaced statement with the claim's own machinery.

    For an equation whose left-hand side the part derives (the same lhs, or one its rules can
    replay), decide ``derived rhs − mutant rhs``. Otherwise decide the mutant's statement as it
    stands (its relation, after the claim's definitions). Returns the first refuting Decision,
    else the most informative one, or None when nothing applies.
    """
    from dataclasses import replace as _with

    from mathcheck.symbolic.hypotheses import hypotheses

    found = None
    for name, stmt in mutant.replace:
        part = claim.part(name)
        ctx = _with(claim.context, given=hypotheses(part, claim.context))  # the same hypotheses
        rel = relation_of(stmt)
        derived = None
        if rel == "=" and part.relation == "=":
            derived = part.rhs if stmt.lhs == part.lhs else walker.replay(part, stmt.lhs)
        if derived is not None:
            d = decide.zero_test(decide.difference(derived, stmt.rhs), ctx)
        else:
            d = decide.relation_test(stmt.lhs, stmt.rhs, rel, ctx)
        if d.value is False:
            return d
        found = d if found is None or d.value is True else found
    return found


def refute_one(claim: Claim, mutant: Mutant, options: Options) -> MutantVerdict:
    symbolic = _symbolic_refutation(claim, mutant)
    numeric = verify(claim, claim.mutated(mutant), options)
    status = mutant_status(symbolic, numeric.status)
    cex = numeric.counterexample or (symbolic.counterexample if symbolic is not None else ())
    return MutantVerdict(mutant, status, symbolic, numeric, cex)


def refute(claim: Claim, options: Options = Options()) -> RefuteVerdict:
    return RefuteVerdict(claim, tuple(refute_one(claim, m, options) for m in claim.mutants), options.seed)


@dataclass(frozen=True)
class BrokenClaim:
    """Stands in for a claim whose builder raised, so the failure is reported, not hidden."""

    id: str
    title: str
    source: Source
    seed_verdict: tuple = ("unknown", "")
    general: bool = False


def _broken(entry, exc: BaseException):
    line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    claim = BrokenClaim(entry.id, entry.title, Source(entry.section, entry.zh, entry.en))
    numeric = NumericVerdict("error", entry.check, 0, None, details=(f"building the claim failed: {line}",))
    return claim, SymbolicVerdict("error", False, ()), numeric, line


def compute(entry, kind: str, options: Options = Options()):
    """Prove (or refute) a registered claim; return a payload that :mod:`mathcheck.serial` can store
    (no Claim inside: claims hold rule functions). :func:`assemble` turns it into a verdict."""
    try:
        claim = entry.build()
    except Exception as exc:
        line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return ("error", line)
    if kind == "prove":
        v = prove(claim, options)
        return ("prove", v.status, v.symbolic, v.numeric)
    return ("refute", refute(claim, options).mutants)


def assemble(entry, kind: str, payload, options: Options = Options(), flags: str = ""):
    if payload[0] == "error":
        claim, symbolic, numeric, line = _broken(entry, RuntimeError(payload[1]))
        if kind == "prove":
            return ClaimVerdict(claim, "error", symbolic, numeric, options.seed, error=payload[1], flags=flags)
        return RefuteVerdict(claim, (), options.seed, error=payload[1], flags=flags)
    claim = entry.build()
    if kind == "prove":
        _, status, symbolic, numeric = payload
        return ClaimVerdict(claim, status, symbolic, numeric, options.seed, flags=flags)
    return RefuteVerdict(claim, payload[1], options.seed, flags=flags)


def _cached_compute(entry, kind: str, options: Options, use_cache: bool):
    from mathcheck import cache

    k = cache.key(entry, kind, options) if use_cache else None
    payload = cache.load(k, entry, kind)
    if payload is None:
        payload = compute(entry, kind, options)
        ok = payload[0] != "error" and (kind != "prove" or payload[1] != "error")
        if ok:
            cache.store(k, entry, kind, payload)
    return payload


def _worker(claim_id: str, kind: str, options: Options, use_cache: bool) -> str | None:
    """Runs in a forked process; returns the payload as text (mathcheck.serial), or None when it
    does not survive that exactly (the parent then proves that claim itself)."""
    from mathcheck import cache, registry

    entry = registry.entry(claim_id)
    return cache.pack(entry, _cached_compute(entry, kind, options, use_cache))


def _init_worker(threads: int):
    import os

    os.environ["OMP_NUM_THREADS"] = str(threads)  # no oversubscription: jobs × threads ≤ cores
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        pass


def run(entries, kind: str, options: Options = Options(), jobs: int = 1, use_cache: bool = True,
        on_verdict=None, from_=()):
    """Prove or refute ``entries`` (in this order), ``jobs`` claims at a time in forked processes.

    The report is the same for any ``jobs``: each claim's work depends only on the claim and the
    options, and verdicts are returned in the order of ``entries``.
    """
    entries = list(entries)
    verdicts = []
    flags = replay_flags(options, from_)
    if jobs <= 1 or len(entries) <= 1:
        for e in entries:
            v = assemble(e, kind, _cached_compute(e, kind, options, use_cache), options, flags)
            verdicts.append(v)
            if on_verdict:
                on_verdict(v)
        return verdicts
    import multiprocessing as mp
    import os
    from concurrent.futures import ProcessPoolExecutor

    from mathcheck.cache import unpack

    threads = max(1, (os.cpu_count() or 1) // jobs)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork"),
                             initializer=_init_worker, initargs=(threads,)) as pool:
        futures = [pool.submit(_worker, e.id, kind, options, use_cache) for e in entries]
        for e, f in zip(entries, futures):
            data = f.result()
            payload = unpack(e, data) if data is not None else compute(e, kind, options)
            v = assemble(e, kind, payload, options, flags)
            verdicts.append(v)
            if on_verdict:
                on_verdict(v)
    return verdicts


def prove_entry(entry, options: Options = Options()) -> ClaimVerdict:
    """Build the registered claim and prove it; a builder that raises gives an ``error`` verdict."""
    return assemble(entry, "prove", compute(entry, "prove", options), options)


def refute_entry(entry, options: Options = Options()) -> RefuteVerdict:
    return assemble(entry, "refute", compute(entry, "refute", options), options)
