"""``xdist.lib.stride_tricks.sliding_window_view``: NumPy's name for xdist's
``sliding_window_view`` (``xdist/_sliding_window.py``: a new array, not a view; along the
split axis one halo exchange)."""

from __future__ import annotations

from .._sliding_window import sliding_window_view

__all__ = ["sliding_window_view"]
