"""Elementwise functions of the standard.

Rules are data: each function is a row of ``_UNARY`` / ``_BINARY`` (its name and the dtype
category it accepts), and one pipeline serves them all: check dtypes -> broadcast global
shapes -> decide the output layout -> align the operands' blocks -> call the backend's
function on the blocks -> wrap. Operands with equal layouts never communicate.
"""

from __future__ import annotations

from typing import Any

from . import _array
from ._dtypes import CATEGORIES, check_category, promote_pair
from ._layout import Layout
from ._movement.broadcast import align_block, as_is, broadcast_shapes, output_layout
from ._validation import check_same_context, same_context

_SCALARS = (bool, int, float, complex)

# name -> dtype category of the standard that the inputs must have
_UNARY: dict[str, str] = {
    "abs": "numeric",
    "acos": "floating-point",
    "acosh": "floating-point",
    "asin": "floating-point",
    "asinh": "floating-point",
    "atan": "floating-point",
    "atanh": "floating-point",
    "bitwise_invert": "integer or boolean",
    "ceil": "real numeric",
    "conj": "numeric",
    "cos": "floating-point",
    "cosh": "floating-point",
    "exp": "floating-point",
    "expm1": "floating-point",
    "floor": "real numeric",
    "imag": "numeric",
    "isfinite": "numeric",
    "isinf": "numeric",
    "isnan": "numeric",
    "log": "floating-point",
    "log1p": "floating-point",
    "log2": "floating-point",
    "log10": "floating-point",
    "logical_not": "boolean",
    "negative": "numeric",
    "positive": "numeric",
    "real": "numeric",
    "reciprocal": "floating-point",
    "round": "numeric",
    "sign": "numeric",
    "signbit": "real floating-point",
    "sin": "floating-point",
    "sinh": "floating-point",
    "sqrt": "floating-point",
    "square": "numeric",
    "tan": "floating-point",
    "tanh": "floating-point",
    "trunc": "real numeric",
}

_BINARY: dict[str, str] = {
    "add": "numeric",
    "atan2": "real floating-point",
    "bitwise_and": "integer or boolean",
    "bitwise_left_shift": "integer",
    "bitwise_or": "integer or boolean",
    "bitwise_right_shift": "integer",
    "bitwise_xor": "integer or boolean",
    "copysign": "real floating-point",
    "divide": "numeric",
    "equal": "all",
    "floor_divide": "real numeric",
    "greater": "real numeric",
    "greater_equal": "real numeric",
    "hypot": "real floating-point",
    "less": "real numeric",
    "less_equal": "real numeric",
    "logaddexp": "real floating-point",
    "logical_and": "boolean",
    "logical_or": "boolean",
    "logical_xor": "boolean",
    "maximum": "real numeric",
    "minimum": "real numeric",
    "multiply": "numeric",
    "nextafter": "real floating-point",
    "not_equal": "all",
    "pow": "numeric",
    "remainder": "real numeric",
    "subtract": "numeric",
}

__all__ = [*_UNARY, *_BINARY, "clip"]


def _check_operand(x: Any, func: str, name: str) -> None:
    if not isinstance(x, _array.Array) and not isinstance(x, _SCALARS):
        raise TypeError(
            f"{func}: {name} must be an xdist array or a Python scalar, got {type(x).__name__}"
        )


def _context(arrays: list[_array.Array], func: str):
    check_same_context(arrays, func)
    return arrays[0]._comm, arrays[0]._backend


def apply_elementwise(func: str, local_fn, operands: list[Any]) -> _array.Array:
    """Broadcast ``operands`` (arrays and Python scalars) and apply ``local_fn`` blockwise."""
    arrays = [x for x in operands if isinstance(x, _array.Array)]
    if not arrays:
        raise TypeError(f"{func}: at least one argument must be an xdist array")
    comm, backend = _context(arrays, func)
    first = arrays[0]._layout
    if all(a._layout == first for a in arrays):  # the common case: nothing to decide
        out = first
        blocks = [x._local if isinstance(x, _array.Array) else x for x in operands]
    else:
        shape = broadcast_shapes([a.shape for a in arrays], func)
        out = output_layout([a._layout for a in arrays], shape)
        blocks = [
            align_block(x._local, x._layout, out, comm, backend, func)
            if isinstance(x, _array.Array)
            else x
            for x in operands
        ]
    return _array.wrap_block(local_fn(*blocks), out, arrays[0])


def _standard_dtype(out: _array.Array, x1: Any, x2: Any) -> _array.Array:
    """``out`` in the dtype the standard's promotion gives two arrays (``result_type``),
    where the backend promoted them otherwise within the same kind (integer or floating):
    the namespace behaves the same on every backend."""
    if not (isinstance(x1, _array.Array) and isinstance(x2, _array.Array)):
        return out
    d1, d2, got = x1.dtype, x2.dtype, out.dtype
    want = d1 if d1 == d2 else promote_pair(d1, d2)
    same_kind = (want.kind in "iu") == (got.kind in "iu") and got.kind != "b"
    if got == want or not same_kind or (want.kind == "c") != (got.kind == "c"):
        return out
    local = out._backend.xp.astype(out._local, out._backend.native_dtype(want))
    return _array.Array._new(local, out._layout, out._comm, out._backend)


