"""Where claims are registered and found.

A derivation module registers each claim with the :func:`claim` decorator; the metadata (id, title,
seed section and sentence) is known without running the builder, so ``mathcheck list`` neither builds
a claim nor imports SymPy. ``get(id)`` builds the :class:`~mathcheck.claim.Claim` on demand.

Claims come from three places: the modules of :mod:`mathcheck.derivations`, installed packages that
declare an entry point in the group ``mathcheck.claims``, and files a user loads with
:func:`load_from`.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from mathcheck import outcome

if TYPE_CHECKING:
    from mathcheck.claim import Claim  # built on demand: importing it here would import SymPy

_SECTION = re.compile(r"§(\d+)(?:\.(\d+))?")


class UnknownClaim(LookupError):
    """An id that names no registered claim; ``str()`` is the one line the CLI prints."""


class LoadError(Exception):
    """A user's claim file or module that cannot be loaded; ``str()`` is one line for the CLI."""

    exit_code = outcome.exit_code("bad-input")  # the file is wrong


class UserExit(LoadError):
    """A ``--from`` module that tried to end the run while it was loaded (``sys.exit``,
    ``KeyboardInterrupt``, ``os._exit``: :mod:`mathcheck.procs`): an error, exit 4."""

    exit_code = outcome.exit_code("error")


class DuplicateClaim(ValueError):
    """A claim id registered by two builders: another module's (the catalog's), or two in one file."""


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    section: str
    zh: str
    en: str
    check: str
    module: str
    builder: Callable
    paper: str = ""  # the citation of a claim beyond the article (§9); not in the list index
    # PyTorch's value of the left-hand side, for the generic check; a dict of them by part name is
    # unhashable, so it stays out of the hash (the builder already identifies the entry)
    reference: object = field(default=None, hash=False, compare=False)

    def is_placeholder(self) -> bool:
        return self.builder is None

    @property
    def order(self) -> tuple:
        m = _SECTION.match(self.section)
        return (int(m.group(1)), int(m.group(2) or 0)) if m else (99, 0)

    def build(self) -> Claim:
        if self.builder is None:  # listed from the index: import the module for the real entry
            importlib.import_module(self.module)
            return _ENTRIES[self.id].build()
        return _build(self)


_ENTRIES: dict[str, Entry] = {}
_LOADED = False
_USER: dict[str, tuple] = {}  # --from spec (resolved) -> its entries: loaded once per process
_USER_IDS: set[str] = set()  # claims of --from modules: not part of the catalog (entries())


GENERIC_CHECK = "mathcheck.verify.generic:check"
# A builder only constructs SymPy objects (the catalog's 38 take about 6 s together on 2 cores); one
# that has not returned in this long is the user's hang, reported as an error (exit 4)
BUILD_SECONDS = 120.0


def claim(
    *, id: str, title: str, section: str, zh: str, en: str, check: str | None = None, reference=None, paper: str = ""
) -> Callable[[Callable], Callable]:
    """Register the decorated builder as the derivation of claim ``id``.

    ``check`` names the numeric check as ``"module:function"``; it is imported only when the claim
    is proved, so derivation modules never import torch. Without ``check``, the generic check
    (:func:`mathcheck.verify.generic.check`) evaluates both sides of every part with torch at
    n ∈ {1, 2, 3, 8, 33}; ``reference`` (a function, ``"module:function"``, or a dict of them by
    part name) adds PyTorch's own value of the left-hand side, e.g.
    ``reference=lambda s, m, n: my_attention_weights(s, m, n)``. ``paper`` cites the paper a claim
    beyond the article checks (``mathcheck audit`` lists it so).
    """
    if check is None:
        check = GENERIC_CHECK
    elif reference is not None:
        raise ValueError(
            f"claim {id!r}: reference= is for the generic check; a check= of your own compares with PyTorch itself"
        )

    def register(builder):
        entry = Entry(id, title, section, zh, en, check, builder.__module__, builder, paper, reference)
        old = _ENTRIES.get(id)
        if old is not None and old.module != entry.module:
            raise DuplicateClaim(f"claim id {id!r} is already a claim of {old.module}; give this claim another id")
        if old is not None and old.builder is not None and old.builder.__qualname__ != builder.__qualname__:
            # two builders of one module with one id: the second would silently win
            raise DuplicateClaim(
                f"claim id {id!r} is given twice, to {old.builder.__qualname__} and "
                f"{builder.__qualname__}; give each claim its own id"
            )
        _ENTRIES[id] = entry
        return builder

    return register


