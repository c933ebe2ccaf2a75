"""NumPy and Torch beside xdist arrays: operands, ufuncs and functions.

- A NumPy array or scalar (or a block of the array's own library, such as a Torch tensor)
  next to an xdist array acts as a replicated operand: ``x + np.ones(x.shape)`` and
  ``np.float32(2) * x`` are xdist arrays, with NumPy's promotion of the operands' dtypes. The
  operand must be the same on every rank (SPMD); the ``check_replicated`` setting (on by
  default) compares a fingerprint of an array operand across the ranks (one small allgather).
- NumPy's ufuncs on xdist arrays (``np.exp(x)``, ``np.add(a, x)``) dispatch to the
  namespace's function of the same meaning (``__array_ufunc__``; integer inputs of a
  floating-only ufunc cast as NumPy casts them; ``np.add.reduce`` and the like as the
  namespace's reductions); NumPy functions with a
  counterpart (``np.mean(x, axis=0)``, ``np.std(x, ddof=1)``, ``np.concatenate``, ...) dispatch
  to it (``__array_function__``). Anything else gathers the xdist arguments and runs NumPy on
  the gathered copies, with a ``GatherWarning`` for each split argument above
  ``gather_warning_elements`` (as ``np.asarray`` warns).
- Torch functions and tensor operators on xdist arrays of the Torch backend dispatch the same
  way (``__torch_function__``); anything else raises a TypeError naming the function.

This module sits beside ``_array`` in the array layer: it reaches the namespace only through
the operator table's ``__array_namespace__`` entry.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from ._array import OPERATORS, Array, replicated_operand
from ._movement.gathers import warn_gather

__all__ = ["array_ufunc", "array_function", "torch_function"]

# NumPy ufunc names whose standard name differs.
_UFUNC_ALIASES = {
    "absolute": "abs",
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctan2": "atan2",
    "arctanh": "atanh",
    "conjugate": "conj",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
    "power": "pow",
    "rint": "round",
}


def _namespace():
    """xdist: the operator table's ``__array_namespace__`` entry is the module, or a function
    of the edition asked for (``None``: xdist itself)."""
    ns = OPERATORS["__array_namespace__"]
    return ns if isinstance(ns, types.ModuleType) else ns(None)


def _like(values: Any) -> Array:
    """The first xdist array among ``values`` (nested in lists and tuples)."""
    for v in values:
        if isinstance(v, Array):
            return v
        if isinstance(v, (list, tuple)):
            found = _like(v)
            if found is not None:
                return found
    return None  # type: ignore[return-value]


def _operands(values: Any, like: Array) -> list:
    """NumPy arrays and scalars among ``values`` as replicated arrays of ``like``'s context."""
    out = []
    for v in values:
        if isinstance(v, (np.ndarray, np.generic)) or like._backend.is_block(v):
            v = replicated_operand(like, v, "numpy operand")
        elif isinstance(v, (list, tuple)):
            v = type(v)(_operands(v, like))
        out.append(v)
    return out


# ``ufunc.reduce`` and ``ufunc.accumulate`` of the ufuncs whose reduction the namespace has.
_UFUNC_REDUCTIONS = {
    ("add", "reduce"): "sum",
    ("multiply", "reduce"): "prod",
    ("maximum", "reduce"): "max",
    ("minimum", "reduce"): "min",
    ("logical_and", "reduce"): "all",
    ("logical_or", "reduce"): "any",
    ("add", "accumulate"): "cumulative_sum",
    ("multiply", "accumulate"): "cumulative_prod",
}


