"""Looking at arrays: ``repr``/``str`` show what the calling rank holds, summarised as NumPy
summarises, with no message (so printing from one rank alone works); ``xdist.show`` prints the
whole array once from rank 0, moving only the printed elements; ``Layout.describe`` says which
rank holds what."""

from __future__ import annotations

import io

import numpy as np
import pytest
from helpers import COMM, RANK, distribute, host, layout_id, layouts, random_array

import xdist

SMALL = np.arange(12.0).reshape(4, 3)
LARGE = np.arange(24000.0).reshape(40, 30, 20)  # more than NumPy's threshold: summarised


def _numpy_text(values: np.ndarray) -> str:
    return np.array2string(values, separator=", ", prefix="xdist.Array(")


@pytest.mark.parametrize("g", [SMALL, LARGE, np.float64(2.5)], ids=["small", "large", "0-d"])
def test_repr_of_a_replicated_array_is_numpys(g):
    x = distribute(g, None)
    with xdist.count_collectives() as sent:
        text, plain = repr(x), str(x)
    assert sum(sent.values()) == 0
    assert text == f"xdist.Array({_numpy_text(np.asarray(g))}, dtype=float64)"
    assert plain == np.array2string(np.asarray(g))


@pytest.mark.parametrize("g", [SMALL, LARGE], ids=["small", "large"])
@pytest.mark.parametrize("split", [0, 1])
def test_repr_of_a_split_array_shows_this_ranks_block_without_messages(g, split):
    x = distribute(g, split)
    with xdist.count_collectives() as sent:
        text = repr(x)
    assert sum(sent.values()) == 0
    lo, hi = x.layout.local_range(RANK)
    assert text.startswith(f"xdist.Array({_numpy_text(host(x.local))}, shape={g.shape}")
    assert f"rank {RANK} holds {lo}:{hi} of axis {split}" in text
    assert str(x).startswith(np.array2string(host(x.local)))


@pytest.mark.parametrize("case", layouts(LARGE.shape), ids=layout_id)
def test_show_prints_the_whole_array_once_from_rank_0(case):
    x = distribute(LARGE, *case)
    out = io.StringIO()
    with xdist.count_collectives() as sent:
        xdist.show(x, file=out)
    text = out.getvalue()
    if RANK == 0:
        assert text.startswith(f"xdist.Array({_numpy_text(LARGE)}, dtype=float64")
    else:
        assert text == ""
    # only the printed elements move: at most one gather of the 7 x 7 x 7 corners
    assert set(sent) <= {"allgatherv"} and sent["allgatherv"] <= (1 if x.split is not None else 0)


def test_show_small_arrays_whole():
    x = distribute(SMALL, 0)
    out = io.StringIO()
    xdist.show(x, file=out)
    if RANK == 0:
        assert out.getvalue().startswith(f"xdist.Array({_numpy_text(SMALL)}, dtype=float64")


def test_printing_from_rank_0_alone_finishes(capsys):
    x = distribute(random_array((7, 3)), 0)
    if RANK == 0:  # the first thing users write: it must not wait for the other ranks
        print(x)
        print(repr(x[1:3]))
    COMM.barrier()
    if RANK == 0:
        assert "rank 0" in capsys.readouterr().out


def test_layout_describe():
    layout = xdist.Layout((7, 3), 0, (3, 0, 4))
    assert layout.describe().splitlines() == [
        "shape (7, 3) split along axis 0 over 3 ranks:",
        "  rank 0: 0:3 of axis 0 (3 of 7)",
        "  rank 1: 3:3 of axis 0 (0 of 7)",
        "  rank 2: 3:7 of axis 0 (4 of 7)",
    ]
    assert "every rank holds the whole array" in xdist.Layout((2,), None, None).describe()


def test_format_spec_of_a_zero_d_array_formats_its_value():
    """``f"{x:.3g}"`` of a 0-d array formats its value, as NumPy's and Torch's 0-d arrays do
    (SciPy formats residuals so); an empty spec is ``str``; an array of more dimensions takes
    no spec (NumPy's TypeError)."""
    for split, counts in layouts((1,)):
        x = distribute(np.asarray([np.pi]), split, counts)[0]
        assert f"{x:.3g}" == "3.14" and f"{x:>8.2f}" == "    3.14" and f"{x:e}" == f"{np.pi:e}"
    assert f"{xdist.asarray(7, dtype=xdist.int32):04d}" == "0007"
    assert f"{xdist.asarray(True)}" == str(xdist.asarray(True)) == "True"
    g = distribute(SMALL, 0)
    assert f"{g}" == str(g)
    with pytest.raises(TypeError, match=r"__format__: only a 0-d array takes a format spec"):
        f"{g:.2f}"
