"""A proof cache: a claim's verdict is reused while nothing it depends on has changed.

The key of a claim is a SHA-256 over: the source of the module that derives it, the source of
the module that checks it, the source of the shared core (every ``mathcheck/*.py`` except the
renderers and the CLI, the packages ``symbolic/``, ``numeric/`` and ``userexpr/``, and
``mathcheck/verify/_*.py``/``evaluate.py``/``stats.py``/``generic.py``), the
versions of Python, SymPy, torch and NumPy (read from package metadata, so a warm run imports
neither SymPy's evaluators nor torch), the command (prove or refute) and the options (seed,
device, dtype). Change any of them and the claim is proved again.

The cache lives in ``$MATHCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/mathcheck``, else
``~/.cache/mathcheck``, one file ``<key>.json`` per verdict. ``--no-cache`` bypasses it.

An entry is data, never code: JSON written by :mod:`mathcheck.serial` (SymPy expressions as
``srepr`` text rebuilt by a reader of ours), holding the key it was written under, the mathcheck
version, the claim and kind, and the SHA-256 of its own content. Reading one checks all of them,
then that the verdict agrees with its own evidence (``proved`` needs every part proved and the
numeric check passed); an entry that fails any check is ignored, recomputed and replaced, with a
one-line note under ``-v``. The digest catches corruption, not forgery: someone who can write the
folder can write a consistent entry, which is why ``--no-cache`` exists (docs/cache.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from mathcheck.cache_dir import directory

PKG = Path(__file__).resolve().parent
_CORE_PACKAGES = ("symbolic", "numeric", "userexpr")
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
    # The kernel a verdict rests on: the symbolic and numeric packages and the user pipeline
    # (the generic check evaluates through it), whole; of verify/, the shared helpers.
    for package in _CORE_PACKAGES:
        files += (PKG / package).glob("*.py")
    files += [
        p
        for p in (PKG / "verify").glob("*.py")
        if p.name.startswith("_") or p.name in ("evaluate.py", "stats.py", "generic.py")
    ]
    for p in sorted(files):
        h.update(str(p.relative_to(PKG)).encode())
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


FORMAT = "mathcheck-cache/1"
MAX_BYTES = 16 << 20  # four times the largest real entry (3.9 MB, a refute entry): a larger file is refused unread
_FIELDS = {"format", "key", "mathcheck", "claim", "kind", "payload", "sha256"}

log = logging.getLogger("mathcheck.cache")
_TEXT: dict = {}  # id(payload) → (payload, its serial text): what was just read or written needs no
# second encoding (and round-trip check) to travel to the parent process under -j N


class Invalid(ValueError):
    """An entry that cannot be trusted; ``str()`` says why, in a few words."""


def _remember(payload, text: str) -> None:
    if len(_TEXT) > 64:  # a serial run never packs: keep only the latest
        _TEXT.clear()
    _TEXT[id(payload)] = (payload, text)


def path(k: str) -> Path:
    return directory() / f"{k}.json"


def _digest(fields: dict) -> str:
    from mathcheck.serial import canonical

    return hashlib.sha256(canonical({n: v for n, v in fields.items() if n != "sha256"}).encode()).hexdigest()


def encode(k: str, entry, kind: str, payload) -> bytes:
    """The entry file for ``payload``; :class:`mathcheck.serial.Unserializable` if it cannot be
    stored exactly."""
    from mathcheck import serial
    from mathcheck.version import __version__

    text = serial.dumps(payload, entry.build())  # raises unless it reads back exactly
    _remember(payload, text)
    fields = {
        "format": FORMAT,
        "key": k,
        "mathcheck": __version__,
        "claim": entry.id,
        "kind": kind,
        "payload": json.loads(text),
    }
    fields["sha256"] = _digest(fields)
    return serial.canonical(fields).encode("ascii")


def _json_fields(data: bytes):
    """An entry file's JSON, read with a size cap; :class:`Invalid` if too large or not JSON."""
    if len(data) > MAX_BYTES:
        raise Invalid(f"larger than {MAX_BYTES} bytes")
    try:
        fields = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Invalid("not JSON (truncated, corrupt, or not written by mathcheck)") from None
    return fields