def array_ufunc(x: Array, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``x.__array_ufunc__``: a call of a ufunc with a counterpart in the namespace, integer
    and boolean inputs of a floating-only ufunc (``np.sqrt(counts)``) first cast to the
    floating dtype NumPy computes them in; or the ``reduce``/``accumulate`` of a ufunc whose
    reduction the namespace has (``np.add.reduce``: ``sum``)."""
    name = _UFUNC_ALIASES.get(ufunc.__name__, ufunc.__name__)
    if method != "__call__":
        return _ufunc_reduction(ufunc, method, *inputs, **kwargs)
    if kwargs:
        raise TypeError(
            f"np.{ufunc.__name__}: the arguments {sorted(kwargs)} are not supported on xdist "
            "arrays (xdist functions return new arrays: no out=, where=, dtype=)"
        )
    func = getattr(_namespace(), name, None)
    if func is None:
        raise TypeError(
            f"np.{ufunc.__name__}: xdist has no distributed version of this ufunc; gather the "
            "array explicitly (x.to_numpy(): memory of the whole array on every rank) to use it"
        )
    operands = _operands(inputs, x)
    if getattr(func, "__module__", None) == _STANDARD_ELEMENTWISE:
        operands = _floating_inputs(ufunc, operands)
    return func(*operands)


# The module of the standard's elementwise functions, whose floating-only functions take no
# integers (xdist's own extensions, such as ``spacing``, take them by their own rule: in the
# default real floating dtype).
_STANDARD_ELEMENTWISE = "xdist._elementwise_functions"


def _floating_inputs(ufunc: np.ufunc, inputs: list) -> list:
    """The inputs of a ufunc that NumPy computes in a floating dtype although none of its
    array inputs is one (``sqrt``, ``exp``, ``log1p`` of integers or booleans: NumPy's loop
    casts them, int64 to float64), cast to that dtype, which the standard's function
    (floating inputs only) then takes; float16, which xdist lacks, is float32. Other inputs
    as they are."""
    arrays = [v for v in inputs if isinstance(v, Array)]
    if not arrays or any(a.dtype.kind in "fc" for a in arrays):
        return inputs
    probe = [np.zeros((), dtype=v.dtype) if isinstance(v, Array) else v for v in inputs]
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(ufunc(*probe)).dtype
    except TypeError:  # no loop for these dtypes: the namespace's function says why
        return inputs
    if out.kind not in "fc":
        return inputs
    out = np.dtype(np.float32) if out == np.float16 else out
    ns = _namespace()
    return [ns.astype(v, out) if isinstance(v, Array) else v for v in inputs]


def _ufunc_reduction(ufunc: np.ufunc, method: str, array: Any = None, axis: Any = 0, **kwargs):
    """``np.add.reduce(x, axis=0)`` and the like: the namespace's reduction over ``axis``
    (NumPy's default, 0; ``None``: every axis), with ``dtype`` and ``keepdims``; ``accumulate``
    along one axis. ``out``, ``initial`` and ``where`` raise, as for the other functions."""
    target = _UFUNC_REDUCTIONS.get((ufunc.__name__, method))
    if target is None or not isinstance(array, Array):
        raise TypeError(
            f"np.{ufunc.__name__}.{method}: not supported on xdist arrays; call the namespace's "
            "reductions (xdist.sum, xdist.cumulative_sum, ...) instead"
        )
    dtype, keepdims = kwargs.pop("dtype", None), kwargs.pop("keepdims", False)
    _refuse(f"{ufunc.__name__}.{method}", **kwargs)
    ns = _namespace()
    options: dict = {} if dtype is None else {"dtype": _dtype(ufunc.__name__, dtype)}
    if method == "accumulate":
        _refuse(f"{ufunc.__name__}.accumulate", keepdims=keepdims or None)
        if axis is None:
            raise TypeError(f"np.{ufunc.__name__}.accumulate: axis must be an int, got None")
        return getattr(ns, target)(array, axis=axis, **options)
    if target in ("all", "any", "max", "min"):
        _refuse(f"{ufunc.__name__}.reduce", dtype=dtype)
    if isinstance(axis, list):
        axis = tuple(axis)
    return getattr(ns, target)(array, axis=axis, keepdims=keepdims, **options)


def _dtype(name: str, dtype: Any) -> Any:
    """A NumPy spelling of a dtype (``float``, ``"float32"``, ``np.float32``) as the dtype."""
    if dtype is None:
        return None
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"np.{name} on xdist arrays: dtype={dtype!r} is not a dtype") from None


def _floating(name: str, a: Any, dtype: Any) -> Any:
    """``a`` as NumPy's mean, var and std compute it: in ``dtype`` when given, booleans and
    integers in the default real floating dtype (NumPy's float64; the backend's default,
    float32 under Torch), floating and complex arrays as they are."""
    ns = _namespace()
    if dtype is not None:
        return ns.astype(a, _dtype(name, dtype), copy=False)
    if a.dtype.kind in "biu":
        default = ns.__array_namespace_info__().default_dtypes(device=a.device)
        return ns.astype(a, default["real floating"])
    return a


def _reduction(name: str):
    def call(a, axis=None, dtype=None, out=None, keepdims=False, **extra):
        _refuse(name, out=out, **extra)
        if name == "mean":
            return _namespace().mean(_floating(name, a, dtype), axis=axis, keepdims=keepdims)
        if dtype is not None and name in ("sum", "prod", "cumulative_sum", "cumulative_prod"):
            dtype = _dtype(name, dtype)
            return getattr(_namespace(), name)(a, axis=axis, dtype=dtype, keepdims=keepdims)
        _refuse(name, dtype=dtype)
        return getattr(_namespace(), name)(a, axis=axis, keepdims=keepdims)

    return call


def _moment(name: str):
    def call(
        a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None, **extra
    ):
        _refuse(name, out=out, **extra)
        if correction is not None:
            if ddof != 0:
                raise ValueError(f"np.{name}: ddof and correction are the same; give one of them")
            ddof = correction
        a = _floating(name, a, dtype)
        return getattr(_namespace(), name)(a, axis=axis, correction=ddof, keepdims=keepdims)

    return call


def _refuse(name: str, **given: Any) -> None:
    """A TypeError naming the arguments of ``np.name`` that xdist does not take (``where=``
    is taken at its default, ``True``)."""
    used = sorted(
        k
        for k, v in given.items()
        if v is not None and v is not np._NoValue and not (k == "where" and v is True)
    )
    if used:
        raise TypeError(f"np.{name} on xdist arrays: {used} not supported")


def _nan_reduction(name: str, moments: bool = False):
    """NumPy's ``np.nanmean`` and friends as xdist's extensions of the same name."""

    def call(a, axis=None, dtype=None, out=None, *args, keepdims=False, **extra):
        ddof = extra.pop("ddof", args[0] if args else 0)
        _refuse(name, out=out, **extra)
        kwargs = {"axis": axis, "keepdims": keepdims}
        if name not in ("nanmin", "nanmax"):
            kwargs["dtype"] = dtype
        else:
            _refuse(name, dtype=dtype)
        if moments:
            kwargs["ddof"] = ddof
        return getattr(_namespace(), name)(a, **kwargs)

    return call


def _nan_arg(name: str):
    def call(a, axis=None, out=None, *, keepdims=False):
        _refuse(name, out=out)
        return getattr(_namespace(), name)(a, axis=axis, keepdims=keepdims)

    return call


def _nan_scan(name: str):
    def call(a, axis=None, dtype=None, out=None):
        _refuse(name, out=out)
        return getattr(_namespace(), name)(a, axis=axis, dtype=dtype)

    return call


def _quantile(name: str):
    def call(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
        _refuse(name, out=out)
        return getattr(_namespace(), name)(a, q, axis=axis, method=method, keepdims=keepdims)

    return call


def _where(condition: Any, *values: Any) -> Any:
    """NumPy's ``where``: ``where(condition)`` is ``nonzero(condition)`` (a tuple of index
    arrays); ``where(condition, x, y)`` picks elementwise, the condition taken for its truth
    (nonzero, as NumPy does) and two Python scalars made an array of NumPy's dtype for them
    (``where(c, 1, 0)``: the default integer; floats: the default real floating dtype)."""
    ns = _namespace()
    if len(values) not in (0, 2):
        raise TypeError(
            f"np.where: takes the condition alone or with x and y, got {1 + len(values)} arguments"
        )
    like = _like((condition, *values))
    if not isinstance(condition, Array):
        condition = replicated_operand(like, np.asarray(condition), "np.where")
    if not values:
        return ns.nonzero(condition)
    if condition.dtype != np.bool_:
        condition = ns.astype(condition, np.dtype(bool))
    x, y = values
    if not isinstance(x, Array) and not isinstance(y, Array):
        for name, v in (("x", x), ("y", y)):
            if not isinstance(v, (bool, int, float, complex)):
                raise TypeError(
                    f"np.where: {name} must be an array or a Python scalar, got {type(v).__name__}"
                )
        dtype = np.result_type(x, y)  # NumPy's dtype for two Python scalars
        defaults = ns.__array_namespace_info__().default_dtypes(device=condition.device)
        kind = {"f": "real floating", "c": "complex floating", "i": "integral"}.get(dtype.kind)
        if kind is not None:
            dtype = defaults[kind]
        # A NumPy scalar, as the Python scalar it is: the same on every rank, no message.
        x = replicated_operand(condition, dtype.type(x), "np.where")
    return ns.where(condition, x, y)


def _flat(name: str):
    """NumPy's ``ravel`` (a view where NumPy has one) and ``ndarray.flatten`` (a copy)."""

    def call(a, order="C"):
        _refuse(name, order=None if order == "C" else order)
        return _namespace().reshape(a, (-1,), copy=True if name == "flatten" else None)

    return call


def _clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **extra: Any) -> Any:
    """NumPy's ``clip``, bounds given as ``a_min``/``a_max`` or ``min``/``max``: an integer or
    boolean array with a Python float bound is clipped in the default real floating dtype, as
    NumPy promotes it (float64 in NumPy), never truncating the bound silently."""
    a_min = extra.pop("min", a_min)
    a_max = extra.pop("max", a_max)
    _refuse("clip", out=out, **extra)
    ns = _namespace()
    if a.dtype.kind in "biu" and any(type(b) in (float, complex) for b in (a_min, a_max)):
        default = ns.__array_namespace_info__().default_dtypes(device=a.device)
        a = ns.astype(a, default["real floating"])
    return ns.clip(a, a_min, a_max)


