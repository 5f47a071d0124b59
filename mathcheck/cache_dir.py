"""Where mathcheck keeps what it may recompute: ``$MATHCHECK_CACHE_DIR``, else
``$XDG_CACHE_HOME/mathcheck``, else ``~/.cache/mathcheck``. (Its own module so that ``mathcheck
list`` can find its index without importing the proof cache.)"""

from __future__ import annotations

import os
from pathlib import Path


def directory() -> Path:
    if os.environ.get("MATHCHECK_CACHE_DIR"):
        return Path(os.environ["MATHCHECK_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mathcheck"