@lru_cache(maxsize=None)
def _build(entry: Entry):
    from mathcheck.claim import Claim, Source

    from mathcheck.budget import BudgetExceeded, budget
    from mathcheck.procs import UserCodeExit, user_code

    what = f"the builder of claim {entry.id!r}"
    limit = budget(BUILD_SECONDS)
    try:
        with limit, user_code(what):  # sys.exit(0) there: an error, never a pass
            body = entry.builder()
    except BudgetExceeded as exc:
        if not limit.owns(exc):
            raise  # the caller's own budget ran out: theirs to report
        raise UserCodeExit(
            f"{what} did not return within {BUILD_SECONDS:g} s (a builder returns its "
            "Body: SymPy objects, no proving); a hang is an error, never a pass"
        ) from None
    return Claim(
        id=entry.id,
        title=entry.title,
        source=Source(entry.section, entry.zh, entry.en, entry.paper),
        check=entry.check,
        assumptions=tuple(body.assumptions),
        parts=tuple(body.parts),
        mutants=tuple(body.mutants),
        context=body.context,
        seed_verdict=body.seed_verdict,
    )


def _load_builtin() -> None:
    global _LOADED
    if _LOADED:
        return
    import mathcheck.derivations as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
    _LOADED = True


def _index_file() -> Path:
    from mathcheck.cache_dir import directory

    return directory() / "claims-index.json"


def listing(plugins: bool = False, user=()) -> list[Entry]:
    """Like :func:`entries`, for ``mathcheck list``: metadata of an unchanged derivation module is
    read from a small index (keyed by the file's size and mtime) instead of importing the module,
    which would import the claim machinery. A changed or new module is imported and re-indexed."""
    if _LOADED:
        return entries(plugins, user)
    import json

    import mathcheck.derivations as pkg

    try:
        index = json.loads(_index_file().read_text())
    except (OSError, ValueError):
        index = {}
    fresh, changed = {}, False
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        name = f"{pkg.__name__}.{info.name}"
        try:
            st = (Path(pkg.__path__[0]) / f"{info.name}.py").stat()
            stamp = [st.st_mtime_ns, st.st_size]
        except OSError:
            stamp = None
        record = index.get(name)
        if stamp is not None and record and record.get("stamp") == stamp and name not in sys.modules:
            for meta in record["entries"]:
                _ENTRIES.setdefault(meta[0], Entry(*meta, name, None))
        else:
            importlib.import_module(name)
            record = {
                "stamp": stamp,
                "entries": [
                    [e.id, e.title, e.section, e.zh, e.en, e.check] for e in _ENTRIES.values() if e.module == name
                ],
            }
            changed = True
        fresh[name] = record
    if changed or set(fresh) != set(index):
        try:
            path = _index_file()
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{id(fresh)}.tmp")
            tmp.write_text(json.dumps(fresh, ensure_ascii=False))
            tmp.replace(path)
        except OSError:
            pass  # an index that cannot be written only costs time
    if plugins:
        load_entry_points()
    order, keep = list(_ENTRIES), set(user)
    return sorted(
        (e for e in _ENTRIES.values() if e.id not in _USER_IDS or e.id in keep),
        key=lambda e: (e.order, order.index(e.id)),
    )


def _declared_entry_points(group: str):
    """``(name, "module:attr")`` pairs of ``group`` from installed distributions.

    Reads ``*.dist-info/entry_points.txt`` on ``sys.path`` directly: importing
    ``importlib.metadata`` alone costs more than all of ``mathcheck list`` (it pulls in the email
    package), and listing must stay as fast as click.
    """
    seen = set()
    for base in sys.path:
        root = Path(base or ".")
        if not root.is_dir():
            continue
        for ep_file in root.glob("*.dist-info/entry_points.txt"):
            section = None
            for raw in ep_file.read_text(encoding="utf-8", errors="replace").splitlines():
                line = raw.strip()
                if line.startswith("[") and line.endswith("]"):
                    section = line[1:-1].strip()
                elif section == group and "=" in line and not line.startswith(("#", ";")):
                    name, value = (x.strip() for x in line.split("=", 1))
                    if (name, value) not in seen:
                        seen.add((name, value))
                        yield name, value


