"""gradient (xdist's extension, NumPy's meaning) against NumPy bit for bit on the same global
data: no spacing, a scalar, uniform and uneven coordinates, edge orders 1 and 2, every axis
and layout (uneven and empty blocks), dtypes, no gather, np.gradient dispatching."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, distribute, layouts, without_gathers

import xdist

RNG = np.random.default_rng(0)
UNEVEN = np.cumsum(RNG.random(7)) + 1.0
SPACINGS = [
    ((), {"axis": 0}),
    ((UNEVEN,), {"axis": 0}),
    ((np.arange(7) * 0.5,), {"axis": 0}),
    ((2.0,), {"axis": 1}),
    ((), {}),
    ((UNEVEN, 0.3), {}),
    ((UNEVEN,), {"axis": 0, "edge_order": 2}),
    ((), {"axis": -1, "edge_order": 2}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("args,kwargs", SPACINGS, ids=[str(i) for i in range(len(SPACINGS))])
def test_gradient_matches_numpy(args, kwargs, dtype):
    a = (np.random.default_rng(1).standard_normal((7, 4)) * 10).astype(dtype)
    want = np.gradient(a, *args, **kwargs)
    wants = want if isinstance(want, tuple) else (want,)
    for case in layouts(a.shape):
        got = without_gathers(xdist.gradient, distribute(a, *case), *args, **kwargs)
        gots = got if isinstance(got, tuple) else (got,)
        assert len(gots) == len(wants)
        for g, w in zip(gots, wants):
            assert_equal(g, w, rtol=1e-6 if dtype == "float32" else 0.0)


def test_short_blocks_and_numpy_dispatch():
    a = np.arange(9.0) ** 2
    for n in (3, 4, 9):
        for case in layouts((n,)):
            x = distribute(a[:n], *case)
            assert_equal(xdist.gradient(x), np.gradient(a[:n]))
            assert_equal(without_gathers(np.gradient, x, 0.5), np.gradient(a[:n], 0.5))


def test_an_axis_that_is_not_split_sends_nothing():
    x = distribute(np.random.default_rng(2).standard_normal((6, 5)), 0)
    with xdist.count_collectives() as counts:
        xdist.gradient(x, axis=1)
    assert counts == Counter()


@pytest.mark.parametrize(
    "args,kwargs,exc,match",
    [
        ((), {"edge_order": 3}, ValueError, "edge_order must be 1 or 2"),
        ((np.ones(3),), {"axis": 0}, ValueError, "must be 1-D of length 7"),
        ((1.0, 2.0, 3.0), {}, TypeError, "give no spacing"),
    ],
)
def test_bad_arguments_raise_before_any_message(args, kwargs, exc, match):
    x = distribute(np.ones((7, 2)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=f"gradient: .*{match}"):
            xdist.gradient(x, *args, **kwargs)
    assert counts == Counter()
    with pytest.raises(ValueError, match="at least 3"):
        xdist.gradient(distribute(np.ones(2), 0), edge_order=2)