def _by_zero_is_zero(fn, xp):
    """Integer ``fn`` (floor_divide, remainder) giving 0 where the divisor is 0, as NumPy
    does, on every backend (Torch raises ZeroDivisionError)."""

    def local(a, b):
        if isinstance(a, float) or isinstance(b, float):  # a floating result: NumPy's
            return fn(a, b)  # infinities and NaN
        if isinstance(b, int):
            return fn(a, b) if b != 0 else xp.zeros_like(fn(a, 1))
        zero = b == 0
        out = fn(a, xp.where(zero, xp.ones_like(b), b))
        return xp.where(zero, xp.zeros_like(out), out)

    return local


def _make_unary(name: str, category: str):
    def func(x: _array.Array, /) -> _array.Array:
        if not isinstance(x, _array.Array):
            raise TypeError(f"{name}: x must be an xdist array, got {type(x).__name__}")
        check_category(x.dtype, category, name)
        if name == "imag" and x.dtype.kind != "c":  # zeros, as NumPy gives (Torch refuses)
            local = x._backend.xp.zeros_like(x._local)
        else:
            local = getattr(x._backend.xp, name)(x._local)
        return _array.wrap_block(local, x._layout, x)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = f"The standard's ``{name}``, elementwise on each rank's block (no messages)."
    return func


def _direct_layout(l1: Layout, l2: Layout) -> Layout | None:
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


def _same_context_same_dtype(name: str, kinds: str, x1: _array.Array, x2: _array.Array):
    """The common cases of a binary function, decided in a few comparisons: two arrays of
    one communicator, backend, device and dtype (of the function's category) whose blocks
    broadcast as they are (``_direct_layout``). Then nothing is aligned or promoted, and
    the block result is the answer (``None``: take the general path, which also raises
    the errors)."""
    dtype = x1.dtype
    if dtype != x2.dtype or dtype.kind not in kinds or not same_context(x1, x2):
        return None
    layout = _direct_layout(x1._layout, x2._layout)
    if layout is None:
        return None
    local = getattr(x1._backend.xp, name)(x1._local, x2._local)
    out = _array.wrap_block(local, layout, x1)
    got = out.dtype
    return out if got == dtype or got.kind == "b" else _standard_dtype(out, x1, x2)


def _make_binary(name: str, category: str):
    kinds = CATEGORIES[category]
    by_zero = name in ("floor_divide", "remainder")  # integer division by 0 gives 0

    def func(x1, x2, /) -> _array.Array:
        is1, is2 = isinstance(x1, _array.Array), isinstance(x2, _array.Array)
        if is1 and is2:
            if not by_zero or x1.dtype.kind == "f":
                out = _same_context_same_dtype(name, kinds, x1, x2)
                if out is not None:
                    return out
        elif is1 != is2 and type(x2 if is1 else x1) in (int, float):
            array = x1 if is1 else x2
            kind = array.dtype.kind
            # An array and a number; an integer division only by a nonzero number.
            if kind in kinds and kind != "b" and (not by_zero or kind == "f" or (is1 and x2)):
                local = getattr(array._backend.xp, name)(
                    x1._local if is1 else x1, x2._local if is2 else x2
                )
                return _array.wrap_block(local, array._layout, array)
        if not is1:
            _check_operand(x1, name, "x1")
        if not is2:
            _check_operand(x2, name, "x2")
        for arg, label, is_array in ((x1, "x1", is1), (x2, "x2", is2)):
            if is_array and arg.dtype.kind not in kinds:
                check_category(arg.dtype, category, name, label)  # raises, naming the rule
        array = x1 if is1 else x2
        if array.dtype.kind != "b" and not (is1 and is2):  # a Python bool with numbers
            x1, x2 = (int(v) if isinstance(v, bool) else v for v in (x1, x2))  # is 0 or 1
        local_fn = getattr(array._backend.xp, name)
        if by_zero and array.dtype.kind in "iu":
            local_fn = _by_zero_is_zero(local_fn, array._backend.xp)
        out = apply_elementwise(name, local_fn, [x1, x2])
        return _standard_dtype(out, x1, x2)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = (
        f"The standard's ``{name}`` with broadcasting; operands of equal layouts send nothing."
    )
    return func


for _name, _category in _UNARY.items():
    globals()[_name] = _make_unary(_name, _category)
for _name, _category in _BINARY.items():
    globals()[_name] = _make_binary(_name, _category)
del _name, _category


def clip(x: _array.Array, /, min=None, max=None) -> _array.Array:  # noqa: A002
    """The standard's ``clip``: ``min`` and ``max`` may be scalars or arrays; the result has
    the dtype of ``x`` and the shape of ``x``, ``min`` and ``max`` broadcast together."""
    if not isinstance(x, _array.Array):
        raise TypeError(f"clip: x must be an xdist array, got {type(x).__name__}")
    check_category(x.dtype, "real numeric", "clip")
    for bound, label in ((min, "min"), (max, "max")):
        if bound is not None:
            _check_operand(bound, "clip", label)
            if isinstance(bound, _array.Array):
                check_category(bound.dtype, "real numeric", "clip", label)
    shapes = [x.shape] + [b.shape for b in (min, max) if isinstance(b, _array.Array)]
    broadcast_shapes(shapes, "clip")  # the result has the shape of the three broadcast
    backend = x._backend
    xp, dtype, native = backend.xp, x.dtype, backend.native_dtype(x.dtype)

    def local_clip(block, lo, hi):
        out = xp.clip(block, lo, hi)
        return out if backend.dtype_of(out) == dtype else xp.astype(out, native)

    return apply_elementwise("clip", local_clip, [x, min, max])
