"""The inspection namespace of the standard: ``xdist.__array_namespace_info__()``.

It describes what the current backend offers (devices, data types, defaults) and what xdist
supports. Nothing here communicates. A ``device=`` argument is checked by the backend's
``check_device``, as everywhere in xdist.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes
from ._config import edition_sequence, get_config
from ._data_type_functions import isdtype
from ._runtime import default_backend
from .backends import Backend, Device

__all__ = ["__array_namespace_info__"]


class Info:
    """What xdist and its backend support; returned by ``__array_namespace_info__()``."""

    __slots__ = ("_backend", "_api_version")

    def __init__(self, backend: Backend, api_version: str) -> None:
        self._backend = backend
        self._api_version = api_version  # the edition asked for: devices() list or tuple

    def __repr__(self) -> str:
        return f"xdist.Info(backend={self._backend.name!r})"

    def capabilities(self) -> dict[str, Any]:
        # Data-dependent output shapes (boolean masks, nonzero, unique) come back with exact,
        # possibly uneven counts known on every rank (one small allgather of counts).
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": 64,
        }

    def default_device(self) -> Device:
        return self._backend.default_device()

    def devices(self) -> tuple[Device, ...] | list[Device]:
        """The backend's devices: a tuple (2025.12), a list in earlier editions."""
        return edition_sequence(self._backend.devices(), self._api_version)

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        """The backend's defaults (NumPy: float64 and complex128; Torch: float32 and
        complex64; int64 for integers and indices everywhere)."""
        self._backend.check_device(device, "default_dtypes")
        return dict(self._backend.default_dtypes())

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, np.dtype]:
        """The standard's dtypes the backend supports, by name, only those of ``kind`` (as
        ``isdtype`` reads it)."""
        self._backend.check_device(device, "dtypes")
        # Only what the backend holds: Torch has no uint16, uint32 or uint64.
        known = [d for d in _dtypes.ALL_DTYPES if d in self._backend.supported_dtypes()]
        if kind is None:
            return {d.name: d for d in known}
        return {d.name: d for d in known if isdtype(d, kind)}


def __array_namespace_info__() -> Info:
    """The standard's inspection object for xdist on the default backend, in the edition of
    the ``api_version`` setting."""
    return Info(default_backend(), get_config().api_version)
