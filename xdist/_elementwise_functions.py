"""Elementwise functions of the standard.

Rules are data: each function is a row of ``_UNARY`` / ``_BINARY`` (its name and the dtype
category it accepts), made into a function by ``_make_unary`` / ``_make_binary``; the
elementwise pipeline (``_ops.elementwise``) serves them all: check dtypes -> broadcast global
shapes -> decide the output layout -> align the operands' blocks -> call the backend's
function on the blocks -> wrap. Operands with equal layouts never communicate.
"""

from __future__ import annotations

from ._array import Array
from ._dtypes import CATEGORIES, check_category
from ._fusion import elementwise
from ._movement.broadcast import broadcast_shapes
from ._ops.elementwise import apply_elementwise, binary_direct, check_operand, standard_dtype

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


def _make_unary(name: str, category: str):
    imag = name == "imag"  # the backend's: zeros for a real x, on every library

    def func(x: Array, /) -> Array:
        if not isinstance(x, Array):
            raise TypeError(f"{name}: x must be an xdist array, got {type(x).__name__}")
        check_category(x.dtype, category, name)
        backend = x._backend
        return elementwise(backend.imag if imag else getattr(backend.xp, name), [x], x._layout, x)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = f"The standard's ``{name}``, elementwise on each rank's block (no messages)."
    return func


def _make_binary(name: str, category: str):
    kinds = CATEGORIES[category]
    by_zero = name in ("floor_divide", "remainder")  # integer division by 0 gives 0
    square = name == "pow"

    def func(x1, x2, /) -> Array:
        is1, is2 = isinstance(x1, Array), isinstance(x2, Array)
        if is1 and is2:
            if not by_zero or x1.dtype.kind == "f":
                out = binary_direct(name, kinds, x1, x2)
                if out is not None:
                    return out
        elif is1 != is2 and type(x2 if is1 else x1) in (int, float):
            array = x1 if is1 else x2
            kind = array.dtype.kind
            # An array and a number; an integer division only by a nonzero number.
            if kind in kinds and kind != "b" and (not by_zero or kind == "f" or (is1 and x2)):
                if square and is1 and kind == "f" and x2 == 2:
                    # x ** 2: the square, the same bits as the power (NumPy's own ``x ** 2``)
                    # at half its cost: NumPy's ``power`` runs its general loop
                    return elementwise(array._backend.xp.square, [x1], array._layout, array)
                fn = getattr(array._backend.xp, name)
                return elementwise(fn, [x1, x2], array._layout, array)
        if not is1:
            check_operand(x1, name, "x1")
        if not is2:
            check_operand(x2, name, "x2")
        for arg, label, is_array in ((x1, "x1", is1), (x2, "x2", is2)):
            if is_array and arg.dtype.kind not in kinds:
                check_category(arg.dtype, category, name, label)  # raises, naming the rule
        array = x1 if is1 else x2
        if array.dtype.kind != "b" and not (is1 and is2):  # a Python bool with numbers
            x1, x2 = (int(v) if isinstance(v, bool) else v for v in (x1, x2))  # is 0 or 1
        local_fn = getattr(array._backend.xp, name)
        if by_zero and array.dtype.kind in "iu":
            local_fn = array._backend.integer_division(local_fn)
        out = apply_elementwise(name, local_fn, [x1, x2], fuse=True)
        return standard_dtype(out, x1, x2)

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


def clip(x: Array, /, min=None, max=None) -> Array:  # noqa: A002
    """The standard's ``clip``: ``min`` and ``max`` may be scalars or arrays; the result has
    the dtype of ``x`` and the shape of ``x``, ``min`` and ``max`` broadcast together."""
    if not isinstance(x, Array):
        raise TypeError(f"clip: x must be an xdist array, got {type(x).__name__}")
    check_category(x.dtype, "real numeric", "clip")
    for bound, label in ((min, "min"), (max, "max")):
        if bound is not None:
            check_operand(bound, "clip", label)
            if isinstance(bound, Array):
                check_category(bound.dtype, "real numeric", "clip", label)
    shapes = [x.shape] + [b.shape for b in (min, max) if isinstance(b, Array)]
    broadcast_shapes(shapes, "clip")  # the result has the shape of the three broadcast
    backend = x._backend
    xp, dtype, native = backend.xp, x.dtype, backend.native_dtype(x.dtype)

    def local_clip(block, lo, hi):
        out = xp.clip(block, lo, hi)
        return out if backend.dtype_of(out) == dtype else xp.astype(out, native)

    return apply_elementwise("clip", local_clip, [x, min, max], fuse=True)
