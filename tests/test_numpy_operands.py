"""NumPy (and Torch) beside xdist arrays never leave xdist silently (the trust issue's class
4): NumPy arrays and scalars are replicated operands, NumPy's ufuncs and functions with a
counterpart dispatch to the namespace, anything else warns as a gather; against NumPy on the
same data at every layout."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import BACKEND, assert_equal, distribute, layout_id, layouts, random_array

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
    ],
)
def test_numpy_functions_dispatch_to_the_namespace(case, func, recwarn):
    x = distribute(G, *case)
    got = func(x)
    assert isinstance(got, xdist.Array), type(got)
    assert_equal(got, np.asarray(func(G)), rtol=1e-12, atol=1e-12)  # sums reassociate
    assert not [w for w in recwarn if issubclass(w.category, xdist.GatherWarning)]


def test_numpy_function_without_counterpart_warns_as_a_gather():
    x = distribute(G, 0)
    with pytest.warns(xdist.GatherWarning, match="np.percentile: xdist has no distributed"):
        got = np.percentile(x, 30, axis=0)
    np.testing.assert_allclose(got, np.percentile(G, 30, axis=0))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: np.add(x, 1, out=np.empty(SHAPE)), r"np.add: the arguments \['out'\]"),
        (lambda x: np.add.reduce(x), "np.add.reduce: not supported on xdist arrays"),
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
