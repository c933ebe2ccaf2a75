"""NumPy's names that xdist does not have, each with what to use instead: the one table behind
the hint in the ``AttributeError`` of ``xdist`` and of its ``random`` and ``linalg`` modules
(each module's ``__getattr__``).

Each entry is ``name -> (replacement, note)``; a name of a submodule is keyed by its dotted
path from ``xdist`` (``"random.randn"``, ``"linalg.cond"``). ``replacement`` is a name under
``xdist`` (``"concat"``, ``"linalg.outer"``, ``"Array.shape"``) that exists, or under
``numpy`` where NumPy itself is the answer (``"numpy.errstate"``); ``note`` says how to call
it, and for a name a distributed array cannot have, why. A name that xdist provides must not
be here (a test checks both).
"""

from __future__ import annotations

__all__ = ["HINTS", "hint"]

HINTS: dict[str, tuple[str, str]] = {
    # NumPy's spellings of the standard's elementwise functions (the plain aliases are names
    # of xdist: _numpy_aliases)
    "fabs": ("abs", ""),
    "float_power": ("pow", "after astype(x, xp.float64)"),
    "mod": ("remainder", ""),
    "rint": ("round", ""),
    "fix": ("trunc", ""),
    "fmax": ("maximum", "NaN propagates; mask NaN with where(isnan(x), ...) for fmax's rule"),
    "fmin": ("minimum", "NaN propagates; mask NaN with where(isnan(x), ...) for fmin's rule"),
    "degrees": ("multiply", "x * (180 / xp.pi)"),
    "rad2deg": ("multiply", "x * (180 / xp.pi)"),
    "radians": ("multiply", "x * (xp.pi / 180)"),
    "deg2rad": ("multiply", "x * (xp.pi / 180)"),
    "exp2": ("pow", "xp.pow(2.0, x)"),
    "angle": ("atan2", "xp.atan2(xp.imag(z), xp.real(z))"),
    "nan_to_num": ("where", "xp.where(xp.isnan(x), 0.0, x)"),
    "divmod": ("floor_divide", "with xp.remainder"),
    # reductions
    "alltrue": ("all", ""),
    "sometrue": ("any", ""),
    "product": ("prod", ""),
    "array_equiv": ("all", "xp.all(x1 == x2)"),
    # creation and conversion
    "mgrid": ("meshgrid", "of aranges, indexing='ij'"),
    "ogrid": ("meshgrid", "of aranges, indexing='ij'"),
    # shapes and joining
    "swapaxes": ("moveaxis", "or permute_dims"),
    "rollaxis": ("moveaxis", ""),
    "dstack": ("concat", "of the arrays expanded to 3-D, axis=2"),
    "c_": ("concat", ""),
    "r_": ("concat", ""),
    "split": ("unstack", "or slicing"),
    "array_split": ("unstack", "or slicing"),
    "flipud": ("flip", "xp.flip(x, axis=0)"),
    "fliplr": ("flip", "xp.flip(x, axis=1)"),
    "in1d": ("isin", ""),
    # linear algebra
    "vdot": ("vecdot", ""),
    "inner": ("vecdot", ""),
    "diagonal": ("linalg.diagonal", ""),
    "norm": ("linalg.vector_norm", "or linalg.matrix_norm"),
    "matrix_power": ("linalg.matrix_power", ""),
    # sorting
    "partition": ("sort", "the standard has no partial sort"),
    "argpartition": ("argsort", "the standard has no partial sort"),
    "sort_complex": ("sort", "of the real and imaginary parts"),
    # types and metadata
    "ndarray": ("Array", "xdist's array type"),
    "dtype": (
        "numpy.dtype",
        "xdist's dtypes are NumPy dtype objects: numpy.dtype('float32') is one xdist takes; the "
        "namespace names them xp.float64, xp.int32, ...",
    ),
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
    # what a distributed array cannot have
    "errstate": (
        "numpy.errstate",
        "xdist keeps no floating-point error state of its own: each rank's NumPy blocks follow "
        "NumPy's, so wrap the calls in numpy.errstate (Torch and CuPy do not warn)",
    ),
    "vectorize": (
        "where",
        "a Python function called per element cannot run where the elements are spread over "
        "ranks; write it with the namespace's elementwise functions (xp.where, xp.exp, ...), "
        "which run on every rank's block",
    ),
    "apply_along_axis": (
        "resplit",
        "a Python function of whole lines needs each line on one rank: resplit(x, axis) to "
        "another axis than the lines', then apply it to x.local and rebuild with from_local",
    ),
    "frombuffer": (
        "asarray",
        "a buffer is one process's memory, not a distributed array: read it with "
        "numpy.frombuffer, then xp.asarray(data, split=0)",
    ),
    "datetime64": ("int64", "the standard has no time dtypes: hold times as int64 counts"),
    "timedelta64": ("int64", "the standard has no time dtypes: hold durations as int64 counts"),
    "asfortranarray": (
        "asarray",
        "every rank's block is C-contiguous; a distributed array has no Fortran order",
    ),
    # random: xdist has no global generator (each rank would hold a state of its own)
    **{
        f"random.{name}": (
            f"random.Generator.{method}",
            f"no global random state: rng = xp.random.default_rng(seed), then rng.{method}(...); "
            "counter-based, the same numbers at every rank count",
        )
        for name, method in (
            ("randn", "standard_normal"),
            ("standard_normal", "standard_normal"),
            ("normal", "normal"),
            ("rand", "random"),
            ("random", "random"),
            ("random_sample", "random"),
            ("ranf", "random"),
            ("sample", "random"),
            ("uniform", "uniform"),
            ("randint", "integers"),
            ("random_integers", "integers"),
            ("choice", "choice"),
            ("permutation", "permutation"),
            ("shuffle", "shuffle"),
        )
    },
    "random.seed": (
        "random.default_rng",
        "no global random state to seed (each rank would hold its own): "
        "rng = xp.random.default_rng(seed) and draw from rng",
    ),
    "random.RandomState": (
        "random.default_rng",
        "NumPy's legacy generator draws one sequence per process; xdist's counter-based one "
        "gives the same numbers at every rank count: xp.random.default_rng(seed)",
    ),
    "random.SeedSequence": ("random.default_rng", "default_rng takes an int or a SeedSequence"),
    # linalg: NumPy's names beyond the standard that xdist has not
    "linalg.cond": (
        "linalg.svdvals",
        "s = xp.linalg.svdvals(a); s[0] / s[-1] (the 2-norm condition number)",
    ),
    "linalg.multi_dot": ("matmul", "chain xp.matmul (the planner prices each product)"),
    "linalg.tensorinv": ("linalg.inv", "of the tensor reshaped to a square matrix"),
    "linalg.tensorsolve": ("linalg.solve", "of the tensor reshaped to a square matrix"),
    # files
    "save": ("io.save_npy", "or xdist.io.save"),
    "load": ("io.load_npy", "or xdist.io.load"),
    "savetxt": ("io.save_csv", ""),
    "loadtxt": ("io.load_csv", ""),
    "genfromtxt": ("io.load_csv", ""),
}


def hint(name: str, module: str = "xdist") -> str:
    """The ``AttributeError`` message for a missing attribute ``name`` of ``module`` (``xdist``,
    ``xdist.random`` or ``xdist.linalg``)."""
    message = f"module {module!r} has no attribute {name!r}"
    key = module.removeprefix("xdist").lstrip(".")
    key = f"{key}.{name}" if key else name
    if key not in HINTS:
        return message
    target, note = HINTS[key]
    where = target if target.startswith("numpy.") else f"xdist.{target}"
    return f"{message}; use {where}" + (f" ({note})" if note else "")
