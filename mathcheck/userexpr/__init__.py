"""The user's expressions, one pipeline below the CLI and below ``verify/``.

``parse`` (:mod:`mathcheck.parser`, a whitelist ``ast`` walker) → ``symbolic``
(:mod:`.symbolic`, the step checker under a budget) → ``numeric`` (:mod:`.numeric`: float64 by
:mod:`.floats` without torch, or :mod:`.autograd` with torch where a ``diff`` needs it; failures
confirmed at 50 digits by :mod:`.precise`) → :class:`.relation.CheckResult`.

Used by ``mathcheck check`` (through the facade :func:`mathcheck.usercheck.check`),
``mathcheck check --file`` (:mod:`.batch`) and, for each link of a chain, ``mathcheck derive``:
:func:`mathcheck.userexpr.relation.check_relation` is the stable entry point.
Nothing here is imported by ``mathcheck --help`` or ``list``; torch only by :mod:`.autograd`.
"""

from __future__ import annotations

__all__ = ["check_relation", "CheckResult", "EXIT", "RELATIONS"]


def read_user_file(path: str, error: type[Exception]) -> str:
    """The UTF-8 text of the user's file, or ``error`` with one line that says why not
    (``check --file`` and ``derive`` both read their input through this)."""
    from pathlib import Path

    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read it ({exc.strerror})") from None


def __getattr__(name: str):
    if name in __all__:
        from mathcheck.userexpr import relation

        return getattr(relation, name)
    raise AttributeError(name)
