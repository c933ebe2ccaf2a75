"""The 2025.12 edition of the standard and the choice of edition (``api_version``):
``__array_api_version__``, ``x.__array_namespace__(api_version=...)``, ``XDIST_API_VERSION``,
tuples (2025.12) or lists (earlier) from ``meshgrid``, ``broadcast_arrays`` and ``devices()``;
and 2025.12's changes to existing functions on every layout against NumPy on the same data:
``expand_dims`` with a tuple of axes, ``permute_dims`` with negative axes, ``searchsorted``
of a Python scalar, ``isin`` with Python ints, ``broadcast_shapes``. (``eig``/``eigvals`` are in
test_linalg.py, ``isin`` of arrays in test_set_functions.py.)"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import assert_equal, distribute, layout_id, layouts, own_processes, random_array
from hypothesis import given
from hypothesis import strategies as st
from property_strategies import ALL, distributed, laid_out, shapes

import xdist

EDITIONS = ["2021.12", "2022.12", "2023.12", "2024.12", "2025.12"]


# -- choosing the edition --------------------------------------------------------------------
def test_default_edition_is_2025_12():
    assert xdist.__array_api_version__ == "2025.12"
    assert xdist.get_config().api_version == "2025.12"
    x = distribute(np.arange(3.0), 0)
    assert x.__array_namespace__() is xdist
    assert x.__array_namespace__(api_version="2025.12") is xdist


@pytest.mark.parametrize("version", EDITIONS)
def test_setting_chooses_the_edition(version):
    a = distribute(np.arange(3.0), 0)
    b = distribute(np.arange(2.0), None)
    sequence = tuple if version >= "2025.12" else list
    with xdist.config_context(api_version=version):
        assert xdist.__array_api_version__ == version
        assert type(xdist.meshgrid(a, b)) is sequence
        assert type(xdist.meshgrid()) is sequence
        assert type(xdist.broadcast_arrays(a)) is sequence
        assert type(xdist.__array_namespace_info__().devices()) is sequence
        assert a.__array_namespace__() is xdist
    assert xdist.__array_api_version__ == "2025.12"


@pytest.mark.parametrize("version", EDITIONS[:-1])
def test_array_namespace_of_an_earlier_edition(version):
    """A namespace of that edition, without changing the setting; every other name is
    xdist's own."""
    g = random_array((5, 3), seed=3)
    x = distribute(g, 0)
    ns = x.__array_namespace__(api_version=version)
    assert ns is not xdist and ns is x.__array_namespace__(api_version=version)
    assert ns.__array_api_version__ == version
    assert xdist.__array_api_version__ == "2025.12"  # unchanged
    assert ns.sum is xdist.sum and ns.linalg is xdist.linalg and ns.float64 is xdist.float64
    grids = ns.meshgrid(distribute(g[:, 0], 0), distribute(g[0], None), indexing="ij")
    assert type(grids) is list
    for got, want in zip(grids, np.meshgrid(g[:, 0], g[0], indexing="ij")):
        assert_equal(got, want)
    assert type(ns.broadcast_arrays(x, distribute(g[0], None))) is list
    assert type(ns.__array_namespace_info__().devices()) is list
    assert type(xdist.meshgrid(x[:, 0])) is tuple  # xdist itself still 2025.12


