"""Load the user's callable from ``FILE.py:NAME`` or ``package.module:NAME`` and check its signature.

Loading runs the user's module (their code, their choice); nothing they pass is evaluated as a
string. Each failure is one :class:`~mathcheck.conform.spec.BadInput` line.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Callable

from mathcheck.conform.spec import KINDS, BadInput


def load(target: str) -> Callable:
    """The callable named by ``target``. Importing it runs under
    :func:`~mathcheck.conform.contain.guarded` (``sys.exit`` at import time is an error, not an exit)."""
    from mathcheck.conform.contain import guarded

    path, colon, name = target.rpartition(":")
    if not colon or not path or not name:
        raise BadInput(f"target {target!r}: write FILE.py:FUNCTION or package.module:FUNCTION")
    if path.endswith(".py") or "/" in path or "\\" in path:
        file = Path(path)
        if not file.is_file():
            raise BadInput(f"target {target!r}: no file {path}")
        mod_name = "mathcheck_conform_target_" + "".join(c if c.isalnum() else "_" for c in file.stem)
        spec = importlib.util.spec_from_file_location(mod_name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module  # dataclasses and pickling look modules up by name
        sys.path.insert(0, str(file.resolve().parent))  # the file's sibling modules import as they would there
        try:
            guarded(spec.loader.exec_module, module)  # the user's module, contained like every call
        except Exception as exc:  # noqa: BLE001 - the user's file failed to import: say where, in one line
            sys.modules.pop(mod_name, None)
            raise BadInput(f"target {target!r}: importing {path} raised {type(exc).__name__}: {exc}") from None
        finally:
            sys.path.remove(str(file.resolve().parent))
    else:
        try:
            module = guarded(importlib.import_module, path)
        except ImportError as exc:
            raise BadInput(f"target {target!r}: cannot import {path} ({exc})") from None
    fn = module
    for part in name.split("."):
        if not hasattr(fn, part):
            public = sorted(n for n in vars(module) if not n.startswith("_") and callable(getattr(module, n)))
            raise BadInput(
                f"target {target!r}: {path} has no {name!r} (callables there: {', '.join(public[:12]) or 'none'})"
            )
        fn = getattr(fn, part)
    if not callable(fn):
        raise BadInput(f"target {target!r}: {name} is a {type(fn).__name__}, not a callable")
    return fn


def check_signature(fn, kind: str, label: str, args: tuple = ()) -> None:
    """The callable must accept the kind's parameters by position (and ``is_causal`` by keyword),
    unless ``--args`` names the role of each (``conventions.check_args`` checked them)."""
    from mathcheck.conform.conventions import is_hf_interface, rotary_module, rotary_roles

    wanted = KINDS[kind].params
    if args:
        return  # --args: conform calls it by name (conventions.bind_args / adapt_rotary)
    if kind in ("attention", "gqa") and is_hf_interface(fn):
        return  # HF's attention interface: conform calls it through conventions.adapt
    if kind == "rotary" and (rotary_roles(fn) or rotary_module(fn)):
        return  # an apply fed tables, apply_rotary_pos_emb(q, k, cos, sin) and the like: conventions.adapt
    if kind == "alibi" and _alibi_by_name(fn):
        return  # a builder whose parameters are named as real ones name them: positions.alibi_call binds them
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # a builtin without a signature: let the first call speak
    args = list(range(len(wanted)))
    if "is_causal" in wanted:
        args = args[: wanted.index("is_causal")]
        kwargs = {"is_causal": False}
        if "attn_mask" in wanted:
            args, kwargs = args[:3], {"attn_mask": None, "is_causal": False}
    else:
        kwargs = {}
    if kind in ("layernorm", "rmsnorm"):
        from mathcheck.conform.norms import eps_parameter, no_eps_parameter

        name = eps_parameter(fn)  # eps by name wherever the constructor takes it (norms.build)
        if name:
            args, kwargs = args[:1], {name: 1}
        elif no_eps_parameter(fn):
            args = args[:1]  # no eps at all: make(D) (norms.build)
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        if kind in ("attention", "gqa") and takes_positionally(sig, kind):
            return  # no is_causal: always causal (with --causal) or never; conventions.adapt calls it so
        call = ", ".join(wanted)
        named = getattr(getattr(fn, "func", fn), "__name__", fn)  # a partial (--init): the callable it binds
        raise BadInput(
            f"{label}: kind {kind} needs a callable taking ({call}), but {named}"
            f"{sig} does not ({exc}); if its parameters play these roles under other names or "
            f"order, say which with --args NAME=ROLE,… (roles: {', '.join(arg_roles(kind))})"
        ) from None


def _alibi_by_name(fn) -> bool:
    from mathcheck.conform.positions import ALIBI_HEADS

    try:
        return any(n in ALIBI_HEADS for n in inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False


def takes_positionally(sig, kind: str) -> bool:
    """An attention without ``is_causal`` (GPT-2's ``_attn(query, key, value, attention_mask=None,
    head_mask=None)`` is always causal), its mask by position: ``fn(q, k, v, mask)`` (``fn(q, k, v)`` for gqa)."""
    try:
        sig.bind(0, 1, 2, None) if kind == "attention" else sig.bind(0, 1, 2)
    except TypeError:
        return kind == "attention" and takes_no_mask(sig)
    return True


def takes_no_mask(sig) -> bool:
    """An attention ``fn(q, k, v)`` that takes no mask at all (a tutorial's unmasked attention): it
    binds three positional arguments and not a fourth. The properties that pass a mask are then not
    checked (said); with ``--causal`` it masks by position itself (``Variant.always_causal``).

        >>> takes_no_mask(inspect.signature(lambda q, k, v: q))
        True
        >>> takes_no_mask(inspect.signature(lambda q, k, v, mask=None: q))
        False
    """
    try:
        sig.bind(0, 1, 2)
    except TypeError:
        return False
    try:
        sig.bind(0, 1, 2, None)
    except TypeError:
        return True
    return False


def arg_roles(kind: str) -> tuple:
    """The roles ``--args`` may give a parameter of a ``kind`` target: the kind's own parameters,
    and for rotary the roles of an apply fed tables (:data:`ROTARY_ROLES`)."""
    from mathcheck.conform.conventions import ROTARY_ROLES

    own = tuple(KINDS[kind].params)
    return own + tuple(r for r in ROTARY_ROLES if r not in own) if kind == "rotary" else own


def check_args(fn, kind: str, args: tuple, label: str) -> None:
    """``--args`` against the target's signature and the kind, before any call: every name a
    parameter of the target, every role one the kind has, no role twice, every required
    parameter given a role. Raises :class:`~mathcheck.conform.spec.BadInput` (one line)."""
    if not args:
        return
    roles = arg_roles(kind)
    shown = ",".join(f"{n}={r}" for n, r in args)
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = None
    for name, role in args:
        if role not in roles:
            raise BadInput(f"--args {shown}: {role!r} is not a role of kind {kind}; roles: {', '.join(roles)}")
        if params is not None and name not in params:
            raise BadInput(
                f"--args {shown}: {label} has no parameter {name!r} (its parameters: {', '.join(params) or 'none'})"
            )
    given = [r for _, r in args]
    twice = sorted({r for r in given if given.count(r) > 1})
    if twice:
        raise BadInput(f"--args {shown}: role {twice[0]!r} given twice; give each role to one parameter")
    if params is not None:
        missing = [
            n
            for n, p in params.items()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n not in dict(args)
        ]
        if missing:
            raise BadInput(
                f"--args {shown}: {label}'s required parameter {missing[0]!r} has no role; add "
                f"{missing[0]}=ROLE (roles: {', '.join(roles)})"
            )
    if kind != "rotary":
        needs = [r for r in roles if r not in given and r not in ("attn_mask", "is_causal")]
        if needs:
            raise BadInput(
                f"--args {shown}: kind {kind} passes {', '.join(roles)}; give {needs[0]!r} to one "
                f"of {label}'s parameters"
            )
