"""The PyTorch backend: blocks are ``torch.Tensor`` on the CPU or a CUDA device.

Deviations from the generic backend: Torch's dtypes (no uint16/32/64 arithmetic, so those are
refused), float32 as the default floating dtype, CUDA devices, threads per rank, and how a
block reaches MPI: a CPU tensor is viewed as NumPy without a copy; a CUDA tensor is
synchronized and staged through pinned host memory.
"""

from __future__ import annotations

import os
from typing import Any

import array_api_compat.torch as xp_torch
import numpy as np
import torch

from .base import BackendBase, Device

__all__ = ["TorchBackend", "backend"]

_DTYPES = {
    np.dtype("bool"): torch.bool,
    np.dtype("int8"): torch.int8,
    np.dtype("int16"): torch.int16,
    np.dtype("int32"): torch.int32,
    np.dtype("int64"): torch.int64,
    np.dtype("uint8"): torch.uint8,
    np.dtype("float32"): torch.float32,
    np.dtype("float64"): torch.float64,
    np.dtype("complex64"): torch.complex64,
    np.dtype("complex128"): torch.complex128,
}


def _threads_per_rank() -> int:
    """Cores per rank on this node. Under mpiexec, Torch reads MPICH's MPI_LOCALNRANKS and
    silently drops to one thread; xdist sets the count explicitly (XDIST_TORCH_THREADS wins)."""
    if "XDIST_TORCH_THREADS" in os.environ:
        return max(1, int(os.environ["XDIST_TORCH_THREADS"]))
    local = os.environ.get("MPI_LOCALNRANKS") or os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE")
    return max(1, (os.cpu_count() or 1) // max(1, int(local or 1)))


class TorchBackend(BackendBase):
    name = "torch"
    xp = xp_torch
    _dtypes = _DTYPES

    def __init__(self) -> None:
        torch.set_num_threads(_threads_per_rank())
        self._from = {v: k for k, v in _DTYPES.items()}

    def devices(self) -> list[Device]:
        cuda = [Device("torch", "cuda", i) for i in range(torch.cuda.device_count())]
        return [Device("torch", "cpu"), *cuda]

    def device_of(self, block: torch.Tensor) -> Device:
        dev = block.device
        return Device("torch", dev.type, dev.index if dev.type != "cpu" else None)

    def native_device(self, device: Device) -> torch.device:
        return torch.device(str(device))

    def is_block(self, obj: Any) -> bool:
        return isinstance(obj, torch.Tensor)

    def dtype_of(self, block: torch.Tensor) -> np.dtype:
        return self._from[block.dtype]

    def asarray(self, obj: Any, dtype=None, device=None, copy=None) -> torch.Tensor:
        if isinstance(obj, np.ndarray) and any(st < 0 for st in obj.strides):
            # Torch cannot view negative strides (a reversed NumPy slice): copy it first.
            if copy is False:
                raise ValueError("asarray: copy=False, but Torch cannot share negative strides")
            obj, copy = np.ascontiguousarray(obj), None
        if isinstance(obj, np.ndarray) and dtype is None:
            dtype = obj.dtype  # a TypeError for uint16/32/64, which Torch cannot compute with
        return super().asarray(obj, dtype, device, copy)

    def default_dtypes(self) -> dict[str, np.dtype]:
        return {
            **super().default_dtypes(),
            "real floating": np.dtype("float32"),
            "complex floating": np.dtype("complex64"),
        }

    def to_host(self, block: torch.Tensor) -> np.ndarray:
        block = block.detach().resolve_conj().resolve_neg()
        if block.device.type == "cpu":
            return block.contiguous().numpy()
        # Stage through pinned memory; .copy_ + synchronize makes the GPU work complete first.
        staging = torch.empty(block.shape, dtype=block.dtype, pin_memory=True)
        staging.copy_(block, non_blocking=True)
        torch.cuda.synchronize(block.device)
        return staging.numpy()

    def from_host(self, array: np.ndarray, device: Device | None = None) -> torch.Tensor:
        if not array.flags.writeable:
            array = array.copy()
        tensor = torch.from_numpy(np.ascontiguousarray(array) if array.ndim else array)
        if device is None or device.kind == "cpu":
            return tensor
        return tensor.to(self.native_device(device), non_blocking=False)

    # -- transport buffers (see BackendBase.to_buffer) -------------------------------------
    def device_contiguous(self, block: torch.Tensor) -> torch.Tensor:
        return block.detach().resolve_conj().resolve_neg().contiguous()

    def synchronize(self, device: Device) -> None:
        if device.kind == "cuda":
            torch.cuda.synchronize(self.native_device(device))

    def move_block(self, block: torch.Tensor, device: Device) -> torch.Tensor:
        return block.to(self.native_device(device), copy=True)


def backend() -> TorchBackend:
    return TorchBackend()