@pytest.mark.parametrize("bad", ["2026.12", "2024", 2024.12, "draft"])
def test_unknown_editions_raise(bad):
    x = distribute(np.arange(3.0), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(ValueError, match="__array_namespace__: unsupported api_version"):
            x.__array_namespace__(api_version=bad)
        with pytest.raises(ValueError, match="set_config: api_version"):
            xdist.set_config(api_version=bad)
    assert sum(counts.values()) == 0
    assert xdist.__array_api_version__ == "2025.12"


@own_processes
def test_environment_variable():
    code = (
        "import xdist; x = xdist.arange(3)\n"
        "print(xdist.__array_api_version__, type(xdist.meshgrid(x)).__name__)"
    )
    env = dict(os.environ, XDIST_API_VERSION="2024.12", XDIST_COMM="self")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.split() == ["2024.12", "list"], done.stderr
    env["XDIST_API_VERSION"] = "2024"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "XDIST_API_VERSION" in done.stderr


# -- expand_dims with a tuple of axes -------------------------------------------------------------
_EXPAND = [(), (0,), (2,), (0, 1), (-1, 0), (1, 3, -1), (3, -4), (-4, -3, 0)]


@pytest.mark.parametrize("axes", _EXPAND, ids=str)
@pytest.mark.parametrize("case", layouts((7, 2)), ids=layout_id)
def test_expand_dims_tuple(case, axes):
    g = random_array((7, 2), seed=4)
    x = distribute(g, *case)
    with xdist.count_collectives() as counts:
        y = xdist.expand_dims(x, axis=axes)
    assert sum(counts.values()) == 0  # local: the split axis moves with the others
    want = np.expand_dims(g, axes)
    assert_equal(y, want)
    if x.split is not None:
        assert y.shape[y.split] == x.shape[x.split] and y.counts == x.counts
    # a view, as NumPy's: a write into it reaches x
    if y.size:
        y[(0,) * y.ndim] = 100.0
        g = g.copy()
        g[0, 0] = 100.0
        assert_equal(x, g)


@pytest.mark.parametrize(
    "axes, error",
    [
        ((0, 0), ValueError),
        ((3, -1), ValueError),
        ((4,), IndexError),
        ((-5,), IndexError),
        ([0], TypeError),
        ((0.5,), TypeError),
        (None, TypeError),
    ],
    ids=str,
)
def test_expand_dims_bad_tuples_raise_before_any_message(axes, error):
    x = distribute(np.ones((3, 2)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(error, match="expand_dims"):
            xdist.expand_dims(x, axis=axes)
    assert sum(counts.values()) == 0


# -- permute_dims with negative axes ---------------------------------------------------------------
@pytest.mark.parametrize("axes", [(-1, -3, -2), (2, -3, 1), (-3, -2, -1)], ids=str)
@pytest.mark.parametrize("case", layouts((5, 3, 2)), ids=layout_id)
def test_permute_dims_negative_axes(case, axes):
    g = random_array((5, 3, 2), "int32", seed=5)
    x = distribute(g, *case)
    with xdist.count_collectives() as counts:
        y = xdist.permute_dims(x, axes)
    assert sum(counts.values()) == 0
    assert_equal(y, np.transpose(g, axes))


@pytest.mark.parametrize("axes", [(-1, 2, 0), (0, 1, -4), (0, 1)], ids=str)
def test_permute_dims_bad_negative_axes(axes):
    x = distribute(np.ones((5, 3, 2)), 1)
    with pytest.raises((ValueError, IndexError), match="permute_dims"):
        xdist.permute_dims(x, axes)


# -- searchsorted of a Python scalar, isin with Python ints, broadcast_shapes ---------------------
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("case", layouts((8,)), ids=layout_id)
def test_searchsorted_python_scalars(case, side):
    g = np.array([-2.0, 0.0, 0.0, 1.5, 3.0, 3.0, 3.0, 9.0])
    x = distribute(g, *case)
    for v in (-5, 0, 0.0, 3, 2.5, 9.0, 10, float("inf")):
        got = xdist.searchsorted(x, v, side=side)
        assert got.ndim == 0 and got.split is None
        assert_equal(got, np.asarray(np.searchsorted(g, v, side=side), dtype=got.dtype))


@pytest.mark.parametrize("case", layouts((7,)), ids=layout_id)
def test_isin_python_int_on_every_layout(case):
    g = np.array([3, 1, 4, 1, 5, 9, 2], dtype=np.int64)
    x = distribute(g, *case)
    for v in (1, 7, 9):
        assert_equal(xdist.isin(x, v), np.isin(g, v))
        assert_equal(xdist.isin(v, x), np.asarray(np.isin(v, g)))
        assert_equal(xdist.isin(x, v, invert=True), np.isin(g, v, invert=True))


def test_broadcast_shapes_matches_numpy():
    for shapes_ in [((2, 1), (3,)), ((0,), (1,)), ((5, 1, 4), (3, 1), ()), ((1,),)]:
        assert xdist.broadcast_shapes(*shapes_) == np.broadcast_shapes(*shapes_)
    for bad in [((2,), (3,)), ((2, 3), (3, 2))]:
        with pytest.raises(ValueError, match="broadcast_shapes"):
            xdist.broadcast_shapes(*bad)


# -- drawn: the 2025.12 changes on random shapes and layouts, against NumPy -----------------------
@given(data=st.data())
def test_property_expand_dims_tuple(data):
    x = data.draw(distributed(data.draw(st.sampled_from(ALL)), shapes(max_dims=3, max_side=4)))
    k = data.draw(st.integers(1, 3))  # () is in test_expand_dims_tuple
    m = x.ndim + k
    axes = tuple(data.draw(st.lists(st.integers(-m, m - 1), min_size=k, max_size=k)))
    g = x.to_numpy()
    if len({a % m for a in axes}) < len(axes):
        with pytest.raises(ValueError, match="expand_dims"):
            xdist.expand_dims(x, axis=axes)
        return
    assert_equal(xdist.expand_dims(x, axis=axes), np.expand_dims(g, axes))


@given(data=st.data())
def test_property_permute_dims_negative(data):
    x = data.draw(distributed(data.draw(st.sampled_from(ALL)), shapes(max_side=4)))
    perm = data.draw(st.permutations(range(x.ndim)))
    axes = tuple(a - x.ndim if data.draw(st.booleans()) else a for a in perm)
    assert_equal(xdist.permute_dims(x, axes), np.transpose(x.to_numpy(), perm))


@given(data=st.data())
def test_property_searchsorted_scalar(data):
    dtype = data.draw(st.sampled_from(["int16", "int64", "float32", "float64"]))
    n = data.draw(st.integers(0, 9))
    values = st.integers(-5, 5)
    g = np.sort(np.array(data.draw(st.lists(values, min_size=n, max_size=n)), dtype=dtype))
    x = data.draw(laid_out(g))
    v = data.draw((values | st.floats(-6, 6)) if dtype[0] == "f" else values)
    side = data.draw(st.sampled_from(["left", "right"]))
    got = xdist.searchsorted(x, v, side=side)
    assert int(got) == np.searchsorted(g, v, side=side)
