"""Random numbers that are the same at every rank count: ``xdist.random``.

``default_rng(seed)`` returns a ``Generator`` with NumPy's method names (``random``,
``uniform``, ``standard_normal``, ``normal``, ``integers``, ``permutation``, ``choice``,
``shuffle``); each array-producing method takes ``size`` (or ``shape``), ``dtype`` and
xdist's ``split``, ``device`` and ``comm`` like the creation functions.

The generator is counter-based (Philox4x64-10): element ``j`` (global C-order flat index) of
a method call is a function of the seed, the call's number and ``j`` only. Each rank draws
only its block, and the same seed gives bitwise the same array at any number of ranks, for
every split and on every backend. See ``docs/random.md``.
"""

from __future__ import annotations

from .._missing_names import hint as _hint
from ._generator import Generator, default_rng

__all__ = ["Generator", "default_rng"]


def __getattr__(name: str):
    # NumPy's names that xdist.random lacks: the AttributeError says what to use instead.
    raise AttributeError(_hint(name, __name__))
