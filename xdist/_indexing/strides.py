"""The strides, in elements, that NumPy would give an array: read by ``reshape`` to view or
copy exactly where NumPy does, alike at every rank count.

A rank's block does not show them: a split array's blocks are separate arrays, and a
selection on the split axis gives each rank a block of its own shape. So the results of
indexing, permutations and reshapes whose strides could differ from C order note NumPy's on
the array (``Array._strides``). A split array with none noted is in C order (as xdist makes
new arrays); a replicated one shows NumPy's strides in its block (the block is the whole
array, and the noted arrays that are copies write back, so the library's own indexing never
views one).
"""

from __future__ import annotations

import functools

from .. import _array
from .keys import Part

__all__: list[str] = []


@functools.lru_cache(maxsize=256)
def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides, in elements, of a C-contiguous array of ``shape``."""
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def noted_strides(x: _array.Array) -> tuple[int, ...] | None:
    """The strides noted for ``x`` (``None`` where none were)."""
    return x._strides


def model_strides(x: _array.Array) -> tuple[int, ...] | None:
    """The strides, in elements, that NumPy would give ``x`` (C order unless noted), or
    ``None`` where ``x``'s block shows them itself (a replicated array, not noted, whose
    block is not C-contiguous: a view of a view taken on the block)."""
    strides = x._strides
    if strides is not None:
        return strides
    if x._layout.split is None and not x._backend.is_c_contiguous(x._local):
        return None
    return c_strides(x._layout.shape)


def note_strides(x: _array.Array, strides: tuple[int, ...] | None) -> None:
    """Note ``strides`` as NumPy's for ``x`` (``None``: nothing to note). A split array in C
    order needs no note (that is the default)."""
    if strides is None:
        return
    if x._layout.split is not None and _c_ordered(x._layout.shape, strides):
        return
    x._strides = strides


def _c_ordered(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether ``strides`` are C order for ``shape`` (axes of length 1 do not count, and an
    empty array is in every order), as NumPy judges contiguity."""
    if 0 in shape:
        return True
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != step:
            return False
        step *= n
    return True


def selected_strides(strides: tuple[int, ...] | None, parts: list[Part]) -> tuple | None:
    """NumPy's strides of the selection ``parts`` of an array of ``strides``."""
    if strides is None:
        return None
    out, axis = [], 0
    for p in parts:
        if p is None:
            out.append(0)
            continue
        if isinstance(p, range):
            out.append(strides[axis] * p.step)
        axis += 1
    return tuple(out)
