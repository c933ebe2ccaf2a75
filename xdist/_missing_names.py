"""NumPy's names that xdist does not have, each with what to use instead: the one table behind
the hint in ``xdist``'s ``AttributeError`` (the module's ``__getattr__``).

Each entry is ``name -> (replacement, note)``: ``replacement`` is a name under ``xdist``
(``"concat"``, ``"linalg.outer"``, ``"Array.shape"``) that exists, ``note`` says how to call
it where that is not obvious. A name that xdist provides must not be here (a test checks both).
"""

from __future__ import annotations

__all__ = ["HINTS", "hint"]

HINTS: dict[str, tuple[str, str]] = {
    # NumPy's spellings of the standard's elementwise functions
    "absolute": ("abs", ""),
    "arccos": ("acos", ""),
    "arccosh": ("acosh", ""),
    "arcsin": ("asin", ""),
    "arcsinh": ("asinh", ""),
    "arctan": ("atan", ""),
    "arctan2": ("atan2", ""),
    "arctanh": ("atanh", ""),
    "conjugate": ("conj", ""),
    "fabs": ("abs", ""),
    "float_power": ("pow", "after astype(x, xp.float64)"),
    "invert": ("bitwise_invert", ""),
    "left_shift": ("bitwise_left_shift", ""),
    "mod": ("remainder", ""),
    "power": ("pow", ""),
    "right_shift": ("bitwise_right_shift", ""),
    "rint": ("round", ""),
    "fix": ("trunc", ""),
    "true_divide": ("divide", ""),
    "fmax": ("maximum", "NaN propagates; mask NaN with where(isnan(x), ...) for fmax's rule"),
    "fmin": ("minimum", "NaN propagates; mask NaN with where(isnan(x), ...) for fmin's rule"),
    "degrees": ("multiply", "x * (180 / xp.pi)"),
    "rad2deg": ("multiply", "x * (180 / xp.pi)"),
    "radians": ("multiply", "x * (xp.pi / 180)"),
    "deg2rad": ("multiply", "x * (xp.pi / 180)"),
    "exp2": ("pow", "xp.pow(2.0, x)"),
    "angle": ("atan2", "xp.atan2(xp.imag(z), xp.real(z))"),
    "nan_to_num": ("where", "xp.where(xp.isnan(x), 0.0, x)"),
    "isneginf": ("isinf", "xp.isinf(x) & (x < 0)"),
    "isposinf": ("isinf", "xp.isinf(x) & (x > 0)"),
    "divmod": ("floor_divide", "with xp.remainder"),
    # reductions
    "amax": ("max", ""),
    "amin": ("min", ""),
    "alltrue": ("all", ""),
    "sometrue": ("any", ""),
    "product": ("prod", ""),
    "array_equiv": ("all", "xp.all(x1 == x2)"),
    # creation and conversion
    "asanyarray": ("asarray", ""),
    "ascontiguousarray": ("asarray", ""),
    "copy": ("asarray", "xp.asarray(x, copy=True)"),
    "identity": ("eye", ""),
    "mgrid": ("meshgrid", "of aranges, indexing='ij'"),
    "ogrid": ("meshgrid", "of aranges, indexing='ij'"),
    # shapes and joining
    "ravel": ("reshape", "xp.reshape(x, (-1,))"),
    "swapaxes": ("moveaxis", "or permute_dims"),
    "rollaxis": ("moveaxis", ""),
    "atleast_2d": ("reshape", "or expand_dims"),
    "atleast_3d": ("reshape", "or expand_dims"),
    "dstack": ("concat", "of the arrays expanded to 3-D, axis=2"),
    "append": ("concat", "xp.concat([x, values])"),
    "c_": ("concat", ""),
    "r_": ("concat", ""),
    "split": ("unstack", "or slicing"),
    "array_split": ("unstack", "or slicing"),
    "flipud": ("flip", "xp.flip(x, axis=0)"),
    "fliplr": ("flip", "xp.flip(x, axis=1)"),
    "in1d": ("isin", ""),
    # linear algebra
    "dot": ("matmul", "or tensordot, vecdot"),
    "vdot": ("vecdot", ""),
    "inner": ("vecdot", ""),
    "outer": ("linalg.outer", ""),
    "trace": ("linalg.trace", ""),
    "diag": ("linalg.diagonal", ""),
    "diagonal": ("linalg.diagonal", ""),
    "norm": ("linalg.vector_norm", "or linalg.matrix_norm"),
    "matrix_power": ("linalg.matrix_power", ""),
    # sorting
    "partition": ("sort", "the standard has no partial sort"),
    "argpartition": ("argsort", "the standard has no partial sort"),
    "sort_complex": ("sort", "of the real and imaginary parts"),
    # types and metadata
    "ndarray": ("Array", "xdist's array type"),
    "dtype": ("float64", "dtypes are attributes: xp.float64, xp.int32, ..."),
    "issubdtype": ("isdtype", ""),
    "iscomplexobj": ("isdtype", "xp.isdtype(x.dtype, 'complex floating')"),
    "isrealobj": ("isdtype", "not xp.isdtype(x.dtype, 'complex floating')"),
    "ndim": ("Array.ndim", "x.ndim"),
    "shape": ("Array.shape", "x.shape"),
    "size": ("Array.size", "x.size"),
    "float_": ("float64", ""),
    "double": ("float64", ""),
    "longdouble": ("float64", "the widest floating dtype of the standard"),
    "single": ("float32", ""),
    "half": ("float32", "the standard has no float16"),
    "float16": ("float32", "the standard has no float16"),
    "complex_": ("complex128", ""),
    "cdouble": ("complex128", ""),
    "cfloat": ("complex128", ""),
    "csingle": ("complex64", ""),
    "bool_": ("bool", ""),
    "int_": ("int64", ""),
    "intp": ("int64", ""),
    "intc": ("int32", ""),
    "uint": ("uint64", ""),
    # files
    "save": ("io.save_npy", "or xdist.io.save"),
    "load": ("io.load_npy", "or xdist.io.load"),
    "savetxt": ("io.save_csv", ""),
    "loadtxt": ("io.load_csv", ""),
    "genfromtxt": ("io.load_csv", ""),
}


def hint(name: str) -> str:
    """The ``AttributeError`` message for a missing attribute ``name`` of ``xdist``."""
    message = f"module 'xdist' has no attribute {name!r}"
    if name not in HINTS:
        return message
    target, note = HINTS[name]
    return f"{message}; use xdist.{target}" + (f" ({note})" if note else "")
