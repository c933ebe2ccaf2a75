"""NumPy's methods on xdist arrays (``x.astype(np.float32)``, ``x.sum(axis=0)``,
``x.reshape(3, -1)``, ``x.item()``, ...), as code written for NumPy arrays or Torch tensors
calls them: each against NumPy's method on the same global data, at every layout (split along
each axis, uneven blocks, empty blocks), on 0-d and size-0 arrays, with every implicit gather
an error (a method never falls back to gathering)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import (
    BACKEND,
    DEFAULTS,
    assert_equal,
    assert_same_on_every_rank,
    backend_rtol,
    defaulted,
    distribute,
    layout_id,
    layouts,
    random_array,
    without_gathers,
)

import xdist

# 7 rows: uneven blocks at 3 ranks; 2 rows: an empty block at 3 ranks; 0 rows: size 0.
SHAPES = [(7, 3), (2, 3), (0, 3), (7,), ()]
CASES = [
    pytest.param(shape, case, id=f"{shape}-{layout_id(case)}")
    for shape in SHAPES
    for case in layouts(shape)
]


def _data(shape, kind: str) -> np.ndarray:
    g = np.asarray(random_array(shape, "float64", seed=3))
    if kind == "i":
        g = np.round(g * 10).astype(np.int64)
    elif kind == "b":
        g = g > 0
    return np.array(g)  # an array, 0-d included (NumPy's 0-d results are scalars)


def _m(name, call, ndim=0, kind="f", rtol=None, floating=False, keeps=False):
    """A method call: ``call(a)`` on a NumPy array and on an xdist array of the same data
    (``kind``: float64, int64 or bool data), for arrays of at least ``ndim`` dimensions;
    ``floating``: NumPy's float64 result is the backend's default floating dtype in xdist
    (a mean of integers); ``keeps``: the result keeps the input's layout."""
    return pytest.param(call, ndim, kind, rtol, floating, keeps, id=name)


