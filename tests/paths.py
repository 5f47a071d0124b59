"""Where the suite's things are, whichever package a test lives in: the repository root and
``tests/``, whose data (fixtures/, the corpora, snapshots/) stays at its top (tests/README.md).

>>> (TESTS / "fixtures").is_dir() and (ROOT / "mathcheck").is_dir()
True
"""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
