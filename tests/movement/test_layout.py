"""The layout value: balanced counts, owners, local slices and overlaps (pure, no MPI)."""

from __future__ import annotations

import numpy as np
import pytest

from xdist import Layout
from xdist._indexing import keys
from xdist._indexing.values import value_moves
from xdist._layout import balanced_counts, intersect, resolve


@pytest.mark.parametrize("n,p", [(7, 3), (2, 3), (0, 2), (9, 3), (1, 1), (5, 8)])
def test_balanced_counts_differ_by_at_most_one(n, p):
    counts = balanced_counts(n, p)
    assert sum(counts) == n and len(counts) == p
    assert max(counts) - min(counts) <= 1
    assert list(counts) == sorted(counts, reverse=True)


def test_offsets_owner_and_local_slices_cover_the_axis():
    layout = Layout((10, 3), 0, (0, 4, 0, 6))
    assert layout.offsets == (0, 0, 4, 4)
    assert [layout.owner(i) for i in range(10)] == [1] * 4 + [3] * 6
    seen = np.zeros(10, int)
    for r in range(4):
        seen[layout.local_slice(r)[0]] += 1
        assert layout.local_shape(r) == (layout.counts[r], 3)
    assert (seen == 1).all()
    with pytest.raises(IndexError):
        layout.owner(10)


def test_replicated_layout():
    layout = Layout.replicated((4, 5))
    assert layout.local_shape(2) == (4, 5)
    assert layout.local_slice(1) == (slice(None), slice(None))
    assert layout.owner(3) == 0


@pytest.mark.parametrize(
    "args",
    [((4,), 0, (1, 2)), ((4,), 1, (4,)), ((4,), None, (4,)), ((4,), 0, (5, -1))],
)
def test_invalid_layouts_raise(args):
    with pytest.raises(ValueError, match="Layout"):
        Layout(*args)


_MOVES = [
    (Layout((7, 5), 0, (3, 2, 2)), Layout((7, 5), 1, (2, 2, 1))),
    (Layout((7, 5), 0, (0, 0, 7)), Layout((7, 5), 0, (3, 2, 2))),
    (Layout((7, 5), None, None), Layout((7, 5), 0, (3, 2, 2))),
    (Layout((7, 5), 1, (5, 0, 0)), Layout((7, 5), 1, (0, 0, 5))),
]


@pytest.mark.parametrize("src,dst", _MOVES)
def test_overlap_moves_every_element_exactly_once(src, dst):
    moved = np.zeros(src.shape, int)
    for s, d, box in src.overlap(dst):
        assert box == tuple(slice(a.start, a.stop) for a in box)
        moved[box] += 1
        # the box lies in the source's block of s and the destination's block of d
        for axis, layout, rank in ((src.split, src, s), (dst.split, dst, d)):
            if axis is not None:
                lo, hi = layout.local_range(rank)
                assert lo <= box[axis].start and box[axis].stop <= hi
    assert (moved == 1).all()


def test_overlap_of_equal_layouts_stays_on_each_rank():
    layout = Layout((7, 5), 0, (3, 2, 2))
    assert all(s == d for s, d, _ in layout.overlap(layout))


@pytest.mark.parametrize(
    "src,dst",
    [
        *_MOVES,
        (Layout((9,), 0, (0, 4, 0, 0, 5, 0)), Layout((9,), 0, (2, 1, 2, 1, 2, 1))),
        (Layout((0, 3), 0, (0, 0)), Layout((0, 3), 1, (2, 1))),
        (Layout((4, 0, 3), 0, (3, 1)), Layout((4, 0, 3), 2, (1, 2))),
        (Layout((5, 3), 0, (2, 0, 3)), Layout((5, 3), None, None)),
    ],
)
def test_overlap_of_one_rank_is_its_part_of_the_whole(src, dst):
    """``overlap(other, rank)``: exactly the moves ``rank`` sends or receives (each once); the
    whole list is the intersection of every pair of blocks (``intersect``, the oracle)."""
    whole = src.overlap(dst)
    nranks = len(src.counts or dst.counts)
    boxes = {(s, d): box for s, d, box in whole}
    assert len(boxes) == len(whole)
    for s in range(nranks):
        for d in range(nranks):
            if src.split is None:
                expected = dst.local_slice(d) if s == d else None
            else:
                expected = intersect(src.local_slice(s), dst.local_slice(d), src.shape)
            assert boxes.get((s, d)) == expected, (s, d)
    for rank in range(nranks):
        mine = src.overlap(dst, rank)
        assert len(mine) == len(set((s, d) for s, d, _ in mine))
        assert sorted(mine, key=repr) == sorted(
            [m for m in whole if rank in (m[0], m[1])], key=repr
        )


