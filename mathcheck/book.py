"""A whole book at once: many documents, their links spread over processes or a cluster, cached.

``mathcheck derive DIR/ 'docs/**/*.md' paper.tex`` names documents by file, directory (recursively:
``.md``, ``.markdown``, ``.tex``, ``.derivation``, ``.ipynb``) or glob (expanded here, so a quoted
``**`` works). Files come in a stable order: the arguments in the order given, each one's matches
sorted by path, a file named twice read once.

The unit of work is the **link**, not the file: a chain of ten links is ten tasks plus one for its
statement ``first REL last``, so one long chapter does not serialise the run. A link's result
depends only on its chain's text and the options (:func:`mathcheck.derive.check_link`), so it may
be computed anywhere — here (``-j 1``), in forked processes (``-j N``) or on a Dask cluster
(``--cluster``) — and the report is assembled in document order from the same plain-data results:
identical whichever ran it. A result is stored in the proof cache under the link's key
(:func:`mathcheck.cache.link_key`), so a re-run checks only the links whose chain changed.

    >>> [t.k for t in tasks_of(0, 0, _example())]     # two links, then the statement (k = 0)
    [1, 2, 0]
"""

from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mathcheck.chains import Chain, DeriveError, Line

if TYPE_CHECKING:  # annotations only: derive is imported where it is used, distributed only with --cluster
    from distributed import Client

    from mathcheck.derive import DeriveReport, StepReport

SUFFIXES = (".md", ".markdown", ".tex", ".derivation", ".ipynb")
CLUSTER_CONNECT_S = 15.0  # how long to wait for a scheduler before saying it cannot be reached


# --- which files -------------------------------------------------------------------------------------


def _in_directory(root: str) -> list[str]:
    """Every document below ``root``, hidden folders (``.git``, ``.ipynb_checkpoints``) skipped."""
    out = []
    for here, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        out += [
            os.path.normpath(os.path.join(here, f))
            for f in files
            if f.lower().endswith(SUFFIXES) and not f.startswith(".")
        ]
    return sorted(out)


def expand(specs) -> tuple[list[str], set[str]]:
    """``(files, found)``: the documents ``specs`` name, in order, and those a directory or a glob
    found (they may hold no chain: most pages of a book state none; a file named itself must).

    A spec that matches nothing is bad input (:class:`DeriveError`, one line).

        >>> expand(["mathcheck/book.py"])
        (['mathcheck/book.py'], set())
    """
    files: list[str] = []
    found: set[str] = set()
    for spec in specs:
        spec = str(spec)
        if os.path.isdir(spec):
            matches = _in_directory(spec)
            if not matches:
                raise DeriveError(
                    f"{spec}: no {', '.join(SUFFIXES[:-1])} or {SUFFIXES[-1]} file in this "
                    f"directory or below it; name the files, or another directory"
                )
        elif glob.has_magic(spec) and not os.path.exists(spec):
            matches = sorted(f for f in glob.glob(spec, recursive=True) if os.path.isfile(f))
            if not matches:
                raise DeriveError(
                    f"{spec}: no file matches this pattern; check it (** matches folders "
                    f"at any depth), or quote it so the shell does not expand it first"
                )
        else:  # a file (one that does not exist is the reader's one line: "no such file")
            matches = []
            if spec not in files:
                files.append(spec)
        for m in matches:
            if m not in files:
                files.append(m)
                found.add(m)
    return files, found


# --- the work: one task per link --------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """Link ``k`` of chain ``chain`` of file ``file`` (indices into the loaded files); ``k = 0``:
    the chain's statement."""

    file: int
    chain: int
    k: int


def tasks_of(file: int, index: int, chain: Chain) -> list[Task]:
    return [Task(file, index, k) for k in range(1, len(chain.steps))] + [Task(file, index, 0)]


def _fields(chain: Chain, k: int, seed: int, timeout: float) -> dict:
    """What a task's result depends on (:func:`mathcheck.cache.link_key`): the chain's text without
    its line numbers, which link, and the options."""
    return {
        "steps": [[s.relation, s.text, s.reason] for s in chain.steps],
        "assumptions": {n: list(v) for n, v in sorted(chain.assumptions.items())},
        "given": [g for _, g in chain.given],
        "let": [t for _, t in chain.lets],
        "definition": chain.definition,
        "facts": [t for _, t in chain.facts],
        "unknown": [str(u) for u in chain.unknown],
        "implicit": [str(u) for u in chain.implicit],
        "prose": [bool(s.source) for s in chain.steps],  # read from a document: its prose unread (derive)
        "prose_facts": chain.prose_facts,
        **({"prose_given": chain.prose_given} if chain.prose_given else {}),  # other chains' keys unchanged
        "k": k,
        "seed": seed,
        "timeout": timeout,
    }


