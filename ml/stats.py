"""Moments: ``mean``, ``var``, ``std``, ``skew``, ``kurtosis``, ``moment`` along any axis
(agreeing with ``scipy.stats``) and the streaming ``Moments`` transformer.

Central moments are computed about a shifted center: ``c`` is the rounded mean, ``d = x - c``
(exact for data clustered around a large offset), then the raw moments of ``d`` are corrected
by the tiny residual mean ``mu = mean(d)``. This keeps 1e8 + noise data exact where naive
power sums lose every digit, and where even ``x - mean`` carries the rounding of ``mean``.
Batches are merged with Pebay's pairwise formulas (stable for large counts).
"""

from __future__ import annotations

import math

from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from ._utils import (
    as_float,
    check_features,
    check_int,
    check_verbose,
    device,
    fitted,
    namespace,
    progress,
    spread_reduced,
    validate_X,
)

__all__ = ["Moments", "mean", "var", "std", "skew", "kurtosis", "moment"]


def _axis_count(x, axis) -> int:
    if axis is None:
        return math.prod(x.shape)
    return x.shape[axis]


def _check_axis(x, axis, name: str):
    if axis is None:
        return None
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{name}: axis must be an int or None, got {axis!r}")
    if not -x.ndim <= axis < max(x.ndim, 1):
        raise ValueError(f"{name}: axis {axis} is out of bounds for {x.ndim}-d input")
    return axis % x.ndim


def _central(xp, x, axis, order: int, keepdims: bool = False):
    """(mean, [m2, ..., m_order]) with m_k the biased central moments along ``axis``."""
    c, mu, central = _central_parts(xp, x, axis, order, keepdims)
    return c + mu, central


def _central_parts(xp, x, axis, order: int, keepdims: bool = False):
    """(c, mu, [m2, ..., m_order]): the mean is ``c + mu`` with ``c`` the rounded mean and
    ``mu`` the (small, precise) residual mean of ``x - c``."""
    c = xp.mean(x, axis=axis, keepdims=True)
    d = x - c
    raw, power = [], d
    for k in range(1, order + 1):  # powers by repeated products (cheaper than d**k)
        if k > 1:
            power = power * d
        raw.append(xp.mean(power, axis=axis, keepdims=keepdims))
    mu = raw[0]
    c = c if keepdims else (xp.reshape(c, ()) if axis is None else xp.squeeze(c, axis=axis))
    central = []
    for k in range(2, order + 1):  # binomial expansion about the residual mean
        term = raw[k - 1]
        for j in range(1, k + 1):
            rest = raw[k - j - 1] if k - j >= 1 else 1.0
            term = term + math.comb(k, j) * (-mu) ** j * rest
        central.append(term)
    return c, mu, central


def _prepare(x, axis, name: str):
    """(xp, x, axis, out): x checked and made floating; NumPy data under several ranks split
    along the reduced axis (``spread_reduced``), its result returned as NumPy by ``out``."""
    xp = namespace(x)
    x = as_float(xp, x, name)
    axis = _check_axis(x, axis, name)
    x, out = spread_reduced(x, axis)
    return namespace(x), x, axis, out


def mean(x, axis=0, *, keepdims: bool = False):
    """Arithmetic mean along ``axis`` (None: all elements)."""
    xp, x, axis, out = _prepare(x, axis, "mean")
    return out(xp.mean(x, axis=axis, keepdims=keepdims))


def var(x, axis=0, *, ddof: int = 0, keepdims: bool = False):
    """Variance along ``axis`` with ``ddof`` delta degrees of freedom (NumPy's meaning)."""
    ddof = check_int(ddof, "var: ddof", 0)
    xp, x, axis, out = _prepare(x, axis, "var")
    _, (m2,) = _central(xp, x, axis, 2, keepdims)
    n = _axis_count(x, axis)
    return out(m2 * (n / (n - ddof)) if n - ddof > 0 else m2 * math.nan)


def std(x, axis=0, *, ddof: int = 0, keepdims: bool = False):
    """Standard deviation along ``axis`` (square root of ``var``)."""
    xp = namespace(x)
    return xp.sqrt(var(x, axis, ddof=ddof, keepdims=keepdims))


