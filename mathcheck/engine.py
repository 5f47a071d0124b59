"""The pipeline: claim → derive (SymPy, checked steps) → verify (torch) → verdict.

>>> from mathcheck.registry import get
>>> verdict = prove(get("cross-entropy-decomposition"), Options(seed=0))  # doctest: +SKIP
>>> verdict.status                                                        # doctest: +SKIP
'proved'
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

from mathcheck.claim import Claim, Mutant, Source, relation_of
from mathcheck.outcome import combine, worst
from mathcheck.procs import UserCodeExit, user_code
from mathcheck.verdict import ClaimVerdict, MutantVerdict, NumericVerdict, RefuteVerdict, SymbolicVerdict, mutant_status
from mathcheck.verify import Options, resolve

# The step checker (and with it SymPy) is imported by the functions that derive or refute: a warm
# `prove --all` reads every verdict from the cache and imports neither.


def check_steps(claim: Claim, attempt_s: float | None = None, step_s: float | None = None) -> SymbolicVerdict:
    """The symbolic side of a verdict: every step of every part of the claim checked (budgets:
    decide's defaults, 5 s an attempt, 20 s a step). Not ``mathcheck derive`` (``derive.py``, a
    user's derivation files) nor ``derivations/`` (the catalog's claims)."""
    from mathcheck.symbolic import decide, steps

    attempt_s = decide.DEFAULT_ATTEMPT_S if attempt_s is None else attempt_s
    step_s = decide.DEFAULT_STEP_S if step_s is None else step_s
    start = time.perf_counter()
    parts = steps.check_parts(claim.parts, claim.context, attempt_s, step_s)
    statuses = {p.status for p in parts}
    status = worst(statuses).word  # error > refuted > inconclusive > proved
    general = False not in [p.general for p in parts] and True in [p.general for p in parts]
    return SymbolicVerdict(status, general, parts, time.perf_counter() - start)


def _numeric_error(claim: Claim, options: Options, exc: BaseException) -> NumericVerdict:
    line = (
        str(exc) if isinstance(exc, UserCodeExit) else "".join(traceback.format_exception_only(type(exc), exc)).strip()
    )
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
        with user_code(f"the numeric check of {claim.id!r}"):  # sys.exit in a check or reference=: error
            fn = resolve(claim.check)
            if getattr(fn, "wants_claim", False):  # the generic check reads the claim's parts and context
                return fn(statements, options, claim=claim)
            return fn(statements, options)
    except Exception as exc:  # noqa: BLE001 - reported as an "error" verdict, never as a pass
        return _numeric_error(claim, options, exc)
    finally:
        torch.set_num_threads(threads)


def replay_options(options: Options, from_=()) -> tuple:
    """The options beyond the seed that change a result, as ``(flag, value)`` pairs for
    :func:`mathcheck.outcome.replay` (a default is left out)."""
    return (
        ("--dtype", None if options.dtype == "float64" else options.dtype),
        ("--device", None if options.device == "cpu" else options.device),
        ("--from", tuple(from_)),
    )


def prove(claim: Claim, options: Options = Options()) -> ClaimVerdict:
    symbolic = check_steps(claim)
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

    from mathcheck.symbolic import decide, steps
    from mathcheck.symbolic.hypotheses import hypotheses

    found = None
    for name, stmt in mutant.replace:
        part = claim.part(name)
        ctx = _with(claim.context, given=hypotheses(part, claim.context))  # the same hypotheses
        rel = relation_of(stmt)
        derived = None
        if rel == "=" and part.relation == "=":
            derived = part.rhs if stmt.lhs == part.lhs else steps.replay(part, stmt.lhs)
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


def _broken(entry, line: str):
    claim = BrokenClaim(entry.id, entry.title, Source(entry.section, entry.zh, entry.en))
    numeric = NumericVerdict("error", entry.check, 0, None, details=(f"building the claim failed: {line}",))
    return claim, SymbolicVerdict("error", False, ()), numeric


def _build(entry):
    """``(claim, None)``, or ``(None, the one-line error)`` for a builder that raises."""
    try:
        return entry.build(), None  # a builder's sys.exit(0) comes as UserCodeExit (registry._build)
    except UserCodeExit as exc:
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001 - the symbolic side's failure, in one line, is an error verdict
        return None, "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _payload(claim, error: str, kind: str, options: Options):
    """The verdict's content without the Claim (claims hold rule functions), as
    :mod:`mathcheck.serial` stores it in the cache and carries it out of a ``-j`` worker."""
    if error:
        return ("error", error)
    try:  # the claim's own rules and checks are the user's code too
        with user_code(f"claim {claim.id!r}"):
            if kind == "prove":
                v = prove(claim, options)
                return ("prove", v.status, v.symbolic, v.numeric)
            return ("refute", refute(claim, options).mutants)
    except UserCodeExit as exc:
        return ("error", str(exc))


def _cached_payload(entry, kind: str, options: Options, use_cache: bool, built=None):
    """The cached payload under the claim's key, else computed (and stored); ``built``: the
    claim as :func:`_build` returned it, when the caller has built it (else built on a miss)."""
    from mathcheck import cache

    k = cache.key(entry, kind, options) if use_cache else None
    payload = cache.load(k, entry, kind)
    if payload is None:
        payload = _payload(*(built or _build(entry)), kind, options)
        if payload[0] != "error" and (kind != "prove" or payload[1] != "error"):
            cache.store(k, entry, kind, payload)
    return payload


def verdict(
    entry, kind: str, options: Options = Options(), use_cache: bool = False, from_=(), payload=None
) -> ClaimVerdict | RefuteVerdict:
    """The verdict of a registered claim: ``prove`` → :class:`ClaimVerdict`, ``refute`` →
    :class:`RefuteVerdict`. Read from the cache under the claim's key (``use_cache``), else
    computed here, or built from ``payload`` (a ``-j`` worker's result); the claim is built once.
    A builder that raises gives an ``error`` verdict, never an exception. ``from_``: the
    ``--from`` files, for the replay line."""
    claim, error = _build(entry)
    if payload is None:
        payload = _cached_payload(entry, kind, options, use_cache, (claim, error))
    extra = replay_options(options, from_)
    if payload[0] == "error":
        broken, symbolic, numeric = _broken(entry, payload[1])
        if kind == "prove":
            return ClaimVerdict(broken, "error", symbolic, numeric, options.seed, error=payload[1], options=extra)
        return RefuteVerdict(broken, (), options.seed, error=payload[1], options=extra)
    if kind == "prove":
        _, status, symbolic, numeric = payload
        return ClaimVerdict(claim, status, symbolic, numeric, options.seed, options=extra)
    return RefuteVerdict(claim, payload[1], options.seed, options=extra)


def _worker(claim_id: str, kind: str, options: Options, use_cache: bool) -> tuple[str | None, str | None]:
    """Runs in a forked process; returns the payload as text (mathcheck.serial), or None when it
    does not survive that exactly (the parent then proves that claim itself), and the digest of
    the cache entry's bytes as the worker read or wrote them (for the parent's view of it)."""
    from mathcheck import cache, registry

    entry = registry.entry(claim_id)
    text = cache.pack(entry, _cached_payload(entry, kind, options, use_cache))
    return text, cache.entry_sha(cache.key(entry, kind, options)) if use_cache and text is not None else None


def _init_worker(threads: int, parent: int):
    import os

    from mathcheck.procs import die_with_parent

    die_with_parent(parent)  # a killed `prove -j` leaves no worker behind
    os.environ["OMP_NUM_THREADS"] = str(threads)  # no oversubscription: jobs × threads ≤ cores
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        pass


def run(
    entries, kind: str, options: Options = Options(), jobs: int = 1, use_cache: bool = True, on_verdict=None, from_=()
) -> list[ClaimVerdict | RefuteVerdict]:
    """Prove or refute ``entries`` (in this order), ``jobs`` claims at a time in forked processes.

    The report is the same for any ``jobs``: each claim's work depends only on the claim and the
    options, and verdicts are returned in the order of ``entries``.
    """
    entries = list(entries)
    verdicts = []
    if jobs <= 1 or len(entries) <= 1:
        for e in entries:
            v = verdict(e, kind, options, use_cache, from_)
            verdicts.append(v)
            if on_verdict:
                on_verdict(v)
        return verdicts
    import multiprocessing as mp
    import os
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from mathcheck.cache import adopt, key as cache_key, unpack

    threads = max(1, (os.cpu_count() or 1) // jobs)
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=mp.get_context("fork"), initializer=_init_worker, initargs=(threads, os.getpid())
    ) as pool:
        futures = [pool.submit(_worker, e.id, kind, options, use_cache) for e in entries]
        for e, f in zip(entries, futures):
            try:
                data, sha = f.result()  # data None: it cannot travel exactly, so this process computes it
            except BrokenProcessPool:  # a worker died (user code's os._exit, the OOM killer): here instead
                data, sha = None, None
            if sha is not None:
                adopt(cache_key(e, kind, options), sha)
            v = verdict(e, kind, options, False, from_, unpack(e, data) if data is not None else None)
            verdicts.append(v)
            if on_verdict:
                on_verdict(v)
    return verdicts
