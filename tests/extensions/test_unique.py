"""NumPy's unique (xdist's extension) against NumPy on the same global data, in every
combination of its flags, with equal_nan both ways (NaNs one value by default, each its own
otherwise): every layout (uneven and empty blocks), dtypes, 0-d and empty arrays, no gather,
the collectives it adds to the set functions', and errors before any message."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from helpers import BACKEND, SIZE, assert_equal, distribute, layouts, without_gathers

import xdist

FLAGS = list(itertools.product([False, True], repeat=3))


def data(kind: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    if kind == "int":
        return rng.integers(-3, 4, (7, 4)).astype("int32")
    if kind == "bool":
        return rng.random((5, 3)) > 0.6
    a = rng.integers(-3, 4, (7, 4)).astype("float64")
    if kind == "nans":  # NaNs on several ranks, before and after other values
        a.flat[[0, 5, 6, 13, 27]] = np.nan
    elif kind == "one-nan":
        a.flat[9] = np.nan
    elif kind == "all-nan":
        a[:] = np.nan
    elif kind == "inf":
        a.flat[[2, 3, 11]] = [np.inf, -np.inf, np.nan]
    elif kind == "float32":
        a.flat[[4, 20]] = np.nan
        a = a.astype("float32")
    elif kind == "3d":
        a = a.reshape(7, 2, 2)
        a[3, 1, 0] = a[0, 0, 1] = np.nan
    return a


def check(a: np.ndarray, flags, equal_nan: bool) -> None:
    want = np.unique(a, *flags, equal_nan=equal_nan)
    want = want if isinstance(want, tuple) else (want,)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        got = without_gathers(xdist.unique, x, *flags, equal_nan=equal_nan)
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            if k == 1 + flags[0] and flags[1] and not (flags[0] or equal_nan):
                # NumPy's inverse without return_index comes from an unstable sort: its
                # distinct NaNs take their numbers in any order.
                nan, h = np.isnan(a), g.to_numpy()
                assert h.shape == w.shape and h.dtype == w.dtype
                np.testing.assert_array_equal(h[~nan], w[~nan])
                assert sorted(h[nan]) == sorted(w[nan])
                continue
            assert_equal(g, w)
        if any(flags) and flags[1]:  # the inverse is laid out as ar
            assert got[1 + flags[0]]._layout == x._layout


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: "".join("ivc"[i] for i in range(3) if f[i]))
@pytest.mark.parametrize(
    "kind", ["nans", "one-nan", "all-nan", "inf", "float32", "3d", "plain", "int", "bool"]
)
def test_unique_matches_numpy(kind, flags, equal_nan):
    check(data(kind), flags, equal_nan)


@pytest.mark.parametrize("flags", [(False,) * 3, (True,) * 3])
def test_empty_and_0d(flags):
    check(np.zeros((0, 3)), flags, True)
    check(np.zeros((3, 0)), flags, True)
    check(np.array(np.nan), flags, True)
    check(np.array(2.5), flags, False)


@pytest.mark.skipif(BACKEND.name != "numpy", reason="complex sorting: the NumPy backend only")
def test_complex_nans_are_one_value():
    a = np.array([1 + 1j, complex(np.nan, 1), 2, complex(1, np.nan), 1 + 1j, np.nan, 2])
    for flags in FLAGS:
        check(a, flags, True)
        check(a, flags, False)


def test_collectives():
    """The set functions' messages, and one allreduce counting the NaNs of a split floating
    array with equal_nan (none for a replicated one)."""
    a = data("nans")
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as base:
            xdist.unique_all(x)
        with xdist.count_collectives() as counts:
            xdist.unique(x, True, True, True)
        extra = Counter() if x.split is None or SIZE == 1 else Counter(allreduce=1)
        assert counts == base + extra
        with xdist.count_collectives() as counts:
            xdist.unique(x, True, True, True, equal_nan=False)
        assert counts == base


def test_sorted_false_gives_sorted_values():
    a = data("nans")
    x = distribute(a, 0)
    assert_equal(xdist.unique(x, sorted=False), np.unique(a))


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"axis": 0}, NotImplementedError, "unique: the argument axis is not supported"),
        ({"return_index": 1}, TypeError, "unique: return_index must be a bool"),
        ({"equal_nan": None}, TypeError, "unique: equal_nan must be a bool"),
    ],
)
def test_bad_arguments_raise_before_any_message(kwargs, exc, match):
    x = distribute(data("nans"), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            xdist.unique(x, **kwargs)
        with pytest.raises(TypeError, match="unique: ar must be an xdist array"):
            xdist.unique(np.ones(3))
    assert counts == Counter()