def moment(x, order: int = 1, axis=0, *, keepdims: bool = False):
    """The ``order``-th central moment along ``axis`` (``scipy.stats.moment``)."""
    order = check_int(order, "moment: order", 0)
    xp, x, axis, out = _prepare(x, axis, "moment")
    shape = _reduced_shape(x, axis, keepdims)
    if order == 0:
        return out(xp.ones(shape, dtype=x.dtype, device=device(x)))
    if order == 1:
        return out(xp.zeros(shape, dtype=x.dtype, device=device(x)))
    _, central = _central(xp, x, axis, order, keepdims)
    return out(central[-1])


def _reduced_shape(x, axis, keepdims):
    if axis is None:
        return (1,) * x.ndim if keepdims else ()
    return tuple(1 if i == axis else s for i, s in enumerate(x.shape) if keepdims or i != axis)


def _zero_var(xp, m2, m):
    """SciPy's test for a (numerically) constant slice: m2 <= (eps * mean)**2."""
    return m2 <= (xp.finfo(m2.dtype).eps * m) ** 2


def skew(x, axis=0, *, bias: bool = True, keepdims: bool = False):
    """Sample skewness (``scipy.stats.skew``): NaN for constant slices; ``bias=False`` gives
    the adjusted Fisher-Pearson coefficient where n > 2."""
    xp, x, axis, out = _prepare(x, axis, "skew")
    m, (m2, m3) = _central(xp, x, axis, 3, keepdims)
    return out(_skew_from(xp, _axis_count(x, axis), m, m2, m3, bias))


def _nonzero_var(xp, m2, zero):
    """``m2`` with its constant slices' values replaced by 1: a divisor that gives their
    (discarded) quotients without dividing 0 by 0, which NumPy warns of."""
    return xp.where(zero, xp.ones_like(m2), m2)


def _skew_from(xp, n, m, m2, m3, bias):
    zero = _zero_var(xp, m2, m)
    m2 = _nonzero_var(xp, m2, zero)
    vals = xp.where(zero, xp.nan, m3 / m2**1.5)
    if not bias and n > 2:  # SciPy's expression, in its order
        nval = ((n - 1.0) * n) ** 0.5 / (n - 2.0) * m3 / m2**1.5
        vals = xp.where(zero, vals, nval)
    return vals


def kurtosis(x, axis=0, *, fisher: bool = True, bias: bool = True, keepdims: bool = False):
    """Kurtosis (``scipy.stats.kurtosis``): Fisher's (normal is 0) or Pearson's definition;
    ``bias=False`` corrects for statistical bias where n > 3."""
    xp, x, axis, out = _prepare(x, axis, "kurtosis")
    m, (m2, _, m4) = _central(xp, x, axis, 4, keepdims)
    return out(_kurt_from(xp, _axis_count(x, axis), m, m2, m4, fisher, bias))


def _kurt_from(xp, n, m, m2, m4, fisher, bias):
    zero = _zero_var(xp, m2, m)
    m2 = _nonzero_var(xp, m2, zero)
    vals = xp.where(zero, xp.nan, m4 / m2**2.0)
    if not bias and n > 3:  # SciPy's expression, in its order
        nval = 1.0 / (n - 2) / (n - 3) * ((n**2 - 1.0) * m4 / m2**2.0 - 3 * (n - 1) ** 2.0)
        vals = xp.where(zero, vals, nval + 3.0)
    return vals - 3.0 if fisher else vals


