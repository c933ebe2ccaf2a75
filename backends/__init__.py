"""Local backends: the library that holds each rank's block (NumPy now; Torch and CuPy next).

A backend adapts one array library to what xdist needs: its array-API namespace (through
array-api-compat), its devices, allocation, the mapping between xdist's dtypes (NumPy dtype
objects) and the library's own, and how a block becomes a host buffer that MPI can send.
Backends are looked up by name and imported only when first used.
"""

from __future__ import annotations

import importlib

from .base import Backend, Device

__all__ = ["Backend", "Device", "get_backend", "available_backends"]

_MODULES = {"numpy": "numpy", "torch": "torch", "cupy": "cupy"}
_PACKAGES = {"numpy": "numpy", "torch": "torch", "cupy": "cupy"}
_loaded: dict[str, Backend] = {}


def available_backends() -> tuple[str, ...]:
    return tuple(_MODULES)


def get_backend(name: str) -> Backend:
    """The backend called ``name`` (numpy, torch or cupy), imported on first use."""
    if name not in _MODULES:
        raise ValueError(
            f"get_backend: unknown backend {name!r}; expected one of {tuple(_MODULES)}"
        )
    if name not in _loaded:
        try:
            importlib.import_module(_PACKAGES[name])
        except ImportError as exc:
            raise ImportError(
                f"get_backend: the {name} backend needs the package {_PACKAGES[name]!r}, which "
                f"is not installed ({exc})"
            ) from exc
        module = importlib.import_module(f"{__name__}.{_MODULES[name]}")
        _loaded[name] = module.backend()
    return _loaded[name]
