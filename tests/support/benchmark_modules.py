"""The benchmark scripts' modules (``benchmarks/*.py``) for the tests, imported by name as the
scripts import one another.

The folder is on ``sys.path`` only while a module (and the benchmark modules it imports) is
loaded: its file names (``io``, ``ml``, ``rng``, ...) must not shadow other modules for the
rest of the test run.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load(name: str):
    """The module ``benchmarks/<name>.py``."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))