_PARSED: dict = {}  # a worker's last chains, parsed: the links of one chain usually come together


def _parsed(chain: Chain):
    from mathcheck.derive import validate

    key = repr(chain)
    if key not in _PARSED:
        if len(_PARSED) > 16:
            _PARSED.clear()
        _PARSED[key] = validate(chain)
    return _PARSED[key]


def run_task(chain: Chain, k: int, seed: int, timeout: float) -> dict:
    """One task's result as plain data (what the cache stores and a worker sends back): a link's
    ``status``, ``how``, ``counterexample``, ``values``, ``measured``, ``bound``, ``account``, or the statement's
    dict. A check that raises is ``inconclusive`` (not cached), never a crash of the run."""
    from mathcheck import derive

    warm()  # once per process, before its first link: a worker's first link is checked as its others
    try:
        if k == 0:
            return derive.check_statement(chain, seed, timeout, _parsed(chain))
        s = derive.check_link(chain, k, seed, timeout, _parsed(chain))
        return {
            "status": s.status,
            "how": s.how,
            "counterexample": s.counterexample,
            "values": s.values,
            "measured": s.measured,
            "bound": s.bound,
            "account": s.account,
        }
    except Exception as exc:  # noqa: BLE001 - a SymPy exception is inconclusive (docs/derive.md)
        how = f"the check failed: {type(exc).__name__}: {exc}"[:300]
        out = {"status": "inconclusive", "how": how, "counterexample": None, "values": None, "uncached": True}
        if k == 0:
            out["relation"] = chain.relation
        else:
            out.update(measured=None, bound=None)
        return out


def step_report(line: Line, result: dict) -> StepReport:
    """A link's :class:`~mathcheck.derive.StepReport` from its result and the line as read now."""
    from mathcheck.derive import StepReport

    return StepReport(
        line.line,
        line.text,
        line.relation,
        line.reason,
        result["status"],
        result["how"],
        result["counterexample"],
        result["values"],
        result["measured"],
        line.source,
        result["bound"],
        result.get("account"),  # none for a check that failed: its how says so
    )


# --- where the tasks run ----------------------------------------------------------------------------


def _init_worker(parent: int):
    from mathcheck.procs import die_with_parent

    die_with_parent(parent)  # a killed `derive -j` leaves no worker behind
    os.environ["OMP_NUM_THREADS"] = "1"  # N workers on N cores: no oversubscription


WARM = (
    ("(t - 1)^2", ">=", "0"),
    ("exp(a + b)", "=", "exp(a)*exp(b)"),
    ("diff(log(1 + exp(t)), t)", "=", "sigmoid(t)"),
    ("log(u*v)", "=", "log(u) + log(v)"),
)


_WARMED: list = []  # this process has run warm()


def warm() -> None:
    """The symbolic side run once in this process on small links (an inequality, identities, a
    derivative), so that SymPy's lazy imports happen here once and every link's forked child
    inherits them: without this each child imports them anew, which is slow, and on a loaded
    machine can use up a strategy's time slice, changing which strategy a report names."""
    from mathcheck.parser import parse_many
    from mathcheck.userexpr.symbolic_side import symbolic

    if _WARMED:
        return
    _WARMED.append(True)
    for lhs, rel, rhs in WARM:
        L, R = parse_many(
            [lhs, rhs],
            {"t": ("real",), "a": ("real",), "b": ("real",), "u": ("positive",), "v": ("positive",)},
            unused_ok=True,
        )
        symbolic(L, R, rel, (), 0, 20.0)


class _Here:
    """-j 1: everything in this process."""

    def map(self, fn, calls):
        return [fn(*c) for c in calls]

    def results(self, work):
        for i, args in work:
            yield i, run_task(*args)

    def close(self):
        pass