def decode(data: bytes, k: str, entry, kind: str) -> tuple:
    """The payload an entry file holds, after every check; :class:`Invalid` otherwise."""
    from mathcheck import serial

    fields = _json_fields(data)
    _check_envelope(fields, k, _FIELDS, FORMAT, _digest, "cache entry")
    if (fields["claim"], fields["kind"]) != (entry.id, kind):
        raise Invalid(f"holds {fields['kind']!r} of {fields['claim']!r}")
    claim = entry.build()
    try:
        payload = serial.decode(fields["payload"], claim)
    except serial.Malformed as exc:
        raise Invalid(str(exc)) from None
    check(kind, payload, claim)
    _remember(payload, serial.canonical(fields["payload"]))
    return payload


def _check_symbolic(symbolic, claim) -> None:
    from mathcheck.symbolic.steps import PartResult, StepResult
    from mathcheck.verdict import STATUSES, SymbolicVerdict

    if type(symbolic) is not SymbolicVerdict or symbolic.status not in STATUSES:
        raise Invalid("a symbolic verdict of the wrong type")
    parts = symbolic.parts
    if type(parts) is not tuple or not all(type(p) is PartResult for p in parts):
        raise Invalid("symbolic parts of the wrong type")
    if [p.name for p in parts] != [p.name for p in claim.parts]:
        raise Invalid("symbolic parts that are not this claim's")
    for p in parts:
        if type(p.steps) is not tuple or not all(type(s) is StepResult for s in p.steps):
            raise Invalid(f"part {p.name!r}: steps of the wrong type")
        if p.status == "proved" and any(s.decision is not None and s.decision.value is not True for s in p.steps):
            raise Invalid(f"part {p.name!r} is proved although a step is not")
    statuses = {p.status for p in parts}
    if symbolic.status == "proved" and statuses - {"proved"}:
        raise Invalid("symbolic status proved although a part is not")
    if "refuted" in statuses and symbolic.status not in ("refuted", "error"):
        raise Invalid(f"symbolic status {symbolic.status} although a part is refuted")


def _pairs(t) -> bool:
    return type(t) is tuple and all(type(p) is tuple and len(p) == 2 and type(p[0]) is str for p in t)


def _strings(t) -> bool:
    return type(t) is tuple and all(type(x) is str for x in t)


def _check_shapes(value) -> None:
    """The containers the renderers walk hold what they expect (``((name, value), ...)`` pairs,
    lines of text, Plot values), so a well-typed but odd entry cannot crash a report."""
    import dataclasses

    from mathcheck.symbolic.decide import Decision
    from mathcheck.symbolic.steps import PartResult
    from mathcheck.verdict import MutantVerdict, NumericVerdict, Plot

    if type(value) is tuple:
        for v in value:
            _check_shapes(v)
        return
    if not dataclasses.is_dataclass(value):
        return
    ok = True
    if type(value) is NumericVerdict:
        ok = (
            _pairs(value.counterexample)
            and _strings(value.details)
            and type(value.plots) is tuple
            and all(type(p) is Plot for p in value.plots)
        )
    elif type(value) is Plot:
        ok = type(value.series) is tuple and all(
            type(s) is tuple and len(s) == 3 and type(s[0]) is str and type(s[1]) is tuple and type(s[2]) is tuple
            for s in value.series
        )
    elif type(value) in (Decision, MutantVerdict):
        ok = _pairs(value.counterexample)
    elif type(value) is PartResult:
        ok = _strings(value.notes)
    if not ok:
        raise Invalid(f"a {type(value).__name__} whose contents are not of the expected shape")
    for f in dataclasses.fields(value):
        _check_shapes(getattr(value, f.name))


