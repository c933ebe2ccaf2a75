"""Lasso with scikit-learn's objective and stopping rule, written only against the Array API.

Objective: ``(1 / (2 n)) ||y - X w - b||^2 + alpha ||w||_1``, solved by coordinate descent
on centered data (``fit_intercept``) with scikit-learn's rules: a coordinate sweep ends the
descent only when the largest update is small relative to the largest coefficient and the
duality gap is at most ``tol * ||y||^2``.

Communication: with ``precompute=True`` (or ``"auto"`` and more samples than features) the
Gram problem of the centered data comes from a few reductions, without a centered copy of
X where the means allow it (``_centered_gram``), and the descent runs on the replicated
p x p problem with no further messages, in Python floats: the rows of the Gram matrix that
the descent touches are read once, so a coordinate costs no namespace call. Otherwise
the descent keeps the residual ``R = y - X w`` and the scores ``X.T @ R``, and visits the
coordinates in blocks of ``RESIDUAL_BLOCK``: a block's scores cost one ``X[:, B].T @ R``
(one allreduce on samples split over ranks) when first needed, and a change of its
coefficients one local residual update and, the first time, the Gram columns ``X.T @ X[:,
B]`` (one allreduce) that keep every score up to date (``_ResidualScore``).

``selection="random"`` draws the coordinates from a RandomState agreed on every rank
(``agreed_random_state``), so ``coef_`` is the same on every rank and, for an int
``random_state``, at every rank count. ``verbose`` prints a line per sweep on rank 0.
"""

from __future__ import annotations

import math
import warnings

from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils import check_random_state

from ._utils import (
    agreed_random_state,
    check_features,
    check_finite,
    check_int,
    check_real,
    check_verbose,
    device,
    finite_mean,
    fitted,
    floats,
    progress,
    validate_weights,
    validate_X,
    validate_y,
)

__all__ = ["Lasso"]


