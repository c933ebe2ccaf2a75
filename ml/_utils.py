"""Helpers the estimators share: the namespace of the input, float promotion, and scalars.

Everything here goes through ``array_api_compat.array_namespace(X)`` and the standard's
functions, so the same code serves NumPy, array-api-strict, PyTorch, CuPy and xdist inputs.
"""

from __future__ import annotations

import numbers
import warnings

import array_api_compat
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import check_array


def namespace(*arrays):
    """The Array API namespace of ``arrays`` (array-api-compat wraps NumPy/Torch/CuPy)."""
    return array_api_compat.array_namespace(*arrays)


def device(x):
    return array_api_compat.device(x)


def floats(xp, v) -> list[float]:
    """The values of a 1-d array as Python floats: one ``unstack``, then a conversion per
    element (a replicated xdist array converts without communicating)."""
    return [float(e) for e in xp.unstack(v)]


def as_float(xp, x, name: str, *, ndim: int | None = None):
    """``x`` as a real floating array of this namespace (integers and booleans become the
    default float type, as scikit-learn and SciPy do)."""
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        raise TypeError(f"{name}: expected an array, got {type(x).__name__}")
    if ndim is not None and x.ndim != ndim:
        hint = " Reshape your data." if ndim == 2 else ""
        raise ValueError(f"{name}: expected a {ndim}-d array, got shape {tuple(x.shape)}.{hint}")
    if xp.isdtype(x.dtype, "complex floating"):
        raise ValueError(f"{name}: Complex data not supported, got {x.dtype}")
    if not xp.isdtype(x.dtype, "real floating"):
        x = xp.astype(x, xp.float64)
    return x


def check_2d(xp, X, name: str, *, finite: bool = True):
    """Validate a samples x features matrix: 2-d, real, at least one sample, and (unless
    ``finite`` is False: call ``check_finite`` after the other argument checks) finite."""
    X = as_float(xp, X, name, ndim=2)
    if X.shape[0] < 1:
        raise ValueError(
            f"{name}: Found array with 0 sample(s) (shape={tuple(X.shape)}) "
            "while a minimum of 1 is required."
        )
    if X.shape[1] < 1:
        raise ValueError(
            f"{name}: Found array with 0 feature(s) (shape={tuple(X.shape)}) "
            "while a minimum of 1 is required."
        )
    return check_finite(xp, X, name) if finite else X


def check_finite(xp, X, name: str):
    """Reject NaN and infinity (a reduction: on a distributed X, one collective).

    As scikit-learn does, the sum is checked first: a NaN or infinity makes it non-finite,
    so a finite sum proves every element finite in one pass without a boolean temporary.
    Only a non-finite sum (which overflow can also give) pays for the elementwise test."""
    if bool(xp.isfinite(xp.sum(X))) or bool(xp.all(xp.isfinite(X))):
        return X
    raise ValueError(f"{name}: Input contains NaN or infinity")


def finite_mean(xp, X, name: str):
    """Column means of a samples x features X, rejecting NaN and infinity on the way: finite
    column sums prove every element finite, so the check needs no pass of its own (one pass
    and, on a distributed X, one reduction for both)."""
    sums = xp.sum(X, axis=0)
    if not bool(xp.all(xp.isfinite(sums))):
        check_finite(xp, X, name)  # the elementwise test decides (overflow gives inf too)
    return sums / X.shape[0]


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


def _foreign(x) -> bool:
    """Input that scikit-learn's own validation should convert: lists, sparse matrices,
    array-likes that are no Array API array, and NumPy arrays (the NumPy path)."""
    return not array_api_compat.is_array_api_obj(x) or array_api_compat.is_numpy_array(x)


def validate_X(X, name: str, *, finite: bool = True):
    """(xp, X) for a samples x features input. Lists and other array-likes (and NumPy arrays)
    go through ``sklearn.utils.check_array`` first, so they get scikit-learn's messages."""
    if _foreign(X):
        X = check_array(
            X,
            dtype=("float64", "float32"),
            ensure_all_finite=finite,
            input_name="X",
            accept_sparse=False,
        )
    xp = namespace(X)
    return xp, check_2d(xp, X, name, finite=finite)


def validate_y(xp, y, name: str):
    """A 1-d target in the namespace ``xp``; a column vector is raveled with a warning."""
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None")
    if _foreign(y):
        y = check_array(y, ensure_2d=False, dtype=("float64", "float32"), input_name="y")
        y = xp.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the "
            "shape of y to (n_samples,), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        y = xp.reshape(y, (-1,))
    return as_float(xp, y, f"{name}: y", ndim=1)


def validate_weights(xp, sample_weight, X, name: str):
    """Sample weights laid out like the samples of X (a scalar, None or an array)."""
    ones = xp.ones_like(X[:, 0])  # laid out like the samples
    if sample_weight is None:
        return ones
    if isinstance(sample_weight, numbers.Real):
        return ones * float(sample_weight)
    if _foreign(sample_weight):
        sample_weight = xp.asarray(check_array(sample_weight, ensure_2d=False, input_name="w"))
    if tuple(sample_weight.shape) != (X.shape[0],):
        raise ValueError(
            f"{name}: sample_weight.shape == {tuple(sample_weight.shape)}, "
            f"expected {(X.shape[0],)}!"
        )
    sw = xp.astype(sample_weight, X.dtype) * ones
    if bool(xp.any(sw < 0)):
        raise ValueError(f"{name}: Negative values in data passed to sample_weight")
    if float(xp.sum(sw)) <= 0:
        raise ValueError(f"{name}: Sample weights must contain at least one non-zero number.")
    return sw


def check_features(X, n_features_in: int, est: str, name: str):
    if X.shape[1] != n_features_in:
        raise ValueError(
            f"{est}.{name}: X has {X.shape[1]} features, but {est} is expecting "
            f"{n_features_in} features as input."
        )
