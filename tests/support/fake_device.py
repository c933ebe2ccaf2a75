"""A fake GPU for testing the device-buffer path of the transport without a GPU.

``FakeDeviceArray`` stands for device memory: it wraps a NumPy array and shows MPI only its
DLPack capsule (as a CuPy array or a CUDA tensor shows its ``__cuda_array_interface__``); it
refuses ``np.asarray``, so a test fails if the transport or the redistribution layer converts
device memory to NumPy behind the backend's back. ``FakeGPUBackend`` is the NumPy backend
with its blocks declared to live on ``cuda:0`` and the transport-buffer methods implemented
with fake device arrays; it records which buffer functions were called.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from xdist.backends.base import Device, DeviceBuffer
from xdist.backends.numpy import NumPyBackend

GPU = Device("fakegpu", "cuda", 0)


class FakeDeviceArray:
    """Device memory: slicing, reshaping and DLPack, but no implicit conversion to NumPy."""

    def __init__(self, data: np.ndarray) -> None:
        self._data = data

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def dtype(self) -> np.dtype:
        return self._data.dtype

    def reshape(self, *shape: Any) -> FakeDeviceArray:
        view = self._data.reshape(*shape)
        assert np.shares_memory(view, self._data) or view.size == 0, "reshape must be a view"
        return FakeDeviceArray(view)

    def __getitem__(self, key: Any) -> FakeDeviceArray:
        return FakeDeviceArray(self._data[key])

    def __setitem__(self, key: Any, value: FakeDeviceArray) -> None:
        self._data[key] = value._data

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._data.__dlpack_device__()

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise AssertionError("device memory was converted with np.asarray")

    def download(self) -> np.ndarray:
        """The test's explicit look at the data (what ``cupy.asnumpy`` would do)."""
        return self._data.copy()


class FakeGPUBackend(NumPyBackend):
    """NumPy blocks that the backend calls GPU blocks; buffers are ``FakeDeviceArray``s."""

    name = "fakegpu"

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def devices(self) -> list[Device]:
        return [GPU]

    def device_of(self, block: Any) -> Device:
        return GPU

    def check_device(self, device: Any, func: str) -> Device:
        return GPU

    def dtype_of(self, block: Any) -> np.dtype:
        return block.dtype

    def to_host(self, block: Any) -> np.ndarray:
        self.calls["to_host"] += 1
        if isinstance(block, FakeDeviceArray):
            return block.download()
        return super().to_host(block)

    def from_host(self, array: np.ndarray, device: Any = None) -> np.ndarray:
        self.calls["from_host"] += 1
        return array

    def device_contiguous(self, block: np.ndarray) -> FakeDeviceArray:
        return FakeDeviceArray(np.array(block, order="C"))

    def synchronize(self, device: Device) -> None:
        self.calls["synchronize"] += 1

    def to_buffer(self, block: Any, cuda_aware: bool) -> Any:
        self.calls[f"to_buffer(cuda_aware={cuda_aware})"] += 1
        return super().to_buffer(block, cuda_aware)

    def from_buffer(self, buf: Any, device: Any) -> Any:
        self.calls["from_buffer"] += 1
        if isinstance(buf, DeviceBuffer):  # the "device" array back as a block
            return buf.data._data
        return self.from_host(buf, device)

    def empty_buffer(self, n: int, dtype: np.dtype, like: Any) -> DeviceBuffer:
        self.calls["empty_buffer"] += 1
        return DeviceBuffer(FakeDeviceArray(np.zeros(n, dtype=dtype)), self)


def device_buffer(array: np.ndarray, backend: FakeGPUBackend) -> DeviceBuffer:
    return DeviceBuffer(FakeDeviceArray(np.array(array, order="C")), backend)
