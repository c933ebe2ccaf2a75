"""Helpers the estimators share: the namespace of the input, float promotion, and scalars.

Everything here goes through ``array_api_compat.array_namespace(X)`` and the standard's
functions, so the same code serves NumPy, array-api-strict, PyTorch, CuPy and xdist inputs.
"""

from __future__ import annotations

import numbers

import array_api_compat


def namespace(*arrays):
    """The Array API namespace of ``arrays`` (array-api-compat wraps NumPy/Torch/CuPy)."""
    return array_api_compat.array_namespace(*arrays)


def device(x):
    return array_api_compat.device(x)


def as_float(xp, x, name: str, *, ndim: int | None = None):
    """``x`` as a real floating array of this namespace (integers and booleans become the
    default float type, as scikit-learn and SciPy do)."""
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        raise TypeError(f"{name}: expected an array, got {type(x).__name__}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-d array, got shape {tuple(x.shape)}")
    if xp.isdtype(x.dtype, "complex floating"):
        raise ValueError(f"{name}: complex data is not supported, got {x.dtype}")
    if not xp.isdtype(x.dtype, "real floating"):
        x = xp.astype(x, xp.float64)
    return x


def check_2d(xp, X, name: str, *, finite: bool = True):
    """Validate a samples x features matrix: 2-d, real, at least one sample, and (unless
    ``finite`` is False: call ``check_finite`` after the other argument checks) finite."""
    X = as_float(xp, X, name, ndim=2)
    if X.shape[0] < 1:
        raise ValueError(f"{name}: found array with 0 sample(s) (shape={tuple(X.shape)})")
    if X.shape[1] < 1:
        raise ValueError(f"{name}: found array with 0 feature(s) (shape={tuple(X.shape)})")
    return check_finite(xp, X, name) if finite else X


def check_finite(xp, X, name: str):
    """Reject NaN and infinity (a reduction: on a distributed X, one collective)."""
    if not bool(xp.all(xp.isfinite(X))):
        raise ValueError(f"{name}: Input contains NaN or infinity")
    return X


def check_int(value, name: str, low: int | None = None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value!r}")
    return int(value)


def check_real(value, name: str, low: float | None = None, strict: bool = False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float, got {value!r}")
    if low is not None and (value < low or (strict and value == low)):
        op = ">" if strict else ">="
        raise ValueError(f"{name} must be {op} {low}, got {value!r}")
    return float(value)
