"""``all``, ``any`` and ``diff`` against NumPy: every layout, every axis choice, keepdims,
dtypes; how much they communicate; errors before any message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layout_id, layouts, random_array
from test_statistical_functions import SHAPES, check_all_axes

import xdist


def _truthy_mix(shape, dtype, seed) -> np.ndarray:
    """Data with zeros (false) and, for floats, NaN (true) in it."""
    rng = np.random.default_rng(seed)
    g = random_array(shape, dtype, seed)
    if g.dtype.kind != "b":
        g = np.where(rng.random(shape) < 0.4, 0, g).astype(dtype)
    if g.dtype.kind in "fc" and g.size:
        g.reshape(-1)[-1] = np.nan
    return g


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "float64", "complex128"])
def test_all_any_match_numpy(name, dtype, shape):
    g = _truthy_mix(shape, dtype, seed=len(shape))
    for split, counts in layouts(shape):
        check_all_axes(name, g, split, counts, {}, {})


@pytest.mark.parametrize("value", [True, False])
def test_all_any_constant_data_with_empty_blocks(value):
    # A rank with no rows must be the identity (True for all, False for any).
    g = np.full((2, 3), value)
    for split, counts in layouts(g.shape) + [(0, (0,) * (SIZE - 1) + (2,))]:
        x = distribute(g, split, counts)
        for axis in (None, 0, 1):
            assert_equal(xdist.all(x, axis=axis), np.all(g, axis=axis))
            assert_equal(xdist.any(x, axis=axis), np.any(g, axis=axis))


def test_all_any_of_nothing():
    x = distribute(np.zeros((0, 3)), 0)
    assert_equal(xdist.all(x, axis=0), np.ones(3, dtype=bool))
    assert_equal(xdist.any(x, axis=0), np.zeros(3, dtype=bool))
    assert_equal(xdist.all(x), np.True_)
    assert_equal(xdist.any(x), np.False_)


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"axis": 2}, IndexError),
        ({"axis": (0, 0)}, ValueError),
        ({"axis": "0"}, TypeError),
        ({"keepdims": None}, TypeError),
    ],
)
def test_bad_arguments_raise_before_communicating(name, kwargs, error):
    x = distribute(random_array((7, 3), "bool", 1), 0)
    with xdist.count_collectives() as c, pytest.raises(error, match=f"^{name}: "):
        getattr(xdist, name)(x, **kwargs)
    assert not c


@pytest.mark.parametrize("name", ["all", "any"])
def test_not_an_array(name):
    with pytest.raises(TypeError, match=f"^{name}: "):
        getattr(xdist, name)([True, False])


# -- diff -----------------------------------------------------------------------------------------
DIFF_SHAPES = [(7,), (2,), (7, 5), (2, 3), (4, 0), (3, 4, 5)]
DIFF_CASES = [(shape, case) for shape in DIFF_SHAPES for case in layouts(shape)]
DIFF_IDS = [f"{'x'.join(map(str, s))}-{layout_id(c)}" for s, c in DIFF_CASES]


def _diff_counts(x, axis: int, n: int) -> tuple[int, ...]:
    """The exact counts of diff along the split axis: each rank keeps the outputs that start
    in its block."""
    length = max(x.shape[axis] - n, 0)
    ranges = [x.layout.local_range(r) for r in range(SIZE)]
    return tuple(max(0, min(hi, length) - lo) for lo, hi in ranges)


@pytest.mark.parametrize("shape,case", DIFF_CASES, ids=DIFF_IDS)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "float64", "complex64"])
def test_diff_matches_numpy(shape, case, dtype):
    g = random_array(shape, dtype, 3)
    x = distribute(g, *case)
    for axis in range(-len(shape), len(shape)):
        for n in (0, 1, 2, 3, 8):
            with xdist.count_collectives() as counts:
                y = xdist.diff(x, axis=axis, n=n)
            assert_equal(y, np.diff(g, axis=axis, n=n))
            a = axis % len(shape)
            if x.split == a and SIZE > 1 and n:
                assert y.counts == _diff_counts(x, a, n)
                assert sum(counts.values()) == 1  # one sendrecv, or one alltoallv
                assert set(counts) <= {"sendrecv", "alltoallv"}
            else:
                assert not counts
                assert y.split == x.split and (x.split == a or y.counts == x.counts)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_diff_halo_across_short_and_empty_blocks(n):
    # Blocks shorter than n, and empty blocks between full ones: the rows after a block
    # come from several ranks (one alltoallv), never from a gather.
    g = random_array((12, 2), "float64", 4)
    counts = [1] * (SIZE - 1) + [12 - (SIZE - 1)]
    counts = [0] + counts[1:] if SIZE > 2 else counts
    counts[-1] = 12 - sum(counts[:-1])
    for cs in (tuple(counts), (0,) * (SIZE - 1) + (12,), tuple(reversed(counts))):
        x = distribute(g, 0, cs)
        with xdist.count_collectives() as sent:
            y = xdist.diff(x, axis=0, n=n)
        assert y.counts == _diff_counts(x, 0, n)
        assert "allgatherv" not in sent and sum(sent.values()) == (1 if SIZE > 1 else 0)
        assert_equal(y, np.diff(g, axis=0, n=n))


@pytest.mark.parametrize("split", [None, 0, 1])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff_prepend_append(split, axis):
    g = random_array((5, 4), "int32", 5)
    size = {0: 3, 1: 2}[axis % 2]
    pre_shape = (size, 4) if axis % 2 == 0 else (5, size)
    pre = random_array(pre_shape, "int16", 6)
    app = random_array(pre_shape[: axis % 2] + (1,) + pre_shape[axis % 2 + 1 :], "int32", 7)
    x = distribute(g, split)
    for p_split, a_split in [(None, None), (split, split), (0, None)]:
        xpre, xapp = distribute(pre, p_split), distribute(app, a_split)
        for n in (0, 1, 3):
            assert_equal(
                xdist.diff(x, axis=axis, n=n, prepend=xpre, append=xapp),
                np.diff(np.concatenate([pre, g, app], axis=axis).astype("int32"), axis=axis, n=n),
            )
        assert_equal(xdist.diff(x, axis=axis, prepend=xpre), np.diff(g, axis=axis, prepend=pre))
        assert_equal(xdist.diff(x, axis=axis, append=xapp), np.diff(g, axis=axis, append=app))


def test_diff_unsigned_wraps_and_keeps_dtype():
    g = np.array([3, 1, 250, 0], dtype=np.uint8)
    for split, counts in layouts(g.shape):
        y = xdist.diff(distribute(g, split, counts))
        assert_equal(y, np.diff(g))


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"axis": 2}, IndexError),
        ({"axis": 0.0}, TypeError),
        ({"n": -1}, ValueError),
        ({"n": 1.0}, TypeError),
        ({"n": True}, TypeError),
        ({"prepend": "shape"}, ValueError),
        ({"append": "ndim"}, ValueError),
        ({"append": "low"}, ValueError),
        ({"prepend": "numpy"}, TypeError),
    ],
)
def test_diff_errors_before_communicating(kwargs, error):
    x = distribute(random_array((7, 3), "float64", 1), 0)
    extras = {
        "shape": distribute(np.zeros((2, 4)), 0),
        "ndim": distribute(np.zeros((7, 3, 1)), 0),
        "low": distribute(np.zeros(7), 0),
        "numpy": np.zeros((7, 3)),
    }
    kwargs = {k: extras.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    with xdist.count_collectives() as c, pytest.raises(error, match="^diff: "):
        xdist.diff(x, **kwargs)
    assert not c


def test_diff_dtype_and_rank_errors():
    with pytest.raises(TypeError, match="^diff: "):
        xdist.diff(distribute(np.array([True, False, True]), 0))
    with pytest.raises(IndexError, match="^diff: "):
        xdist.diff(distribute(np.array(1.0)))
    with pytest.raises(TypeError, match="^diff: "):
        xdist.diff([1, 2, 3])


def test_numpy_integers_are_axes_and_counts():
    """Any integer but a bool is an axis, an offset or a count, NumPy's integers too (NumPy
    and Torch take them; SciPy's ``cumulative_simpson`` passes ``np.int64`` axes): the same
    result as the Python int, at every layout; a bool or a float is still refused."""
    g = random_array((6, 5), "float64", seed=3)
    m = random_array((4, 4), "float64", seed=4)
    three = random_array((6, 3), "float64", seed=5)
    calls = [
        lambda x, i: xdist.sum(x, axis=i(1)),
        lambda x, i: xdist.sum(x, axis=(i(0), i(-1))),
        lambda x, i: xdist.cumulative_sum(x, axis=i(0)),
        lambda x, i: xdist.diff(x, axis=i(-1), n=i(2)),
        lambda x, i: xdist.concat([x, x], axis=i(1)),
        lambda x, i: xdist.flip(x, axis=i(0)),
        lambda x, i: xdist.argmax(x, axis=i(1)),
        lambda x, i: xdist.sort(x, axis=i(0)),
        lambda x, i: xdist.vecdot(x, x, axis=i(-1)),
        lambda x, i: xdist.linalg.diagonal(x, offset=i(-1)),
        lambda x, i: xdist.linalg.trace(x, offset=i(1)),
    ]
    for split, counts in layouts(g.shape):
        x = distribute(g, split, counts)
        for call in calls:
            assert_equal(call(x, np.int64), call(x, int))
            assert_equal(call(x, np.int32), call(x, int))
    for split, counts in layouts(m.shape):
        x = distribute(m, split, counts)
        assert_equal(xdist.linalg.matrix_power(x, np.int64(3)), xdist.linalg.matrix_power(x, 3))
    for split, counts in layouts(three.shape):
        x = distribute(three, split, counts)
        assert_equal(xdist.linalg.cross(x, x, axis=np.int64(-1)), xdist.linalg.cross(x, x))
    x = distribute(g, 0)
    for bad in (True, np.bool_(False), 1.0, np.float64(1.0)):
        with pytest.raises(TypeError, match="sum: axis must be"):
            xdist.sum(x, axis=bad)
        with pytest.raises(TypeError, match="vecdot: axis must be an int"):
            xdist.vecdot(x, x, axis=bad)
