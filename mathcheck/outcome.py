"""The outcome model every command shares: a status word with its exit code and severity, the
worst of several, symbolic + numeric combined, and the one builder of replay lines.

A command prints its own words (``proved`` for a claim, ``holds``/``fails`` for ``conform`` and
``model``, ``holds-within`` for a ``≈`` link); each word is one :class:`Status` here, so the exit
code and the "worst of" order are written once (README, *What a verdict means*):

=============================  ====  ========
word                           exit  severity
=============================  ====  ========
proved, passed, holds,
not expected to hold, reported,
definition, given                 0         0
holds-within                      0         1
inconclusive                      3         2
refuted, fails                    1         3
bad-input                         2         4
error                             4         5
=============================  ====  ========

Severity orders the words within one report: ``bad-input`` (the input itself is wrong) outranks a
definite finding (``refuted``), which outranks an open question (``inconclusive``). ``error`` (the
machinery failed) outranks everything; no command reports both ``error`` and ``bad-input`` for
one item.

    >>> worst(["proved", "inconclusive", "refuted"]).word, exit_code("holds-within")
    ('refuted', 0)
    >>> replay("check", ["x*(x+1)", "x**2 + x"], [("--assume", ["x=real"]), ("--seed", 0)])
    "mathcheck check 'x*(x+1)' 'x**2 + x' --assume x=real --seed 0"
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Status:
    """One status word as a command prints it: its process exit code and severity, and how every
    renderer marks it — ``mark`` and ``colour`` on a terminal and in the HTML page, ``tex`` in LaTeX
    and notebooks, ``label`` in Markdown. One row per word, so no renderer has a table of its own
    that can miss a word.

        >>> status("refuted").mark, status("refuted").tex, status("bad-input").label
        ('✘', '\\\\times', '! bad input')
    """

    word: str
    exit_code: int
    severity: int
    mark: str = "·"
    colour: str | None = None  # click's colour names; render/html.py maps them onto a white page
    tex: str = ""
    label: str = ""  # Markdown; the word itself when empty

    def __str__(self) -> str:
        return self.word

    @property
    def markdown(self) -> str:
        return self.label or self.word


STATUSES = {
    s.word: s
    for s in (
        Status("proved", 0, 0, "✔", "green", r"\checkmark", "✔ proved"),
        Status("passed", 0, 0, "✔", "green", r"\checkmark"),  # a numeric check agreed (evidence, never a proof)
        Status("holds", 0, 0),  # conform/model: a property holds
        Status("not expected to hold", 0, 0),  # conform/model: skipped or broken as declared
        Status("reported", 0, 0),  # conform/model: a behaviour stated, not judged
        Status("definition", 0, 0, "≔", "blue", "", "≔ definition"),  # derive: a name defined (never proved or refuted)
        Status("given", 0, 0),  # a claim's step taken as given (a premise): never a verdict
        Status("holds-within", 0, 1, "≈", "cyan", "", "≈ holds within its bound"),  # derive: a ≈ link inside its bound
        Status("inconclusive", 3, 2, "?", "yellow", "?", "? inconclusive"),
        Status("refuted", 1, 3, "✘", "red", r"\times", "✘ refuted"),
        Status("fails", 1, 3),  # conform/model: a property fails
        Status("bad-input", 2, 4, "!", "magenta", "", "! bad input"),
        Status("error", 4, 5, "!", "magenta", "!"),
    )
}


def status(word: str) -> Status:
    """The :class:`Status` of a word; an unknown word is a bug of ours (``KeyError``)."""
    return STATUSES[word]


def exit_code(word: str) -> int:
    """The process exit code of a status word.

    >>> exit_code("fails"), exit_code("bad-input")
    (1, 2)
    """
    return STATUSES[word].exit_code


def worst(words, default: str = "proved") -> Status:
    """The most severe status of ``words`` (``default`` when there is none); ties keep the first.

    >>> worst(["holds", "fails", "inconclusive"]).word, worst([], "holds").word
    ('fails', 'holds')
    """
    found = STATUSES[default]
    for w in words:
        s = STATUSES[w]
        if s.severity > found.severity:
            found = s
    return found


@runtime_checkable
class Reported(Protocol):
    """What every command's report offers its face: the status word, the process exit code (the
    word's, from :data:`STATUSES`) and the replay line that reproduces it. ``ClaimVerdict``,
    ``RefuteVerdict``, ``CheckResult``, ``DeriveReport``, conform's ``Report`` and ``ModelReport``
    are each one; :class:`ExitByStatus` is their one ``exit_code``.

        >>> from dataclasses import dataclass
        >>> @dataclass
        ... class Run(ExitByStatus):
        ...     status: str
        ...     replay: str = "mathcheck prove x"
        >>> isinstance(Run("inconclusive"), Reported), Run("inconclusive").exit_code
        (True, 3)
    """

    @property
    def status(self) -> str: ...

    @property
    def exit_code(self) -> int: ...

    @property
    def replay(self) -> str: ...


class ExitByStatus:
    """A report's ``exit_code``: its ``status`` word's (the one implementation :class:`Reported`
    asks for; a report mixes it in and defines ``status`` and ``replay``)."""

    __slots__ = ()

    @property
    def exit_code(self) -> int:
        return exit_code(self.status)


def combine(symbolic: str, numeric: str) -> str:
    """A statement's status from its symbolic and numeric sides (the project's honesty rule):
    ``proved`` only when the symbolic side proved it *and* the numeric check passed; a
    counterexample from either side refutes; an error on either side is an error.

    >>> combine("proved", "passed"), combine("inconclusive", "passed"), combine("proved", "refuted")
    ('proved', 'inconclusive', 'refuted')
    """
    if "error" in (symbolic, numeric):
        return "error"
    if "refuted" in (symbolic, numeric):
        return "refuted"
    if symbolic == "proved" and numeric == "passed":
        return "proved"
    return "inconclusive"


def replay(command: str, args=(), options=()) -> str:
    """The shell line that reproduces a result: ``mathcheck COMMAND ARGS... OPTIONS...``.

    ``options`` is a sequence of ``(flag, value)``: a value of None or False leaves the flag out,
    True writes it bare, a list or tuple repeats it once per element, anything else is written
    after it. Every word is quoted with :func:`shlex.quote`, so ``shlex.split`` gives back
    ``["mathcheck", COMMAND, *args, ...]`` exactly. Callers pass every option that changes a
    result (seed, timeout, dtype, sizes, ...).

    >>> replay("prove", ["softmax-jacobian"], [("--seed", 3), ("--dtype", None), ("--from", ["my claims.py"])])
    "mathcheck prove softmax-jacobian --seed 3 --from 'my claims.py'"
    """
    words = ["mathcheck", command, *map(str, args)]
    for flag, value in options:
        if value is None or value is False:
            continue
        if value is True:
            words.append(flag)
            continue
        for v in value if isinstance(value, (list, tuple)) else (value,):
            words += [flag, _word(v)]
    return " ".join(shlex.quote(w) for w in words)


def _word(value) -> str:
    """A value as the command line reads it back: floats by ``repr`` (round-trips), else ``str``."""
    return repr(value) if isinstance(value, float) else str(value)


def split_flags(flags) -> list[tuple]:
    """``["--causal", "--window 4"]`` (a report's flag strings) → ``[("--causal", True), ("--window", "4")]``."""
    out = []
    for f in flags:
        flag, _, value = f.partition(" ")
        out.append((flag, value if value else True))
    return out
