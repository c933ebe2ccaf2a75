"""The CuPy backend: blocks are ``cupy.ndarray`` on a CUDA device.

Deviations from the generic backend: CUDA devices only, and how a block reaches MPI: it is
synchronized and staged through pinned host memory, or, with a CUDA-aware MPI, handed to MPI
in place (``to_buffer``, a contiguous device array after the device is synchronized).
"""

from __future__ import annotations

from typing import Any

import array_api_compat.cupy as xp_cupy
import cupy
import cupyx
import numpy as np

from .base import STANDARD_DTYPES, BackendBase, Device

__all__ = ["CuPyBackend", "backend"]


class CuPyBackend(BackendBase):
    name = "cupy"
    xp = xp_cupy
    _dtypes = {d: d for d in STANDARD_DTYPES}

    def devices(self) -> list[Device]:
        return [Device("cupy", "cuda", i) for i in range(cupy.cuda.runtime.getDeviceCount())]

    def device_of(self, block: cupy.ndarray) -> Device:
        return Device("cupy", "cuda", block.device.id)

    def native_device(self, device: Device) -> cupy.cuda.Device:
        return cupy.cuda.Device(device.index)

    def is_block(self, obj: Any) -> bool:
        return isinstance(obj, cupy.ndarray)

    def dtype_of(self, block: cupy.ndarray) -> np.dtype:
        return block.dtype

    def native_dtype(self, dtype: np.dtype) -> np.dtype:
        return np.dtype(dtype)

    def asarray(self, obj, dtype=None, device=None, copy=None) -> cupy.ndarray:
        dev = self.check_device(device, "asarray")
        with self.native_device(dev):
            return xp_cupy.asarray(obj, dtype=dtype, copy=copy)

    def empty(self, shape, dtype, device=None) -> cupy.ndarray:
        dev = self.check_device(device, "empty")
        with self.native_device(dev):
            return cupy.empty(shape, dtype=dtype)

    def to_host(self, block: cupy.ndarray) -> np.ndarray:
        staging = cupyx.empty_pinned(block.shape, dtype=block.dtype)
        with block.device:
            block.get(out=staging)  # blocking: the GPU work on the stream completes first
        return staging

    def from_host(self, array: np.ndarray, device: Device | None = None) -> cupy.ndarray:
        dev = self.default_device() if device is None else device
        with self.native_device(dev):
            return cupy.asarray(array)

    # -- transport buffers (see BackendBase.to_buffer) -------------------------------------
    def is_c_contiguous(self, block: cupy.ndarray) -> bool:
        return block.flags.c_contiguous

    def device_contiguous(self, block: cupy.ndarray) -> cupy.ndarray:
        if block.flags.c_contiguous:
            return block
        with block.device:
            return block.copy(order="C")

    def synchronize(self, device: Device) -> None:
        cupy.cuda.Device(device.index).synchronize()


def backend() -> CuPyBackend:
    return CuPyBackend()
