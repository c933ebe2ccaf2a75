"""In-place operators (``x += y``, ``-=``, ``*=``, ``/=``) written by the block library itself
(``Array._in_place``, ``Backend.in_place``): the same values as NumPy's in-place operators,
at every layout, with a Python number or an array of the same layout and dtype, overlapping
operands included; the block is kept (no temporary, no copy back) and nothing is sent."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from helpers import BACKEND, assert_equal, distribute, layouts, random_array

import xdist

OPS = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv}
SHAPE = (7, 5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("other", [2.5, 3, "array", "itself"])
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("split,counts", layouts(SHAPE))
def test_in_place_matches_numpy(split, counts, op, other, dtype):
    g = random_array(SHAPE, dtype, seed=1)
    h = random_array(SHAPE, dtype, seed=2) + 3  # no zero divisors
    x = distribute(g.copy(), split, counts)
    if other == "array":
        value, ref = distribute(h, split, counts), h
    elif other == "itself":
        value, ref = x, g
    else:
        value, ref = other, other
    block = x.local
    expected = OPS[op](g.copy(), ref)
    with xdist.count_collectives() as sent:
        out = OPS[op](x, value)
    assert out is x
    assert not sent
    assert x.local is block  # written where it was
    assert_equal(x, expected, rtol=1e-6 if dtype in ("float32",) else 1e-15)


VECTORS = {  # shape, split of an operand that broadcasts into a (7, 5) array
    "column": ((7, 1), None),
    "column-split": ((7, 1), 0),
    "row": ((5,), None),
    "row-split": ((1, 5), 1),
    "row-1d-split": ((5,), 0),
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("vec", list(VECTORS))
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("split,counts", layouts(SHAPE))
def test_in_place_with_a_broadcast_operand(split, counts, op, vec, dtype):
    """``x op= v`` with ``v`` a column or a row laid out otherwise than ``x`` (replicated, or
    split along its own axis, as a vector of norms is): aligned to ``x``'s blocks as the
    general path aligns it to its result's, then written into ``x``'s block (kept: no
    temporary of x's size); a column split like x's rows sends nothing."""
    g = random_array(SHAPE, dtype, seed=1)
    shape, vsplit = VECTORS[vec]
    h = random_array(shape, dtype, seed=2) + 3  # no zero divisors
    x = distribute(g.copy(), split, counts)
    vcounts = counts if (vsplit == 0 and split == 0 and shape[0] == 7) else None
    v = distribute(h, vsplit, vcounts)
    block = x.local
    expected = OPS[op](g.copy(), h)
    with xdist.count_collectives() as sent:
        out = OPS[op](x, v)
    assert out is x
    assert x.local is block
    if vcounts is not None or (vsplit is None and split is not None):
        assert not sent, sent
    assert_equal(x, expected, rtol=1e-15)


def test_overlapping_operand_where_the_library_refuses():
    """A view of the array's own block as the operand: NumPy buffers the overlap itself;
    Torch refuses a partial overlap, so the values are computed out of place and written
    back: either way NumPy's values."""
    g = random_array((6,), "float64", seed=3)
    x = distribute(g.copy(), None)
    expected = g.copy()
    expected += g[::-1].copy()
    x += x[::-1]
    assert_equal(x, expected)


def test_integer_array_and_float_number_keep_the_general_path_errors():
    x = distribute(np.arange(5), None)
    x += 2
    assert_equal(x, np.arange(5) + 2)
    with pytest.raises(TypeError, match="cannot store"):
        x /= 2
    assert_equal(x, np.arange(5) + 2)  # nothing written


def test_backend_in_place_declines_aliasing_tensors():
    if BACKEND.name != "torch":
        pytest.skip("the Torch backend's rule; NumPy buffers overlaps itself")
    import torch

    t = torch.arange(6.0, device="cpu")
    assert not BACKEND.in_place(operator.iadd, t, t[:])  # another view of its storage
    assert torch.equal(t, torch.arange(6.0, device="cpu"))
    assert BACKEND.in_place(operator.iadd, t, t.flip(0))  # Torch's flip is a copy
    assert torch.equal(t, torch.full((6,), 5.0, device="cpu"))
    t = torch.arange(6.0, device="cpu")
    assert BACKEND.in_place(operator.iadd, t, t)  # the block itself: Torch does that
    assert torch.equal(t, 2 * torch.arange(6.0, device="cpu"))
