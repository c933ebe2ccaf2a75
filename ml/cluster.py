"""KMeans with scikit-learn's semantics, written only against the Array API standard.

The centered data carries a column of ones, ``Xa = [X - mean, 1]``. Per Lloyd iteration on
samples split over ranks: ``|c|^2 - 2 x.c`` by one local matmul ``Xa @ [-2 C, |c|^2].T``,
labels by ``argmin`` (local), and the centroid update as one weighted reduction for all
clusters (``onehot @ Xa``: one allreduce of k x (d + 1) holding the weighted sums and the
cluster weights; after the first iteration only the rows of samples that changed cluster
are read, to update the previous sums), plus the count of changed labels. k-means++ samples
by a global cumulative sum and ``searchsorted``, never gathering X; random draws come from
the same ``RandomState`` calls as scikit-learn's, so the same seed gives the same seeding.

The result does not depend on the number of ranks: the random draws are host numbers made
alike on every rank (``agreed_random_state``: an unseeded state is agreed), and every
discrete choice that sums over samples (the mean X is centered by, the seeding's potential,
cumulative sums and sampling) is made in float64, whose rounding differences between
groupings of the samples cannot change a choice in practice, even for float32 data.
"""

from __future__ import annotations

import math
import warnings

from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from ._utils import (
    agreed_random_state,
    check_features,
    check_int,
    check_real,
    check_verbose,
    device,
    finite_mean,
    fitted,
    progress,
    validate_weights,
    validate_X,
)

__all__ = ["KMeans"]