def load_entry_points() -> None:
    """Import the claim modules that installed packages declare under ``mathcheck.claims``."""
    for name, value in _declared_entry_points("mathcheck.claims"):
        module = value.split(":", 1)[0].strip()
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - a broken plug-in must not take the built-in catalog down silently
            raise LoadError(f"entry point {name!r} ({value}) failed to load: {exc}") from None


def module_name(path) -> str:
    """The stable module name of a claim file: the same in every process and every run, so the
    ``check=f"{__name__}:fn"`` it names, the proof cache and pickled verdicts agree."""
    import hashlib

    resolved = Path(path).resolve()
    stem = re.sub(r"\W", "_", resolved.stem)
    return f"mathcheck_user_{stem}_{hashlib.sha1(str(resolved).encode()).hexdigest()[:10]}"


def load_from(spec: str) -> list[str]:
    """Load claims from a Python file path or an importable module name; return their ids.

    A file is executed once per process, as module :func:`module_name`; loading it again (a second
    ``--from``, ``assert_proved(..., from_=...)``, a test that restored the registry) returns the
    same ids. Its claims are *user* claims: :func:`entry` finds them, :func:`entries` (the
    catalog: ``prove --all``, the docs, the project's tests) leaves them out unless asked.
    """
    import importlib.util

    from mathcheck.procs import UserCodeExit, user_code

    path = Path(spec)
    is_file = spec.endswith(".py") or path.exists()
    key = str(path.resolve()) if is_file else spec
    listing()  # the catalog's ids (from the index: cheap), so that a file reusing one is refused
    if key in _USER:
        for e in _USER[key]:
            _ENTRIES.setdefault(e.id, e)
        _USER_IDS.update(e.id for e in _USER[key])
        return [e.id for e in _USER[key]]
    try:
        if is_file:
            if not path.is_file():
                raise LoadError(f"--from {spec!r}: no such file; give a path to a .py file or a module name")
            name = module_name(path)
            if name not in sys.modules:
                module_spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(module_spec)
                sys.modules[name] = module
                try:
                    with user_code(f"--from {spec!r}"):
                        module_spec.loader.exec_module(module)
                except BaseException:
                    # a file that fails half-way (a duplicate id, an error) leaves no claim behind
                    del sys.modules[name]
                    for claim_id in [i for i, e in _ENTRIES.items() if e.module == name]:
                        del _ENTRIES[claim_id]
                    raise
        else:
            with user_code(f"--from {spec!r}"):
                name = importlib.import_module(spec).__name__
    except LoadError:
        raise
    except UserCodeExit as exc:
        raise UserExit(str(exc)) from None
    except DuplicateClaim as exc:
        raise LoadError(f"--from {spec!r}: {exc}") from None
    except ModuleNotFoundError as exc:
        raise LoadError(
            f"--from {spec!r}: module not found ({exc.name}); give a file path or an importable module"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a module that fails to import in any way is a LoadError naming it
        raise LoadError(f"--from {spec!r}: {type(exc).__name__}: {exc}") from None
    added = tuple(e for e in _ENTRIES.values() if e.module == name)
    if not added:
        raise LoadError(f"--from {spec!r}: defines no claim; decorate a builder with @mathcheck.registry.claim")
    _USER[key] = added
    _USER_IDS.update(e.id for e in added)
    return [e.id for e in added]


def entries(plugins: bool = False, user=()) -> list[Entry]:
    """Every registered claim, ordered by the seed's sections; of the claims loaded with
    :func:`load_from`, only the ids in ``user``."""
    _load_builtin()
    if plugins:
        load_entry_points()
    builtin_order = list(_ENTRIES)
    keep = set(user)
    return sorted(
        (e for e in _ENTRIES.values() if e.id not in _USER_IDS or e.id in keep),
        key=lambda e: (e.order, builtin_order.index(e.id)),
    )


def entry(claim_id: str) -> Entry:
    _load_builtin()
    if claim_id not in _ENTRIES:  # an installed package's claim: `mathcheck prove its-id` must find it
        load_entry_points()
    try:
        return _ENTRIES[claim_id]
    except KeyError:
        import difflib  # only for the hint: importing it costs `mathcheck list` a few ms

        close = difflib.get_close_matches(claim_id, list(_ENTRIES), n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownClaim(f"unknown claim {claim_id!r}{hint} (mathcheck list shows every id)") from None


def get(claim_id: str) -> Claim:
    """Build and return the claim with this id."""
    return entry(claim_id).build()