METHODS = [
    _m("astype(np.float32)", lambda a: a.astype(np.float32), keeps=True),
    _m("astype('float32')", lambda a: a.astype("float32"), keeps=True),
    _m("astype(float)", lambda a: a.astype(float), kind="i", keeps=True),
    _m("astype(int)", lambda a: a.astype(int), keeps=True),
    _m("astype(bool)", lambda a: a.astype(bool), keeps=True),
    _m("astype(np.dtype, copy=False)", lambda a: a.astype(np.dtype("float64"), copy=False)),
    _m("sum()", lambda a: a.sum()),
    _m("sum(axis=0)", lambda a: a.sum(axis=0), ndim=1),
    _m("sum(axis=-1, keepdims)", lambda a: a.sum(axis=-1, keepdims=True), ndim=1),
    _m("sum(int)", lambda a: a.sum(axis=0), ndim=1, kind="i"),
    _m("sum(bool)", lambda a: a.sum(), kind="b"),
    _m("sum(dtype=np.float32)", lambda a: a.sum(dtype=np.float32), rtol=1e-5),
    _m("prod(axis=0)", lambda a: a.prod(axis=0), ndim=1),
    _m("prod(int)", lambda a: a.prod(axis=-1), ndim=1, kind="i"),
    _m("mean()", lambda a: a.mean()),
    _m("mean(axis=0)", lambda a: a.mean(axis=0), ndim=1),
    _m("mean(axis=1, keepdims)", lambda a: a.mean(axis=1, keepdims=True), ndim=2),
    _m("mean(int)", lambda a: a.mean(axis=0), ndim=1, kind="i", floating=True),
    _m("mean(bool)", lambda a: a.mean(), kind="b", floating=True),
    _m("mean(dtype='float32')", lambda a: a.mean(dtype="float32"), rtol=1e-5),
    _m("max()", lambda a: a.max()),
    _m("max(axis=0)", lambda a: a.max(axis=0), ndim=1),
    _m("min(axis=-1, keepdims)", lambda a: a.min(axis=-1, keepdims=True), ndim=1),
    _m("min(int)", lambda a: a.min(), kind="i"),
    _m("std()", lambda a: a.std()),
    _m("std(ddof=1)", lambda a: a.std(ddof=1)),
    _m("std(axis=0, ddof=1)", lambda a: a.std(axis=0, ddof=1), ndim=1),
    _m("np.std(correction=1)", lambda a: np.std(a, axis=-1, correction=1), ndim=1),
    _m("var()", lambda a: a.var()),
    _m("var(axis=1, keepdims)", lambda a: a.var(axis=1, keepdims=True), ndim=2),
    _m("var(int, ddof=1)", lambda a: a.var(axis=0, ddof=1), ndim=1, kind="i", floating=True),
    _m("any()", lambda a: a.any(), kind="b"),
    _m("any(axis=0)", lambda a: a.any(axis=0), ndim=1, kind="b"),
    _m("all(axis=-1, keepdims)", lambda a: a.all(axis=-1, keepdims=True), ndim=1, kind="b"),
    _m("any(float)", lambda a: a.any(axis=0), ndim=1),
    _m("argmax()", lambda a: a.argmax()),
    _m("argmax(axis=0)", lambda a: a.argmax(axis=0), ndim=1),
    _m("argmin(axis=-1, keepdims)", lambda a: a.argmin(axis=-1, keepdims=True), ndim=1),
    _m("cumsum()", lambda a: a.cumsum(), kind="i"),
    _m("cumsum(axis=0)", lambda a: a.cumsum(axis=0), ndim=1),
    _m("cumsum(axis=-1)", lambda a: a.cumsum(axis=-1), ndim=1, kind="i"),
    _m("reshape(-1)", lambda a: a.reshape(-1)),
    _m("reshape(tuple)", lambda a: a.reshape(a.shape[::-1])),
    _m("reshape(*shape)", lambda a: a.reshape(*a.shape[::-1]), ndim=1),
    _m("reshape(n, -1)", lambda a: a.reshape(a.shape[-1], -1), ndim=1),
    _m("reshape(copy=True)", lambda a: a.reshape(-1, copy=True)),
    _m("ravel()", lambda a: a.ravel()),
    _m("flatten()", lambda a: a.flatten()),
    _m("copy()", lambda a: a.copy(), keeps=True),
    _m("transpose()", lambda a: a.transpose()),
    _m("transpose(*axes)", lambda a: a.transpose(*range(a.ndim)[::-1]), ndim=1),
    _m("transpose(tuple)", lambda a: a.transpose(tuple(range(a.ndim))[::-1])),
    _m("transpose(None)", lambda a: a.transpose(None)),
    _m("squeeze()", lambda a: a[None].squeeze()),
    _m("squeeze(axis=0)", lambda a: a[None].squeeze(axis=0)),
    _m("clip(min, max)", lambda a: a.clip(-0.5, 0.5), keeps=True),
    _m("clip(max=)", lambda a: a.clip(max=0.25), keeps=True),
    _m("clip(int)", lambda a: a.clip(-3, 3), kind="i", keeps=True),
    _m("clip(int, float bounds)", lambda a: a.clip(-2.5, 3.5), kind="i", floating=True),
    _m("clip(bool, min=)", lambda a: a.clip(min=0.5), kind="b", floating=True),
    _m("round()", lambda a: a.round(), keeps=True),
    _m("round(2)", lambda a: a.round(2), keeps=True),
    _m("dot(scalar)", lambda a: a.dot(2.0), keeps=True),
    _m("dot(itself)", lambda a: a.dot(a), ndim=1, rtol=1e-12),
    _m("dot(a.T)", lambda a: a.dot(a.T), ndim=2, rtol=1e-12),
    _m("dot(ndarray)", lambda a: a.dot(np.linspace(-1.0, 1.0, 3)), ndim=2, rtol=1e-12),
    _m("nonzero()", lambda a: a.nonzero(), ndim=1),
    _m("nonzero(bool)", lambda a: a.nonzero(), ndim=1, kind="b"),
    _m("cumprod()", lambda a: a.cumprod(), kind="i"),
    _m("cumprod(axis=0)", lambda a: a.cumprod(axis=0), ndim=1, rtol=1e-12),
    _m("argsort(axis=0)", lambda a: a.argsort(axis=0, kind="stable"), ndim=1),
    _m("argsort(int)", lambda a: a.argsort(kind="stable"), ndim=1, kind="i"),
    _m("argsort(None)", lambda a: a.argsort(axis=None, kind="stable")),
    _m("take(list)", lambda a: a.take([0, -1, 0]), ndim=1),
    _m("take(axis=-1)", lambda a: a.take(np.array([2, 0]), axis=-1), ndim=2),
    _m("repeat(2)", lambda a: a.repeat(2)),
    _m("repeat(2, axis=0)", lambda a: a.repeat(2, axis=0), ndim=1),
    _m("swapaxes(0, 1)", lambda a: a.swapaxes(0, 1), ndim=2),
    _m("diagonal()", lambda a: a.diagonal(), ndim=2),
    _m("diagonal(1)", lambda a: a.diagonal(1), ndim=2),
    _m("trace()", lambda a: a.trace(), ndim=2, rtol=1e-12),
    _m("conj()", lambda a: a.conj(), keeps=True),
    _m("real", lambda a: a.real, keeps=True),
    _m("imag", lambda a: a.imag, keeps=True),
]