def _creation_like(name: str):
    """NumPy's ``empty_like``, ``zeros_like``, ``ones_like`` and ``full_like``: the
    namespace's, laid out as the prototype is (no message); the dtype in NumPy's spellings."""

    def call(a, *args, dtype=None, order="K", subok=True, shape=None, device=None, **extra):
        if name == "full_like":
            if "fill_value" in extra:
                args = (extra.pop("fill_value"), *args)
            if not args:
                raise TypeError("np.full_like: missing the fill_value argument")
            fill, *args = args
        if extra:
            raise TypeError(f"np.{name}: unexpected keyword argument {next(iter(extra))!r}")
        if len(args) > 1:
            raise TypeError(f"np.{name} on xdist arrays: give order, subok and shape by name")
        dtype = _dtype(name, args[0] if args else dtype)
        _refuse(name, order=None if order == "K" else order, shape=shape, device=device)
        func = getattr(_namespace(), name)
        return func(a, fill, dtype=dtype) if name == "full_like" else func(a, dtype=dtype)

    return call


def _sorting(name: str):
    """NumPy's ``sort`` and ``argsort``: ``axis=None`` sorts the flattened array; every
    ``kind`` (and ``stable``) is the namespace's stable sort, which is a valid result of each
    (NumPy's unstable kinds may order equal values otherwise); ``order`` (fields) raises."""

    def call(a, axis=-1, kind=None, order=None, *, stable=None):
        _refuse(name, order=order)
        ns = _namespace()
        if axis is None:
            a, axis = ns.reshape(a, (-1,)), 0
        return getattr(ns, name)(a, axis=axis, stable=True)

    return call


