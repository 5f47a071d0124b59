"""A module proxy that imports on first attribute access.

Derivation modules are imported by ``mathcheck list`` to read claim metadata, and listing must not
pay for SymPy (≈0.7 s). They therefore write ``from mathcheck.lazy import sympy as sp`` and touch
``sp`` only inside functions.
"""

from __future__ import annotations

import importlib
import types


class LazyModule(types.ModuleType):
    def __init__(self, name: str):
        super().__init__(name)
        self.__dict__["_target"] = None

    def _load(self) -> types.ModuleType:
        target = self.__dict__["_target"]
        if target is None:
            target = importlib.import_module(self.__name__)
            self.__dict__["_target"] = target
        return target

    def __getattr__(self, attr: str):
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        state = "loaded" if self.__dict__["_target"] is not None else "not loaded"
        return f"<lazy module {self.__name__!r} ({state})>"


sympy = LazyModule("sympy")
