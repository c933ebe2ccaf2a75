"""sort and argsort against NumPy's stable sort: every layout and axis, ties, NaN, signed
zeros, descending; how much the distributed sample sort communicates; errors before any
message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import COMM, SIZE, assert_equal, distribute, layouts, random_array

import xdist
import xdist._ops.sample_sort as sample_sort_module
import xdist._sorting_functions as sorting_module

SHAPES = [(7,), (2,), (1,), (0,), (7, 5), (2, 3), (3, 4, 5), (4, 0)]
KINDS = ["float64", "float32", "int8", "uint8", "int64", "float-ties", "int-ties"]


def make(shape, kind: str, seed: int = 0) -> np.ndarray:
    """Test data; the ``-ties`` kinds repeat few values, with NaN and both zeros for floats."""
    if kind == "int-ties":
        return np.random.default_rng(seed).integers(0, 3, size=shape).astype(np.int16)
    if kind == "float-ties":
        a = np.random.default_rng(seed).integers(-2, 3, size=shape).astype(np.float64)
        a[a == 2] = np.nan
        a[a == -2] = -0.0
        return a
    return random_array(shape, kind, seed)


def expected_argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """NumPy's stable argsort; descending keeps ties in index order (array-api-strict's way)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    flipped = np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable")
    return (a.shape[axis] - 1 - np.flip(flipped, axis=axis)).astype(np.int64)


def check_layout(out: xdist.Array, x: xdist.Array, axis: int) -> None:
    """Sorting along the split axis gives balanced blocks on it; otherwise the layout stays."""
    if x.split == axis and SIZE > 1:
        assert out.split == axis and out.layout.is_balanced, out.layout
    else:
        assert out.layout == x.layout


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sort_and_argsort_match_numpy(shape, kind):
    a = make(shape, kind)
    for split, counts in layouts(shape):
        x = distribute(a, split, counts)
        for axis in range(len(shape)):
            for descending in (False, True):
                order = expected_argsort(a, axis, descending)
                got = xdist.argsort(x, axis=axis, descending=descending)
                assert_equal(got, order)
                check_layout(got, x, axis)
                values = xdist.sort(x, axis=axis, descending=descending)
                assert_equal(values, np.take_along_axis(a, order, axis=axis))
                check_layout(values, x, axis)


@pytest.mark.parametrize("split", [None, 0])
def test_default_axis_is_last_and_stable_flag_is_accepted(split):
    a = make((4, 6), "int-ties", seed=3)
    x = distribute(a, split)
    assert_equal(xdist.argsort(x, stable=False), expected_argsort(a, -1, False))
    assert_equal(xdist.sort(x, axis=-2, stable=False), np.sort(a, axis=0, kind="stable"))


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_descending_keeps_ties_in_index_order(counts):
    a = np.array([0, 1, 0, 1, 2, 0, 2], dtype=np.int32)
    x = distribute(a, 0, None if counts is None else layouts(a.shape)[-1][1])
    assert_equal(xdist.argsort(x, descending=True), np.array([4, 6, 1, 3, 0, 2, 5]))
    assert_equal(xdist.argsort(x), np.array([0, 2, 5, 1, 3, 4, 6]))


@pytest.mark.parametrize("split", [None, 0])
def test_signed_zeros_follow_the_argsort_order(split):
    a = np.array([0.0, np.nan, -0.0, 1.0, -0.0, np.nan, 0.0])
    x = distribute(a, split)
    for descending in (False, True):
        got = xdist.sort(x, descending=descending).to_numpy()
        want = a[expected_argsort(a, 0, descending)]
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(xdist.sort(x).to_numpy()[-2:]).all()  # NaN last ascending
    assert np.isnan(xdist.sort(x, descending=True).to_numpy()[:2]).all()  # first descending


@pytest.mark.parametrize("kind", ["float64", "int-ties", "float-ties"])
def test_larger_arrays_along_the_split_axis(kind):
    a = make((2000,), kind, seed=5)
    x = distribute(a, 0, layouts(a.shape)[-1][1])  # very uneven input blocks
    assert_equal(xdist.argsort(x), expected_argsort(a, 0, False))
    assert_equal(xdist.sort(x, descending=True), a[expected_argsort(a, 0, True)])
    b = make((2, 300), kind, seed=6)  # fewer lines than ranks at 3 ranks: sample sort
    y = distribute(b, 1)
    assert_equal(xdist.argsort(y, axis=1, descending=True), expected_argsort(b, 1, True))


# -- communication ------------------------------------------------------------------------------
class RecordingComm:
    """The test communicator, recording the total element count of every allgatherv."""

    def __init__(self, comm):
        self._comm = comm
        self.rank, self.size = comm.rank, comm.size
        self.gathered: list[int] = []

    def __getattr__(self, name):
        return getattr(self._comm, name)

    def allgatherv(self, buf, counts):
        self.gathered.append(int(sum(counts)))
        return self._comm.allgatherv(buf, counts)


def _collectives(func, a, split, comm=None) -> dict[str, int]:
    x = distribute(a, split, comm=comm)
    with xdist.count_collectives() as counts:
        func(x)
    return dict(counts)


@pytest.mark.parametrize("func", [xdist.sort, xdist.argsort])
def test_no_messages_along_a_non_split_axis(func):
    a = make((5, 7), "float64")
    assert _collectives(lambda x: func(x, axis=1), a, 0) == {}
    assert _collectives(lambda x: func(x, axis=0), a, None) == {}