def _astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    """NumPy's ``astype``: the dtype in any of NumPy's spellings."""
    return _namespace().astype(x, _dtype("astype", dtype), copy=copy, device=device)


# Functions of NumPy's that the namespace has under the same name and signature.
_NUMPY_NAMED = (
    "allclose",
    "append",
    "argwhere",
    "array_equal",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "average",
    "column_stack",
    "concatenate",
    "copy",
    "corrcoef",
    "cov",
    "cumprod",
    "cumsum",
    "delete",
    "diag",
    "digitize",
    "dot",
    "fill_diagonal",
    "flatnonzero",
    "histogram",
    "histogram2d",
    "histogramdd",
    "hstack",
    "insert",
    "interp",
    "iscomplexobj",
    "isclose",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
    "ix_",
    "kron",
    "nanpercentile",
    "outer",
    "percentile",
    "ptp",
    "ravel_multi_index",
    "resize",
    "trace",
    "unique",
    "unravel_index",
    "vstack",
)


def _functions() -> dict:
    ns = lambda name: lambda *a, **k: getattr(_namespace(), name)(*a, **k)  # noqa: E731
    linalg = lambda name: lambda *a, **k: getattr(_namespace().linalg, name)(*a, **k)  # noqa: E731
    table = {
        np.sum: _reduction("sum"),
        np.prod: _reduction("prod"),
        np.mean: _reduction("mean"),
        np.min: _reduction("min"),
        np.max: _reduction("max"),
        np.amin: _reduction("min"),
        np.amax: _reduction("max"),
        np.all: _reduction("all"),
        np.any: _reduction("any"),
        np.std: _moment("std"),
        np.var: _moment("var"),
        np.argmax: lambda a, axis=None, out=None, *, keepdims=False: (
            _refuse("argmax", out=out) or _namespace().argmax(a, axis=axis, keepdims=keepdims)
        ),
        np.argmin: lambda a, axis=None, out=None, *, keepdims=False: (
            _refuse("argmin", out=out) or _namespace().argmin(a, axis=axis, keepdims=keepdims)
        ),
        np.stack: lambda arrays, axis=0: _namespace().stack(list(arrays), axis=axis),
        np.reshape: lambda a, shape=None, /, order="C", *, copy=None, **k: (
            _refuse("reshape", order=None if order == "C" else order)
            or _namespace().reshape(a, k.get("newshape", shape), copy=copy)
        ),
        np.ravel: _flat("ravel"),
        np.transpose: lambda a, axes=None: _namespace().permute_dims(
            a, tuple(range(a.ndim))[::-1] if axes is None else tuple(axes)
        ),
        np.where: _where,
        np.clip: _clip,
        np.sort: _sorting("sort"),
        np.argsort: _sorting("argsort"),
        np.round: lambda a, decimals=0, out=None: (
            _refuse("round", out=out) or _namespace().around(a, decimals)
        ),
        np.around: lambda a, decimals=0, out=None: (
            _refuse("around", out=out) or _namespace().around(a, decimals)
        ),
        np.nonzero: ns("nonzero"),
        np.squeeze: lambda a, axis=None: _namespace().squeeze(
            a, axis=tuple(i for i, n in enumerate(a.shape) if n == 1) if axis is None else axis
        ),
        np.expand_dims: lambda a, axis: _namespace().expand_dims(a, axis=axis),
        np.moveaxis: lambda a, source, destination: _namespace().moveaxis(a, source, destination),
        np.flip: lambda a, axis=None: _namespace().flip(a, axis=axis),
        np.roll: lambda a, shift, axis=None: _namespace().roll(a, shift, axis=axis),
        np.tile: lambda a, reps: _namespace().tile(a, tuple(np.atleast_1d(reps).tolist())),
        np.broadcast_to: lambda a, shape: _namespace().broadcast_to(a, tuple(shape)),
        np.diff: lambda a, n=1, axis=-1: _namespace().diff(a, n=n, axis=axis),
        np.matmul: ns("matmul"),
        np.shape: lambda a: a.shape,
        np.ndim: lambda a: a.ndim,
        np.size: lambda a, axis=None: a.size if axis is None else a.shape[axis],
        np.result_type: ns("result_type"),
        np.nansum: _nan_reduction("nansum"),
        np.nanprod: _nan_reduction("nanprod"),
        np.nanmean: _nan_reduction("nanmean"),
        np.nanvar: _nan_reduction("nanvar", moments=True),
        np.nanstd: _nan_reduction("nanstd", moments=True),
        np.nanmin: lambda a, axis=None, out=None, keepdims=False, **k: _nan_reduction("nanmin")(
            a, axis=axis, out=out, keepdims=keepdims, **k
        ),
        np.nanmax: lambda a, axis=None, out=None, keepdims=False, **k: _nan_reduction("nanmax")(
            a, axis=axis, out=out, keepdims=keepdims, **k
        ),
        np.nanargmin: _nan_arg("nanargmin"),
        np.nanargmax: _nan_arg("nanargmax"),
        np.nancumsum: _nan_scan("nancumsum"),
        np.nancumprod: _nan_scan("nancumprod"),
        np.pad: lambda array, pad_width, mode="constant", **k: _namespace().pad(
            array, pad_width, mode, **k
        ),
        np.lib.stride_tricks.sliding_window_view: ns("sliding_window_view"),
        np.einsum: ns("einsum"),
        np.gradient: ns("gradient"),
        np.cross: ns("cross"),
        np.quantile: _quantile("quantile"),
        np.nanquantile: _quantile("nanquantile"),
        np.nanmedian: lambda a, axis=None, out=None, overwrite_input=False, keepdims=False: (
            _refuse("nanmedian", out=out) or _namespace().nanmedian(a, axis=axis, keepdims=keepdims)
        ),
        getattr(np, "astype", None): _astype,  # NumPy >= 2.1
        np.empty_like: _creation_like("empty_like"),
        np.zeros_like: _creation_like("zeros_like"),
        np.ones_like: _creation_like("ones_like"),
        np.full_like: _creation_like("full_like"),
        # NumPy's functions that xdist implements under NumPy's name, with NumPy's signature
        **{getattr(np, name): ns(name) for name in _NUMPY_NAMED},
        np.linalg.norm: linalg("norm"),
        np.linalg.lstsq: linalg("lstsq"),
    }
    return {k: v for k, v in table.items() if k is not None and v is not None}