class _Pool:
    """-j N: forked processes, which read the files as well as check the links (reading and
    parsing a book's LaTeX is a good part of a run). A worker that died (the OOM killer, a kill)
    leaves its work to this process, so nothing is lost."""

    def __init__(self, jobs: int):
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        import mathcheck.symbolic.steps
        import mathcheck.userexpr.symbolic_side  # noqa: F401 - imported once, before the fork, not in each worker

        self.pool = ProcessPoolExecutor(
            max_workers=jobs, mp_context=mp.get_context("fork"), initializer=_init_worker, initargs=(os.getpid(),)
        )

    def map(self, fn, calls):
        from concurrent.futures.process import BrokenProcessPool

        futures = [self.pool.submit(fn, *c) for c in calls]
        out = []
        for f, c in zip(futures, calls):
            try:
                out.append(f.result())
            except BrokenProcessPool:
                out.append(fn(*c))
        return out

    def results(self, work):
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        futures = {self.pool.submit(run_task, *args): i for i, args in work}
        calls = dict(work)
        for f in as_completed(futures):
            try:
                result = f.result()
            except BrokenProcessPool:
                result = run_task(*calls[futures[f]])
            yield futures[f], result

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Cluster(_Here):
    """--cluster: the links on the scheduler's workers; the files are read here (the workers need
    not see this file system)."""

    def __init__(self, client):
        self.client = client

    def results(self, work):
        return _cluster_results(self.client, work)

    def close(self):
        self.client.close()


def check_address(address: str) -> None:
    """A scheduler's address as Dask writes it, ``tcp://host:port`` (or ``tls://``); else bad input.

    >>> check_address("tcp://127.0.0.1:8786")
    """
    import re

    if not re.fullmatch(r"(tcp|tls)://[A-Za-z0-9._\-\[\]:]+:\d{1,5}", address):
        raise DeriveError(
            f"--cluster {address!r}: not a scheduler address; write tcp://HOST:PORT, "
            f"e.g. tcp://127.0.0.1:8786 (dask scheduler prints it)"
        )


def connect(address: str) -> Client:
    """A ``distributed.Client`` on the scheduler at ``address`` whose workers run this mathcheck;
    :class:`DeriveError` (one line) when dask is absent, the scheduler cannot be reached, or a
    worker's mathcheck differs (its results could differ from this one's)."""
    check_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise DeriveError("--cluster needs Dask distributed: pip install 'mathcheck[cluster]'") from None
    try:
        client = Client(address, timeout=CLUSTER_CONNECT_S)
    except (OSError, TimeoutError) as exc:
        raise DeriveError(
            f"--cluster {address}: cannot reach the scheduler ({type(exc).__name__}); "
            f"start one (dask scheduler) or check the address"
        ) from None
    ours = fingerprint()
    theirs = client.run(_worker_fingerprint)
    wrong = sorted(w for w, f in theirs.items() if f != ours)
    if wrong:
        client.close()
        raise DeriveError(
            f"--cluster {address}: worker {wrong[0]} runs another mathcheck or other versions "
            f"of its libraries ({theirs[wrong[0]][:12]} vs {ours[:12]}); install the same on every worker"
        )
    return client


def fingerprint() -> str:
    """The digest a result depends on besides its link: the core's sources and the versions."""
    from mathcheck.cache import link_key

    return link_key({})


def _worker_fingerprint() -> str:
    """A worker's own fingerprint (sent by reference: the worker imports its mathcheck.book)."""
    return fingerprint()


def _cluster_results(client, work):
    """``(i, result)`` as the cluster's workers finish. A worker lost mid-run is the scheduler's to
    handle: its tasks are run again on another worker (Dask's ``allowed-failures``); each task's
    future resolves once, so no link is counted twice."""
    from distributed import as_completed

    futures = {client.submit(run_task, *args, pure=False): i for i, args in work}
    for f in as_completed(futures):
        yield futures[f], f.result()


# --- the run ----------------------------------------------------------------------------------------


@dataclass
class Counts:
    """What the progress line shows."""

    files: int = 0
    links: int = 0
    done: int = 0
    computed: int = 0
    to_compute: int = 0
    proved: int = 0
    refuted: int = 0


def check_book(
    specs,
    seed: int = 0,
    timeout: float = 30.0,
    jobs: int = 1,
    cluster: str | None = None,
    use_cache: bool = True,
    on_chain=None,
    on_progress=None,
    macros: str | None = None,
) -> DeriveReport:
    """Check every chain of the documents ``specs`` names (:func:`expand`): a
    :class:`~mathcheck.derive.DeriveReport` in document order, the same for any ``jobs`` or
    cluster. Bad input (a spec matching nothing, an unreadable file, a file named itself with no
    chain) raises :class:`DeriveError` before anything is proved; a bad line fails its chain only.

    ``on_chain(path, report)`` is called for each chain in document order as soon as its links and
    every chain before it are done (the text report and ``--jsonl`` stream from it);
    ``on_progress(counts)`` whenever a task finishes, in any order. ``macros``: a file of
    ``\\newcommand``/``\\def``s every LaTeX document is read with (a book split over files)."""
    from mathcheck.userexpr import read_user_file
    from mathcheck.userexpr.relation import _seconds_ok

    if not _seconds_ok(timeout):
        raise DeriveError(f"timeout {timeout!r} is not a number of seconds; give a finite number above 0")
    preamble = None if macros is None else (str(macros), read_user_file(str(macros), DeriveError))
    files, found = expand(specs)
    where = _Cluster(connect(cluster)) if cluster else _Pool(jobs) if jobs > 1 else _Here()
    try:
        return _check(where, specs, files, found, seed, timeout, use_cache, on_chain, on_progress, preamble)
    finally:
        where.close()