def check(kind: str, payload, claim) -> None:
    """:class:`Invalid` unless ``payload`` is a well-formed ``kind`` payload of ``claim`` whose
    verdicts agree with their own evidence (what :func:`mathcheck.outcome.combine` and
    :func:`mathcheck.verdict.mutant_status` would say of it)."""
    from mathcheck.outcome import combine
    from mathcheck.symbolic.decide import Decision
    from mathcheck.verdict import MutantVerdict, NumericVerdict, mutant_status

    if type(payload) is not tuple or not payload or payload[0] != kind:
        raise Invalid(f"not a {kind} result")
    _check_shapes(payload)
    if kind == "prove":
        if len(payload) != 4:
            raise Invalid("not a prove result")
        _, status, symbolic, numeric = payload
        _check_symbolic(symbolic, claim)
        if type(numeric) is not NumericVerdict:
            raise Invalid("a numeric verdict of the wrong type")
        if status != combine(symbolic.status, numeric.status):
            raise Invalid(
                f"status {status!r} contradicts its evidence (symbolic {symbolic.status}, numeric {numeric.status})"
            )
        return
    if len(payload) != 2 or type(payload[1]) is not tuple:
        raise Invalid("not a refute result")
    mutants = payload[1]
    if not all(type(m) is MutantVerdict for m in mutants):
        raise Invalid("mutant verdicts of the wrong type")
    if [m.mutant.name for m in mutants] != [m.name for m in claim.mutants]:
        raise Invalid("mutant verdicts that are not this claim's mutants")
    for m in mutants:
        if not (m.symbolic is None or type(m.symbolic) is Decision) or type(m.numeric) is not NumericVerdict:
            raise Invalid(f"mutant {m.name!r}: evidence of the wrong type")
        if m.status != mutant_status(m.symbolic, m.numeric.status):
            raise Invalid(f"mutant {m.name!r}: status {m.status!r} contradicts its evidence")


def load(k: str | None, entry, kind: str) -> tuple | None:
    """The cached payload of ``entry`` under key ``k``, or None (absent, or not to be trusted)."""
    if k is None:
        return None
    _ENTRY_SHA.pop(k, None)  # a view binds only to bytes read (and checked) or written just now
    try:
        with path(k).open("rb") as f:
            data = f.read(MAX_BYTES + 1)  # an oversized file is refused without reading it all
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.info(f"cache: cannot read the {kind} entry of {entry.id}: {exc.strerror}; recomputing it")
        return None
    try:
        payload = decode(data, k, entry, kind)
        _ENTRY_SHA[k] = hashlib.sha256(data).hexdigest()
        return payload
    except Invalid as exc:
        reason = str(exc)
    except Exception as exc:  # noqa: BLE001 - a check of ours that did not foresee this content: still not trusted
        reason = f"unreadable ({type(exc).__name__})"
    log.info(f"cache: ignoring the {kind} entry of {entry.id}: {reason}; recomputing and replacing it")
    return None


def store(k: str | None, entry, kind: str, payload) -> None:
    """Write the entry atomically (a temporary file renamed over it: a reader, or a second process
    writing the same entry, never sees half a file). What cannot be stored exactly is not stored."""
    if k is None:
        return
    _ENTRY_SHA.pop(k, None)
    from mathcheck.serial import Unserializable

    try:
        data = encode(k, entry, kind, payload)
    except Unserializable as exc:
        log.info(f"cache: the {kind} result of {entry.id} is not cached: {exc}")
        return
    d = directory()
    tmp = d / f".{k}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path(k))
        _ENTRY_SHA[k] = hashlib.sha256(data).hexdigest()
    except OSError as exc:  # a cache that cannot be written only costs time
        log.info(f"cache: cannot write {path(k)}: {exc.strerror}")
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the folder is not one (NotADirectoryError), or not ours to clean
            pass


# --- views: what a report prints of an entry, so a warm run neither builds the claim nor decodes it ---

VIEW_FORMAT = "mathcheck-view/1"
_VIEW_FIELDS = {"format", "key", "entry_sha256", "renderer", "options", "view", "sha256"}
_ENTRY_SHA: dict = {}  # key → SHA-256 of the entry file's bytes that this process read (and checked) or wrote


def view_path(k: str) -> Path:
    return directory() / f"{k}.view.json"


