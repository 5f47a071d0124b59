"""``mathcheck check --file F [-j N]``: many identities in one process (or N worker processes).

F is either TSV — one identity a line, ``lhs<TAB>rhs[<TAB>assume]``, where ``assume`` is the
``--assume`` values separated by spaces (``n=positive,integer k=integer``) — or JSON lines,
``{"lhs": ..., "rhs": ..., "assume": ["n=positive,integer", ...]}`` (``assume`` optional). Blank
lines and lines starting with ``#`` are ignored in both. The format is decided by the first row:
JSON lines if it starts with ``{``. A file that is neither, or a row with the wrong columns or
keys, is a :class:`FileError` naming the line (nothing is checked then); a row that is well formed
but outside the grammar is that row's ``bad-input``.

Rows are checked independently by :func:`mathcheck.userexpr.identity.check_identity` with the same
seed and budget, and reported in file order whatever ``jobs`` is: the report without timings is
byte-identical for any ``-j``.

Exit code: the worst row's (:func:`mathcheck.outcome.worst`), worst first ``bad-input`` (2) >
``refuted`` (1) > ``inconclusive`` (3) > ``proved`` (0) — a malformed row is a problem with the file
itself, a refuted identity a definite finding, an inconclusive one only an open question.

    >>> rows = parse_rows("x*(x+1)\\tx**2+x\\n# a comment\\nsqrt(n^2)\\tn\\tn=positive\\n", "F")
    >>> [(r.line, r.lhs, r.assume) for r in rows]
    [(1, 'x*(x+1)', ()), (3, 'sqrt(n^2)', ('n=positive',))]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

STATUSES = ("proved", "refuted", "inconclusive", "bad-input")


class FileError(ValueError):
    """A file that is not TSV/JSON lines, or a malformed row; ``str()`` is one line."""


@dataclass(frozen=True)
class Row:
    line: int
    lhs: str
    rhs: str
    assume: tuple[str, ...] = ()


def _tsv_row(where: str, n: int, text: str) -> Row:
    cols = text.split("\t")
    if len(cols) not in (2, 3):
        found = "no tab" if len(cols) == 1 else f"{len(cols)} columns"
        raise FileError(f"{where}, line {n}: expected lhs<TAB>rhs[<TAB>assume], found {found}")
    lhs, rhs = cols[0].strip(), cols[1].strip()
    if not lhs or not rhs:
        raise FileError(f"{where}, line {n}: empty {'lhs' if not lhs else 'rhs'}")
    assume = tuple(cols[2].split()) if len(cols) == 3 else ()
    return Row(n, lhs, rhs, assume)


def _json_row(where: str, n: int, text: str) -> Row:
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise FileError(
            f"{where}, line {n}: not a JSON object ({exc.msg}); the file is JSON lines "
            f"because its first row starts with '{{'"
        ) from None
    if not isinstance(obj, dict):
        raise FileError(f'{where}, line {n}: expected a JSON object {{"lhs", "rhs", "assume"}}')
    extra = sorted(set(obj) - {"lhs", "rhs", "assume"})
    if extra:
        raise FileError(f"{where}, line {n}: unknown key {extra[0]!r}; the keys are lhs, rhs, assume")
    for key in ("lhs", "rhs"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise FileError(f"{where}, line {n}: {key!r} must be a non-empty string")
    assume = obj.get("assume", [])
    if isinstance(assume, str):
        assume = assume.split()
    if not isinstance(assume, list) or not all(isinstance(a, str) for a in assume):
        raise FileError(f"{where}, line {n}: 'assume' must be a list of strings like \"n=positive,integer\"")
    return Row(n, obj["lhs"].strip(), obj["rhs"].strip(), tuple(assume))


def parse_rows(text: str, where: str) -> list[Row]:
    """The rows of a TSV or JSON-lines text (``where`` names it in errors)."""
    rows: list[Row] = []
    reader = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if reader is None:
            reader = _json_row if line.lstrip().startswith("{") else _tsv_row
        rows.append(reader(where, n, line))
    if not rows:
        raise FileError(f"{where}: no rows (write lhs<TAB>rhs[<TAB>assume] or JSON lines)")
    return rows


def read_rows(path: str) -> list[Row]:
    """The rows of the file at ``path``; a :class:`FileError` for a missing, unreadable or malformed file."""
    from mathcheck.userexpr import read_user_file

    return parse_rows(read_user_file(path, FileError), path)


def _check_row(args):
    from mathcheck.userexpr.identity import check_identity

    row, seed, timeout = args
    return check_identity(row.lhs, row.rhs, list(row.assume), seed, timeout)


def check_rows(
    rows: list[Row], seed: int = 0, timeout: float = 30.0, jobs: int = 1, on_done: Callable[[], None] | None = None
) -> list:
    """Every row's :class:`~mathcheck.userexpr.relation.CheckResult`, in file order.

    ``jobs > 1`` runs the rows in that many forked worker processes; ``on_done`` is called once per
    finished row (a progress bar)."""
    tasks = [(row, seed, timeout) for row in rows]
    import mathcheck.symbolic.steps
    import mathcheck.userexpr.symbolic_side  # noqa: F401

    if jobs <= 1 or len(rows) <= 1:
        out = []
        for t in tasks:
            out.append(_check_row(t))
            if on_done:
                on_done()
        return out
    import concurrent.futures as cf
    import os
    import multiprocessing as mp

    results: list = [None] * len(tasks)
    from mathcheck.procs import die_with_parent

    with cf.ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)),
        mp_context=mp.get_context("fork"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    ) as ex:  # killed with `check --file -j`
        futures = {ex.submit(_check_row, t): i for i, t in enumerate(tasks)}
        for f in cf.as_completed(futures):
            i = futures[f]
            try:
                results[i] = f.result()
            except Exception as exc:  # noqa: BLE001 - a worker that died is that row's inconclusive, not a crash
                results[i] = _failed(rows[i], seed, f"the worker process failed: {type(exc).__name__}: {exc}"[:200])
            if on_done:
                on_done()
    return results


def _failed(row: Row, seed: int, why: str):
    from mathcheck.userexpr.relation import CheckResult

    return CheckResult("inconclusive", row.lhs, row.rhs, {}, seed, message=why, how=why)


def totals(results) -> dict:
    return {s: sum(r.status == s for r in results) for s in STATUSES}