_FUNCTIONS: dict = {}


def array_function(x: Array, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """``x.__array_function__``: the namespace's counterpart, else NumPy on gathered copies."""
    if not _FUNCTIONS:
        _FUNCTIONS.update(_functions())
    impl = _FUNCTIONS.get(func)
    if impl is not None:
        return impl(*_operands(args, x), **kwargs)
    name = getattr(func, "__name__", repr(func))

    def host(v: Any) -> Any:
        if isinstance(v, Array):
            # Above gather_warning_elements, a split array warns (a replicated one, or one
            # rank, moves nothing and never warns): the threshold of every implicit gather.
            warn_gather(
                f"np.{name} (xdist has no distributed version; NumPy runs on gathered copies)",
                v._layout,
                v.dtype,
                v._comm,
            )
            return v.to_numpy()
        if isinstance(v, (list, tuple)):
            return type(v)(host(i) for i in v)
        return v

    return func(*host(args), **{k: host(v) for k, v in kwargs.items()})


# Torch's names of its operators and functions whose standard name differs.
_TORCH_ALIASES = {
    "mul": "multiply",
    "sub": "subtract",
    "div": "divide",
    "true_divide": "divide",
    "neg": "negative",
    "absolute": "abs",
    "arccos": "acos",
    "arcsin": "asin",
    "arctan": "atan",
    "arctan2": "atan2",
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
    "fmod": None,
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "mod": "remainder",
    "floordiv": "floor_divide",
    "truediv": "divide",
}


def torch_function(func: Any, args: tuple, kwargs: dict) -> Any:
    """``Array.__torch_function__``: a Torch function or tensor operator with an xdist array
    among its arguments, as the namespace's function (reflected dunders swap the operands)."""
    name = getattr(func, "__name__", "")
    reflected = name.startswith("__r") and name.endswith("__")
    base = name.strip("_")
    if reflected:
        base = base[1:]
    std = _TORCH_ALIASES.get(base, base)
    target = getattr(_namespace(), std, None) if std else None
    like = _like(args)
    if target is None or kwargs or like is None:
        raise TypeError(
            f"torch.{name} on xdist arrays: no distributed counterpart with these arguments; "
            "use the xdist namespace (xp = x.__array_namespace__()), or gather explicitly with "
            "x.to_numpy()"
        )
    operands = _operands(args, like)
    if reflected:
        operands = operands[::-1]
    return target(*operands)