@pytest.mark.parametrize("nranks", [3, 64])
def test_value_moves_of_one_rank_are_its_part_of_every_pair(nranks):
    """``_indexing.values.value_moves``: the moves a rank makes when every rank wants a box of
    a split value are exactly its sends and receives among the intersections of every pair
    (the oracle), each once, found without visiting every pair of ranks."""
    rng = np.random.default_rng(nranks)
    counts = rng.integers(0, 4, nranks)
    counts[rng.integers(0, nranks)] = 0  # an empty block among them
    shape = (int(counts.sum()), 5)
    layout = Layout(shape, 0, tuple(int(c) for c in counts))
    boxes = [resolve(layout.local_slice(q), shape) for q in range(nranks)]
    want = []
    for _ in range(nranks):
        lo, hi = sorted(rng.integers(0, shape[0] + 1, 2))
        c0, c1 = sorted(rng.integers(0, 6, 2))
        want.append(None if rng.random() < 0.2 else (slice(lo, hi), slice(c0, c1)))
    for me in range(nranks):
        oracle = [
            (s, d, intersect(boxes[s], w))
            for d, w in enumerate(want)
            for s in range(nranks)
            if w is not None and me in (s, d) and intersect(boxes[s], w) is not None
        ]
        got = value_moves(boxes, want, layout, me)
        assert sorted(got, key=repr) == sorted(oracle, key=repr)
        assert len(got) == len({(s, d) for s, d, _ in got})


def test_slice_positions_past_loop_ranks_match_the_loop(monkeypatch):
    """A slice's positions per rank, by NumPy past ``LOOP_RANKS`` ranks and by the Python
    loop below it, agree for every kind of range over uneven blocks with empties."""
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 5, 100)
    counts[::7] = 0
    layout = Layout((int(counts.sum()), 2), 0, tuple(int(c) for c in counts))
    n = layout.shape[0]
    ranges = [range(0, n), range(3, n - 2, 3), range(n - 1, 0, 7), range(5, 5), range(1, n, 50)]
    ranges += [range(n - 1, -1, -1), range(n - 3, 2, -4)]
    for r in ranges:
        monkeypatch.setattr(keys, "LOOP_RANKS", 10**6)
        loop = keys.rank_positions(layout, r)
        by_loop = [keys.split_counts(layout, r, q) for q in (0, 7, 50, 99)]
        monkeypatch.setattr(keys, "LOOP_RANKS", 8)
        assert keys.rank_positions(layout, r) == loop
        assert [keys.split_counts(layout, r, q) for q in (0, 7, 50, 99)] == by_loop
        want = tuple(sum(1 for i in r if lo <= i < lo + c) for lo, c in zip(layout.offsets, counts))
        assert by_loop[0][0] == want


@pytest.mark.parametrize(
    "counts", [(5,), (0, 5), (3, 0, 2), (1, 1, 0, 3), (2, 0, 0, 1, 2), (1,) * 7, (0, 0, 4, 0, 0, 1)]
)
def test_owners_of_indices_at_any_rank_count(counts):
    """``Layout.owners`` (comparisons for a few ranks, a search for more) names the rank whose
    block holds each index, empty blocks owning nothing, as ``Layout.owner`` does one by one."""
    layout = Layout((sum(counts), 2), 0, counts)
    indices = np.arange(sum(counts))[::-1]
    np.testing.assert_array_equal(
        layout.owners(indices), [layout.owner(int(i)) for i in indices], strict=True
    )
