"""Helpers the estimators share: the namespace of the input, host data spread over the
ranks, float promotion, and scalars.

Everything here goes through ``array_api_compat.array_namespace(X)`` and the standard's
functions, so the same code serves NumPy, array-api-strict, PyTorch, CuPy and xdist inputs.
The one exception is host data (NumPy arrays, pandas frames, lists) in a run of several
ranks: ``validate_X`` makes it an xdist array split along samples, through the public
``xdist`` namespace, and ``Spread`` returns the results as NumPy arrays.
"""

from __future__ import annotations

import numbers
import warnings

import array_api_compat
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import validate_data

import xdist


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
    and, on a distributed X, one reduction for both).

    The sums accumulate in float64 and the means are rounded to X's dtype, so float32 means
    do not depend on how the samples are split over ranks (a float32 sum rounds differently
    in every grouping; centering by such a mean would move every sample by an ulp that
    changes with the rank count). A float64 sum of float32 values cannot overflow, so a
    non-finite one proves a NaN or infinity there."""
    sums = xp.sum(X, axis=0, dtype=xp.float64)
    if not bool(xp.all(xp.isfinite(sums))):
        check_finite(xp, X, name)  # the elementwise test decides (overflow gives inf too)
    return xp.astype(sums / X.shape[0], X.dtype)


def check_int(value, name: str, low: int | None = None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value!r}")
    return int(value)


def check_verbose(value, est: str) -> int:
    """scikit-learn's ``verbose``: an int >= 0 or a bool."""
    if not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{est}: verbose must be an int >= 0 or a bool, got {value!r}")
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


class Spread:
    """How one estimator call treats host data. ``spread`` is True where ``X`` was host data
    (a NumPy array, a pandas frame, a list) in a run of several ranks
    (``xdist.default_comm().size > 1``): the call then works on an xdist array split along
    samples, and ``host`` is the validated NumPy array (else None).

    ``samples(a)`` splits a host array that goes with X's samples (y, sample weights) as X
    is split (``xdist.asarray(a, split=0)``: the same balanced counts, so rows align).
    Calling the object on a result gives what NumPy input gets, a NumPy array
    (``xdist.to_numpy``: nothing moves for a replicated result, one allgather for a
    per-sample one; the same on every rank) or a NumPy scalar for a 0-d result. Where
    ``spread`` is False both return their argument as it is."""

    __slots__ = ("spread", "host")

    def __init__(self, spread: bool, host=None):
        self.spread = spread
        self.host = host

    def samples(self, a):
        return xdist.asarray(a, split=0) if self.spread and _foreign(a) else a

    def __call__(self, result):
        if not self.spread:
            return result
        host = xdist.to_numpy(result)
        return host[()] if host.ndim == 0 else host  # a scalar, as NumPy's 0-d reductions


def spreads(X) -> bool:
    """Whether ``X`` is host data to spread over the ranks: something scikit-learn's
    ``check_array`` converts (NumPy, pandas, lists), in a run of more than one rank."""
    return _foreign(X) and xdist.default_comm().size > 1


def spread_reduced(x, axis):
    """(x, out) for the moment functions: a NumPy ``x`` (of at least one dimension) under
    several ranks is split along the reduced ``axis`` (the first for None), so each rank
    reduces its block and the result is replicated (one allreduce, nothing gathered); ``out``
    returns it as NumPy. Anything else is returned as it is."""
    if x.ndim == 0 or not spreads(x):
        return x, Spread(False)
    out = Spread(True, x)
    return xdist.asarray(x, split=0 if axis is None else axis), out


def validate_X(X, name: str, *, finite: bool = True, est=None, reset: bool = False):
    """(xp, X, out) for a samples x features input. Lists and other array-likes (and NumPy
    arrays) go through ``sklearn.utils.check_array`` first, so they get scikit-learn's
    messages. With ``est``, scikit-learn's feature names are checked (``feature_names_in_``
    set from a pandas frame when ``reset``, compared with it otherwise).

    In a run of several ranks, host data is the same global array on every rank (SPMD):
    it becomes ``xdist.asarray(X, split=0)`` (each rank keeps its block of samples; the
    constructor agrees on shape and dtype, and checks that the data are the same on every
    rank where ``check_replicated`` is on), so the call's work is divided among the ranks.
    ``out`` (a ``Spread``) lays out targets and weights alike and turns the results back
    into NumPy arrays. The finite check is then the distributed one (``check_2d``), not
    ``check_array``'s pass over the whole data on every rank."""
    if est is not None:  # feature names only: the feature count is checked after check_array
        validate_data(est, X, reset=reset, skip_check_array=True, ensure_2d=False)
    spread = spreads(X)
    out = Spread(False)
    if _foreign(X):
        X = check_array(
            X,
            dtype=("float64", "float32"),
            ensure_all_finite=finite and not spread,
            input_name="X",
            accept_sparse=False,
        )
        if spread:
            out = Spread(True, X)
            X = out.samples(X)
    xp = namespace(X)
    return xp, check_2d(xp, X, name, finite=finite), out


