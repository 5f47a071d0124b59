"""Where mathcheck keeps what it may recompute: ``$MATHCHECK_CACHE_DIR``, else
``$XDG_CACHE_HOME/mathcheck``, else ``~/.cache/mathcheck``. (Its own module so that ``mathcheck
list`` and ``mathcheck cache`` can find their files without importing the proof cache.)"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENTRY = re.compile(r"^[0-9a-f]{64}\.json$")  # one verdict (mathcheck.cache)
VIEW = re.compile(r"^[0-9a-f]{64}\.view\.json$")  # what a report prints of one verdict (mathcheck.cache)
LINK = re.compile(r"^[0-9a-f]{64}\.link\.json$")  # one link of a derivation (mathcheck.cache, mathcheck.book)
LEGACY = re.compile(r"^[0-9a-f]{64}\.pickle$")  # a pickled verdict of an earlier mathcheck: never read, only removed
TEMPORARY = re.compile(r"^\.[0-9a-f]{64}\.[0-9]+\.[0-9a-f]+\.tmp$")  # a write in progress (or killed)
INDEX = "claims-index.json"  # mathcheck list's metadata index (mathcheck.registry)


def directory() -> Path:
    if os.environ.get("MATHCHECK_CACHE_DIR"):
        return Path(os.environ["MATHCHECK_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mathcheck"


def problem() -> str | None:
    """Why the cache folder cannot be one (one line), or None: a path naming a file, or below one.
    A folder that is merely unwritable is not a problem: the cache then only costs time."""
    where = directory()
    for p in (where, *where.parents):
        if p.exists():
            if p.is_dir():
                return None
            what = "names a file" if p == where else f"is inside {p}, which is a file"
            source = "MATHCHECK_CACHE_DIR" if os.environ.get("MATHCHECK_CACHE_DIR") else "the cache folder"
            return f"{source} {str(where)!r} {what}, not a folder; point MATHCHECK_CACHE_DIR at a folder"
    return None


def files() -> tuple[list[Path], list[Path]]:
    """(verdict entries, mathcheck's other files) in the cache folder; nothing else in it is ours.
    Files are matched by name, so a cache folder shared with other data loses only ours."""
    entries, others = [], []
    try:
        names = sorted(os.listdir(directory()))
    except OSError:  # no folder yet
        return [], []
    for name in names:
        p = directory() / name
        if not p.is_file() or p.is_symlink():
            continue
        if ENTRY.match(name):
            entries.append(p)
        elif VIEW.match(name) or LINK.match(name) or LEGACY.match(name) or TEMPORARY.match(name) or name == INDEX:
            others.append(p)
    return entries, others


def size(paths) -> int:
    total = 0
    for p in paths:
        try:
            total += p.stat().st_size
        except OSError:  # removed meanwhile by another process
            pass
    return total


def human(n: int) -> str:
    """``1304477`` → ``1.3 MB (1304477 bytes)``."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit} ({n} bytes)"
    return f"{n} bytes"


def clear() -> tuple[int, int, int]:
    """Remove mathcheck's files from the cache folder: (entries, other files, bytes) removed."""
    entries, others = files()
    removed, freed = [0, 0], 0
    for n, group in enumerate((entries, others)):
        for p in group:
            try:
                st = p.stat().st_size
                p.unlink()
            except OSError:
                continue
            removed[n] += 1
            freed += st
    return removed[0], removed[1], freed
