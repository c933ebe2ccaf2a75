"""One-dimensional transform steps and their local execution.

Every transform of the extension is a sequence of one-dimensional steps, one per axis: a
multi-dimensional transform is separable, and its normalization is the product of the
steps' normalizations (``1/n`` is ``prod(1/n_i)``, ``1/sqrt(n)`` is ``prod(1/sqrt(n_i))``),
so each step takes the same ``norm``. A step's kind is the name of the backend's 1-D
function that performs it on a block where its axis is whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import Backend

__all__ = ["Step", "C2C", "R2C", "C2R", "complex_of", "real_of", "run_local"]

C2C = ("fft", "ifft")  # complex in, complex out, any order between them
R2C = ("rfft", "ihfft")  # real in, half spectrum out: must come first
C2R = ("irfft", "hfft")  # half spectrum in, real out: must come last
INVERSE = ("ifft", "ihfft", "irfft")  # the kinds whose exponent sign is +

_COMPLEX_OF = {
    np.dtype("float32"): np.dtype("complex64"),
    np.dtype("float64"): np.dtype("complex128"),
    np.dtype("complex64"): np.dtype("complex64"),
    np.dtype("complex128"): np.dtype("complex128"),
}
_REAL_OF = {
    np.dtype("float32"): np.dtype("float32"),
    np.dtype("float64"): np.dtype("float64"),
    np.dtype("complex64"): np.dtype("float32"),
    np.dtype("complex128"): np.dtype("float64"),
}


def complex_of(dtype: np.dtype) -> np.dtype:
    """The complex floating dtype of ``dtype``'s precision."""
    return _COMPLEX_OF[np.dtype(dtype)]


def real_of(dtype: np.dtype) -> np.dtype:
    """The real floating dtype of ``dtype``'s precision."""
    return _REAL_OF[np.dtype(dtype)]


@dataclass(frozen=True)
class Step:
    """One 1-D transform: ``kind`` along ``axis`` with length ``n`` (for ``irfft``/``hfft``
    the output length, else the length the input is cut or zero-padded to)."""

    kind: str
    axis: int
    n: int
    norm: str

    @property
    def out_len(self) -> int:
        return self.n // 2 + 1 if self.kind in R2C else self.n

    def used(self, m: int) -> int:
        """How many input entries along the axis enter the transform (the rest is dropped)."""
        return min(m, self.n // 2 + 1 if self.kind in C2R else self.n)

    def out_dtype(self, dtype: np.dtype) -> np.dtype:
        return real_of(dtype) if self.kind in C2R else complex_of(dtype)

    def out_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        out = list(shape)
        out[self.axis] = self.out_len
        return tuple(out)


def run_local(block: Any, steps: list[Step], backend: Backend) -> Any:
    """Apply ``steps`` in order to a block that holds each step's axis whole."""
    for step in steps:
        if math.prod(block.shape) == 0:
            # An empty input along the axis transforms to zeros (some libraries refuse it).
            dtype = step.out_dtype(backend.dtype_of(block))
            out = backend.empty(step.out_shape(tuple(block.shape)), dtype, backend.device_of(block))
            out[...] = 0
            block = out
            continue
        fn = getattr(backend.xp.fft, step.kind)
        block = fn(block, n=step.n, axis=step.axis, norm=step.norm)
    return block
