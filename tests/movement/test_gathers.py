"""GatherWarning: implicit gathers of split arrays are reported, explicit ones are silent."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import SIZE, distribute, random_array

import xdist

A = random_array((7, 5), seed=3)


def gather_warnings(fn):
    """``(result, the GatherWarnings fn issued)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in caught if issubclass(w.category, xdist.GatherWarning)]


def expected_count(x: xdist.Array) -> int:
    """One warning where something moves: split, several ranks, over the threshold."""
    limit = xdist.get_config().gather_warning_elements
    return int(x.split is not None and SIZE > 1 and x.size > limit)


@pytest.mark.parametrize("limit", [0, 34, 35])
@pytest.mark.parametrize("split", [None, 0, 1])
def test_array_protocol_warns_on_implicit_gather(split, limit):
    x = distribute(A, split)
    with xdist.config_context(gather_warning_elements=limit):
        host, caught = gather_warnings(lambda: np.asarray(x))
        assert len(caught) == expected_count(x)
    np.testing.assert_array_equal(host, A)  # the copy is whole and right either way
    if caught:
        message = str(caught[0].message)
        assert "__array__" in message and "(7, 5)" in message and f"{A.nbytes} bytes" in message


@pytest.mark.parametrize("split", [0, 1])
def test_explicit_gathers_are_silent(split):
    x = distribute(A, split)
    with xdist.config_context(gather_warning_elements=0):
        _, caught = gather_warnings(lambda: (x.to_numpy(), xdist.resplit(x, None)))
    assert caught == []


def test_linalg_gather_warns_and_is_right():
    square = A[:5] + 5 * np.eye(5)
    x = distribute(square, 0)
    with xdist.config_context(gather_warning_elements=0):
        inv, caught = gather_warnings(lambda: xdist.linalg.inv(x))
        assert len(caught) == expected_count(x)
    if caught:
        assert str(caught[0].message).startswith("inv:")
    np.testing.assert_allclose(inv.to_numpy(), np.linalg.inv(square), rtol=1e-10)


def test_broadcast_gather_warns():
    """A column vector split along rows, broadcast against a row vector split along its
    columns: the output is split along rows, so every rank needs the whole row vector."""
    col, row = distribute(A[:, :1], 0), distribute(A[:1, :], 1)
    with xdist.config_context(gather_warning_elements=0):
        out, caught = gather_warnings(lambda: col + row)
    assert len(caught) == (SIZE > 1)
    if caught:
        assert str(caught[0].message).startswith("add:")
    np.testing.assert_array_equal(out.to_numpy(), A[:, :1] + A[:1, :])


def test_error_mode_raises_on_every_rank():
    """Made an error, the warning is raised on every rank before anything is gathered."""
    x = distribute(A, 0)
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        if SIZE == 1:
            assert np.asarray(x).shape == A.shape
            return
        with xdist.count_collectives() as counts, pytest.raises(xdist.GatherWarning):
            np.asarray(x)
    assert sum(counts.values()) == 0


@pytest.mark.parametrize("value", [-1, 1.5, True, "8"])
def test_threshold_is_validated(value):
    with pytest.raises(ValueError, match="gather_warning_elements"):
        xdist.set_config(gather_warning_elements=value)