def validate_y(xp, y, name: str, out: Spread | None = None):
    """A 1-d target in the namespace ``xp``; a column vector is raveled with a warning. Host
    data given beside an X that ``out`` spread is split along samples as X is."""
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None")
    if _foreign(y):
        y = check_array(y, ensure_2d=False, dtype=("float64", "float32"), input_name="y")
        y = _beside(xp, y, out)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the "
            "shape of y to (n_samples,), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        y = xp.reshape(y, (-1,))
    return as_float(xp, y, f"{name}: y", ndim=1)


def _beside(xp, a, out: Spread | None):
    """Host data ``a`` given beside X: split along samples where ``out`` spread X, else an
    array of ``xp`` (replicated beside an xdist X)."""
    return out.samples(a) if out is not None and out.spread else xp.asarray(a)


def fitted(xp, a, X):
    """A fitted attribute ``a`` as an array of ``X``'s namespace and device: as it is when it
    already is one, else converted (a NumPy attribute beside an xdist ``X``, as when it was
    fitted on spread host data, becomes replicated: ``split=None`` on ``X``'s
    communicator, without moving data)."""
    if namespace(a) is xp:
        return a
    if isinstance(X, xdist.Array):
        return xdist.asarray(a, split=None, comm=X.comm, device=X.device)
    return xp.asarray(a, device=device(X))


def validate_weights(xp, sample_weight, X, name: str, out: Spread | None = None):
    """Sample weights laid out like the samples of X (a scalar, None or an array); host data
    beside an X that ``out`` spread is split along samples as X is."""
    ones = xp.ones_like(X[:, 0])  # laid out like the samples
    if sample_weight is None:
        return ones
    if isinstance(sample_weight, numbers.Real):
        return ones * float(sample_weight)
    if _foreign(sample_weight):
        sample_weight = check_array(sample_weight, ensure_2d=False, input_name="w")
        sample_weight = _beside(xp, sample_weight, out)
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


def agreed_random_state(xp, X, random_state):
    """scikit-learn's ``check_random_state(random_state)``, agreed on every rank.

    The estimators draw only a few host numbers (seeding indices, uniforms, coordinate
    orders), the same calls on every rank, so a NumPy ``RandomState`` seeded by an int makes
    the same draws at every rank count, and the same as scikit-learn's. What can differ
    between ranks is an unseeded state. In a namespace with ranks (``xp.default_comm``, an
    optional extension, as xdist's), ``random_state=None`` seeds the RandomState from the
    namespace's counter-based generator, ``xp.random.default_rng(None)``, whose fresh
    entropy is agreed on every rank (one broadcast of 16 bytes); a ``RandomState`` instance
    gives the seed that rank 0 draws from it (``xp.from_local`` of each rank's draw, then
    its first element: one broadcast). Other namespaces run in one process: the state is
    scikit-learn's."""
    rs = check_random_state(random_state)  # invalid states raise here, on every rank
    if not hasattr(xp, "default_comm") or isinstance(random_state, numbers.Integral):
        return rs
    comm = getattr(X, "comm", None)
    if random_state is None:
        seed = xp.random.default_rng(None, comm=comm).integers(2**32, split=None)
    else:  # each rank's instance may be in another state: rank 0's draw decides
        seed = xp.from_local([int(rs.randint(2**32))], split=0, comm=comm)[0]
    return check_random_state(int(seed))


def is_root(xp, X) -> bool:
    """Whether this process prints progress: rank 0 of X's communicator (``X.comm`` of an
    xdist array), else of the namespace's default one (``xp.default_comm``, an optional
    extension); a namespace without ranks always prints."""
    comm = getattr(X, "comm", None)
    if comm is None:
        default_comm = getattr(xp, "default_comm", None)
        comm = default_comm() if callable(default_comm) else None
    return getattr(comm, "rank", 0) == 0


def progress(xp, X, verbose):
    """The ``print`` of the estimators' ``verbose`` output, or None where nothing is printed:
    ``verbose`` off, or not rank 0. It flushes, so that lines come out as the work goes on
    under ``mpiexec``. Values it prints that need communication must still be computed on
    every rank (test ``verbose``, not this): only the printing is rank 0's."""
    if not verbose or not is_root(xp, X):
        return None
    return _say


def _say(message: str) -> None:
    print(message, flush=True)
