"""The user's expressions, one pipeline below the CLI and below ``verify/``.

``parse`` (:mod:`mathcheck.parser`, a whitelist ``ast`` walker) → ``symbolic``
(:mod:`.symbolic_side`, the step checker's one plan under a budget) → ``numeric`` (:mod:`.float_side`: float64 by
:mod:`mathcheck.numeric.floats` without torch, or :mod:`mathcheck.numeric.evaluate` with torch where
a ``diff`` needs it, at points of :mod:`mathcheck.numeric.sampling`; failures confirmed at 50 digits
by :mod:`mathcheck.numeric.precise`) → :class:`.relation.CheckResult` (its sides frozen
:class:`.relation.SymbolicSide` and :class:`.relation.NumericSide`).

Used by ``mathcheck check`` (through the facade :func:`mathcheck.usercheck.check`),
``mathcheck check --file`` (:mod:`.batch`) and, for each link of a chain, ``mathcheck derive``:
:func:`mathcheck.userexpr.relation.check_relation` is the stable entry point.
Nothing here is imported by ``mathcheck --help`` or ``list``; torch only through
:mod:`mathcheck.numeric.evaluate`.
"""

from __future__ import annotations

__all__ = ["check_relation", "CheckResult", "RELATIONS"]


MAX_FILE_BYTES = 16 << 20  # 16 MiB: ~100,000 rows or chains; a larger input is refused unread


def read_user_file(path: str, error: type[Exception]) -> str:
    """The UTF-8 text of the user's file, or ``error`` with one line that says why not
    (``check --file`` and ``derive`` both read their input through this). Only a regular file
    of at most :data:`MAX_FILE_BYTES` is read, and never more than that: ``/dev/zero``, a pipe or
    a FIFO would otherwise be read without end."""
    import os
    import stat

    try:  # non-blocking: opening a FIFO with no writer would wait forever
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError
            if not stat.S_ISREG(mode):
                raise error(f"{path}: not a regular file (a device, pipe or socket); give a text file")
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read it ({exc.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise error(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB; split it into smaller files")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as text mode reads


def __getattr__(name: str):
    if name in __all__:
        from mathcheck.userexpr import relation

        return getattr(relation, name)
    raise AttributeError(name)
