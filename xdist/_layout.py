"""The layout of a distributed array: a frozen value, and pure functions on it.

A ``Layout`` knows the global shape, the split axis (``None``: every rank holds the whole
array) and, for a split array, how many indices along the split axis each rank holds. Blocks
are contiguous and in rank order: rank ``r`` holds global indices
``offsets[r] : offsets[r] + counts[r]`` of the split axis. Counts are balanced by default
(they differ by at most one, the first ranks taking the extra ones) but any counts are valid,
zero included: a rank may hold nothing.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = [
    "Box",
    "Layout",
    "balanced_counts",
    "inside",
    "intersect",
    "resolve",
    "shifted",
    "volume",
]


# Up to this many ranks, ``owners`` compares with each block's end instead of searching.
_FEW_RANKS = 4


def balanced_counts(n: int, nranks: int) -> tuple[int, ...]:
    """Counts summing to ``n`` that differ by at most one, the larger ones first."""
    q, r = divmod(n, nranks)
    return (q + 1,) * r + (q,) * (nranks - r)


@dataclass(frozen=True)
class Layout:
    shape: tuple[int, ...]
    split: int | None
    counts: tuple[int, ...] | None  # per rank along `split`; None when replicated

    def __post_init__(self) -> None:
        if self.split is None:
            if self.counts is not None:
                raise ValueError("Layout: a replicated layout has no counts")
            return
        if not 0 <= self.split < len(self.shape):
            raise ValueError(f"Layout: split {self.split} out of range for shape {self.shape}")
        if self.counts is None or (self.counts and min(self.counts) < 0):
            raise ValueError(f"Layout: invalid counts {self.counts}")
        if sum(self.counts) != self.shape[self.split]:
            raise ValueError(
                f"Layout: counts {self.counts} sum to {sum(self.counts)}, "
                f"not to the split dimension {self.shape[self.split]}"
            )

    # -- construction -------------------------------------------------------------------
    @classmethod
    def trusted(cls, shape: tuple[int, ...], split: int, counts: tuple[int, ...]) -> Layout:
        """A split layout whose fields are known to be valid (the hot paths that derive
        them from a valid layout: indexing), without ``__post_init__``'s checks."""
        self = object.__new__(cls)
        fields = self.__dict__
        fields["shape"], fields["split"], fields["counts"] = shape, split, counts
        return self

    @classmethod
    def replicated(cls, shape: tuple[int, ...]) -> Layout:
        return cls(tuple(shape), None, None)

    @classmethod
    def balanced(cls, shape: tuple[int, ...], split: int | None, nranks: int) -> Layout:
        if split is None:
            return cls.replicated(shape)
        return cls(tuple(shape), split, balanced_counts(shape[split], nranks))

    # -- derived values ------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @cached_property
    def offsets(self) -> tuple[int, ...]:
        """Global start index of each rank's block along the split axis."""
        if self.counts is None:
            return ()
        return tuple(itertools.accumulate(self.counts[:-1], initial=0))

    @property
    def is_balanced(self) -> bool:
        return self.counts is None or self.counts == balanced_counts(
            self.shape[self.split],
            len(self.counts),  # type: ignore[index]
        )

    def local_shape(self, rank: int) -> tuple[int, ...]:
        if self.split is None:
            return self.shape
        shape = list(self.shape)
        shape[self.split] = self.counts[rank]  # type: ignore[index]
        return tuple(shape)

    def local_range(self, rank: int) -> tuple[int, int]:
        """``(start, stop)`` of ``rank``'s block along the split axis."""
        if self.split is None:
            raise ValueError("Layout.local_range: the layout is replicated")
        start = self.offsets[rank]
        return start, start + self.counts[rank]  # type: ignore[index]

    def local_slice(self, rank: int) -> tuple[slice, ...]:
        """The global index of ``rank``'s block, one slice per axis."""
        key = [slice(None)] * self.ndim
        if self.split is not None:
            key[self.split] = slice(*self.local_range(rank))
        return tuple(key)

    def owner(self, index: int) -> int:
        """The rank holding global ``index`` of the split axis (the first, if replicated)."""
        if self.split is None:
            return 0
        n = self.shape[self.split]
        if not 0 <= index < n:
            raise IndexError(f"Layout.owner: index {index} out of range for size {n}")
        # the first rank whose block ends past index (empty blocks own nothing), as owners
        return bisect.bisect_right(self.ends, index)

    @cached_property
    def bounds(self) -> np.ndarray:
        """``offsets`` and the split axis' length as one read-only int64 array (``p + 1``
        values; rank r's block is ``[bounds[r], bounds[r + 1])``): the blocks' bounds for
        NumPy over many ranks at once, where a loop over ``local_range`` costs Python per
        rank. ``[0]`` for a replicated layout."""
        out = np.asarray((*self.offsets, sum(self.counts or ())), dtype=np.int64)
        out.flags.writeable = False
        return out

    @cached_property
    def ends(self) -> tuple[int, ...]:
        """Global end index of each rank's block along the split axis."""
        return tuple(o + c for o, c in zip(self.offsets, self.counts or ()))

    def owners(self, indices: np.ndarray, *, compact: bool = False) -> np.ndarray:
        """The rank holding each global index of the split axis, vectorized (indices must be
        in range; empty blocks own nothing; all 0 when replicated): int64, or with
        ``compact`` the smallest signed integer dtype that holds every rank (int8 up to 128
        ranks), for routing that only compares and counts them (an eighth of the memory)."""
        indices = np.asarray(indices, dtype=np.int64)
        dtype = np.min_scalar_type(-len(self.ends)) if compact else np.dtype(np.int64)
        if self.split is None:
            return np.zeros(indices.shape, dtype=dtype)
        if len(self.ends) <= _FEW_RANKS:  # one comparison per rank beats a binary search
            out = np.zeros(indices.shape, dtype=dtype)
            for end in self.ends[:-1]:
                out += indices >= end
            return out
        ends = np.asarray(self.ends, dtype=np.int64)
        return np.searchsorted(ends, indices, side="right").astype(dtype)

    def origin(self, rank: int) -> list[int]:
        """The global coordinates of the first element of ``rank``'s block."""
        at = [0] * self.ndim
        if self.split is not None:
            at[self.split] = self.offsets[rank]
        return at

    def describe(self) -> str:
        """Which rank holds which part, as text (one line per rank)."""
        if self.split is None:
            return f"replicated: every rank holds the whole array of shape {self.shape}"
        lines = [f"shape {self.shape} split along axis {self.split} over {len(self.counts)} ranks:"]
        for rank, count in enumerate(self.counts):  # type: ignore[arg-type]
            lo, hi = self.local_range(rank)
            n = self.shape[self.split]
            lines.append(f"  rank {rank}: {lo}:{hi} of axis {self.split} ({count} of {n})")
        return "\n".join(lines)

    def with_shape(self, shape: tuple[int, ...], split: int | None) -> Layout:
        """The same per-rank counts on another shape (used by shape-preserving ops)."""
        return Layout(tuple(shape), split, self.counts if split is not None else None)

    def overlap(
        self, other: Layout, rank: int | None = None
    ) -> list[tuple[int, int, tuple[slice, ...]]]:
        """What moves from ``self`` to ``other``: ``(src_rank, dst_rank, global box)`` for every
        pair of ranks whose blocks intersect (non-empty boxes only). A replicated source is
        read locally: every destination takes its block from itself.

        With ``rank``, only the moves that ``rank`` sends or receives (what an all-to-all on
        that rank needs): O(p) work instead of O(p^2), and O(log p + moves) when both layouts
        are split along the same axis, so that a move at thousands of ranks stays cheap.
        """
        if self.shape != other.shape:
            raise ValueError(f"Layout.overlap: shapes differ: {self.shape} != {other.shape}")
        nranks = len(self.counts or other.counts or (0,))
        if rank is None:
            return [m for dst in range(nranks) for m in self._into(other, dst, nranks)]
        out = self._into(other, rank, nranks)
        if self.split is not None:  # what this rank sends elsewhere
            for dst in other.ranks_meeting(self.local_slice(rank), nranks):
                box = self._common(other, rank, dst) if dst != rank else None
                if box is not None:
                    out.append((rank, dst, box))
        return out

    def _into(self, other: Layout, dst: int, nranks: int) -> list:
        """The moves into ``dst``'s block of ``other``, from every rank that holds part of it
        (from ``dst`` itself when ``self`` is replicated)."""
        dbox = other.local_slice(dst)
        if self.split is None:
            return [(dst, dst, dbox)]
        out = []
        for src in self.ranks_meeting(dbox, nranks):
            box = self._common(other, src, dst)
            if box is not None:
                out.append((src, dst, box))
        return out

    def _common(self, other: Layout, src: int, dst: int) -> tuple[slice, ...] | None:
        """The global box held by ``src`` in ``self`` and by ``dst`` in ``other`` (``self``
        split), or ``None`` when empty: interval arithmetic on the two split axes, what
        ``intersect`` of the two blocks gives, at a tenth of its cost."""
        if 0 in self.shape:
            return None
        lo, hi = self.local_range(src)
        if hi <= lo:
            return None
        box = [slice(0, n) for n in self.shape]
        box[self.split] = slice(lo, hi)  # type: ignore[index]
        if other.split is not None:
            dlo, dhi = other.local_range(dst)
            cur = box[other.split]
            lo, hi = max(cur.start, dlo), min(cur.stop, dhi)
            if hi <= lo:
                return None
            box[other.split] = slice(lo, hi)
        return tuple(box)

    def ranks_meeting(self, box: tuple[slice, ...], nranks: int) -> range:
        """The ranks whose blocks can meet ``box``: along the split axis, those whose range
        starts before the box's end and ends after its start (found by bisection); every rank
        when the box spans the split axis or the layout is replicated."""
        if self.split is None:
            return range(nranks)
        lo, hi, _ = box[self.split].indices(self.shape[self.split])
        first = max(bisect.bisect_right(self.offsets, lo) - 1, 0)
        return range(first, bisect.bisect_left(self.offsets, hi))