@lru_cache(maxsize=None)
def _renderer_digest() -> str:
    """The renderers' sources (``render/``) and the CLI's: a view printed by other code is not reused."""
    h = hashlib.sha256()
    for p in sorted([*(PKG / "render").glob("*.py"), PKG / "cli.py"]):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _view_digest(fields: dict) -> str:
    text = json.dumps({n: v for n, v in fields.items() if n != "sha256"}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _plain(options: tuple):
    """The replay options as JSON reads them back (tuples as lists)."""
    return json.loads(json.dumps(options))


def entry_sha(k: str | None) -> str | None:
    """The SHA-256 of the bytes of entry ``k`` as this process last read (and checked) or wrote
    them, or None: what a ``-j N`` worker hands back with its payload (:func:`adopt`)."""
    return _ENTRY_SHA.get(k) if k is not None else None


def adopt(k: str | None, sha: str | None) -> None:
    """Take ``sha`` as the digest of entry ``k``'s bytes, checked or written by a ``-j N`` worker of
    this process (a fork of it, running this code): its verdict's view may then be kept, so a warm
    run after a cold ``-j N`` one prints from views too. The view stays bound to those bytes:
    :func:`load_view` compares them with the file's."""
    if k is not None and sha is not None:
        _ENTRY_SHA[k] = sha


def store_view(k: str | None, view: dict, options: tuple) -> None:
    """Keep ``view`` (a dict of JSON values: what the reports print of this verdict) beside the entry
    of key ``k``, bound to the SHA-256 of that entry's bytes as this process (or a ``-j N`` worker of
    it, :func:`adopt`) checked or wrote them: if the entry is replaced or edited, the view is not
    used. Nothing is kept for an entry neither read nor written."""
    if k is None or k not in _ENTRY_SHA:
        return
    fields = {
        "format": VIEW_FORMAT,
        "key": k,
        "entry_sha256": _ENTRY_SHA[k],
        "renderer": _renderer_digest(),
        "options": _plain(options),
        "view": view,
    }
    fields["sha256"] = _view_digest(fields)
    d = directory()
    tmp = d / f".{k}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        tmp.write_text(json.dumps(fields, ensure_ascii=False), encoding="utf-8")  # key order kept: the report's
        os.replace(tmp, view_path(k))
    except OSError:  # a view that cannot be written only costs time
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def load_view(k: str | None, options: tuple) -> dict | None:
    """The view kept for the entry of key ``k``, or None: no view, or one not to be used (its own
    digest, the key, the renderers, the replay options, or the entry's bytes differ from when it
    was written). A view needs neither SymPy nor the claim: the warm path of ``prove --all``."""
    if k is None:
        return None
    try:
        fields = json.loads(view_path(k).read_bytes().decode("utf-8"))
        with path(k).open("rb") as f:
            entry_sha = hashlib.sha256(f.read(MAX_BYTES + 1)).hexdigest()
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if type(fields) is not dict or set(fields) != _VIEW_FIELDS or fields["sha256"] != _view_digest(fields):
        return None
    if (fields["format"], fields["key"], fields["entry_sha256"], fields["renderer"], fields["options"]) != (
        VIEW_FORMAT,
        k,
        entry_sha,
        _renderer_digest(),
        _plain(options),
    ):
        return None
    return fields["view"] if type(fields["view"]) is dict else None


def _claim(entry):
    try:
        return entry.build()
    except Exception:  # noqa: BLE001 - a broken claim's payload is ("error", line): it refers to no claim
        return None


def pack(entry, payload) -> str | None:
    """A payload as text for the parent process (``-j N``), or None if it cannot travel exactly."""
    from mathcheck import serial

    known = _TEXT.pop(id(payload), None)
    if known is not None and known[0] is payload:
        return known[1]
    try:
        return serial.dumps(payload, _claim(entry))
    except serial.Unserializable:
        return None


def unpack(entry, text: str) -> Any:
    from mathcheck import serial

    return serial.loads(text, _claim(entry))


# --- derive's links: one entry per link of a derivation chain (mathcheck.book) ----------------------

LINK_FORMAT = "mathcheck-link/1"
_LINK_FIELDS = {"format", "key", "mathcheck", "result", "sha256"}
_LINK_WORDS = {
    "proved",
    "refuted",
    "inconclusive",
    "holds-within",
    "passed",
    "skipped",
    "error",
    "read",
}  # "read": a file's chains and their marks (mathcheck.book._prepare), not a verdict


def link_key(fields: dict) -> str:
    """The key of one link of a derivation: SHA-256 over the shared core (which holds the versions
    of Python, SymPy, torch, NumPy, mpmath), mathcheck's version and ``fields`` — everything the
    link's result depends on, as plain JSON: the chain's text (every expression, relation and
    reason: the chain is parsed as one, so a symbol's reading may depend on any of its lines), its
    assumptions, hypotheses and definitions, which link, the seed and the time-out. Line numbers
    and the file's name are not in it: moving a chain does not re-check it."""
    from mathcheck.version import __version__

    h = hashlib.sha256(_core_digest().encode())
    h.update(f"{LINK_FORMAT};{__version__};".encode())
    h.update(json.dumps(fields, sort_keys=True, ensure_ascii=True, allow_nan=False).encode())
    return h.hexdigest()


def link_path(k: str) -> Path:
    return directory() / f"{k}.link.json"  # a file's chains as read (mathcheck.book) are entries of this kind too


def _link_digest(fields: dict) -> str:
    body = {n: v for n, v in fields.items() if n != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def _check_envelope(fields, k: str, names, fmt, digest, what: str) -> None:
    """The checks every entry (a claim's, a link's) passes before its content is looked at: its
    fields, format, own SHA-256, key and mathcheck version; :class:`Invalid` naming the first that fails."""
    from mathcheck.version import __version__

    if type(fields) is not dict or set(fields) != names:
        raise Invalid(f"not a mathcheck {what} (wrong fields)")
    if fields["format"] != fmt:
        raise Invalid(f"format {fields['format']!r}, not {fmt!r}")
    if fields["sha256"] != digest(fields):
        raise Invalid("its SHA-256 does not match its content")
    if fields["key"] != k:
        raise Invalid("written under another key (copied from another entry?)")
    if fields["mathcheck"] != __version__:
        raise Invalid(f"written by mathcheck {fields['mathcheck']!r}, this is {__version__}")


def _check_link(fields, k: str) -> None:
    """Every check an entry passes before its result is used; :class:`Invalid` otherwise."""
    _check_envelope(fields, k, _LINK_FIELDS, LINK_FORMAT, _link_digest, "link entry")
    result = fields["result"]
    if type(result) is not dict or result.get("status") not in _LINK_WORDS or not isinstance(result.get("how"), str):
        raise Invalid("its result has no known status")


def load_link(k: str | None) -> dict | None:
    """The result stored under link key ``k`` (a dict of plain data), or None: absent, or failing
    a check (then it is recomputed and replaced)."""
    if k is None:
        return None
    try:
        with link_path(k).open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError:
        return None
    try:
        fields = _json_fields(data)
        _check_link(fields, k)
        return fields["result"]
    except Invalid as exc:
        log.info(f"cache: ignoring link entry {k[:12]}: {exc}; recomputing and replacing it")
        return None


def store_link(k: str | None, result: dict) -> None:
    """Write a link's result atomically; one that JSON would not give back exactly (a tuple, a
    non-finite number) is not stored: a re-run must print what the first run printed."""
    from mathcheck.version import __version__

    if k is None or result.get("status") not in _LINK_WORDS - {"error"}:
        return
    try:
        if json.loads(json.dumps(result, allow_nan=False)) != result:
            return
    except (TypeError, ValueError):
        return
    fields = {"format": LINK_FORMAT, "key": k, "mathcheck": __version__, "result": result}
    fields["sha256"] = _link_digest(fields)
    d = directory()
    tmp = d / f".{k}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(json.dumps(fields, ensure_ascii=True).encode("ascii"))  # keeps the result's key order
        os.replace(tmp, link_path(k))
    except OSError as exc:  # a cache that cannot be written only costs time
        log.info(f"cache: cannot write {link_path(k)}: {exc.strerror}")
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