def _expected(call, g):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of nothing
        return call(g)


def _compare(got, expected, rtol, floating) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for a, b in zip(got, expected):
            _compare(a, b, rtol, floating)
        return
    expected = np.asarray(expected)
    if floating:
        expected = defaulted(expected)
    if expected.dtype.kind in "fc":  # sums reassociate
        rtol = max(rtol or 1e-12, backend_rtol(expected.dtype))
        assert_equal(got, expected, rtol=rtol, atol=rtol)
    else:
        assert_equal(got, expected)


@pytest.mark.parametrize("shape, case", CASES)
@pytest.mark.parametrize("call, ndim, kind, rtol, floating, keeps", METHODS)
def test_method_against_numpy(shape, case, call, ndim, kind, rtol, floating, keeps):
    if len(shape) < ndim:
        pytest.skip(f"needs at least {ndim} dimensions")
    g = _data(shape, kind)
    x = distribute(g, *case)
    try:
        expected = _expected(call, g)
    except (ValueError, IndexError) as err:  # a reduction of nothing: NumPy raises
        with pytest.raises(type(err)):
            without_gathers(call, x)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (a mean of nothing, as NumPy's)
        got = without_gathers(call, x)
    _compare(got, expected, rtol, floating)
    if keeps:
        assert got.layout == x.layout, (got.layout, x.layout)


@pytest.mark.parametrize("shape, case", CASES)
def test_item_and_tolist_are_the_same_on_every_rank(shape, case):
    g = _data(shape, "f")
    x = distribute(g, *case)
    assert without_gathers(x.tolist) == g.tolist()
    picks = [()] if g.size == 1 else []
    if g.size:
        picks += [(0,), (g.size - 1,), (-1,), (g.size // 2,)]
        picks.append(tuple(n - 1 for n in shape))
        picks.append((tuple(n // 2 for n in shape),))
    for args in picks:
        got = without_gathers(x.item, *args)
        assert type(got) is float and got == g.item(*args), (args, got)
        assert_same_on_every_rank(got)


@pytest.mark.parametrize("kind", ["f", "i", "b"])
def test_item_and_tolist_give_python_scalars_of_the_kind(kind):
    g = _data((7, 3), kind)
    x = distribute(g, 0)
    assert x.item(5) == g.item(5) and type(x.item(5)) is type(g.item(5))
    assert x.tolist() == g.tolist()
    assert type(x.tolist()[6][2]) is type(g.tolist()[6][2])
    assert distribute(g[2, 1], None).tolist() == g[2, 1].tolist()  # 0-d: a scalar


@pytest.mark.parametrize("shape, case", CASES)
@pytest.mark.parametrize(
    "kind, value", [("f", 2.5), ("f", np.float32(-1.0)), ("i", 2.7), ("b", 1), ("i", True)]
)
def test_fill(shape, case, kind, value):
    g = _data(shape, kind)
    x = distribute(g, *case)
    g.fill(value)
    assert x.fill(value) is None
    assert_equal(x, g)


def test_fill_writes_through_a_view_at_every_rank_count():
    g = _data((7, 3), "f")
    x = distribute(g, 0)
    x[2:5].fill(9.0)
    g[2:5].fill(9.0)
    assert_equal(x, g)
    x[3].fill(-1.0)  # a row: moved at more than one rank, written back
    g[3].fill(-1.0)
    assert_equal(x, g)


def test_view_of_the_own_dtype_is_a_view_at_every_rank_count():
    """``x.view()`` and ``x.view(<its dtype>)`` (SciPy's ``RBFInterpolator`` calls
    ``d.view(float)`` on float64 data): the same elements, and a write through the view
    reaches ``x``; reading the bytes as another dtype is refused."""
    g = _data((7, 3), "f")
    for case in layouts(g.shape):
        x = distribute(g, *case)
        for v in (x.view(), x.view(x.dtype), x.view(np.dtype(x.dtype).type)):
            assert v.dtype == x.dtype and v.layout == x.layout
            assert_equal(v, g)
        v = x.view()
        v[1:3] = 5.0
        want = g.copy()
        want[1:3] = 5.0
        assert_equal(x, want)
    x = distribute(g, 0)
    other = np.int32 if x.dtype == np.float32 else np.int64
    with pytest.raises(TypeError, match=r"Array.view: reading float.* elements as int"):
        x.view(other)
    with pytest.raises(TypeError, match=r"Array.view: type=type not supported"):
        x.view(type=np.ndarray)


def test_nonzero_results_stay_split():
    g = _data((7, 3), "f")
    x = distribute(g, 0)
    rows, cols = x.nonzero()
    assert rows.split == 0 and cols.split == 0


def test_sklearn_logsumexp_style():
    """A NumPy function's xdist result used with NumPy's methods, as scikit-learn's
    ``_logsumexp`` does (``np.max``, then ``.astype``, ``np.exp``, ``.sum``, ``np.log``)."""
    g = _data((7, 3), "f")
    x = distribute(g, 0)

    def logsumexp(a, axis):
        m = np.max(a, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0).astype(a.dtype, copy=False)
        s = np.exp(a - m).sum(axis=axis, keepdims=True)
        out = np.log(s) + m
        return out.squeeze(axis=axis).astype(np.float64)

    got = without_gathers(logsumexp, x, 1)
    assert isinstance(got, xdist.Array) and got.split == 0
    assert_equal(got, logsumexp(g, 1), rtol=1e-12, atol=1e-12)
    total = without_gathers(logsumexp, x, 0)
    assert_equal(total, logsumexp(g, 0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dispatch", [False, True], ids=["numpy-path", "array-api-dispatch"])
def test_sklearn_logsumexp(dispatch):
    """scikit-learn's own ``_logsumexp`` on a split array. Dispatch off, its NumPy namespace
    calls ``np.max`` (an xdist result) and ``.astype`` on that result, beside its own
    conversion of the input to NumPy (a gather scikit-learn asks for); dispatch on, the
    namespace's functions keep the rows split and gather nothing."""
    sklearn = pytest.importorskip("sklearn")
    logsumexp = getattr(pytest.importorskip("sklearn.utils._array_api"), "_logsumexp", None)
    if logsumexp is None:
        pytest.skip("this scikit-learn has no sklearn.utils._array_api._logsumexp")
    g = _data((7, 3), "f")
    x = distribute(g, 0)
    expected = logsumexp(g, axis=1)
    with sklearn.config_context(array_api_dispatch=dispatch):
        if not dispatch:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", xdist.GatherWarning)
                got = logsumexp(x, axis=1)
            np.testing.assert_allclose(xdist.asarray(got).to_numpy(), expected, rtol=1e-12)
            return
        got = without_gathers(logsumexp, x, axis=1)
    assert isinstance(got, xdist.Array) and got.split == 0
    assert_equal(got, expected, rtol=1e-12, atol=1e-12)


def test_torch_style_float32_default():
    """Integer means are in the backend's default real floating dtype (float32 under
    Torch), as NumPy's are in its default, float64."""
    x = distribute(_data((7, 3), "i"), 0)
    assert x.mean().dtype == DEFAULTS["real floating"]
    assert x.astype(float).dtype == np.float64  # Python's float is NumPy's float64


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda x: x.sum(out=np.zeros(3)), TypeError, r"Array.sum: out=ndarray not supported"),
        (lambda x: x.max(initial=0.0), TypeError, r"Array.max: initial=0.0 not supported"),
        (lambda x: x.mean(where=False), TypeError, r"Array.mean: where=False not supported"),
        (lambda x: x.cumsum(out=x), TypeError, r"Array.cumsum: out=Array not supported"),
        (lambda x: x.astype(np.float16), TypeError, r"Array.astype: .*float16.* not a standard"),
        (lambda x: x.astype("nonsense"), TypeError, r"Array.astype: dtype='nonsense' is not"),
        (lambda x: x.astype(float, order="F"), TypeError, r"Array.astype: order='F' not"),
        (lambda x: x.reshape(), TypeError, r"Array.reshape: takes the new shape"),
        (lambda x: x.reshape(5, 5), ValueError, r"reshape: cannot reshape"),
        (lambda x: x.ravel(order="F"), TypeError, r"Array.ravel: order='F' not supported"),
        (lambda x: x.item(), ValueError, r"Array.item: can only convert an array of size 1"),
        (lambda x: x.item(21), IndexError, r"Array.item: index 21 is out of bounds for size 21"),
        (lambda x: x.item(1, 2, 3), ValueError, r"Array.item: incorrect number of indices"),
        (lambda x: x.item(1.0), TypeError, r"Array.item: the indices must be integers"),
        (lambda x: x.fill(np.ones(2)), ValueError, r"Array.fill: value must be a scalar"),
        (lambda x: np.std(x, ddof=1, correction=1), ValueError, r"np.std: ddof and correction"),
        (lambda x: x.dot(x, out=x), TypeError, r"Array.dot: out=Array not supported"),
    ],
)
def test_unsupported_arguments_raise_before_any_message(call, error, message):
    x = distribute(_data((7, 3), "f"), 0)
    with xdist.count_collectives() as counts, pytest.raises(error, match=message):
        call(x)
    assert not dict(counts), dict(counts)


def test_standard_attributes_are_unchanged():
    x = distribute(_data((7, 3), "f"), 0)
    assert_equal(x.T, _data((7, 3), "f").T)
    assert x.__array_namespace__() is xdist
    assert x.to_device(x.device) is x


@pytest.mark.skipif(BACKEND.name != "torch", reason="the Torch backend's blocks")
def test_methods_on_torch_blocks_return_xdist_arrays():
    x = distribute(_data((7, 3), "f"), 1)
    for got in (x.sum(axis=0), x.astype(np.float32), x.reshape(3, 7), x.transpose()):
        assert isinstance(got, xdist.Array)


@pytest.mark.parametrize("shape, case", CASES)
def test_sort_in_place_searchsorted_and_sizes(shape, case):
    g = _data(shape, "f")
    x = distribute(g.copy(), *case)
    if g.ndim == 0:  # NumPy: axis -1 is out of bounds for a 0-d array
        with pytest.raises((ValueError, IndexError)):
            x.sort()
        return
    assert (x.nbytes, x.itemsize) == (g.nbytes, g.itemsize)
    assert without_gathers(x.sort, axis=0) is None
    assert_equal(x, np.sort(g, axis=0))
    if g.ndim == 1:
        values = np.array([-0.5, 0.0, 0.25])
        assert_equal(without_gathers(x.searchsorted, values), np.sort(g).searchsorted(values))
