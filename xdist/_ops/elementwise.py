"""The elementwise family: one pipeline for every function applied element by element.

check the operands and their context -> broadcast the global shapes -> decide the output
layout -> align the operands' blocks to it -> call the local function on the blocks -> wrap
(``apply_elementwise``). Operands with equal layouts never communicate.

The binary functions first try a direct path (``binary_direct``): two arrays of one context
and dtype whose blocks broadcast as they are go straight to the library, with nothing to
decide beyond a few comparisons. ``standard_dtype`` makes a result's dtype the standard's
where a library promoted two arrays otherwise.

The elementwise functions of the standard, ``where``, ``clip``, ``xdist.special`` and some of
``linalg`` build on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._array import Array, wrap_block
from .._dtypes import promote_pair
from .._fusion import elementwise
from .._layout import Layout
from .._movement.broadcast import align_block, as_is, broadcast_shapes, output_layout
from .._validation import check_same_context, same_context

__all__ = [
    "SCALARS",
    "apply_elementwise",
    "binary_direct",
    "check_operand",
    "direct_layout",
    "standard_dtype",
]

# The Python scalars an elementwise function takes beside arrays.
SCALARS = (bool, int, float, complex)


def check_operand(x: Any, func: str, name: str) -> None:
    """``x`` is an xdist array or a Python scalar; else a TypeError naming the argument."""
    if not isinstance(x, Array) and not isinstance(x, SCALARS):
        raise TypeError(
            f"{func}: {name} must be an xdist array or a Python scalar, got {type(x).__name__}"
        )


def _context(arrays: list[Array], func: str) -> tuple[Any, Any]:
    """The communicator and backend that ``arrays`` share (a ValueError if they do not)."""
    check_same_context(arrays, func)
    return arrays[0]._comm, arrays[0]._backend


def apply_elementwise(
    func: str, local_fn: Callable[..., Any], operands: list[Any], *, fuse: bool = False
) -> Array:
    """Broadcast ``operands`` (arrays and Python scalars) and apply ``local_fn`` blockwise;
    ``fuse``: ``local_fn`` maps each element to one element, and may run in tiles of a chain
    (``_fusion``)."""
    arrays = [x for x in operands if isinstance(x, Array)]
    if not arrays:
        raise TypeError(f"{func}: at least one argument must be an xdist array")
    comm, backend = _context(arrays, func)
    first = arrays[0]._layout
    if all(a._layout == first for a in arrays):  # the common case: nothing to decide
        out = first
        blocks = operands
    else:
        shape = broadcast_shapes([a.shape for a in arrays], func)
        out = output_layout([a._layout for a in arrays], shape)
        blocks = [  # (an array laid out as the result is taken as it is: it may be pending)
            align_block(x._local, x._layout, out, comm, backend, func)
            if isinstance(x, Array) and x._layout != out
            else x
            for x in operands
        ]
    if fuse:
        return elementwise(local_fn, blocks, out, arrays[0])
    return wrap_block(
        local_fn(*[x._local if isinstance(x, Array) else x for x in blocks]), out, arrays[0]
    )


def standard_dtype(out: Array, x1: Any, x2: Any) -> Array:
    """``out`` in the dtype the standard's promotion gives two arrays (``result_type``),
    where the backend promoted them otherwise within the same kind (integer or floating):
    the namespace behaves the same on every backend."""
    if not (isinstance(x1, Array) and isinstance(x2, Array)):
        return out
    d1, d2, got = x1.dtype, x2.dtype, out.dtype
    want = d1 if d1 == d2 else promote_pair(d1, d2)
    same_kind = (want.kind in "iu") == (got.kind in "iu") and got.kind != "b"
    if got == want or not same_kind or (want.kind == "c") != (got.kind == "c"):
        return out
    local = out._backend.xp.astype(out._local, out._backend.native_dtype(want))
    return Array._new(local, out._layout, out._comm, out._backend)


def direct_layout(l1: Layout, l2: Layout) -> Layout | None:
    """The result's layout (the general path's) where both blocks broadcast as they are
    (``as_is``: nothing to slice, move or gather); ``None`` otherwise, or where the shapes
    do not broadcast: the general path does that and raises the errors."""
    if l1 is l2 or l1 == l2:
        return l1
    try:
        shape = broadcast_shapes([l1.shape, l2.shape], "")
    except ValueError:
        return None
    out = output_layout([l1, l2], shape)
    return out if as_is(l1, out) and as_is(l2, out) else None


def binary_direct(name: str, kinds: str, x1: Array, x2: Array) -> Array | None:
    """The common cases of a binary function, decided in a few comparisons: two arrays of
    one communicator, backend, device and dtype (of the function's category, whose kinds
    are ``kinds``) whose blocks broadcast as they are (``direct_layout``). Then nothing is
    aligned or promoted, and the block result is the answer (``None``: take the general
    path, which also raises the errors)."""
    dtype = x1.dtype
    if dtype != x2.dtype or dtype.kind not in kinds or not same_context(x1, x2):
        return None
    layout = direct_layout(x1._layout, x2._layout)
    if layout is None:
        return None
    out = elementwise(getattr(x1._backend.xp, name), [x1, x2], layout, x1)
    got = out.dtype
    return out if got == dtype or got.kind == "b" else standard_dtype(out, x1, x2)