# -- box geometry: a box is a tuple of slices of global (or block) coordinates -------------
Box = tuple[slice, ...]


def resolve(box: tuple[slice, ...], shape: tuple[int, ...]) -> Box:
    """``box`` with explicit, clipped ``start``/``stop`` in an array of ``shape``."""
    return tuple(slice(*s.indices(n)[:2]) for s, n in zip(box, shape))


def intersect(a: tuple[slice, ...], b: tuple[slice, ...], shape: tuple[int, ...] | None = None):
    """The common part of boxes ``a`` and ``b`` (resolved in ``shape`` when given), or
    ``None`` when they do not meet."""
    if shape is not None:
        a, b = resolve(a, shape), resolve(b, shape)
    box = []
    for sa, sb in zip(a, b):
        lo, hi = max(sa.start, sb.start), min(sa.stop, sb.stop)
        if hi <= lo:
            return None
        box.append(slice(lo, hi))
    return tuple(box)


def inside(inner: Box, outer: Box) -> bool:
    """Whether resolved box ``inner`` lies within resolved box ``outer``."""
    return all(o.start <= i.start and i.stop <= o.stop for i, o in zip(inner, outer))


def shifted(box: Box, origin) -> Box:
    """``box`` in the coordinates of a block whose first element is at ``origin`` (a box's
    starts, or a sequence of ints)."""
    starts = [o.start if isinstance(o, slice) else o for o in origin]
    return tuple(slice(s.start - o, s.stop - o) for s, o in zip(box, starts))


def volume(box: Box) -> int:
    """The number of elements of a resolved box."""
    n = 1
    for s in box:
        n *= max(s.stop - s.start, 0)
    return n
