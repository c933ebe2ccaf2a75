"""NumPy (and Torch) beside xdist arrays never leave xdist silently: NumPy arrays and scalars are
replicated operands, NumPy's ufuncs and functions with a counterpart dispatch to the namespace,
anything else warns as a gather; against NumPy on the same data at every layout."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import (
    BACKEND,
    SIZE,
    assert_equal,
    defaulted,
    distribute,
    layout_id,
    layouts,
    random_array,
    without_gathers,
)

import xdist

SHAPE = (7, 3)
CASES = [pytest.param(case, id=layout_id(case)) for case in layouts(SHAPE)]
G = random_array(SHAPE, seed=5)
H = random_array(SHAPE, seed=6)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "op",
    [
        pytest.param(lambda x, h: x + h, id="x+ndarray"),
        pytest.param(lambda x, h: h - x, id="ndarray-x"),
        pytest.param(lambda x, h: x * h[0], id="x*row"),
        pytest.param(lambda x, h: np.float32(2) * x, id="np.float32*x"),
        pytest.param(lambda x, h: x / np.float64(3), id="x/np.float64"),
        pytest.param(lambda x, h: x < h, id="x<ndarray"),
        pytest.param(lambda x, h: np.exp(x), id="np.exp"),
        pytest.param(lambda x, h: np.add(h, x), id="np.add"),
        pytest.param(lambda x, h: np.arctan2(x, h), id="np.arctan2"),
        pytest.param(lambda x, h: np.power(np.abs(x), 2), id="np.power"),
        pytest.param(lambda x, h: np.maximum(x, 0.5), id="np.maximum"),
    ],
)
def test_numpy_operands_and_ufuncs_stay_distributed(case, op, recwarn):
    x = distribute(G, *case)
    got = op(x, H)
    assert isinstance(got, xdist.Array), type(got)
    expected = op(G, H)
    assert_equal(got, np.asarray(expected, dtype=expected.dtype))
    assert not [w for w in recwarn if issubclass(w.category, xdist.GatherWarning)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "func",
    [
        pytest.param(lambda a: np.sum(a), id="sum"),
        pytest.param(lambda a: np.mean(a, axis=0), id="mean0"),
        pytest.param(lambda a: np.std(a, axis=1, ddof=1), id="std1-ddof1"),
        pytest.param(lambda a: np.var(a, keepdims=True), id="var-keepdims"),
        pytest.param(lambda a: np.max(a, axis=0), id="max0"),
        pytest.param(lambda a: np.argmin(a, axis=1), id="argmin1"),
        pytest.param(lambda a: np.cumsum(a, axis=0), id="cumsum0"),
        pytest.param(lambda a: np.concatenate([a, a], axis=0), id="concatenate"),
        pytest.param(lambda a: np.transpose(a), id="transpose"),
        pytest.param(lambda a: np.reshape(a, (3, 7)), id="reshape"),
        pytest.param(lambda a: np.where(a > 0, a, 0.0), id="where"),
        pytest.param(lambda a: np.clip(a, -0.5, 0.5), id="clip"),
        pytest.param(lambda a: np.sort(a, axis=0), id="sort0"),
        pytest.param(lambda a: np.zeros_like(a), id="zeros_like"),
        pytest.param(lambda a: np.ones_like(a, dtype="float32"), id="ones_like-float32"),
        pytest.param(lambda a: np.full_like(a, 2.5), id="full_like"),
        pytest.param(lambda a: np.atleast_1d(a), id="atleast_1d"),
        pytest.param(lambda a: np.atleast_1d(a[0, 0]), id="atleast_1d-0d"),
        pytest.param(lambda a: np.dot(a, a.T), id="dot"),
        pytest.param(lambda a: np.ravel(a), id="ravel"),
    ],
)
def test_numpy_functions_dispatch_to_the_namespace(case, func, recwarn):
    x = distribute(G, *case)
    got = func(x)
    assert isinstance(got, xdist.Array), type(got)
    assert_equal(got, np.asarray(func(G)), rtol=1e-12, atol=1e-12)  # sums reassociate
    assert not [w for w in recwarn if issubclass(w.category, xdist.GatherWarning)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like"])
def test_numpy_creation_like_keeps_the_layout(case, name):
    """``np.empty_like(x)`` and friends are xdist arrays laid out as ``x`` (SciPy makes its
    output arrays so): nothing gathered, no message."""
    x = distribute(G, *case)
    with xdist.count_collectives() as sent:
        got = without_gathers(getattr(np, name), x, np.int32)
    assert not dict(sent), dict(sent)
    assert isinstance(got, xdist.Array) and got.layout == x.layout
    assert got.dtype == np.int32


def test_numpy_function_without_counterpart_warns_as_a_gather():
    """Above ``gather_warning_elements``, a split argument of a NumPy function without a
    distributed version warns as the gather it is (at one rank nothing moves: no warning)."""
    x = distribute(G, 0)
    with (
        xdist.config_context(gather_warning_elements=G.size - 1),
        warnings.catch_warnings(record=True) as seen,
    ):
        warnings.simplefilter("always", xdist.GatherWarning)
        got = np.partition(x, 2, axis=0)
    warned = [str(w.message) for w in seen if issubclass(w.category, xdist.GatherWarning)]
    assert len(warned) == (SIZE > 1), warned
    assert all(m.startswith("np.partition (xdist has no distributed version") for m in warned)
    np.testing.assert_allclose(got, np.partition(G, 2, axis=0))


@pytest.mark.parametrize("split", [None, 0])
@pytest.mark.parametrize(
    "func",
    [
        pytest.param(lambda a: np.unique(a), id="unique"),
        pytest.param(lambda a: np.percentile(a, 50), id="percentile"),
        pytest.param(lambda a: np.histogram(a, bins=3)[0], id="histogram"),
        pytest.param(lambda a: np.isclose(a, 3.0), id="isclose"),
    ],
)
def test_numpy_fallbacks_below_the_threshold_do_not_warn(func, split):
    """A fallback gathers silently below ``gather_warning_elements`` (the default, 65536),
    as every implicit gather does; a replicated argument moves nothing and never warns."""
    g = np.array([3.0, 1.0, 3.0, 2.0])
    x = distribute(g, split)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        got = func(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(func(g)))
    if split is None:  # replicated: silent whatever the threshold
        with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
            warnings.simplefilter("error", xdist.GatherWarning)
            func(x)


# 7 rows: uneven blocks at 3 ranks; 2 rows: an empty block.
WHERE_CASES = [
    pytest.param(rows, case, id=f"{rows}rows-{layout_id(case)}")
    for rows in (7, 2)
    for case in layouts((rows, 3))
]


@pytest.mark.parametrize("rows, case", WHERE_CASES)
@pytest.mark.parametrize(
    "func, default",
    [
        pytest.param(lambda c, a, h: np.where(c, 1, 0), False, id="cond,int,int"),
        pytest.param(lambda c, a, h: np.where(c, 1.0, 0), True, id="cond,float,int"),
        pytest.param(lambda c, a, h: np.where(c, True, False), False, id="cond,bool,bool"),
        pytest.param(lambda c, a, h: np.where(a, 1, 0), False, id="float-cond,int,int"),
        pytest.param(lambda c, a, h: np.where(c, a, 0.5), False, id="cond,x,scalar"),
        pytest.param(lambda c, a, h: np.where(c, -1.0, a), False, id="cond,scalar,x"),
        pytest.param(lambda c, a, h: np.where(c, a, h), False, id="cond,x,ndarray"),
        pytest.param(lambda c, a, h: np.where(c, h, -a), False, id="cond,ndarray,x"),
        pytest.param(lambda c, a, h: np.where(h > 0, a, 0.0), False, id="ndarray-cond,x,0.0"),
    ],
)
def test_where_with_scalars_and_arrays(rows, case, func, default):
    """``np.where`` on an xdist condition with Python scalars (SciPy's
    ``distance_transform_edt`` calls ``np.where(cond, 1, 0)``), arrays and NumPy operands:
    NumPy's values and dtype (floats from two Python scalars: the default real floating
    dtype), results of split inputs split like them, and no gather."""
    g, h = G[:rows], H[:rows]
    x = distribute(g, *case)
    got = without_gathers(func, x > 0, x, h)
    expected = func(g > 0, g, h)
    assert_equal(got, defaulted(expected) if default else expected)
    assert got.layout == x.layout, (got.layout, x.layout)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "condition",
    [
        pytest.param(lambda a: a > 0, id="bool"),
        pytest.param(lambda a: a, id="float"),
        pytest.param(lambda a: a[:, 0] > 0, id="1-D"),
    ],
)
def test_where_one_argument_is_nonzero(case, condition):
    """``np.where(c)`` is ``np.nonzero(c)``: a tuple of index arrays, NumPy's values at every
    rank count, split along their only axis when ``c`` is split (nothing gathered)."""
    c = condition(distribute(G, *case))
    got = without_gathers(np.where, c)
    expected = np.where(condition(G))
    assert isinstance(got, tuple) and len(got) == len(expected)
    for a, b in zip(got, expected):
        assert_equal(a, b)
        assert a.split == (None if c.split is None else 0), (a.split, c.split)


@pytest.mark.parametrize("case", CASES)
def test_where_of_python_scalars_sends_nothing(case):
    """Python scalars are the same on every rank by the SPMD rule: no checksum of them,
    whatever ``check_replicated`` says."""
    c = distribute(G, *case) > 0
    with xdist.config_context(check_replicated=True), xdist.count_collectives() as sent:
        got = np.where(c, 1, 0)
    assert not dict(sent), dict(sent)
    assert_equal(got, np.where(G > 0, 1, 0))


COUNTS = np.array([[3, 0, 2], [1, 5, 4], [0, 0, 7], [2, 2, 2], [6, 1, 0], [4, 4, 4], [1, 3, 5]])


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "func",
    [
        pytest.param(lambda a: np.sqrt(a), id="sqrt-int"),
        pytest.param(lambda a: np.sqrt(a > 2), id="sqrt-bool"),
        pytest.param(lambda a: np.log1p(a), id="log1p-int"),
        pytest.param(lambda a: np.arctan2(a, 2), id="arctan2-int"),
        pytest.param(lambda a: np.true_divide(a, a + 1), id="true_divide-int"),
        pytest.param(lambda a: np.add(a, a), id="add-int-stays-int"),
        pytest.param(lambda a: np.add.reduce(a), id="add.reduce"),
        pytest.param(lambda a: np.add.reduce(a, axis=None, dtype=np.float64), id="add.reduce-all"),
        pytest.param(lambda a: np.multiply.reduce(a + 1, axis=1, keepdims=True), id="mul.reduce"),
        pytest.param(lambda a: np.maximum.reduce(a, axis=(0, 1)), id="maximum.reduce"),
        pytest.param(lambda a: np.minimum.reduce(a, axis=1), id="minimum.reduce"),
        pytest.param(lambda a: np.logical_or.reduce(a > 4), id="logical_or.reduce"),
        pytest.param(lambda a: np.logical_and.reduce(a > 0, axis=1), id="logical_and.reduce"),
        pytest.param(lambda a: np.add.accumulate(a), id="add.accumulate"),
        pytest.param(lambda a: np.multiply.accumulate(a + 1, axis=1), id="mul.accumulate"),
        pytest.param(lambda a: np.sort(a, axis=None), id="sort-flat"),
        pytest.param(lambda a: np.argsort(a, axis=None, kind="stable"), id="argsort-flat"),
        pytest.param(lambda a: np.argsort(a, axis=0, kind="mergesort"), id="argsort-kind"),
        pytest.param(lambda a: np.sort(a, axis=1, stable=True), id="sort-stable"),
        pytest.param(lambda a: np.full_like(a, fill_value=7), id="full_like-keyword"),
    ],
)
def test_numpy_written_calls_on_integers(case, func):
    """What NumPy-written code calls on integer data: a floating-only ufunc computes in the
    floating dtype NumPy casts to (int64: float64; bool: float16 in NumPy, float32 here, the
    narrowest floating dtype xdist has), the reductions and scans of ``np.add`` and friends are
    the namespace's, sorts take NumPy's ``axis=None`` and ``kind``; no gather."""
    x = distribute(COUNTS, *case)
    got = without_gathers(func, x)
    want = np.asarray(func(COUNTS))
    if want.dtype == np.float16:  # NumPy's loop for booleans (0.0 and 1.0 in either dtype)
        want = want.astype(np.float32)
    assert_equal(got, want, rtol=1e-6 if want.dtype == np.float32 else 1e-15)


def test_where_refuses_a_wrong_number_of_arguments():
    x = distribute(G, 0)
    with pytest.raises(TypeError, match="np.where: takes the condition alone or with x and y"):
        np.where(x > 0, x)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: np.add(x, 1, out=np.empty(SHAPE)), r"np.add: the arguments \['out'\]"),
        (lambda x: np.subtract.reduce(x), "np.subtract.reduce: not supported on xdist arrays"),
        (lambda x: np.add.reduce(x, initial=1.0), r"np.add.reduce on xdist arrays: \['initial'\]"),
        (lambda x: np.add.accumulate(x, axis=None), "axis must be an int, got None"),
        (lambda x: np.sort(x, order="a"), r"np.sort on xdist arrays: \['order'\]"),
        (lambda x: np.frexp(x), "np.frexp: xdist has no distributed version"),
        (lambda x: np.mean(x, out=np.empty(3)), r"np.mean on xdist arrays: \['out'\]"),
    ],
)
def test_unsupported_numpy_calls_raise_clearly(call, message):
    x = distribute(G, 0)
    with pytest.raises(TypeError, match=message):
        call(x)


def test_numpy_operand_of_a_nonstandard_dtype_is_refused():
    x = distribute(G, 0)
    with pytest.raises(TypeError, match="has no standard dtype"):
        x + G.astype(np.float16)


@pytest.mark.skipif(BACKEND.name != "torch", reason="Torch tensors beside Torch-backed arrays")
def test_torch_operands():
    import torch

    x = distribute(G, 0)
    t = torch.asarray(H, dtype=torch.float64, device="cpu")
    for got, expected in [(x + t, G + H), (t + x, H + G), (t * x, H * G), (x - t, G - H)]:
        assert isinstance(got, xdist.Array)
        assert_equal(got, expected)
    with pytest.raises(TypeError, match="no distributed counterpart"):
        torch.nn.functional.relu(x)


def test_numpy_operand_checksum_with_check_replicated():
    x = distribute(G, 0)
    with xdist.config_context(check_replicated=True), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        assert_equal(x + H, G + H)  # the same operand everywhere passes
