"""einsum (xdist's extension, NumPy's meaning) against NumPy on the same global data:
contractions, outer products, ellipses, implicit outputs, NumPy operands, every layout of
the operands (uneven and empty blocks), the messages each plan sends, and np.einsum
dispatching to it."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, random_array, without_gathers

import xdist

CASES = [
    ("ij,j->i", [(7, 3), (3,)]),
    ("ij,jk->ik", [(7, 3), (3, 4)]),
    ("ij,ij->j", [(7, 3), (7, 3)]),
    ("ij,ij->", [(7, 3), (7, 3)]),
    ("i,j->ij", [(5,), (4,)]),
    ("ij->ji", [(7, 3)]),
    ("ij", [(2, 3)]),
    ("ij,jk", [(7, 3), (3, 2)]),
    ("...ab,...b->...a", [(7, 2, 3), (3,)]),
    ("...b,b->...", [(7, 3), (3,)]),
    ("tij,tj->ti", [(6, 2, 3), (6, 3)]),
    ("ii->i", [(4, 4)]),
]


def rtol(dtype=np.float64) -> float:
    return 1e-12


@pytest.mark.parametrize("spec,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_numpy(spec, shapes):
    data = [random_array(s, seed=i) for i, s in enumerate(shapes)]
    want = np.einsum(spec, *data)
    first = layouts(shapes[0])
    for case in first:
        for other in [(None, None), *layouts(shapes[-1])[1:2]] if len(shapes) > 1 else [None]:
            xs = [distribute(data[0], *case)]
            if len(shapes) > 1:
                xs.append(distribute(data[1], *other))
            got = xdist.einsum(spec, *xs)
            assert_equal(got, want, rtol=1e-12, atol=1e-12)


def test_numpy_operands_are_replicated_and_nothing_is_gathered():
    a, w = random_array((9, 3)), random_array((3,), seed=1)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        got = without_gathers(xdist.einsum, "ij,j->i", x, w)
        assert_equal(got, np.einsum("ij,j->i", a, w), rtol=1e-12)
        got = without_gathers(np.einsum, "ij,j->i", x, w)  # NumPy's einsum dispatches
        assert isinstance(got, xdist.Array)


def test_split_label_kept_sends_nothing_contracted_sends_one_allreduce():
    a, b = random_array((9, 3)), random_array((9, 3), seed=1)
    x, y = distribute(a, 0), distribute(b, 0)
    with xdist.count_collectives() as counts:
        kept = xdist.einsum("ij,ij->i", x, y)
    assert counts == Counter()
    assert kept.split == 0 and kept.counts == x.counts
    with xdist.count_collectives() as counts:
        summed = xdist.einsum("ij,ij->j", x, y)
    assert counts == (Counter(allreduce=1) if SIZE > 1 else Counter())
    assert summed.split is None
    assert_equal(summed, np.einsum("ij,ij->j", a, b), rtol=1e-12)


def test_dtypes_promote_as_numpy():
    a = np.arange(12, dtype=np.int32).reshape(4, 3)
    f = np.linspace(0, 1, 3).astype(np.float32)
    for case in layouts(a.shape):
        got = xdist.einsum("ij,j->i", distribute(a, *case), f)
        assert_equal(got, np.einsum("ij,j->i", a, f).astype(np.float64), rtol=1e-6)


@pytest.mark.parametrize(
    "spec,shapes,exc,match",
    [
        ("ij,j->i", [(4, 3)], ValueError, "name 2 operands"),
        ("ijk->i", [(4, 3)], ValueError, "do not fit"),
        ("ij,j->i", [(4, 3), (2,)], ValueError, "label 'j'"),
        ("ij->k", [(4, 3)], ValueError, "bad output"),
        ("i1->i", [(4, 3)], ValueError, "bad subscripts"),
    ],
)
def test_bad_subscripts_raise_before_any_message(spec, shapes, exc, match):
    xs = [distribute(random_array(s), 0) for s in shapes]
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=f"einsum: .*{match}"):
            xdist.einsum(spec, *xs)
    assert counts == Counter()