@pytest.mark.parametrize("func", [xdist.sort, xdist.argsort])
@pytest.mark.parametrize("shape", [(1,), (2, 1)], ids=["1-D", "2-lines"])
def test_sample_sort_messages_are_few_and_independent_of_size(func, shape):
    small = _collectives(lambda x: func(x, axis=-1), make((*shape[:-1], 10), "float64"), -1)
    large = _collectives(lambda x: func(x, axis=-1), make((*shape[:-1], 3000), "float64"), -1)
    assert small == large
    lines = shape[0] if len(shape) == 2 else 1
    if SIZE > lines:  # the sample sort: samples, piece lengths, totals, pieces, rebalance
        assert small == {"allgatherv": 1, "alltoall": 1, "allgather": 1, "alltoallv": 2}
    elif SIZE > 1:  # as many lines as ranks: the transpose plan
        assert small == {"alltoallv": 2}
    comm = RecordingComm(COMM)
    _collectives(lambda x: func(x, axis=-1), make((*shape[:-1], 3000), "float64"), -1, comm)
    assert all(n <= lines * SIZE * SIZE for n in comm.gathered), comm.gathered  # samples only


@pytest.mark.parametrize("kind", ["float64", "int-ties", "float-ties"])
@pytest.mark.parametrize("lines", [1, 2])
def test_samples_sorted_over_the_ranks_give_the_same_sort(monkeypatch, kind, lines):
    """Past ``GATHERED_SAMPLES`` the splitters come from the samples sample-sorted over the
    ranks (each taking one sample of its own samples: the most uneven split of them), not
    gathered on every rank: the same results, no allgatherv of more than one sample per rank
    and line or of the splitters, and no rank holds more than PSRS allows before the
    rebalance (twice its share, plus one run of the samples of each rank)."""
    monkeypatch.setattr(sample_sort_module, "GATHERED_SAMPLES", 0)
    a = make((lines, 600), kind, seed=11)
    for counts in (None, layouts(a.shape[1:])[-1][1]):  # balanced; very uneven with empties
        for descending in (False, True):
            comm = RecordingComm(COMM)
            x = distribute(a, 1, counts, comm=comm)
            want = expected_argsort(a, 1, descending)
            comm.gathered.clear()
            with xdist.count_collectives() as c:
                got = xdist.argsort(x, axis=1, descending=descending)
            gathered = list(comm.gathered)
            assert_equal(got, want)
            assert_equal(
                xdist.sort(x, axis=1, descending=descending), np.take_along_axis(a, want, axis=1)
            )
            if SIZE > lines:
                assert c["exscan"] == 1 and c["allreduce"] == 1, dict(c)
                assert all(n <= lines * SIZE for n in gathered), gathered
    v = make((600,), kind, seed=12)
    x = distribute(v, 0)
    got = xdist.unique_all(x)
    want = np.unique(v, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    assert_equal(got.values, want[0])
    assert_equal(got.counts, want[3])
    m = xdist.median(x)  # of ints: the backend's default float (Torch's is float32)
    assert_equal(m, np.asarray(np.median(v), dtype=m.dtype))


def test_samples_sorted_over_the_ranks_hold_at_most_the_psrs_bound(monkeypatch):
    """Before the rebalance every rank holds at most about twice its share: the splitters are
    exactly those of the gathered samples, whichever way they were found."""
    held = {}
    real = sample_sort_module.sample_sort

    def spy(*args, **kwargs):
        res = real(*args, **kwargs)
        if kwargs.get("samples") is None:
            held[sample_sort_module.GATHERED_SAMPLES] = res.held.copy()
        return res

    a = make((1, 3000), "float64", seed=13)
    x = distribute(a, 1)
    monkeypatch.setattr(sorting_module, "sample_sort", spy)
    xdist.sort(x, axis=1)
    monkeypatch.setattr(sample_sort_module, "GATHERED_SAMPLES", 0)
    xdist.sort(x, axis=1)
    if SIZE > 1:
        np.testing.assert_array_equal(held[0], held[1 << 16])
        assert held[0].max() <= 2 * 3000 // SIZE + SIZE, held[0]


def test_many_lines_take_two_all_to_alls():
    a = make((40, 9), "float64")
    counts = _collectives(lambda x: xdist.sort(x, axis=0), a, 0)
    assert counts == ({"alltoallv": 2} if SIZE > 1 else {})


# -- errors before any message ------------------------------------------------------------------
@pytest.mark.parametrize("func", [xdist.sort, xdist.argsort])
@pytest.mark.parametrize(
    "make_x, kwargs, error",
    [
        (lambda: distribute(make((7, 3), "float64"), 0), {"axis": 2}, IndexError),
        (lambda: distribute(make((7, 3), "float64"), 0), {"axis": -3}, IndexError),
        (lambda: distribute(make((7, 3), "float64"), 0), {"axis": 0.0}, TypeError),
        (lambda: distribute(np.asarray(1.5)), {}, IndexError),
        (lambda: distribute(random_array((7,), "complex128"), 0), {}, TypeError),
        (lambda: distribute(random_array((7,), "bool"), 0), {}, TypeError),
        (lambda: distribute(make((7,), "float64"), 0), {"descending": 1}, TypeError),
        (lambda: distribute(make((7,), "float64"), 0), {"stable": None}, TypeError),
        (lambda: make((7,), "float64"), {}, TypeError),
    ],
    ids=[
        "axis",
        "negative-axis",
        "float-axis",
        "0-d",
        "complex",
        "bool",
        "descending",
        "stable",
        "numpy",
    ],
)
def test_errors_raise_before_any_message(func, make_x, kwargs, error):
    x = make_x()
    with xdist.count_collectives() as counts:
        with pytest.raises(error, match=func.__name__):
            func(x, **kwargs)
    assert sum(counts.values()) == 0