class Lasso(RegressorMixin, BaseEstimator):
    """Linear model trained with an L1 prior, as ``sklearn.linear_model.Lasso``.

    ``verbose`` (not in scikit-learn's Lasso) prints on rank 0 a line per coordinate sweep
    (its largest update and largest coefficient), each duality gap computed against its
    tolerance, and how the descent ended. ``selection="random"`` draws the same coordinates
    on every rank (``random_state=None`` is agreed), so ``coef_`` is identical on every rank.
    """

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        precompute=False,
        copy_X=True,
        max_iter=1000,
        tol=1e-4,
        warm_start=False,
        positive=False,
        random_state=None,
        selection="cyclic",
        verbose=0,
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive
        self.random_state = random_state
        self.selection = selection
        self.verbose = verbose

    def _check_params(self):
        check_real(self.alpha, "Lasso: alpha", 0.0)
        check_int(self.max_iter, "Lasso: max_iter", 1)
        check_real(self.tol, "Lasso: tol", 0.0)
        for name in ("fit_intercept", "copy_X", "warm_start", "positive"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"Lasso: {name} must be a bool, got {getattr(self, name)!r}")
        if self.selection not in ("cyclic", "random"):
            raise ValueError(
                f"Lasso: selection should be 'cyclic' or 'random', got {self.selection!r}"
            )
        pre = self.precompute
        if not (isinstance(pre, bool) or (isinstance(pre, str) and pre == "auto")):
            raise ValueError(f"Lasso: precompute should be True, False or 'auto', got {pre!r}")
        check_verbose(self.verbose, "Lasso")
        check_random_state(self.random_state)  # an invalid state raises before any message

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Fit the model by coordinate descent.

        Host data (NumPy, pandas, lists) in a run of several ranks is split along samples
        over the ranks, ``y`` and ``sample_weight`` alike, and the fitted attributes are
        NumPy arrays (``validate_X``)."""
        self._check_params()
        xp, X, out = validate_X(X, "Lasso.fit", finite=False, est=self, reset=True)
        y = validate_y(xp, y, "Lasso.fit", out)
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                f"Lasso.fit: X and y have inconsistent numbers of samples: "
                f"{X.shape[0]} != {y.shape[0]}"
            )
        y = check_finite(xp, y, "Lasso.fit: y")
        y = xp.astype(y, X.dtype)
        n, p = X.shape
        sw = None
        if sample_weight is not None:  # rescaled to sum to n, as scikit-learn does
            sw = validate_weights(xp, sample_weight, X, "Lasso.fit", out)
            sw = sw * (n / float(xp.sum(sw)))
        if self.alpha == 0:
            warnings.warn(
                "With alpha=0, this algorithm does not converge well. "
                "You are advised to use the LinearRegression estimator",
                stacklevel=2,
            )
        w0 = [0.0] * p
        if self.warm_start and hasattr(self, "coef_") and self.coef_.shape == (p,):
            w0 = [float(self.coef_[j]) for j in range(p)]
        gram = self.precompute is True or (self.precompute == "auto" and n > p)
        shift = None  # residual descent: X's means, taken off its column copy
        if gram and self.fit_intercept and sw is None:  # no centered copy of X
            Q, q, y_norm2, x_mean, y_mean = _centered_gram(xp, X, y, "Lasso.fit")
        elif self.fit_intercept and sw is None:  # centered in the descent's column copy
            shift, y_mean = finite_mean(xp, X, "Lasso.fit"), xp.mean(y)
            x_mean, y = shift, y - y_mean
        else:
            X, y, x_mean, y_mean = _center(xp, X, y, sw, self.fit_intercept, "Lasso.fit")
            if gram:
                Q, q, y_norm2 = X.T @ X, y @ X, float(xp.vecdot(y, y))
        random = self.selection == "random"
        rng = agreed_random_state(xp, X, self.random_state) if random else None
        say = progress(xp, X, self.verbose)
        args = (w0, self.alpha * n, self.max_iter, self.tol, rng, random, self.positive, say)
        if gram:
            w, gap, n_iter = _cd_gram(xp, Q, q, y_norm2, *args)
        else:
            w, gap, n_iter = _cd_residual(xp, X, y, *args, shift=shift)
        coef = xp.asarray(w, dtype=X.dtype, device=device(X))
        if self.fit_intercept:
            intercept = y_mean - xp.sum(x_mean * coef)
        else:
            intercept = xp.asarray(0.0, dtype=X.dtype, device=device(X))
        self.coef_, self.intercept_ = out(coef), out(intercept)
        self.dual_gap_ = gap / n
        self.n_iter_ = n_iter
        self.n_features_in_ = p
        return self

    @property
    def sparse_coef_(self):
        """``coef_`` itself: the Array API has no sparse arrays."""
        return self.coef_

    def predict(self, X):
        """``X @ coef_ + intercept_``."""
        xp, X, out = self._check_fitted(X, "predict")
        return out(self._predict(xp, X))

    def _check_fitted(self, X, name):
        if not hasattr(self, "coef_"):
            raise NotFittedError("This Lasso instance is not fitted yet. Call 'fit' first.")
        xp, X, out = validate_X(X, f"Lasso.{name}", est=self)
        check_features(X, self.n_features_in_, "Lasso", name)
        return xp, X, out

    def _predict(self, xp, X):
        return X @ fitted(xp, self.coef_, X) + fitted(xp, self.intercept_, X)

    def score(self, X, y, sample_weight=None):
        """Coefficient of determination R^2 of the prediction."""
        xp, X, out = self._check_fitted(X, "score")
        y = validate_y(xp, y, "Lasso.score", out)
        sw = validate_weights(xp, sample_weight, X, "Lasso.score", out)
        resid = y - self._predict(xp, X)
        dev = y - xp.sum(sw * y) / xp.sum(sw)
        ss_res, ss_tot = float(xp.sum(sw * resid * resid)), float(xp.sum(sw * dev * dev))
        if ss_tot == 0.0:
            return 1.0 if ss_res == 0.0 else 0.0
        return 1.0 - ss_res / ss_tot


def _center(xp, X, y, sw, fit_intercept, name):
    """(X, y, x_mean, y_mean): X and y centered (``fit_intercept``; weighted means with
    ``sw``), rows scaled by ``sqrt(sw)``, X checked finite."""
    n = X.shape[0]
    x_mean = y_mean = None
    if fit_intercept and sw is None:  # the column sums also prove X finite
        x_mean, y_mean = finite_mean(xp, X, name), xp.mean(y)
    else:
        X = check_finite(xp, X, name)
        if fit_intercept:
            x_mean, y_mean = (sw @ X) / n, xp.sum(sw * y) / n
    if fit_intercept:
        X, y = X - x_mean, y - y_mean
    if sw is not None:  # weighted least squares: rows scaled by sqrt(weight)
        root = xp.sqrt(sw)
        X, y = X * root[:, None], y * root
    return X, y, x_mean, y_mean


def _centered_gram(xp, X, y, name):
    """(Q, q, y_norm2, x_mean, y_mean): the Gram problem of the centered data ``Xc = X -
    x_mean``, ``yc = y - y_mean``, without forming ``Xc`` where that is accurate.

    ``[yc, 1] @ X`` gives ``X.T @ yc`` and the column sums in one pass over X (and one
    reduction; finite sums prove X finite), then ``Xc.T @ Xc = X.T @ X - n m m^T``. That
    subtraction cancels what the mean adds to the diagonal: ``(X.T @ X)_jj`` is ``n (m_j^2
    + var_j)`` against ``n var_j`` centered, so its rounding error (and, by Cauchy-Schwarz,
    that of every entry of row j) is ``(X.T @ X)_jj / (Xc.T @ Xc)_jj`` times the error of
    the product of the centered copy. Where that factor exceeds 16 for some feature
    (``|mean| > 3.9 std``: 4 bits), or the product overflowed, the centered copy is
    formed after all and its product used, as scikit-learn does.
    """
    n = X.shape[0]
    y_mean = xp.mean(y)
    yc = y - y_mean
    both = xp.stack([yc, xp.ones_like(yc)]) @ X
    xty, sums = both[0, :], both[1, :]
    if not bool(xp.all(xp.isfinite(sums))):
        check_finite(xp, X, name)  # the elementwise test decides (overflow gives inf too)
    x_mean = sums / n
    G = X.T @ X
    Q = G - n * (x_mean[:, None] * x_mean[None, :])
    raw, centered = xp.linalg.diagonal(G), xp.linalg.diagonal(Q)
    if bool(xp.any((raw > 16 * centered) | ~xp.isfinite(raw))):
        Xc = X - x_mean
        Q, q = Xc.T @ Xc, yc @ Xc
    else:
        q = xty - x_mean * xp.sum(yc)
    return Q, q, float(xp.vecdot(yc, yc)), x_mean, y_mean


def _soft(tmp, l1, diag, positive):
    """The coordinate minimizer: soft thresholding (zero when positive and tmp < 0)."""
    if positive and tmp < 0:
        return 0.0
    return math.copysign(max(abs(tmp) - l1, 0.0), tmp) / diag if abs(tmp) > l1 else 0.0


def _gap(l1, dual_norm, r_norm2, ry, w, positive):
    """Duality gap of the Lasso (scikit-learn's formulation A; OLS gradient when l1 == 0)."""
    if l1 == 0:
        return dual_norm
    primal = 0.5 * r_norm2 + l1 * sum(abs(v) for v in w)
    scale = l1 / dual_norm if dual_norm > l1 else 1.0
    return primal - (-0.5 * scale**2 * r_norm2 + scale * ry)


def _dual_norm(xp, xta, l1, positive):
    if l1 == 0:
        return float(xp.sum(xta * xta))
    return float(xp.max(xta)) if positive else float(xp.max(xp.abs(xta)))


def _sweeps(diag, w, l1, max_iter, tol, tol_gap, rng, random, positive, say, score, gap_fn):
    """scikit-learn's outer loop: sweeps, then the gap check when updates got small.

    ``random``: each sweep visits ``p`` coordinates drawn with replacement from ``rng`` (the
    same draws on every rank). ``say`` prints progress (None: silent; rank 0 only; every value
    it prints is replicated: no message is added)."""
    p = len(w)
    gap = gap_fn()
    if 0 <= gap <= tol_gap:
        if say:
            say(f"Converged at iteration 0: duality gap {gap:.6e} within tolerance {tol_gap:.6e}.")
        return w, gap, 0
    tmp_of, update, order = score.__call__, score.update, range(p)
    for n_iter in range(max_iter):
        if random:
            order = rng.randint(p, size=p).tolist()
        w_max = d_w_max = 0.0
        for j in order:  # a Python-level loop: p steps per sweep, each kept short
            d = diag[j]
            if d == 0.0:
                continue
            w_j = w[j]
            new = _soft(tmp_of(j, w_j), l1, d, positive)
            if new != w_j:
                w[j] = new
                update(j, new - w_j)
                if abs(new - w_j) > d_w_max:
                    d_w_max = abs(new - w_j)
            if abs(new) > w_max:
                w_max = abs(new)
        if say:
            say(
                f"Iteration {n_iter}, max coefficient update {d_w_max:.6e}, "
                f"max coefficient {w_max:.6e}."
            )
        if w_max == 0.0 or d_w_max / w_max <= tol or n_iter == max_iter - 1:
            gap = gap_fn()
            if say:
                say(f"Iteration {n_iter}, duality gap {gap:.6e}, tolerance {tol_gap:.6e}.")
            if gap <= tol_gap:
                if say:
                    say(f"Converged at iteration {n_iter}: duality gap within tolerance.")
                return w, gap, n_iter + 1
    warnings.warn(
        "Objective did not converge. You might want to increase the number of iterations. "
        f"Duality gap: {gap:.6e}, tolerance: {tol_gap:.3e}",
        ConvergenceWarning,
        stacklevel=3,
    )
    return w, gap, max_iter


class _GramScore:
    """tmp_j = q_j - (Q w)_j + w_j Q_jj on the replicated Gram problem, in Python floats.

    ``Qw`` is a list kept up to date by ``Qw += delta * Q[j, :]``; row j of Q is read into
    Python the first time w_j changes (only rows of the support are ever read). A sweep then
    makes no namespace call at all, where reading ``Qw[j]`` from an array costs an indexing
    call and a conversion per coordinate.
    """

    def __init__(self, xp, Q, q, w):
        p = Q.shape[0]
        self.xp, self.Q = xp, Q
        self.qf = floats(xp, q)
        self.diag = floats(xp, xp.sum(Q * xp.eye(p, dtype=Q.dtype, device=device(Q)), axis=1))
        self.rows: dict[int, list[float]] = {}
        self.Qw = [0.0] * p
        if any(w):
            self.Qw = floats(xp, Q @ _vec(xp, w, q))

    def __call__(self, j, w_j):
        return self.qf[j] - self.Qw[j] + w_j * self.diag[j]

    def update(self, j, delta):
        row = self.rows.get(j)
        if row is None:
            row = self.rows[j] = floats(self.xp, self.Q[j, :])
        self.Qw = [a + delta * b for a, b in zip(self.Qw, row)]


# Coordinates per block of the residual descent: the block's Gram (b x b, formed once per fit)
# lets b coordinates share one ``X[:, B].T @ R`` (one allreduce) and one residual update.
# Measured (benchmarks/workloads.py, 100000 x 100 float64): 16 beats 8 and 32.
RESIDUAL_BLOCK = 16
# Elements of the columns ``X.T @ X[:, B]`` of the Gram matrix that the residual descent may
# hold (replicated, float64: 32 MiB), formed for the blocks whose coefficients change, in the
# order they first change; past it, a block's change makes every other block read X again.
CROSS_GRAM_ELEMENTS = 1 << 22


class _ResidualScore:
    """tmp_j = X[:, j] @ R + w_j ||X[:, j]||^2 with the residual R = y - X w, over blocks of
    consecutive coordinates.

    The columns are copied once into the rows of ``X.T`` (``stack``), so that a block reads
    contiguous columns, as scikit-learn asks for Fortran-ordered ``X``, and centered there
    (``shift``: the column means) rather than in a copy of X of their own. The scores
    ``S = X.T @ R`` are kept in a replicated vector, a block's part computed when the block
    is first entered (``X[:, B].T @ R``: one pass over the block, one allreduce). Within a
    block, ``X[:, j] @ R`` after the updates ``dw`` of the block's earlier coordinates is
    ``c_j - sum_k G_jk dw_k`` with the block's Gram ``G = X[:, B].T @ X[:, B]`` (formed once
    per fit, in Python floats); when the block is left, ``R -= X[:, B] @ dw`` and ``S -= (X.T
    @ X[:, B]) @ dw``, with that column panel of the Gram matrix formed (one pass over X, one
    allreduce) the first time the block's coefficients change: glmnet's covariance updates,
    for the blocks that change only. So a sweep reads X only where the support grew, and
    sends nothing once every block's scores are known, as the Gram descent. The panels are
    held up to ``CROSS_GRAM_ELEMENTS``; past that, a change of such a block invalidates every
    block's scores, which are computed again from R when entered (one pass, one allreduce
    each). The arithmetic is scikit-learn's, one coordinate at a time, up to rounding.
    ``size=1`` (random selection) is one coordinate at a time.
    """

    def __init__(self, xp, X, y, w, size, shift=None):
        p = X.shape[1]
        self.xp, self.size = xp, size
        self.cols = xp.stack([X[:, j] for j in range(p)])
        if shift is not None:  # centered here, in place: no centered copy of X besides
            self.cols -= shift[:, None]
        self.panels = [self.cols[s : min(s + size, p), ...] for s in range(0, p, size)]
        self.gram = [[floats(xp, g) for g in xp.unstack(P @ P.T)] for P in self.panels]
        self.diag = [self.gram[j // size][j % size][j % size] for j in range(p)]
        self.y = xp.zeros_like(self.cols[0, ...])  # y laid out as X's rows (in place: one
        self.y += y  # move, if y's blocks differ), so that R needs no move per block
        self.R = self.y - _vec(xp, w, y) @ self.cols
        self.S = xp.zeros(p, dtype=X.dtype, device=device(X))  # X.T @ R, where valid
        self.valid = [False] * len(self.panels)
        self.cross: dict[int, object] = {}  # block -> X.T @ X[:, B] (None: past the budget)
        self.cross_elements = 0
        self.changes = 0  # updates of R so far
        self.block, self.c, self.dw, self.dw_arr = -1, [], [], None

    def correlations(self):
        """``X.T @ R`` (after ``flush``): the kept scores where every block's are known, else
        a pass over X."""
        return self.S if all(self.valid) else self.cols @ self.R

    def __call__(self, j, w_j):
        k = j // self.size
        if k != self.block:
            self.flush()
            lo, hi = k * self.size, k * self.size + self.panels[k].shape[0]
            if self.valid[k]:
                c = floats(self.xp, self.S[lo:hi])
            else:  # one pass over the block
                scores = self.panels[k] @ self.R
                self.S[lo:hi] = scores
                self.valid[k] = True
                c = floats(self.xp, scores)
            self.block, self.c, self.dw = k, c, [0.0] * len(c)
        return self.c[j % self.size] + w_j * self.diag[j]

    def update(self, j, delta):
        i = j % self.size
        self.dw[i] += delta
        self.c = [a - delta * g for a, g in zip(self.c, self.gram[self.block][i])]
        if self.dw_arr is None:  # a replicated array set item by item: asarray of a list
            R = self.R  # would make the ranks agree on its shape (a collective) per block
            self.dw_arr = self.xp.zeros(len(self.dw), dtype=R.dtype, device=device(R))
        self.dw_arr[i] = self.dw[i]

    def flush(self):
        """Bring R and the scores of every block up to date with the current block's
        updates."""
        B = self.block
        if self.dw_arr is not None:
            self.R -= self.dw_arr @ self.panels[B]
            self.changes += 1
            cross = self._cross(B)
            if cross is None:
                self.valid = [False] * len(self.valid)
            else:
                self.S -= cross @ self.dw_arr
        self.block, self.dw, self.dw_arr = -1, [], None

    def _cross(self, B):
        """``X.T @ X[:, B]`` (replicated, p x b), formed on first use within the budget."""
        if B not in self.cross:
            elements = self.cols.shape[0] * self.panels[B].shape[0]
            if self.cross_elements + elements > CROSS_GRAM_ELEMENTS:
                self.cross[B] = None
            else:
                self.cross[B] = self.cols @ self.panels[B].T
                self.cross_elements += elements
        return self.cross[B]


def _vec(xp, values, like):
    return xp.asarray(values, dtype=like.dtype, device=device(like))


def _cd_gram(xp, Q, q, y_norm2, w, l1, max_iter, tol, rng, random, positive, say):
    """Coordinate descent on the Gram problem (``Q = X.T @ X``, ``q = X.T @ y``,
    ``y_norm2 = y @ y``, replicated): the descent and its duality gaps send nothing."""
    score = _GramScore(xp, Q, q, w)

    def gap_fn():
        Qw, qf = score.Qw, score.qf
        q_w = math.fsum(a * b for a, b in zip(qf, w))
        wQw = math.fsum(a * b for a, b in zip(w, Qw))
        xta = [a - b for a, b in zip(qf, Qw)]
        dual = _dual_norm_list(xta, l1, positive)
        return _gap(l1, dual, y_norm2 + wQw - 2.0 * q_w, y_norm2 - q_w, w, positive)

    args = (w, l1, max_iter, tol, tol * y_norm2, rng, random, positive, say)
    return _sweeps(score.diag, *args, score, gap_fn)


def _dual_norm_list(xta, l1, positive):
    """``_dual_norm`` of Python floats."""
    if l1 == 0:
        return math.fsum(v * v for v in xta)
    return max(xta) if positive else max(abs(v) for v in xta)


def _cd_residual(xp, X, y, w, l1, max_iter, tol, rng, random, positive, say, shift=None):
    """Coordinate descent with residual updates (scikit-learn's default path), in blocks of
    ``RESIDUAL_BLOCK`` coordinates (one at a time for random selection), on ``X - shift``."""
    score = _ResidualScore(xp, X, y, w, 1 if random else RESIDUAL_BLOCK, shift)
    y = score.y
    y_norm2 = float(xp.sum(y * y))

    last = [-1, 0.0]  # R's version at the last gap, and that gap

    def gap_fn():
        score.flush()
        if score.changes != last[0]:  # else: a sweep without updates, the same gap
            R = score.R
            dual = _dual_norm(xp, score.correlations(), l1, positive)
            gap = _gap(l1, dual, float(xp.sum(R * R)), float(xp.sum(R * y)), w, positive)
            last[:] = [score.changes, gap]
        return last[1]

    args = (w, l1, max_iter, tol, tol * y_norm2, rng, random, positive, say)
    return _sweeps(score.diag, *args, score, gap_fn)
