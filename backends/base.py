"""The backend protocol and the device value shared by all backends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = ["Backend", "Device"]


@dataclass(frozen=True, slots=True)
class Device:
    """Where a block lives: the backend's name, the kind of memory and its index.

    Two devices compare equal only when all three agree, so a NumPy CPU array and a Torch CPU
    array are on different devices (mixing them is an error, as the standard asks).
    """

    backend: str
    kind: str = "cpu"
    index: int | None = None

    def __repr__(self) -> str:
        where = self.kind if self.index is None else f"{self.kind}:{self.index}"
        return f"Device({self.backend!r}, {where!r})"

    def __str__(self) -> str:
        return self.kind if self.index is None else f"{self.kind}:{self.index}"


class Backend(Protocol):
    """What xdist asks of a local array library. xdist dtypes are NumPy ``dtype`` objects."""

    name: str
    xp: Any  # the library's array-API namespace (array-api-compat)

    def default_device(self) -> Device: ...

    def devices(self) -> list[Device]: ...

    def device_of(self, block: Any) -> Device: ...

    def is_block(self, obj: Any) -> bool:
        """Whether ``obj`` is an array of this library."""
        ...

    def dtype_of(self, block: Any) -> np.dtype:
        """The xdist (NumPy) dtype of a block."""
        ...

    def native_dtype(self, dtype: np.dtype) -> Any:
        """The library's dtype for an xdist dtype."""
        ...

    def asarray(
        self, obj: Any, dtype: np.dtype | None, device: Device | None, copy: bool | None
    ) -> Any: ...

    def empty(self, shape: tuple[int, ...], dtype: np.dtype, device: Device | None) -> Any: ...

    def to_host(self, block: Any) -> np.ndarray:
        """A C-contiguous NumPy array with the block's data, ready for MPI (no copy where the
        block already is one; device work is synchronized first)."""
        ...

    def from_host(self, array: np.ndarray, device: Device | None) -> Any:
        """A block on ``device`` holding ``array``'s data."""
        ...