def _check(where, specs, files, found, seed, timeout, use_cache, on_chain, on_progress, preamble=None):
    from mathcheck import cache, derive

    prepared = (_Here() if isinstance(where, _Cluster) else where).map(
        _prepare, [(f, f in found, use_cache, preamble) for f in files]
    )
    for p in prepared:  # the first bad file in document order, as -j 1 reads them
        if p[0] == "error":
            raise DeriveError(p[1])
    loaded = [(f, p[1]) for f, p in zip(files, prepared) if p[0] == "ok"]
    if not loaded:
        raise DeriveError(
            f"{' '.join(map(str, specs))}: no chain in {len(files)} files; see docs/derive.md for the syntax"
        )
    ready, tasks = _plan(loaded, [p[2] for p in prepared if p[0] == "ok"])
    counts = Counts(files=len(loaded), links=sum(len(c.steps) - 1 for _, cs in loaded for c in cs))
    results: dict[int, dict] = {}
    keys, work = {}, []
    for i, t in enumerate(tasks):
        chain = loaded[t.file][1][t.chain]
        keys[i] = cache.link_key(_fields(chain, t.k, seed, timeout)) if use_cache else None
        hit = cache.load_link(keys[i])
        if hit is not None:
            results[i] = hit
        else:
            work.append((i, (chain, t.k, seed, timeout)))
    counts.to_compute = len(work)
    for i in list(results):
        _count(counts, tasks[i], results[i])
    if on_progress:
        on_progress(counts)
    emit = _Emitter(loaded, ready, tasks, results, on_chain)
    emit.advance()
    for i, result in where.results(work) if work else ():
        result = dict(result)
        if not result.pop("uncached", False):
            cache.store_link(keys[i], result)
        results[i] = result
        counts.computed += 1
        _count(counts, tasks[i], result)
        if on_progress:
            on_progress(counts)
        emit.advance()
    emit.advance()
    return derive.DeriveReport(
        tuple((path, tuple(emit.reports[f])) for f, (path, _) in enumerate(loaded)),
        seed,
        timeout,
        tuple(map(str, specs)),
    )


