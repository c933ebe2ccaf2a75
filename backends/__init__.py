"""Local backends: the library that holds each rank's block (NumPy, Torch or CuPy).

A backend adapts one array library to what xdist needs: its array-API namespace (through
array-api-compat), its devices, allocation, the mapping between xdist's dtypes (NumPy dtype
objects) and the library's own, and how a block becomes a host buffer that MPI can send.
Backends are looked up by name and imported only when first used.
"""

from __future__ import annotations

import importlib
import os

from .base import Backend, Device

__all__ = ["Backend", "Device", "get_backend", "available_backends", "prepare"]

# Each backend's name is both its module here and the package of the library it needs.
_BACKENDS = ("numpy", "torch", "cupy")
_loaded: dict[str, Backend] = {}

# Settings a library reads from the environment once, at its first use, that its backend
# makes, each with the variables by which a user has already decided it (a user's own value,
# or one of those, keeps the setting out).
# - Torch's CPU allocator asks for transparent huge pages for tensors of 2 MiB or more only
#   with THP_MEM_ALLOC_ENABLE set when it first allocates, as NumPy does (``madvise``) for
#   every array of 4 MiB or more. Without it, where the kernel gives huge pages only on
#   request (``madvise`` mode, the common default), every new large tensor is paged in 4 KiB
#   at a time, which makes a fresh large product several times slower.
# - Torch's OpenMP threads (GNU libgomp, read when ``import torch`` loads it) spin for about
#   300000 rounds after each parallel operation, waiting for the next. A Torch backend's
#   block also runs NumPy's OpenBLAS (its GEMM, ``_matmul``), whose threads then share the
#   cores with Torch's spinning ones: at one rank on two cores the GEMM of k-means took 6.4
#   ms instead of 2.7 and the next Torch comparison 1.7 ms instead of 0.2. 1000 rounds (what
#   libgomp itself uses when it has more threads than cores) keep Torch's back-to-back
#   operations as fast and end the contention.
_ENVIRONMENT = {
    "torch": (
        ("THP_MEM_ALLOC_ENABLE", "1", ()),
        ("GOMP_SPINCOUNT", "1000", ("OMP_WAIT_POLICY",)),
    )
}


def prepare(name: str) -> None:
    """Set the environment the library of backend ``name`` reads at its first use (see
    ``_ENVIRONMENT``): ``import xdist`` calls it for ``XDIST_BACKEND``'s backend, so that it
    holds when the program first imports and allocates, and ``get_backend`` for any other."""
    for key, value, decided_by in _ENVIRONMENT.get(name, ()):
        if not any(os.environ.get(other) for other in decided_by):
            os.environ.setdefault(key, value)


def available_backends() -> tuple[str, ...]:
    return _BACKENDS


def get_backend(name: str) -> Backend:
    """The backend called ``name`` (numpy, torch or cupy), imported on first use."""
    if name not in _BACKENDS:
        raise ValueError(f"get_backend: unknown backend {name!r}; expected one of {_BACKENDS}")
    if name not in _loaded:
        prepare(name)
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(
                f"get_backend: the {name} backend needs the package {name!r}, which "
                f"is not installed ({exc})"
            ) from exc
        module = importlib.import_module(f"{__name__}.{name}")
        _loaded[name] = module.backend()
    return _loaded[name]
