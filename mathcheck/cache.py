"""A proof cache: a claim's verdict is reused while nothing it depends on has changed.

The key of a claim is a SHA-256 over: the source of the module that derives it, the source of
the module that checks it, the source of the shared core (every ``mathcheck/*.py`` and
``mathcheck/verify/_*.py``/``evaluate.py``/``stats.py`` except the renderers and the CLI), the
versions of Python, SymPy, torch and NumPy (read from package metadata, so a warm run imports
neither SymPy's evaluators nor torch), the command (prove or refute) and the options (seed,
device, dtype). Change any of them and the claim is proved again.

The cache lives in ``$MATHCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/mathcheck``, else
``~/.cache/mathcheck``. ``--no-cache`` bypasses it. An unreadable entry is ignored and replaced.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from mathcheck.cache_dir import directory

PKG = Path(__file__).resolve().parent
_NOT_CORE = {"cli.py", "__main__.py", "cache.py", "cache_dir.py", "pytest_plugin.py", "testing.py", "writeup.py"}


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


@lru_cache(maxsize=None)
def _core_digest() -> str:
    h = hashlib.sha256()
    files = [p for p in PKG.glob("*.py") if p.name not in _NOT_CORE]
    files += [p for p in (PKG / "verify").glob("*.py")
              if p.name.startswith("_") or p.name in ("evaluate.py", "stats.py")]
    for p in sorted(files):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    for dist in ("sympy", "torch", "numpy", "mpmath"):
        h.update(f"{dist}={_version(dist)};".encode())
    h.update(sys.version.encode())
    return h.hexdigest()


def _module_file(name: str) -> Path | None:
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__file__", None):
        return Path(module.__file__)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin else None


def key(entry, kind: str, options) -> str | None:
    """The cache key of a registered claim, or None when its sources cannot be read."""
    h = hashlib.sha256(_core_digest().encode())
    for name in (entry.module, entry.check.partition(":")[0]):
        path = _module_file(name)
        if path is None or not path.is_file():
            return None
        h.update(path.read_bytes())
    h.update(f"{entry.id};{kind};{options.seed};{options.device};{options.dtype}".encode())
    return h.hexdigest()


def _rebuild_relational(cls, args):
    return cls(*args, evaluate=False)


def register_reducers() -> None:
    """Pickle SymPy relationals as they were built. By default SymPy rebuilds ``Eq(a, b)`` with
    evaluation on when unpickling, so ``Eq(f(M), Matrix(...))`` comes back as ``False``: a cached
    or parallel report would then differ from a fresh serial one."""
    import copyreg

    import sympy as sp

    for cls in (sp.Equality, sp.Unequality, sp.GreaterThan, sp.StrictGreaterThan, sp.LessThan,
                sp.StrictLessThan):
        copyreg.pickle(cls, lambda e: (_rebuild_relational, (type(e), e.args)))


_FACTS = ("commutative", "complex", "real", "rational", "integer", "even", "odd", "positive",
          "nonnegative", "negative", "nonpositive", "nonzero", "zero", "finite")


@lru_cache(maxsize=1)
def _canonical_printer():
    from sympy.printing.repr import ReprPrinter

    class Canonical(ReprPrinter):
        """``srepr``, but a symbol shows the closure of its assumptions: an unpickled symbol
        lists the facts SymPy had derived (``integer=True`` comes back as ``integer=True,
        real=True``) although it is the same symbol."""

        def _print_Symbol(self, expr):
            facts = ",".join(f"{p}={getattr(expr, 'is_' + p)}" for p in _FACTS)
            index = f",{expr.dummy_index}" if hasattr(expr, "dummy_index") else ""
            return f"{type(expr).__name__}({expr.name!r}{index},{facts})"

    return Canonical()


def fingerprint(obj) -> str:
    """A text that changes whenever a payload's content does (SymPy objects by canonical ``srepr``)."""
    import dataclasses

    import sympy as sp

    if isinstance(obj, sp.Basic):
        return _canonical_printer().doprint(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return f"{type(obj).__name__}(" + ",".join(
            fingerprint(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name != "seconds") + ")"
    if isinstance(obj, (tuple, list)):
        return "(" + ",".join(fingerprint(x) for x in obj) + ")"
    if isinstance(obj, dict):
        return "{" + ",".join(f"{fingerprint(k)}:{fingerprint(v)}" for k, v in obj.items()) + "}"
    if callable(obj):
        return f"<callable {getattr(obj, '__qualname__', type(obj).__name__)}>"
    return repr(obj)


def dumps(payload) -> bytes | None:
    """The payload pickled, if it comes back exactly as it went in; else None (recompute instead)."""
    register_reducers()
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        if fingerprint(pickle.loads(data)) != fingerprint(payload):
            return None
    except Exception:  # local functions, SymPy objects without a pickle form, ...
        return None
    return data


def load(k: str | None):
    if k is None:
        return None
    path = directory() / f"{k}.pickle"
    register_reducers()
    try:
        with path.open("rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception:  # a truncated or stale-format entry: recompute and overwrite it
        return None


def store(k: str | None, payload) -> None:
    if k is None:
        return
    data = dumps(payload)
    if data is None:
        return  # what cannot be stored faithfully is proved afresh next time
    d = directory()
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{k}.{os.getpid()}.tmp"
        tmp.write_bytes(data)
        tmp.replace(d / f"{k}.pickle")  # atomic: parallel workers never see half a file
    except OSError:
        pass  # a cache that cannot be written only costs time
