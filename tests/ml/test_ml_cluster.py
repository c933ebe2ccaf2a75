"""xdist.ml.cluster.KMeans against scikit-learn on the same data: identical initial centers
(an array, or the same seed for k-means++ and random seeding) give the same centers, labels,
inertia and iteration count, for xdist inputs split along samples and for NumPy,
array-api-strict and Torch inputs."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import RANK, SIZE, assert_same_on_every_rank, distribute, uneven_counts
from sklearn.cluster import KMeans as SKKMeans
from sklearn.datasets import make_blobs

import xdist
from xdist.ml import cluster
from xdist.ml.cluster import KMeans


def _np(a):
    if hasattr(a, "to_numpy"):
        return a.to_numpy()
    if hasattr(a, "detach"):
        return a.detach().numpy()
    return np.asarray(a)


def _data(n=60, d=3, k=4, seed=0):
    X, _ = make_blobs(n, d, centers=k, cluster_std=1.5, random_state=seed)
    return X


def _inputs(X):
    yield "xdist", distribute(X, 0)
    yield "xdist-uneven", distribute(X, 0, uneven_counts(X.shape[0], SIZE))
    yield "numpy", X


def _check(ours, sk, rtol=1e-6):
    np.testing.assert_allclose(
        _np(ours.cluster_centers_), sk.cluster_centers_, rtol=1e-9, atol=1e-9
    )
    np.testing.assert_array_equal(_np(ours.labels_), sk.labels_)
    assert abs(ours.inertia_ - sk.inertia_) <= rtol * sk.inertia_
    assert ours.n_iter_ == sk.n_iter_


@pytest.mark.parametrize("init", ["array", "k-means++", "random"])
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_sklearn(init, seed):
    X = _data(seed=seed)
    kw = {"random_state": seed, "n_init": 2}
    if init == "array":
        kw = {"n_init": 1}
        init = X[[0, 10, 20, 30]]
    sk = SKKMeans(4, init=init, **kw).fit(X)
    for _, xin in _inputs(X):
        ours = KMeans(4, init=init, **kw).fit(xin)
        _check(ours, sk)
        if isinstance(xin, xdist.Array):
            assert ours.labels_.split == 0 and ours.cluster_centers_.split is None


def test_predict_transform_score_and_weights():
    X = _data(n=40)
    w = np.random.default_rng(0).uniform(0.5, 2.0, 40)
    sk = SKKMeans(3, random_state=0, n_init=1).fit(X, sample_weight=w)
    x = distribute(X, 0, uneven_counts(40, SIZE))
    ours = KMeans(3, random_state=0, n_init=1).fit(x, sample_weight=distribute(w, 0))
    _check(ours, sk)
    np.testing.assert_array_equal(_np(ours.predict(x)), sk.predict(X))
    np.testing.assert_allclose(_np(ours.transform(x)), sk.transform(X), rtol=1e-9, atol=1e-9)
    assert ours.score(x) == pytest.approx(sk.score(X), rel=1e-9)
    np.testing.assert_array_equal(_np(ours.fit_predict(x)), sk.fit_predict(X))


@pytest.mark.parametrize("on_host", [True, False], ids=["host", "gpu-path"])
def test_empty_cluster_is_relocated_like_sklearn(monkeypatch, on_host):
    """An empty cluster takes the farthest point, in host memory and on the GPU path (forced
    here on the CPU), whose one read per iteration happens before it knows of the empty
    cluster."""
    monkeypatch.setattr(cluster, "_reads_on_host", lambda X: on_host)
    X = _data(n=30, k=2)
    init = np.vstack([X[:2], [[100.0, 100.0, 100.0]]])  # the far center gets no points
    sk = SKKMeans(3, init=init, n_init=1).fit(X)
    ours = KMeans(3, init=init, n_init=1).fit(distribute(X, 0))
    _check(ours, sk)


@pytest.mark.parametrize("on_host", [True, False], ids=["host", "gpu-path"])
@pytest.mark.parametrize(
    "seed,weighted", [(21, False), (28, False), (101, False), (31, True), (61, True), (74, True)]
)
def test_cluster_emptied_by_relocation_sits_on_the_heaviest(monkeypatch, seed, weighted, on_host):
    """When the sample relocated to an empty cluster was the only one of its own, that
    cluster is empty in turn; scikit-learn's ``_average_centers`` places it at the heaviest
    cluster (by its sums when it comes later in the order, by its mean when earlier).
    These seeds of random centers over 2-d Gaussian data hit that case; on both Lloyd paths
    (``_reads_on_host``)."""
    monkeypatch.setattr(cluster, "_reads_on_host", lambda X: on_host)
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(30, 120)), int(rng.integers(4, 10))
    X = rng.standard_normal((n, 2))
    w = rng.uniform(0.1, 1.0, n) if weighted else None
    init = rng.uniform(-3, 3, (k, 2))
    sk = SKKMeans(k, init=init, n_init=1, max_iter=60, tol=0.0).fit(X, sample_weight=w)
    counts = uneven_counts(n, SIZE)
    ww = None if w is None else distribute(w, 0, counts)
    ours = KMeans(k, init=init, n_init=1, max_iter=60, tol=0.0)
    _check(ours.fit(distribute(X, 0, counts), sample_weight=ww), sk)


def test_weighted_cluster_emptied_late_is_found(monkeypatch):
    """A cluster emptied in a later iteration (seed 496: at iteration 4) has its weight
    updated by adding and removing sample weights, whose grouping can leave a rounding
    residue instead of 0. Injecting one (1e-17 on every emptied cluster's weight) must not
    hide the empty cluster: a weight that light is recomputed exactly, and the cluster
    relocated, as scikit-learn (which sums afresh every iteration) does."""
    rng = np.random.default_rng(496)
    n, k = int(rng.integers(20, 80)), int(rng.integers(4, 10))
    X, w = rng.standard_normal((n, 2)), rng.uniform(0.1, 1.0, n)
    init = X[rng.choice(n, k, replace=False)] + 0.3 * rng.standard_normal((k, 2))
    sk = SKKMeans(k, init=init, n_init=1, max_iter=60, tol=0.0).fit(X, sample_weight=w)
    exact = cluster._cluster_stats
    injected = []

    def with_residue(xp, Xa, w, ids, labels, labels_old, stats, *select):
        stats, moved = exact(xp, Xa, w, ids, labels, labels_old, stats, *select)
        if labels_old is not None:
            empty = xp.astype(stats[:, -1:] == 0, stats.dtype)
            injected.append(float(xp.sum(empty)))
            stats = stats + 1e-17 * empty
        return stats, moved

    monkeypatch.setattr(cluster, "_cluster_stats", with_residue)
    counts = uneven_counts(n, SIZE)
    ours = KMeans(k, init=init, n_init=1, max_iter=60, tol=0.0)
    _check(ours.fit(distribute(X, 0, counts), sample_weight=distribute(w, 0, counts)), sk)
    assert sum(injected) >= 1  # the case happened: an emptied cluster got a residue


def test_other_namespaces():
    X = _data(n=30)
    init = X[[0, 5, 10, 15]]
    sk = SKKMeans(4, init=init, n_init=1).fit(X)
    import array_api_strict as strict

    ours = KMeans(4, init=strict.asarray(init)).fit(strict.asarray(X))
    assert type(ours.cluster_centers_) is type(strict.asarray(X))
    np.testing.assert_allclose(np.asarray(ours.cluster_centers_), sk.cluster_centers_, rtol=1e-9)
    torch = pytest.importorskip("torch")
    ours = KMeans(4, init=torch.asarray(init, device="cpu")).fit(torch.asarray(X, device="cpu"))
    assert isinstance(ours.cluster_centers_, torch.Tensor)
    _check(ours, sk)


def test_bad_parameters_raise_before_work():
    X = distribute(_data(n=10), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(ValueError, match="n_clusters=11"):
            KMeans(11).fit(X)
        with pytest.raises(TypeError, match="max_iter"):
            KMeans(2, max_iter=1.5).fit(X)
        with pytest.raises(ValueError, match="init"):
            KMeans(2, init="bogus").fit(X)
    assert not counts


def test_duplicate_points_warn_like_sklearn():
    from sklearn.exceptions import ConvergenceWarning

    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]]), 4, axis=0)
    with pytest.warns(ConvergenceWarning, match="distinct clusters"):
        sk = SKKMeans(4, random_state=0, n_init=1).fit(X)
    with pytest.warns(ConvergenceWarning, match=r"distinct clusters \(3\)"):
        ours = KMeans(4, random_state=0, n_init=1).fit(distribute(X, 0))
    assert ours.inertia_ == pytest.approx(sk.inertia_, abs=1e-12)
    # Every sample sits on its center: nothing is relocated, and the empty cluster is
    # placed at the heaviest one, as scikit-learn does.
    np.testing.assert_allclose(_np(ours.cluster_centers_), sk.cluster_centers_, atol=1e-12)
    np.testing.assert_array_equal(_np(ours.labels_), sk.labels_)


def _collectives_per_5_iterations(monkeypatch, on_host: bool):
    """The collectives of Lloyd iterations 5 to 9 on 3000 x 4 uneven samples, with blocks
    taken as in host memory or not (``_reads_on_host``), and the 9-iteration fit."""
    monkeypatch.setattr(cluster, "_reads_on_host", lambda X: on_host)
    X = np.random.default_rng(0).standard_normal((3000, 4))
    x = distribute(X, 0, uneven_counts(3000, SIZE))
    counts = []
    for max_iter in (4, 9):
        with xdist.count_collectives() as c:
            est = KMeans(6, init=X[:6], n_init=1, max_iter=max_iter, tol=0.0).fit(x)
        assert est.n_iter_ == max_iter
        counts.append(dict(c))
    return {k: counts[1].get(k, 0) - counts[0].get(k, 0) for k in counts[1]}, est


def test_lloyd_iteration_sends_a_few_small_messages(monkeypatch):
    """Per Lloyd iteration on blocks in host memory: two boolean selections of the changed
    samples (their cluster pairs, whose length is the number moved, and their rows; one
    allgather of counts each) and one reduction of the k x (d + 1) cluster statistics:
    three small messages, independent of the number of samples (the counted allgathers are
    copies at one rank). The GPU path has its own test below."""
    per_5, _ = _collectives_per_5_iterations(monkeypatch, True)
    # An iteration that moved fewer than 4 k samples (or more than half) makes the full
    # product instead of selecting rows: one allgather fewer.
    assert 5 <= per_5.pop("allgather") <= 2 * 5, per_5
    assert {k: v for k, v in per_5.items() if v} == ({"allreduce": 5} if SIZE > 1 else {})


def test_lloyd_iteration_on_a_gpu_sends_one_reduction_more_and_selects_nothing(monkeypatch):
    """With blocks on a GPU (``_reads_on_host`` false; forced here on the CPU) every
    iteration takes the full product and counts the moved samples by one sum: one small
    reduction more per iteration, no selection (no allgather of counts), the same fit."""
    _, host = _collectives_per_5_iterations(monkeypatch, True)
    per_5, est = _collectives_per_5_iterations(monkeypatch, False)
    assert {k: v for k, v in per_5.items() if v} == ({"allreduce": 10} if SIZE > 1 else {})
    np.testing.assert_array_equal(_np(est.labels_), _np(host.labels_))
    np.testing.assert_allclose(_np(est.cluster_centers_), _np(host.cluster_centers_), rtol=1e-12)


def test_lloyd_iteration_on_a_gpu_reads_the_device_after_queueing_everything(monkeypatch):
    """On a GPU each read of a number waits for the device to finish its queue, and the
    device then idles until the host queues more. The GPU path's iteration queues both of
    its products (distances, statistics) before it reads its three numbers (moved, lightest
    weight, shift): no read falls between the two products, where the number moved used to
    be read. Forced here on the CPU; the fit is the host path's."""
    events = []
    array = type(distribute(np.ones(2), 0))
    for name, tag in (("__matmul__", "M"), ("__float__", "R"), ("__int__", "R")):
        real = getattr(array, name)

        def logged(self, *args, _real=real, _tag=tag):
            events.append(_tag)
            return _real(self, *args)

        monkeypatch.setattr(array, name, logged)
    fits = {}
    for on_host in (False, True):
        events.clear()
        per_5, fits[on_host] = _collectives_per_5_iterations(monkeypatch, on_host)
        trace = "".join(events)
        if not on_host:
            assert "MRM" not in trace, trace
            # The 9-iteration fit: products, then reads (the first iteration moves no
            # label, so it reads two numbers); then the final assignment and inertia.
            assert "MMRR" + "MMRRR" * 8 + "MR" in trace, trace
    np.testing.assert_array_equal(_np(fits[False].labels_), _np(fits[True].labels_))


def test_reads_on_host_tells_host_memory_from_a_device():
    """The Lloyd path's choice: NumPy, array-api-strict and xdist arrays on the CPU select
    the moved samples; xdist arrays on a GPU and Torch tensors off the CPU (here the meta
    device) do not."""
    import array_api_strict as strict

    assert cluster._reads_on_host(np.ones(3))
    assert cluster._reads_on_host(strict.ones(3))
    x = distribute(np.ones(3), 0)  # on the test run's device: a GPU in GPU runs
    assert cluster._reads_on_host(x) == (x.device.kind == "cpu")
    torch = pytest.importorskip("torch")
    assert cluster._reads_on_host(torch.ones(3, device="cpu"))
    assert not cluster._reads_on_host(torch.ones(3, device="meta"))


@pytest.mark.parametrize("select", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_incremental_statistics_match_sklearn_over_many_iterations(monkeypatch, weighted, select):
    """After the first iterations only the moved samples update the cluster sums (or, as
    on a GPU, without ``select``, every iteration takes the full product); 40 iterations on
    unclustered data still give scikit-learn's centers and labels."""
    monkeypatch.setattr(cluster, "_reads_on_host", lambda X: select)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((500, 3))
    w = rng.uniform(0.5, 2.0, 500) if weighted else None
    init = X[:5]
    sk = SKKMeans(5, init=init, n_init=1, max_iter=40, tol=0.0).fit(X, sample_weight=w)
    counts = uneven_counts(500, SIZE)
    ww = None if w is None else distribute(w, 0, counts)
    ours = KMeans(5, init=init, n_init=1, max_iter=40, tol=0.0)
    _check(ours.fit(distribute(X, 0, counts), sample_weight=ww), sk)


@pytest.mark.parametrize("spread", [1e-3, 1e-7])
def test_inertia_of_tight_far_clusters_matches_sklearn(spread):
    """Clusters 1e7 times tighter than their distance from the mean: the quadratic
    expansion of the inertia would be wrong in every digit (1e3 times too large at 1e-7),
    so the fit computes it directly, as scikit-learn does."""
    rng = np.random.default_rng(5)
    C = rng.uniform(-1e3, 1e3, (4, 3))
    X = np.concatenate([c + spread * rng.standard_normal((25, 3)) for c in C])
    sk = SKKMeans(4, init=C, n_init=1).fit(X)
    ours = KMeans(4, init=C, n_init=1).fit(distribute(X, 0, uneven_counts(100, SIZE)))
    assert ours.inertia_ == pytest.approx(sk.inertia_, rel=1e-9)


def test_unclustered_inertia_comes_from_the_scores(monkeypatch):
    """On unclustered data the final inertia is read from the assignment's scores (no pass
    over the rows of X), and still agrees with scikit-learn's direct sum."""
    from xdist.ml import cluster

    def direct(*args):
        raise AssertionError("the direct inertia was computed")

    X = np.random.default_rng(6).standard_normal((400, 5))
    sk = SKKMeans(3, init=X[:3], n_init=1, max_iter=8, tol=0.0).fit(X)
    monkeypatch.setattr(cluster, "_inertia_ones", direct)
    ours = KMeans(3, init=X[:3], n_init=1, max_iter=8, tol=0.0).fit(distribute(X, 0))
    assert ours.inertia_ == pytest.approx(sk.inertia_, rel=1e-12)


def test_verbose_prints_once(capsys):
    """scikit-learn's lines, on rank 0 only, NumPy input too (spread over the ranks)."""
    X = _data(n=30)
    KMeans(4, init=X[:4], n_init=1, max_iter=3, verbose=1).fit(distribute(X, 0))
    out = capsys.readouterr().out
    assert ("Initialization complete\nIteration 0, inertia" in out) == (RANK == 0)
    assert out == "" or RANK == 0
    KMeans(4, init=X[:4], n_init=1, verbose=True).fit(distribute(X, 0, uneven_counts(30, SIZE)))
    out = capsys.readouterr().out
    assert ("Converged at iteration" in out) == (RANK == 0)
    assert out == "" or RANK == 0
    KMeans(4, init=X[:4], n_init=1, max_iter=2, verbose=1).fit(X)
    out = capsys.readouterr().out
    assert ("Iteration 1, inertia" in out) == (RANK == 0), out
    assert out == "" or RANK == 0


@pytest.mark.parametrize("algorithm", ["lloyd", "elkan"])
def test_elkan_runs_lloyd_with_sklearn_results(algorithm):
    X = _data(n=40)
    init = X[[0, 10, 20, 30]]
    sk = SKKMeans(4, init=init, n_init=1, algorithm="elkan").fit(X)
    _check(KMeans(4, init=init, n_init=1, algorithm=algorithm).fit(distribute(X, 0)), sk)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_raises(bad):
    X = _data(n=20)
    X[7, 1] = bad
    with pytest.raises(ValueError, match="NaN or infinity"):
        KMeans(2, n_init=1).fit(distribute(X, 0, uneven_counts(20, SIZE)))


def test_finite_check_survives_an_overflowing_sum():
    from xdist.ml._utils import check_finite

    huge = distribute(np.full((7, 2), 1e308), 0)  # finite; its sum overflows to inf
    assert check_finite(xdist, huge, "f") is huge


# -- the same result at every rank count, on every rank ---------------------------------------


def _samples_layouts(X, w):
    """(name, X, w) for X (and w) split along samples in balanced blocks, in uneven ones (an
    empty block at 3 ranks), replicated (``split=None``: every rank computes what one rank
    computes, so agreeing with it is agreeing with 1 rank) and as NumPy input."""
    n = X.shape[0]
    for name, split, counts in [
        ("balanced", 0, None),
        ("uneven", 0, uneven_counts(n, SIZE)),
        ("replicated", None, None),
    ]:
        ww = None if w is None else distribute(w, split, counts)
        yield name, distribute(X, split, counts), ww
    yield "numpy", X, w


def _captured_seeds(monkeypatch, est, x, w):
    """The initial centers of each run of ``est.fit(x, sample_weight=w)`` as row indices of
    X (they must be rows of the centered X, which _lloyd receives, bitwise)."""
    from xdist.ml import cluster

    seeds, lloyd = [], cluster._lloyd

    def capture(xp, Xa, x_sq, sw, centers, *args):
        Xc, C = _np(Xa)[:, :-1], _np(centers)
        rows = [np.flatnonzero((Xc == c).all(axis=1)) for c in C]
        assert all(r.size for r in rows), "an initial center is no row of X"
        seeds.append([int(r[0]) for r in rows])
        return lloyd(xp, Xa, x_sq, sw, centers, *args)

    monkeypatch.setattr(cluster, "_lloyd", capture)
    est.fit(x, sample_weight=w)
    monkeypatch.undo()
    return seeds


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_seeding_picks_the_same_rows_at_every_rank_count(monkeypatch, init, weighted):
    """float32 data: the seeding's cumulative sums used to run in float32, whose rounding
    depends on how the samples are split, and picked other rows at 2 and 3 ranks. In float64
    the picks are the same in every layout (and those of NumPy input); ``init="random"``
    picks distinct rows of X, as scikit-learn's ``choice(replace=False, p=w / sum(w))``."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20000, 3)).astype(np.float32)  # float32 picks differed at 2, 3
    w = rng.uniform(0.5, 2.0, 20000).astype(np.float32) if weighted else None
    picks = {}
    for name, x, ww in _samples_layouts(X, w):
        est = KMeans(8, init=init, n_init=4, max_iter=1, random_state=3)
        picks[name] = _captured_seeds(monkeypatch, est, x, ww)
    assert all(len(set(s)) == 8 for s in picks["numpy"])
    assert {k: v for k, v in picks.items() if v != picks["numpy"]} == {}


def _tolerances(dtype):
    # float64 fits differ between groupings of the sums by float64 round-off; float32 Lloyd
    # sums by float32 round-off (the seeding, in float64, picks the same rows).
    return (1e-5, 1e-4) if dtype == "float32" else (1e-12, 1e-10)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_same_fit_at_every_rank_count(init, dtype, weighted):
    """Centers, labels, inertia and iterations of X split in balanced and uneven blocks equal
    those of X replicated (what one rank computes) and of NumPy input, and every rank holds
    the same centers, inertia and iteration count."""
    rng = np.random.default_rng(1)
    X = _data(n=90, d=3, k=4, seed=2).astype(dtype)
    w = rng.uniform(0.5, 2.0, 90).astype(dtype) if weighted else None
    rtol, atol = _tolerances(dtype)
    ref = None
    for name, x, ww in _samples_layouts(X, w):
        est = KMeans(4, init=init, n_init=3, random_state=5).fit(x, sample_weight=ww)
        if isinstance(x, xdist.Array):
            assert_same_on_every_rank(est.cluster_centers_, est.inertia_, est.n_iter_)
        got = (_np(est.cluster_centers_), _np(est.labels_), est.inertia_, est.n_iter_)
        if ref is None:
            ref = got
            continue
        np.testing.assert_allclose(got[0], ref[0], rtol=rtol, atol=atol, err_msg=name)
        np.testing.assert_array_equal(got[1], ref[1], err_msg=name)
        assert got[2] == pytest.approx(ref[2], rel=rtol), name
        assert got[3] == ref[3], name


@pytest.mark.parametrize("state", ["none", "per-rank instance"])
def test_unseeded_fits_agree_on_every_rank(state):
    """random_state=None (and a RandomState that differs between ranks) still gives every
    rank the same centers: the state is agreed (fresh entropy from rank 0)."""
    X = np.random.default_rng(2).standard_normal((200, 2))
    rs = None if state == "none" else np.random.RandomState(1000 + RANK)
    for init in ("k-means++", "random"):
        est = KMeans(5, init=init, n_init=2, random_state=rs).fit(distribute(X, 0))
        assert_same_on_every_rank(est.cluster_centers_, est.inertia_, est.n_iter_)


def test_random_init_without_enough_weighted_samples_raises():
    X = _data(n=12)
    w = np.zeros(12)
    w[[2, 7]] = 1.0
    with pytest.raises(ValueError, match="positive weight"):
        KMeans(3, init="random", n_init=1).fit(distribute(X, 0), sample_weight=distribute(w, 0))