@functools.lru_cache(maxsize=1)
def _reader_digest() -> str:
    """The LaTeX reader's sources (``mathcheck/latex/``, not part of the cache's core digest): a
    file read by an older reader is read again, so a fixed misreading never survives in the cache."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted((Path(__file__).parent / "latex").glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _prepare(path: str, optional: bool, use_cache: bool = True, preamble: tuple[str, str] | None = None):
    """:func:`_read`, from the cache when the file's bytes are those read before (key: the path,
    the bytes, the macros file's path and bytes, the core sources and versions): a re-run of a book
    parses only the files that changed. What is stored must decode to exactly what was read, else it is not stored."""
    from mathcheck import cache

    from mathcheck.userexpr import read_user_file

    try:  # the one bounded reader: /dev/zero, a FIFO or a huge file is never read here without end
        data = read_user_file(path, DeriveError).encode("utf-8")
    except DeriveError:
        return _read(path, optional, preamble)  # which says why, in its one line
    import hashlib

    k = (
        cache.link_key(
            {
                "read": path,
                "optional": optional,
                "sha256": hashlib.sha256(data).hexdigest(),
                "reader": _reader_digest(),
                **(
                    {}
                    if preamble is None
                    else {"macros": [preamble[0], hashlib.sha256(preamble[1].encode()).hexdigest()]}
                ),
            }
        )
        if use_cache
        else None
    )
    hit = cache.load_link(k)
    if hit is not None:
        try:
            if hit.get("none"):
                return ("none",)
            return ("ok", [_chain(c) for c in hit["chains"]], list(hit["marks"]))
        except (KeyError, TypeError, ValueError):
            pass
    out = _read(path, optional, preamble)
    if out[0] == "none":
        cache.store_link(k, {"status": "read", "how": "", "none": True})
    elif out[0] == "ok":
        stored = [_plain(c) for c in out[1]]
        if [_chain(c) for c in stored] == out[1]:
            cache.store_link(k, {"status": "read", "how": "", "chains": stored, "marks": out[2]})
    return out


def _plain(c: Chain) -> dict:
    return {
        "name": c.name,
        "path": c.path,
        "line": c.line,
        "assumptions": [[n, list(v)] for n, v in c.assumptions.items()],
        "given": [list(g) for g in c.given],
        "steps": [[s.line, s.relation, s.text, s.reason, s.source] for s in c.steps],
        "lets": [list(x) for x in c.lets],
        "error": c.error,
        "definition": c.definition,
        "notes": list(c.notes),
        "unknown": list(c.unknown),
        "implicit": list(c.implicit),
        "facts": [list(f) for f in c.facts],
        "unread": c.unread,
        "table": c.table,
        "prose_facts": c.prose_facts,
        "prose_given": c.prose_given,
    }


def _chain(d: dict) -> Chain:
    return Chain(
        d["name"],
        d["path"],
        d["line"],
        {n: tuple(v) for n, v in d["assumptions"]},
        tuple(tuple(g) for g in d["given"]),
        tuple(Line(*s) for s in d["steps"]),
        tuple(tuple(x) for x in d["lets"]),
        d["error"],
        d["definition"],
        tuple(d["notes"]),
        tuple(d["unknown"]),
        tuple(d["implicit"]),
        tuple(tuple(f) for f in d["facts"]),
        d.get("unread", ""),
        d.get("table", ""),
        d.get("prose_facts", ""),
        d.get("prose_given", ""),
    )


def _read(path: str, optional: bool, preamble: tuple[str, str] | None = None):
    """One file read and each chain parsed (in a worker under -j N): ``("ok", chains, marks)`` —
    a mark per chain: ``""`` (to check), ``"definition"`` or the bad-input line —, ``("none",)``
    for a file a directory or glob found that holds no chain, ``("error", line)`` for bad input."""
    from mathcheck import derive

    try:
        chains = derive.load_one(path, optional, preamble)
    except DeriveError as exc:
        return ("error", str(exc))
    if chains is None:
        return ("none",)
    marks = []
    for chain in chains:
        try:
            derive.validate(chain)
            derive.defined_elsewhere(chain, chains)
            if not (chain.definition or chain.unread or chain.table):
                derive.bounds(chain)
            marks.append("definition" if chain.definition or chain.unread or chain.table else "")
        except DeriveError as exc:
            marks.append(str(exc) or "bad input")
    return ("ok", chains, marks)


def _count(counts: Counts, task: Task, result: dict) -> None:
    if task.k:
        counts.done += 1
        counts.proved += result["status"] == "proved"
        counts.refuted += result["status"] == "refuted"


def _plan(loaded, marks):
    """``(ready, tasks)``: the reports known without proving (a chain with a bad line, a
    definition), keyed by (file, chain); the tasks of every other chain, in document order."""
    from mathcheck import derive

    ready, tasks = {}, []
    for f, ((_, chains), mine) in enumerate(zip(loaded, marks)):
        for c, (chain, mark) in enumerate(zip(chains, mine)):
            if mark == "definition":
                ready[f, c] = derive.defined(chain)
            elif mark:
                ready[f, c] = derive.bad_chain(chain, mark)
            else:
                tasks += tasks_of(f, c, chain)
    return ready, tasks


class _Emitter:
    """Hands out chain reports in document order as the prefix of done tasks grows."""

    def __init__(self, loaded, ready, tasks, results, on_chain):
        self.loaded, self.ready, self.tasks, self.results = loaded, ready, tasks, results
        self.on_chain = on_chain
        self.order = [(f, c) for f, (_, chains) in enumerate(loaded) for c in range(len(chains))]
        self.by_chain: dict = {}
        for i, t in enumerate(tasks):
            self.by_chain.setdefault((t.file, t.chain), []).append(i)
        self.reports = {f: [] for f in range(len(loaded))}
        self.next = 0

    def advance(self) -> None:
        from mathcheck import derive

        while self.next < len(self.order):
            f, c = self.order[self.next]
            path, chain = self.loaded[f][0], self.loaded[f][1][c]
            if (f, c) in self.ready:
                report = self.ready[f, c]
            else:
                mine = self.by_chain[f, c]
                if any(i not in self.results for i in mine):
                    return
                links = [step_report(chain.steps[self.tasks[i].k], self.results[i]) for i in mine[:-1]]
                report = derive.assemble(chain, links, self.results[mine[-1]])
            if self.on_chain:
                self.on_chain(path, report)
            self.reports[f].append(report)
            self.next += 1


def _example() -> Chain:
    return Chain("ex", "ex.derivation", 1, steps=(Line(1, None, "x"), Line(2, "=", "x"), Line(3, "=", "x")))
