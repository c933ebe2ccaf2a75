"""``xdist.lib``: NumPy's ``lib`` names that array libraries look up on a namespace
(xarray's ``rolling`` calls ``xp.lib.stride_tricks.sliding_window_view``). xdist's own
extensions, beyond the standard."""

from __future__ import annotations

from . import stride_tricks

__all__ = ["stride_tricks"]