class Moments(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Per-feature mean, variance, skewness and kurtosis, fitted at once or streamed.

    ``partial_fit`` merges each batch's statistics into the running ones with Pebay's
    pairwise update formulas. ``transform`` standardizes like ``StandardScaler``
    (features with zero variance are only centered).

    Attributes: ``mean_``, ``var_`` (biased), ``scale_``, ``skewness_`` (order >= 3, biased,
    as ``scipy.stats.skew``), ``kurtosis_`` (order 4, Fisher, biased), ``n_samples_seen_``,
    ``n_features_in_``; arrays of the input's namespace and device.

    ``verbose`` prints a line per batch (``fit`` is one batch) on rank 0: its number of
    samples and the number seen so far.
    """

    def __init__(self, order: int = 4, *, verbose=0):
        self.order = order
        self.verbose = verbose

    def _validate_params(self):
        order = check_int(self.order, "Moments: order")
        if order not in (2, 3, 4):
            raise ValueError(f"Moments: order must be 2, 3 or 4, got {order!r}")
        check_verbose(self.verbose, "Moments")
        return order

    def fit(self, X, y=None):
        """Compute the statistics of ``X`` (samples x features), forgetting earlier fits."""
        for attr in ("n_samples_seen_", "_sums", "_dmean", "_shift"):
            if hasattr(self, attr):
                delattr(self, attr)
        return self.partial_fit(X, y)

    def partial_fit(self, X, y=None):
        """Merge the statistics of the batch ``X`` into the running ones.

        Host data (NumPy, pandas, lists) in a run of several ranks is split along samples
        over the ranks and the fitted attributes are NumPy arrays (``validate_X``)."""
        order = self._validate_params()
        first = not hasattr(self, "n_samples_seen_")
        xp, X, out = validate_X(X, "Moments.partial_fit", est=self, reset=first)
        nb = X.shape[0]
        cb, mub, central = _central_parts(xp, X, 0, order)
        sums_b = [c * nb for c in central]  # central sums M2.. of the batch
        if first:
            # Means are kept relative to the first batch's rounded mean: differences of means
            # near a large offset stay exact (c - shift is exact by Sterbenz's lemma).
            self.n_features_in_ = X.shape[1]
            shift, n, m, sums = cb, nb, mub, sums_b
        else:
            check_features(X, self.n_features_in_, "Moments", "partial_fit")
            shift, dmean = fitted(xp, self._shift, X), fitted(xp, self._dmean, X)
            mb = (cb - shift) + mub
            old = [fitted(xp, s, X) for s in self._sums]
            n, m, sums = _pebay_merge(self.n_samples_seen_, dmean, old, nb, mb, sums_b)
        self._finish(xp, order, shift, n, m, sums, out)
        say = progress(xp, X, self.verbose)
        if say:
            say(f"Moments: batch of {nb} samples merged, {n} samples seen.")
        return self

    def _finish(self, xp, order, shift, n, dmean, sums, out):
        """The attributes from the running (count, mean relative to ``shift``, central
        sums), each returned by ``out`` (NumPy arrays for spread host data)."""
        m = shift + dmean
        m2 = sums[0] / n
        self.n_samples_seen_ = n
        self._shift, self._dmean, self._sums = out(shift), out(dmean), [out(s) for s in sums]
        self.mean_, self.var_ = out(m), out(m2)
        self.scale_ = out(xp.where(_zero_var(xp, m2, m), 1.0, xp.sqrt(m2)))
        if order >= 3:
            self.skewness_ = out(_skew_from(xp, n, m, m2, sums[1] / n, True))
        if order >= 4:
            self.kurtosis_ = out(_kurt_from(xp, n, m, m2, sums[2] / n, True, True))

    def transform(self, X, copy=None):
        """Standardize: ``(X - mean_) / scale_``."""
        xp, X, out = self._check_fitted(X, "transform")
        return out((X - fitted(xp, self.mean_, X)) / fitted(xp, self.scale_, X))

    def inverse_transform(self, X, copy=None):
        """Undo ``transform``: ``X * scale_ + mean_``."""
        xp, X, out = self._check_fitted(X, "inverse_transform")
        return out(X * fitted(xp, self.scale_, X) + fitted(xp, self.mean_, X))

    def _check_fitted(self, X, name):
        from sklearn.exceptions import NotFittedError

        if not hasattr(self, "mean_"):
            raise NotFittedError("This Moments instance is not fitted yet; call 'fit' first.")
        xp, X, out = validate_X(X, f"Moments.{name}", est=self)
        check_features(X, self.n_features_in_, "Moments", name)
        return xp, X, out


def _pebay_merge(na, ma, sa, nb, mb, sb):
    """Pebay (2008) pairwise update of (count, mean, central sums M2, M3, M4)."""
    n = na + nb
    delta = mb - ma
    mean_ = ma + delta * (nb / n)
    out = [sa[0] + sb[0] + delta**2 * (na * nb / n)]
    if len(sa) >= 2:
        out.append(
            sa[1]
            + sb[1]
            + delta**3 * (na * nb * (na - nb) / n**2)
            + 3.0 * delta * (na * sb[0] - nb * sa[0]) / n
        )
    if len(sa) >= 3:
        out.append(
            sa[2]
            + sb[2]
            + delta**4 * (na * nb * (na * na - na * nb + nb * nb) / n**3)
            + 6.0 * delta**2 * (na * na * sb[0] + nb * nb * sa[0]) / n**2
            + 4.0 * delta * (na * sb[1] - nb * sa[1]) / n
        )
    return n, mean_, out