class KMeans(TransformerMixin, ClusterMixin, BaseEstimator):
    """K-Means clustering (Lloyd's algorithm), as ``sklearn.cluster.KMeans``.

    ``algorithm="elkan"`` is accepted and runs Lloyd's algorithm: Elkan's bounds only skip
    distance computations, so scikit-learn's results are the same with either. ``verbose``
    prints scikit-learn's lines (initialization, one line per iteration with the inertia,
    convergence) on rank 0 only (``X.comm.rank`` of an xdist array).

    The same int ``random_state`` gives the same result at every rank count (the seeding's
    choices are made in float64) and scikit-learn's seeding; ``random_state=None`` is agreed
    on every rank, so replicated results are identical on every rank.
    """

    def __init__(
        self,
        n_clusters=8,
        *,
        init="k-means++",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        verbose=0,
        random_state=None,
        algorithm="lloyd",
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.algorithm = algorithm

    # -- validation ---------------------------------------------------------------------

    def _check_params(self):
        """(n_clusters, n_init) from the parameters alone: raised before any message."""
        k = check_int(self.n_clusters, "KMeans: n_clusters", 1)
        check_int(self.max_iter, "KMeans: max_iter", 1)
        check_verbose(self.verbose, "KMeans")
        check_real(self.tol, "KMeans: tol", 0.0)
        if self.algorithm not in ("lloyd", "elkan"):
            raise ValueError(
                f"KMeans: algorithm must be 'lloyd' or 'elkan', got {self.algorithm!r}"
            )
        init = self.init
        is_array = hasattr(init, "shape")
        named = isinstance(init, str)
        if not (is_array or callable(init) or (named and init in ("k-means++", "random"))):
            raise ValueError(
                f"KMeans: init should be 'k-means++', 'random', an array or a callable, "
                f"got {init!r}"
            )
        if self.n_init == "auto":
            n_init = 10 if (named and init == "random") or callable(init) else 1
        else:
            n_init = check_int(self.n_init, "KMeans: n_init", 1)
        return k, 1 if is_array else n_init

    def _check_samples(self, X, k):
        """What the parameters ask of X: at least ``k`` samples, an array init of its shape."""
        if X.shape[0] < k:
            raise ValueError(f"KMeans: n_samples={X.shape[0]} should be >= n_clusters={k}.")
        if hasattr(self.init, "shape"):
            self._check_centers(None, self.init, X, "init")

    def _check_centers(self, xp, centers, X, name):
        shape = (self.n_clusters, X.shape[1])
        if tuple(centers.shape) != shape:
            raise ValueError(
                f"KMeans: {name} should be of shape {shape}, got {tuple(centers.shape)}"
            )

    # -- fitting ------------------------------------------------------------------------

    def fit(self, X, y=None, sample_weight=None):
        """Compute k-means clustering of ``X`` (samples x features).

        Host data (NumPy, pandas, lists) in a run of several ranks is split along samples
        over the ranks and the fitted attributes are NumPy arrays (``validate_X``)."""
        k, n_init = self._check_params()
        xp, X, out = validate_X(X, "KMeans.fit", finite=False, est=self, reset=True)
        self._check_samples(X, k)
        sw = validate_weights(xp, sample_weight, X, "KMeans.fit", out)
        rs = self._random_state(xp, X)
        x_mean = finite_mean(xp, X, "KMeans.fit")  # also rejects NaN and infinity
        # Centered, as scikit-learn does, for accurate expansions; a column of ones is
        # appended so that one matmul gives |c|^2 - 2 x.c and one gives the cluster weights.
        Xa = xp.concat([X - x_mean, xp.ones_like(X[:, :1])], axis=1)
        Xc = Xa[:, :-1]
        x_sq = xp.vecdot(Xc, Xc)  # |x - mean|^2: the tolerance, k-means++ and the inertia
        tol = _tolerance(xp, x_sq, X.shape[1], self.tol)
        say = progress(xp, X, self.verbose)
        best = None
        for _ in range(n_init):
            centers = self._init_centroids(xp, X, Xc, x_sq, x_mean, sw, rs, out.host)
            if say:
                say("Initialization complete")
            run = _lloyd(xp, Xa, x_sq, sw, centers, self.max_iter, tol, self.verbose, say)
            labels, inertia, centers, n_iter = run
            if best is None or (inertia < best[1] and not _same(xp, labels, best[0], k)):
                best = run
        labels, inertia, centers, n_iter = best
        _warn_distinct(xp, labels, k)
        self.cluster_centers_ = out(centers + x_mean)
        self.labels_ = out(labels)
        self.inertia_ = inertia
        self.n_iter_ = n_iter
        self.n_features_in_ = X.shape[1]
        self._n_features_out = k
        return self

    def _random_state(self, xp, X):
        """The RandomState of the draws (agreed on every rank); an array init draws nothing,
        so it agrees on nothing either (no message)."""
        if hasattr(self.init, "shape"):
            return None
        return agreed_random_state(xp, X, self.random_state)

    def _init_centroids(self, xp, X, Xc, x_sq, x_mean, sw, rs, host):
        """The initial centers, centered by ``x_mean``. A callable ``init`` is given the
        validated host data (``host``, not None where X was spread over the ranks), as
        scikit-learn's is, else X."""
        k, init = self.n_clusters, self.init
        if hasattr(init, "shape"):
            centers = xp.asarray(init, dtype=X.dtype, copy=True) - x_mean
        elif callable(init):
            centers = init(X if host is None else host, k, random_state=rs)
            self._check_centers(xp, centers, X, "init callable's result")
            centers = xp.asarray(centers, dtype=X.dtype) - x_mean
        elif init == "k-means++":
            centers = _kmeans_plusplus(xp, Xc, x_sq, sw, k, rs)
        else:  # k rows of X, without replacement, with probabilities sw / sum(sw)
            idx = _choice_without_replacement(xp, sw, k, rs)
            centers = xp.take(Xc, _vec(xp, idx, None, xp.int64, device(Xc)), axis=0)
        return centers

    # -- prediction ---------------------------------------------------------------------

    def _check_fitted(self, X, name):
        """(xp, X, out, centers): X validated (spread like ``fit``'s), the centers in its
        namespace."""
        if not hasattr(self, "cluster_centers_"):
            raise NotFittedError(
                f"This KMeans instance is not fitted yet. Call 'fit' before '{name}'."
            )
        xp, X, out = validate_X(X, f"KMeans.{name}", est=self)
        check_features(X, self.n_features_in_, "KMeans", name)
        return xp, X, out, fitted(xp, self.cluster_centers_, X)

    def predict(self, X):
        """Index of the closest cluster center for each sample."""
        xp, X, out, centers = self._check_fitted(X, "predict")
        return out(_assign(xp, X, centers))

    def fit_predict(self, X, y=None, sample_weight=None):
        return self.fit(X, sample_weight=sample_weight).labels_

    def transform(self, X):
        """Euclidean distances of each sample to every cluster center."""
        xp, X, out, centers = self._check_fitted(X, "transform")
        return out(xp.sqrt(_sq_distances(xp, X, centers)))

    def fit_transform(self, X, y=None, sample_weight=None):
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the inertia of ``X`` on the fitted centers."""
        xp, X, out, centers = self._check_fitted(X, "score")
        sw = validate_weights(xp, sample_weight, X, "KMeans.score", out)
        labels = _assign(xp, X, centers)
        return -_inertia(xp, X, sw, centers, labels)


def _warn_distinct(xp, labels, k):
    """scikit-learn's warning when fewer than k clusters hold points (one reduction)."""
    ids = xp.arange(k, device=device(labels))
    held = xp.any(ids[:, None] == labels[None, :], axis=1)
    distinct = int(xp.sum(xp.astype(held, xp.int64)))
    if distinct < k:
        warnings.warn(
            f"Number of distinct clusters ({distinct}) found smaller than n_clusters ({k}). "
            "Possibly due to duplicate points in X.",
            ConvergenceWarning,
            stacklevel=3,
        )


def _tolerance(xp, x_sq, d, tol):
    """scikit-learn's data-dependent tolerance: tol times the mean feature variance, which
    for centered samples is the sum of their squared norms ``x_sq`` over ``n d``."""
    if tol == 0:
        return 0.0
    return float(xp.sum(x_sq, dtype=xp.float64)) / (x_sq.shape[0] * d) * tol


def _sq_distances(xp, X, centers, x_sq=None):
    """||x - c||^2 for every sample and center by the quadratic expansion (one matmul)."""
    if x_sq is None:
        x_sq = xp.sum(X * X, axis=1)
    c_sq = xp.sum(centers * centers, axis=1)
    d = x_sq[:, None] - 2.0 * (X @ centers.T) + c_sq[None, :]
    return xp.maximum(d, xp.zeros_like(d))


def _assign(xp, X, centers):
    """Index of the closest center: argmin of |c|^2 - 2 x.c (|x|^2 does not change it)."""
    c_sq = xp.sum(centers * centers, axis=1)
    return xp.argmin(X @ (-2.0 * centers).T + c_sq[None, :], axis=1)


def _assign_ones(xp, Xa, centers):
    """``_assign`` for ``Xa = [X, 1]``: the matmul adds |c|^2 itself (no n x k pass).
    Returns the labels and the n x k scores ``|c|^2 - 2 x.c``."""
    c_sq = xp.vecdot(centers, centers)
    scores = Xa @ xp.concat([-2.0 * centers, c_sq[:, None]], axis=1).T
    return xp.argmin(scores, axis=1), scores


def _inertia(xp, X, sw, centers, labels):
    """Sum of weighted squared distances to the assigned centers (computed directly)."""
    diff = X - xp.take(centers, labels, axis=0)
    return float(xp.sum(sw * xp.vecdot(diff, diff, axis=-1)))


def _inertia_ones(xp, Xa, sw, centers, labels):
    """``_inertia`` for ``Xa = [X, 1]``, read whole: centers get a column of ones too (a zero
    difference), so every pass is over contiguous rows, not over the strided ``Xa[:, :d]``
    (half the time of the subtraction)."""
    ones = xp.ones_like(centers[:, :1])
    return _inertia(xp, Xa, sw, xp.concat([centers, ones], axis=1), labels)


def _inertia_scores(xp, Xa, x_sq, sw, centers, labels, scores):
    """The inertia from the final assignment's scores where that is accurate, else directly.

    ``sum w (|x|^2 + min_k s_k)`` with ``s_k = |c_k|^2 - 2 x.c_k`` reads no row of X (one
    reduction of three numbers). Its rounding error is at most about ``2 g (sum w |x|^2 +
    W max |c|^2)`` (``g``: that of a dot product of d terms), the direct formula's about
    ``g * inertia``; the expansion is taken only where its bound is within 16 times the
    direct one (centers near the data mean: unclustered data, clusters that overlap). Tight
    clusters far from the mean, an inertia of zero, or no valid scores (``None``) take
    the direct ``_inertia_ones``.
    """
    if scores is not None:
        dist = x_sq + xp.min(scores, axis=1)
        sums = xp.sum(xp.stack([dist, x_sq, xp.ones_like(dist)]) * sw, axis=1)  # one reduction
        inertia, spread, total_w = (float(v) for v in xp.unstack(sums))
        c_max = float(xp.max(xp.vecdot(centers, centers)))
        if inertia > 0 and spread + total_w * c_max <= 8.0 * inertia:
            return inertia
    return _inertia_ones(xp, Xa, sw, centers, labels)


def _same(xp, labels1, labels2, k):
    """scikit-learn's _is_same_clustering: labels1 -> labels2 is a function. Read from the
    k x k contingency table (one reduction), never sorting the labels."""
    ids = xp.arange(k, device=device(labels1))
    one1 = xp.astype(labels1[:, None] == ids[None, :], xp.float64)
    one2 = xp.astype(labels2[:, None] == ids[None, :], xp.float64)
    table = one1.T @ one2
    return bool(xp.all(xp.sum(xp.astype(table > 0, xp.int64), axis=1) <= 1))


def _lloyd(xp, Xa, x_sq, sw, centers, max_iter, tol, verbose, say):
    """One k-means run (scikit-learn's _kmeans_single_lloyd) on ``Xa = [Xc, 1]``.

    Per iteration: one matmul for the distances, one local argmin, and the k x (d + 1)
    cluster statistics (weighted sums and, from the column of ones, weights) by one
    reduction: updated from the moved samples in host memory (``_cluster_stats``), the full
    product with one wait for the device per iteration on a GPU (``_device_step``). With
    ``verbose`` every rank computes the inertia that ``say`` prints (a reduction); ``say``
    prints on rank 0 only (None: silent).
    """
    k, d = centers.shape
    Xc = Xa[:, :d]
    labels_old, stats = None, None
    strict = False
    w = None if bool(xp.all(sw == 1.0)) else sw  # unit weights: skip the weighting
    # Updated sums of weights of a cluster that emptied keep the rounding residue of adding
    # and removing them in different groupings (counts of unit weights are exact): a
    # lightest cluster this light is recomputed by the full product, which is exact.
    residue = 0.0 if w is None else 32 * xp.finfo(Xa.dtype).eps * float(xp.sum(w))
    ids = xp.arange(k, device=device(Xa))[:, None]
    select = _reads_on_host(Xa)
    if not select:  # the least positive weight: a divisor for empty clusters on a GPU
        info = xp.finfo(Xa.dtype)
        floor = xp.full((k, 1), info.smallest_normal * info.eps, dtype=Xa.dtype, device=device(Xa))
    for i in range(max_iter):
        labels, scores = _assign_ones(xp, Xa, centers)
        if select:
            stats, moved = _cluster_stats(xp, Xa, w, ids, labels, labels_old, stats)
            weights = stats[:, d:]  # k x 1
            lightest = float(xp.min(weights))
            if labels_old is not None and lightest != 0 and lightest <= residue:
                stats = _full_stats(xp, Xa, w, ids, labels)
                weights = stats[:, d:]
                lightest = float(xp.min(weights))
            sums, centers_new, shift = stats[:, :d], None, None
        else:
            sums, weights, moved, lightest, centers_new, shift = _device_step(
                xp, Xa, w, ids, labels, labels_old, centers, floor
            )
        if lightest == 0:
            weights = weights[:, 0]
            sums, weights = _relocate_empty(xp, Xc, sw, centers, labels, sums, weights)
            centers_new, shift = _average_centers(xp, sums, weights), None
        elif centers_new is None:
            centers_new = sums / weights
        if shift is None:
            shift = float(xp.sum((centers_new - centers) ** 2))
        if verbose:
            inertia = _inertia_ones(xp, Xa, sw, centers, labels)  # collective: every rank
            if say:
                say(f"Iteration {i}, inertia {inertia}.")
        if moved == 0:  # the scores hold for the new centers only if they are the same
            if say:
                say(f"Converged at iteration {i}: strict convergence.")
            strict = True
            if not bool(xp.all(centers_new == centers)):
                scores = None
            centers = centers_new
            break
        centers = centers_new
        if shift <= tol:
            if say:
                say(f"Converged at iteration {i}: center shift {shift} within tolerance {tol}.")
            break
        labels_old = labels
    if not strict:  # labels must match the returned centers
        labels, scores = _assign_ones(xp, Xa, centers)
    inertia = _inertia_scores(xp, Xa, x_sq, sw, centers, labels, scores)
    return labels, inertia, centers, i + 1


def _reads_on_host(X) -> bool:
    """Whether X is in host memory (an xdist device's ``kind``, a Torch device's ``type``;
    a library that names neither counts as the host), where reading a count back costs
    nothing; on a GPU each read waits for the device to finish its queue."""
    where = device(X)
    return (getattr(where, "kind", None) or getattr(where, "type", "cpu")) == "cpu"


def _cluster_stats(xp, Xa, w, ids, labels, labels_old, stats):
    """(k x (d + 1) weighted sums and weights of the clusters, number of labels changed),
    for blocks in host memory (``_reads_on_host``).

    The first time: the k x n membership matrix times ``Xa``, one reduction. Later only
    the samples that changed cluster are read: one selection of their (new, old) cluster
    pairs, coded ``new * k + old`` (its length is the number moved: an xdist selection
    learns it from the one message it sends anyway), one of their rows, and one reduction
    of the rows, subtracted from their old cluster and added to the new one, updating the
    previous statistics. After the first iterations a few percent of the samples move, so X
    is read once per iteration (for the distances), not twice. The full product is used
    again when more than half the samples moved (it is then the cheaper) or fewer than 4 k
    did: a product that small could be planned by moving its operands instead of reducing
    (xdist picks the plan that moves least), which would leave the statistics split, and a
    full pass costs what it did before.
    """
    k, n = ids.shape[0], Xa.shape[0]
    moved = n
    if labels_old is not None:
        changed = labels != labels_old
        pairs = (labels * k + labels_old)[changed]
        moved = pairs.shape[0]
        if moved == 0:
            return stats, 0
        if 4 * k <= moved and 2 * moved <= n:
            delta = xp.astype(ids == pairs // k, Xa.dtype)  # k x m, broadcast
            delta = delta - xp.astype(ids == pairs % k, Xa.dtype)
            if w is not None:
                delta = delta * w[changed]
            return stats + delta @ Xa[changed], moved
    return _full_stats(xp, Xa, w, ids, labels), moved


def _full_stats(xp, Xa, w, ids, labels):
    """The k x (d + 1) weighted sums and weights of the clusters: the k x n membership
    matrix (a row per cluster) times ``Xa``, one reduction."""
    member = xp.astype(ids == labels, Xa.dtype)  # (k, 1) against (n,): k x n
    return (member if w is None else member * w) @ Xa


def _device_step(xp, Xa, w, ids, labels, labels_old, centers, floor):
    """One Lloyd update for blocks on a GPU: (the clusters' weighted sums and weights, number
    moved, lightest cluster's weight, new centers, their squared shift), the three numbers
    read from the device after every kernel of the iteration is queued, so that only the
    first read waits for the device and it never idles between them (a selection's length
    would be a read of its own, before the product could be queued). The full product every
    iteration, which a GPU computes cheaply and which needs no selection; the number moved
    by one sum. The weights are
    divided by no less than ``floor`` (the least positive number: no weight but 0 changes),
    so an empty cluster's center is 0 / floor, discarded: it gets ``None`` (the caller
    relocates it and takes the shift again)."""
    d = centers.shape[1]
    count = None if labels_old is None else xp.count_nonzero(labels != labels_old)
    stats = _full_stats(xp, Xa, w, ids, labels)
    sums, weights = stats[:, :d], stats[:, d:]
    centers_new = sums / xp.maximum(weights, floor)
    lightest, shift = xp.min(weights), xp.sum((centers_new - centers) ** 2)
    moved = Xa.shape[0] if count is None else int(count)  # the one wait for the device
    lightest, shift = float(lightest), float(shift)
    if lightest == 0:
        centers_new, shift = None, None
    return sums, weights, moved, lightest, centers_new, shift


def _relocate_empty(xp, Xc, sw, centers, labels, sums, weights):
    """scikit-learn's empty-cluster handling: each empty cluster takes the point farthest
    from its assigned center (the farthest first), moved out of its old cluster."""
    empty = [int(j) for j in range(weights.shape[0]) if float(weights[j]) == 0.0]
    diff = Xc - xp.take(centers, labels, axis=0)
    dist = xp.sum(diff * diff, axis=1)
    if float(xp.max(dist)) == 0.0:  # every sample on its center: nothing to relocate
        return sums, weights
    far = xp.argsort(dist, descending=True, stable=True)[: len(empty)]
    rows = xp.take(Xc, far, axis=0)
    far_w = xp.take(sw, far)
    far_lab = xp.take(labels, far)
    sums = xp.asarray(sums, copy=True)
    weights = xp.asarray(weights, copy=True)
    for idx, new in enumerate(empty):
        w, old = float(far_w[idx]), int(far_lab[idx])
        sums[old, :] = sums[old, :] - rows[idx, :] * w
        sums[new, :] = rows[idx, :] * w
        weights[new] = w
        weights[old] = weights[old] - w
    return sums, weights


def _average_centers(xp, sums, weights):
    """scikit-learn's ``_average_centers``: the weighted means, and a cluster still empty
    (a relocated sample was its only one, or all samples sit on their centers) placed where
    the heaviest cluster is. scikit-learn averages in place, cluster by cluster, so an empty
    cluster numbered below the heaviest one copies that cluster's sums, not yet divided by
    its weight; that is reproduced, as the result must be the same."""
    positive = weights > 0
    safe = xp.where(positive, weights, xp.ones_like(weights))
    means = sums / safe[:, None]
    big = int(xp.argmax(weights))
    ids = xp.arange(weights.shape[0], device=device(weights))
    fill = xp.where((ids < big)[:, None], sums[big : big + 1, :], means[big : big + 1, :])
    return xp.where(positive[:, None], means, fill)


def _kmeans_plusplus(xp, Xc, x_sq, sw, k, rs):
    """Greedy k-means++ (scikit-learn's _kmeans_plusplus) with distributed sampling.

    The sampling runs in float64 whatever X's dtype: the weights, the potential, its
    cumulative sums (products of float32 values are exact in float64) and the candidates'
    potentials. Sums round differently in every grouping of the samples, which moves the
    n boundaries of the cumulative sums: in float32 a draw then fell on another sample at
    another rank count with a probability near n * 2**-24 (a few percent per fit of 20000
    samples); in float64 near n * 2**-53.
    """
    n = Xc.shape[0]
    trials = 2 + int(math.log(k))
    w = xp.astype(sw, xp.float64, copy=False)
    cdf = xp.cumulative_sum(w)
    u = rs.random_sample()  # what RandomState.choice(n, p=...) draws
    first = int(xp.searchsorted(cdf / cdf[-1], _vec(xp, [u], cdf), side="right")[0])
    centers = [xp.take(Xc, _vec(xp, [first], None, xp.int64, device(Xc)), axis=0)]
    closest = _sq_distances(xp, Xc, centers[0], x_sq)[:, 0]
    pot = float(xp.sum(w * xp.astype(closest, xp.float64, copy=False)))
    for _ in range(1, k):
        vals = rs.uniform(size=trials) * pot
        cdf = xp.cumulative_sum(w * xp.astype(closest, xp.float64, copy=False))
        ids = xp.searchsorted(cdf, _vec(xp, [float(v) for v in vals], cdf))
        ids = xp.minimum(ids, xp.full_like(ids, n - 1))
        cand = xp.take(Xc, ids, axis=0)
        dist = xp.minimum(_sq_distances(xp, Xc, cand, x_sq), closest[:, None])
        pots = w @ xp.astype(dist, xp.float64, copy=False)  # one reduction for every candidate
        best = int(xp.argmin(pots))
        pot = float(pots[best])
        closest = dist[:, best]
        centers.append(cand[best : best + 1, :])
    return xp.concat(centers, axis=0)


def _vec(xp, values, like, dtype=None, dev=None):
    dtype = like.dtype if dtype is None else dtype
    dev = device(like) if dev is None and like is not None else dev
    return xp.asarray(values, dtype=dtype, device=dev)


def _choice_without_replacement(xp, sw, k, rs):
    """RandomState.choice(n, k, replace=False, p=sw/sum(sw)), what scikit-learn's
    ``init="random"`` draws, replayed with a distributed cumulative sum in float64 (as
    NumPy's ``choice`` sums): the same draws and indices, at any rank count. Each round
    draws a uniform per index still missing; indices already found have probability 0, and
    a round's repeats count once, in the order first drawn."""
    p = xp.astype(sw, xp.float64, copy=True)
    if int(xp.sum(xp.astype(p > 0, xp.int64))) < k:  # as NumPy: else no draw could end
        raise ValueError(
            f"KMeans: init='random' needs n_clusters={k} samples of positive weight; "
            "fewer have one (Fewer non-zero entries in p than size)"
        )
    p = p / xp.sum(p)
    found: list[int] = []
    while len(found) < k:
        u = rs.rand(k - len(found))
        if found:
            p[_vec(xp, found, None, xp.int64, device(p))] = 0.0
        cdf = xp.cumulative_sum(p)
        cdf = cdf / cdf[-1]
        new = xp.searchsorted(cdf, _vec(xp, [float(v) for v in u], cdf), side="right")
        seen = set()
        for j in range(new.shape[0]):
            v = int(new[j])
            if v not in seen:
                seen.add(v)
                found.append(v)
    return found
