"""xdist's communication cost model: what each operation family sends, per rank, as a
function of the rank count ``p`` and the sizes, and what that costs on a cluster network.

    python benchmarks/cost_model.py            # the four workloads of docs/scaling.md
    python benchmarks/cost_model.py --alpha 2e-6 --bandwidth 10e9

Each family function gives the traffic of the busiest rank, by collective kind, in the units
``xdist.count_collectives()`` counts (``CollectiveCounts`` in ``xdist/_transport/comm.py``):
``calls`` (logical collectives), ``bytes`` (the payload a rank contributes for other ranks)
and ``messages`` (how many other ranks it is addressed to), each the largest over the ranks.
Arrays are laid out by xdist's balanced counts (``p`` blocks differing by at most one row,
the first ranks taking the extra ones). ``tests/movement/test_cost_model.py`` checks every family
against the counts of the real operations at 1, 2 and 3 ranks; docs/scaling.md explains the
formulas and the time model (``Network``).

Pure Python and standard library: the model runs for ``p = 4096`` without MPI or xdist.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

KINDS = (
    "allreduce",
    "exscan",
    "bcast",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "sendrecv",
)


@dataclass(frozen=True)
class Traffic:
    """One collective kind on the busiest rank: calls, payload bytes, messages."""

    calls: int
    bytes: int
    messages: int

    def __add__(self, other: Traffic) -> Traffic:
        return Traffic(
            self.calls + other.calls, self.bytes + other.bytes, self.messages + other.messages
        )

    def times(self, k: int) -> Traffic:
        return Traffic(self.calls * k, self.bytes * k, self.messages * k)


Cost = dict[str, Traffic]  # collective kind -> traffic of the busiest rank
PerRank = list[dict[str, tuple[int, int, int]]]  # one {kind: (calls, bytes, messages)} per rank


def balanced(n: int, p: int) -> list[int]:
    """xdist's balanced counts (``xdist._layout.balanced_counts``)."""
    q, r = divmod(n, p)
    return [q + 1 if i < r else q for i in range(p)]


def offsets(counts: Sequence[int]) -> list[int]:
    out, acc = [], 0
    for c in counts:
        out.append(acc)
        acc += c
    return out


def busiest(per_rank: PerRank) -> Cost:
    """The largest calls, bytes and messages over the ranks, for each kind (ranks with no
    call of a kind count as zeros); kinds no rank calls are left out."""
    kinds = {k for row in per_rank for k in row}
    out = {}
    for k in sorted(kinds):
        rows = [row.get(k, (0, 0, 0)) for row in per_rank]
        out[k] = Traffic(*(max(r[i] for r in rows) for i in range(3)))
    return out


def merged(*costs: Cost) -> Cost:
    """Costs of steps run one after the other (busiest rank of each step added up: an upper
    bound when different ranks are the busiest in different steps)."""
    out: Cost = {}
    for cost in costs:
        for k, t in cost.items():
            out[k] = out[k] + t if k in out else t
    return out


def scaled(cost: Cost, k: int) -> Cost:
    return {kind: t.times(k) for kind, t in cost.items()}


def _uniform(p: int, kind: str, nbytes: int, messages: int | None = None) -> Cost:
    """One call on every rank with the same payload, addressed to every other rank."""
    if p == 1 or nbytes == 0:
        return {kind: Traffic(1, 0, 0)} if p > 1 else {}
    return {kind: Traffic(1, nbytes, p - 1 if messages is None else messages)}


# -- the families ------------------------------------------------------------------------------
def elementwise(p: int, shape: Sequence[int], itemsize: int, realign: bool = False) -> Cost:
    """``x + y`` of two ``(n, m)`` arrays split along axis 0; ``realign``: ``y`` split along
    axis 1 instead, so it moves to rows first (``resplit``'s alltoallv)."""
    if not realign:
        return {}  # equal layouts (or a replicated operand sliced locally): no message
    return resplit(p, shape, itemsize)


def resplit(p: int, shape: Sequence[int], itemsize: int) -> Cost:
    """An ``(n, m)`` array from columns (split 1) to rows (split 0), or back: one alltoallv of
    every element a rank holds outside its new block (the overlap of its row block with each
    other rank's column block)."""
    if p == 1:
        return {}
    return busiest(_swap(p, shape, itemsize, to_rows=True))


def _swap(p: int, shape: Sequence[int], itemsize: int, to_rows: bool) -> PerRank:
    """Each rank's alltoallv of an ``(n, m)`` array from columns to rows (or rows to
    columns): what it holds of the other ranks' new blocks."""
    rows, cols = balanced(shape[0], p), balanced(shape[1], p)
    have, want = (cols, rows) if to_rows else (rows, cols)
    per_rank: PerRank = []
    for q in range(p):
        sent = sum(want[r] * have[q] for r in range(p) if r != q)
        peers = sum(1 for r in range(p) if r != q and want[r] and have[q])
        per_rank.append({"alltoallv": (1, sent * itemsize, peers)})
    return per_rank


def gather(p: int, shape: Sequence[int], itemsize: int) -> Cost:
    """``resplit(x, None)`` of an ``(n, ...)`` array split along axis 0: one allgatherv of
    each rank's block (every rank receives the whole array: memory n * m * itemsize)."""
    inner = math.prod(shape[1:])
    return _uniform(p, "allgatherv", max(balanced(shape[0], p)) * inner * itemsize)


def reduction(p: int, result_elements: int, partial_bytes: int) -> Cost:
    """A reduction whose axes include the split axis: one allreduce of the result-sized
    partials. ``partial_bytes`` per result element: the dtype's itemsize for sum/prod/min/
    max; 8 for mean (float64 sums); 32 for var/std (the record count, mean, correction, M2,
    merged by Chan's formulas); 24 for argmax/argmin (value, global index, NaN flag)."""
    return _uniform(p, "allreduce", result_elements * partial_bytes)


def cumulative_sum(p: int, shape: Sequence[int], itemsize: int) -> Cost:
    """``cumulative_sum`` along the split axis 0 of ``(n, ...)``: one exscan of the block
    totals (``prod(shape[1:])`` elements); rank 0's reaches the other p - 1 ranks."""
    if p == 1:
        return {}
    return {"exscan": Traffic(1, math.prod(shape[1:]) * itemsize, p - 1)}


def _mirrored(p: int, n: int) -> list[tuple[int, int]]:
    """For each rank of a balanced split of ``n``: how many of its elements land on other
    ranks when the order is reversed, and on how many other ranks."""
    counts = balanced(n, p)
    starts = offsets(counts)
    out = []
    for q in range(p):
        lo, hi = n - starts[q] - counts[q], n - starts[q]  # where q's elements land
        sent, peers = 0, 0
        for r in range(p):
            both = max(0, min(hi, starts[r] + counts[r]) - max(lo, starts[r]))
            if r != q and both:
                sent, peers = sent + both, peers + 1
        out.append((sent, peers))
    return out


# xdist/_ops/sample_sort.py: at most this many samples are gathered on every rank.
GATHERED_SAMPLES = 1 << 16


def _add(row: dict, kind: str, calls: int, nbytes: int, messages: int) -> None:
    c, b, m = row.get(kind, (0, 0, 0))
    row[kind] = (c + calls, b + nbytes, m + messages)


@dataclass(frozen=True)
class _Sorted:
    """A sample sort simulated on distinct keys: what each rank sends to others and to how
    many, what each holds after the exchange, each rank's samples, and the splitters'
    positions among all the samples in key order."""

    exchange: list[tuple[int, int]]
    held: list[int]
    samples: list[list[int]]
    picks: list[int]


def _psrs(blocks: list[list[int]], cap: int | None) -> _Sorted:
    """Steps 2-5 of ``xdist/_ops/sample_sort.py`` on rank r's sorted distinct keys
    ``blocks[r]``: ``min(c, cap or p)`` regular samples per rank, each weighted by its run;
    the splitter of each balanced boundary is the first sample whose weighted rank reaches
    it (the last where none does); keys below the first splitter go to rank 0, and so on."""
    p = len(blocks)
    counts = [len(b) for b in blocks]
    samples, weighted = [], []
    for b, c in zip(blocks, counts):
        m = min(c, cap or p)
        mine = [b[i * c // m] for i in range(m)]
        samples.append(mine)
        weighted += zip(mine, ((i + 1) * c // m - i * c // m for i in range(m)))
    weighted.sort()
    before, acc = [], 0
    for _, w in weighted:
        before.append(acc)
        acc += w
    picks = [
        min(bisect.bisect_left(before, bound), len(before) - 1)
        for bound in offsets(balanced(sum(counts), p))[1:]
    ]
    splitters = [weighted[k][0] for k in picks]
    held = [0] * p
    exchange = []
    for r, b in enumerate(blocks):
        dest = [bisect.bisect_right(splitters, key) for key in b]
        for q in dest:
            held[q] += 1
        away = [q for q in dest if q != r]
        exchange.append((len(away), len(set(away))))
    return _Sorted(exchange, held, samples, picks)


def _keys(p: int, n: int, order: str) -> list[list[int]]:
    """Each rank's sorted keys (the value's rank among all) for ``"sorted"`` or
    ``"reversed"`` distinct values laid out in balanced blocks."""
    blocks = []
    for start, c in zip(offsets(balanced(n, p)), balanced(n, p)):
        positions = range(start, start + c)
        blocks.append(sorted(n - 1 - i if order == "reversed" else i for i in positions))
    return blocks


def sort(
    p: int, n: int, itemsize: int, order: str = "random", gathered: int = GATHERED_SAMPLES
) -> Cost:
    """``sort`` of a 1-D array of ``n`` elements split over ``p`` ranks: the sample sort
    (``xdist/_ops/sample_sort.py``). Samples: ``min(c, p)`` (value, int64 index) pairs per
    rank. Up to ``gathered`` of them in all (``p <= 256`` by default), one allgatherv of
    them; beyond, they are sample-sorted over the ranks (their own ``max(1, gathered // p)``
    samples per rank in one allgatherv, piece lengths and totals, one alltoallv carrying
    value, index and weight), then one exscan of a weight total, one allreduce of ``p - 1``
    counts and one allgatherv of the ``p - 1`` splitters from the ranks holding them. The
    piece lengths: one int64 for each other rank in one alltoall, and the rank's total in one
    allgather; the exchange: one alltoallv of the elements that belong elsewhere; the
    rebalance: one alltoallv.
    ``order`` of the input: ``"sorted"`` or ``"reversed"`` distinct values, whose sample
    sorts are simulated (``_psrs``: exact), or ``"random"``: about ``c (p - 1) / p``
    elements of each rank leave it, for every other rank (the expected exchange; the
    samples' own sort taken as balanced). The rebalance is counted as moving nothing: so it
    is when the splitters fall on the balanced boundaries (the simulated orders here, each
    rank's samples standing for runs that end on them); on random data it moves the
    splitters' imbalance, about ``n / p^2`` elements per rank."""
    if p == 1:
        return {}
    counts = balanced(n, p)
    taken = [min(c, p) for c in counts]
    over_ranks = sum(taken) > gathered
    own = max(1, gathered // p)
    if order == "random":
        exchange = [(c * (p - 1) // p, p - 1) for c in counts]
        inner = [(m * (p - 1) // p, p - 1) for m in taken]
        held, picks = balanced(sum(taken), p), []
        for bound in offsets(counts)[1:]:  # the samples taken as evenly spread
            picks.append(min(bound * sum(taken) // n, sum(taken) - 1))
    else:
        outer = _psrs(_keys(p, n, order), None)
        exchange, picks = outer.exchange, outer.picks
        samples = _psrs(outer.samples, own)
        inner, held = samples.exchange, samples.held
    ends = list(itertools.accumulate(held))
    owned = [0] * p
    for k in picks:
        owned[bisect.bisect_right(ends, k)] += 1
    per_rank: PerRank = []
    for r in range(p):
        row: dict = {}
        if over_ranks:
            mine = min(taken[r], own)
            _add(row, "allgatherv", 1, mine * (itemsize + 8), (p - 1) if mine else 0)
            _add(row, "alltoall", 1, (p - 1) * 8, p - 1)
            _add(row, "allgather", 1, 8, p - 1)
            _add(row, "alltoallv", 1, inner[r][0] * (itemsize + 16), inner[r][1])
            _add(row, "exscan", 1, 8, p - 1 - r)
            _add(row, "allreduce", 1, (p - 1) * 8, p - 1)
            _add(row, "allgatherv", 1, owned[r] * (itemsize + 8), (p - 1) if owned[r] else 0)
        else:
            _add(row, "allgatherv", 1, taken[r] * (itemsize + 8), (p - 1) if taken[r] else 0)
        _add(row, "alltoall", 1, (p - 1) * 8, p - 1)
        _add(row, "allgather", 1, 8, p - 1)
        # the exchange; then the rebalance (nothing for an exact split)
        _add(row, "alltoallv", 2, exchange[r][0] * itemsize, exchange[r][1])
        per_rank.append(row)
    return busiest(per_rank)


def unique_values(
    p: int, n: int, itemsize: int, order: str = "random", whole_at_most: int = 65536
) -> Cost:
    """``unique_values`` of a 1-D array of ``n`` distinct values split over ``p`` ranks
    (``xdist/_set_functions.py``): the records (one per local run: every element here) are
    counted (one allgather of 8 bytes). At most ``whole_at_most`` records in all
    (``gather_warning_elements``): one allgatherv of every rank's records, the result whole on
    every rank. Otherwise they are sample-sorted as ``sort`` sorts but without the rebalance
    (the result keeps the sort's exact uneven counts), each rank's last value is gathered (one
    allgatherv of one element from each rank holding records) and the run counts (one
    allgather of three int64)."""
    if p == 1:
        return {}
    if n <= whole_at_most:
        return {
            "allgather": Traffic(1, 8, p - 1),
            "allgatherv": Traffic(1, max(balanced(n, p)) * itemsize, p - 1),
        }
    sorted_ = sort(p, n, itemsize, order)
    exchange = sorted_["alltoallv"]
    return merged(
        {k: t for k, t in sorted_.items() if k != "alltoallv"},
        {"alltoallv": Traffic(1, exchange.bytes, exchange.messages)},
        {"allgather": Traffic(2, 8 + 24, 2 * (p - 1))},
        {"allgatherv": Traffic(1, itemsize, p - 1)},
    )


def median(p: int, n: int, itemsize: int, order: str = "random") -> Cost:
    """``median`` of a 1-D array of ``n`` values split over ``p`` ranks (``xdist/_median.py``):
    the sort of the line (``sort``), then one allgatherv of the sorted elements it reads (the
    two middle ones and the last, for NaN) from the ranks that hold them."""
    if p == 1:
        return {}
    counts = balanced(n, p)
    starts = offsets(counts)
    wanted = sorted({(n - 1) // 2, n // 2, n - 1})
    per_rank: PerRank = []
    for r in range(p):
        held = sum(1 for i in wanted if starts[r] <= i < starts[r] + counts[r])
        per_rank.append({"allgatherv": (1, held * itemsize, (p - 1) if held else 0)})
    return merged(sort(p, n, itemsize, order), busiest(per_rank))


def matmul_rows_replicated(p: int) -> Cost:
    """``X @ W``, ``X`` split along rows, ``W`` replicated: local."""
    return {}


def matmul_contraction(p: int, m: int, k: int, itemsize: int) -> Cost:
    """``X.T @ Y`` of ``(n, m)`` and ``(n, k)`` split along rows (n large): partial products
    and one allreduce of the ``(m, k)`` result (the Gram matrix of Lasso)."""
    return _uniform(p, "allreduce", m * k * itemsize)


def matmul_ring(p: int, n: int, k: int, itemsize: int, counts: Sequence[int] | None = None) -> Cost:
    """``A @ B``, ``A`` ``(m, n)`` split along rows and ``B`` ``(n, k)`` split along rows (its
    ``counts``, balanced by default), ``B`` larger than ``gather_warning_elements`` (a
    smaller one is gathered in one allgatherv): the ring plan passes ``B``'s row blocks
    around, ``p - 1`` sendrecv whatever their size; at step ``s`` rank ``r`` sends the block
    of rank ``r - s`` (``_linear_algebra_functions._ring_product``). An empty block is a
    call with no message."""
    if p == 1:
        return {}
    counts = list(balanced(n, p) if counts is None else counts)
    per_rank: PerRank = []
    for r in range(p):
        blocks = [counts[(r - s) % p] for s in range(p - 1)]
        sent = sum(blocks) * k * itemsize
        per_rank.append({"sendrecv": (p - 1, sent, sum(1 for b in blocks if b))})
    return busiest(per_rank)


def index_int(p: int, shape: Sequence[int], itemsize: int) -> Cost:
    """``x[i]`` with ``x`` split along axis 0: one bcast of the row from its owner."""
    if p == 1:
        return {}
    return {"bcast": Traffic(1, math.prod(shape[1:]) * itemsize, p - 1)}


def index_reversed(p: int, shape: Sequence[int], itemsize: int) -> Cost:
    """``x[::-1]`` on the split axis 0: one alltoallv restoring rank order (each block goes
    to the ranks whose blocks cover its mirrored range)."""
    if p == 1:
        return {}
    inner = math.prod(shape[1:])
    moves = _mirrored(p, shape[0])
    return busiest([{"alltoallv": (1, sent * inner * itemsize, peers)} for sent, peers in moves])


def index_take(
    p: int, shape: Sequence[int], itemsize: int, indices: Sequence[int], index_split: bool = True
) -> Cost:
    """``take(x, idx, axis=0)``, ``x`` and ``idx`` split along axis 0: the requests go to the
    owners and the rows come back (``ask_owners``): one alltoall of (count, flag) pairs, one
    alltoallv of int64 indices, one of the rows (``prod(shape[1:])`` elements each)."""
    if p == 1:
        return {}
    n, inner = shape[0], math.prod(shape[1:])
    owner = [r for r, c in enumerate(balanced(n, p)) for _ in range(c)]
    icounts = balanced(len(indices), p)
    istart = offsets(icounts)
    asked = [[0] * p for _ in range(p)]  # asked[r][q]: rank r's requests to rank q
    for r in range(p):
        for i in indices[istart[r] : istart[r] + icounts[r]]:
            asked[r][owner[i]] += 1
    per_rank: PerRank = []
    for r in range(p):
        out = sum(asked[r][q] for q in range(p) if q != r)
        back = sum(asked[q][r] for q in range(p) if q != r)
        peers_out = sum(1 for q in range(p) if q != r and asked[r][q])
        peers_back = sum(1 for q in range(p) if q != r and asked[q][r])
        per_rank.append(
            {
                "alltoall": (1, (p - 1) * 16, p - 1),
                "alltoallv": (2, out * 8 + back * inner * itemsize, peers_out + peers_back),
            }
        )
    return busiest(per_rank)


def index_mask(p: int) -> Cost:
    """``x[mask]`` with the mask split like ``x``: one allgather of the counts kept (the
    exact uneven layout), no data (the allgather is made at one rank too)."""
    if p == 1:
        return {"allgather": Traffic(1, 0, 0)}
    return _uniform(p, "allgather", 8)


# xdist/linalg/_tsqr.py: R factors stacked on every rank up to this many elements in all.
STACKED_ELEMENTS = 1 << 22


def tsqr(
    p: int,
    n: int,
    cols: int,
    itemsize: int,
    stacked: int = STACKED_ELEMENTS,
    cholesky: bool = True,
    one_pass: bool = False,
) -> Cost:
    """``qr`` / ``svd`` of a tall ``(n, cols)`` real matrix split along rows. With at least
    ``2 cols`` rows (``cholesky``, the matrix well enough conditioned), CholeskyQR2 of the
    rows below the first ``cols``: one allgatherv of each rank's rows among the first
    ``cols`` and its ``cols x cols`` Gram matrix, one of the Gram matrices of ``Q_1``, both
    in double precision (8 bytes); past ``stacked`` elements of Gram matrices in all
    (``p cols^2``), an allreduce of each instead and an allgatherv of the first rows alone.
    ``one_pass`` (those rows' first Cholesky factor at most ``_ONE_PASS_LIMIT``
    conditioned): the first Gram matrix alone. Otherwise Householder TSQR
    (``householder_tsqr``)."""
    if p == 1:
        return {}
    if not cholesky or n < 2 * cols:
        return householder_tsqr(p, n, cols, itemsize, stacked)
    counts = balanced(n, p)
    starts = offsets(counts)
    tops = [max(0, min(cols, s + c) - s) for c, s in zip(counts, starts)]
    gram = cols * cols * 8
    grams = 1 if one_pass else 2
    per_rank: PerRank = []
    for t in tops:
        row: dict = {}
        if p * cols * cols <= stacked:
            _add(row, "allgatherv", 1, t * cols * 8 + gram, p - 1)
            if not one_pass:
                _add(row, "allgatherv", 1, gram, p - 1)
        else:
            sent = t * cols * itemsize
            _add(row, "allgatherv", 1, sent, p - 1 if sent else 0)
            _add(row, "allreduce", grams, grams * gram, grams * (p - 1))
        per_rank.append(row)
    return busiest(per_rank)


def householder_tsqr(p: int, n: int, cols: int, itemsize: int, stacked: int) -> Cost:
    """Householder TSQR of a tall ``(n, cols)`` matrix split along rows. Up to
    ``stacked`` elements of R factors in all (``p cols^2``; ``cols = 100`` up to about 400
    ranks): one allgatherv of each rank's rows among the first ``cols`` as they are and the
    R (``cols`` rows) of its other rows. Beyond: one allgatherv of the first ``cols`` rows
    alone, the R factors combined up a binary tree rooted at rank 0 (rank ``r + d`` sends
    its subtree's R to rank ``r``, one sendrecv each way per level: the R up, the rows of
    ``Q`` down), and one broadcast of the root's R."""
    counts = balanced(n, p)
    starts = offsets(counts)
    tops = [max(0, min(cols, s + c) - s) for c, s in zip(counts, starts)]
    ks = [min(c - t, cols) for c, t in zip(counts, tops)]
    per_rank: PerRank = []
    if sum(ks) * cols <= stacked:
        for t, k in zip(tops, ks):
            sent = (t + k) * cols * itemsize
            per_rank.append({"allgatherv": (1, sent, p - 1 if sent else 0)})
        return busiest(per_rank)
    prefix = offsets(ks) + [sum(ks)]

    def rows(lo: int, hi: int) -> int:
        return min(prefix[min(hi, p)] - prefix[lo], cols)

    k_root = rows(0, p)
    for r in range(p):
        row: dict = {}
        sent = tops[r] * cols * itemsize
        _add(row, "allgatherv", 1, sent, p - 1 if sent else 0)
        if r == 0:
            _add(row, "bcast", 1, k_root * cols * itemsize, p - 1 if k_root else 0)
        else:
            _add(row, "bcast", 1, 0, 0)
        d = 1
        while d < p:
            if r % (2 * d) == d:  # sends its subtree's R up, receives its rows of Q
                k = rows(r, r + d) * cols * itemsize
                _add(row, "sendrecv", 2, k, 1 if k else 0)
                break
            if r + d < p:  # receives the R of r + d, sends it its rows of Q
                k = rows(r + d, r + 2 * d) * k_root * itemsize
                _add(row, "sendrecv", 2, k, 1 if k else 0)
            d *= 2
        per_rank.append(row)
    return busiest(per_rank)


def solve(p: int, n: int, k: int, itemsize: int) -> Cost:
    """``solve(A, B)``, ``A`` ``(n, n)`` and ``B`` ``(n, k)`` split along rows: both gathered
    on every rank (``linalg/_gathered.py``; memory: the whole system per rank)."""
    if p == 1:
        return {}
    rows = max(balanced(n, p))
    return {"allgatherv": Traffic(2, rows * (n + k) * itemsize, 2 * (p - 1))}


def fft_split(p: int, shape: Sequence[int], itemsize: int) -> Cost:
    """``fft`` along the split axis 0 of ``(n, m)``: the split swapped to axis 1 and back (two
    alltoallv, each of complex values: ``itemsize`` of the complex result), when ``m >= p``.
    With fewer columns than ranks (and for 1-D arrays) the six-step FFT runs instead: three
    alltoallv of the whole block (``xdist/fft/_split_axis.py``)."""
    if p == 1:
        return {}
    away, back = _swap(p, shape, itemsize, False), _swap(p, shape, itemsize, True)
    per_rank = [
        {"alltoallv": tuple(a + b for a, b in zip(x["alltoallv"], y["alltoallv"]))}
        for x, y in zip(away, back)
    ]
    return busiest(per_rank)


def io_npy(p: int, save: bool) -> Cost:
    """``xdist.io.load`` / ``save`` of a ``.npy`` file: every rank reads or writes its own slab
    of the file; messages only agree on metadata and errors (rank 0 reads or writes the header:
    two bcasts of its length and text per step, one allgather of error flags). Independent of
    the array's size. The bcasts' bytes (a hundred or two of header text, from rank 0) are
    left at 0 here. The same calls are made at one rank."""
    bcasts = 4 if save else 2
    return {
        "bcast": Traffic(bcasts, 0, bcasts * (p - 1)),
        "allgather": Traffic(1, 8 * (p > 1), p - 1),
    }


def random_draw(p: int, seeded: bool = True, check_replicated: bool = False) -> Cost:
    """``xdist.random``: counter-based, each rank draws its own block: no message; a
    generator without a seed broadcasts rank 0's entropy (16 bytes) once; a seeded one with
    ``check_replicated`` on (the default) compares the key's fingerprint (one allgather of
    one int)."""
    if p == 1:
        return {}
    if not seeded:
        return {"bcast": Traffic(1, 16, p - 1)}
    return {"allgather": Traffic(1, 8, p - 1)} if check_replicated else {}


# -- the four workloads (per-iteration costs measured from xdist.ml, checked by the tests) -----
# The agreement of ``xdist.asarray`` on data given whole on every rank: one allreduce of its
# 73 ints of arguments, metadata and fingerprint, and their negatives (``same_on_every_rank``),
# whatever the rank count.
AGREEMENT = 2 * 73 * 8


def _agreements(p: int, made: int, check_replicated: bool) -> Cost:
    """The messages of ``made`` replicated arrays built by ``asarray``: the agreement on each
    (the fingerprint of ``check_replicated`` travels in it: no message more)."""
    return {"allreduce": Traffic(made, made * AGREEMENT, made * (p - 1))}


def kmeans(
    p: int,
    k: int,
    d: int,
    itemsize: int,
    iterations: int,
    check_replicated: bool = False,
    last_bytes: int = 4,
    select: bool = True,
) -> Cost:
    """``xdist.ml.KMeans(init=array, n_init=1, tol=0)``, samples split: per iteration one
    allreduce of the k x (d + 1) cluster statistics (sums with the count column) and, after
    the first, two allgathers of one count (the samples that changed cluster, selected by a
    mask), or, without ``select`` (blocks on a GPU), one allreduce of the int64 number
    moved instead; around them: the init's agreement (``AGREEMENT``: one allreduce of 146
    ints), the data's mean, a flag and the final inertia (4 allreduces: the float64 mean, 1
    byte, 3 float32 values of
    ``ml/cluster.py:_inertia_scores`` and a last reduction of ``last_bytes``: 4 on the tests'
    600 x 6 data, 8 at 200000 x 64 with ``benchmarks/cost_model_check.py``'s data, the
    inertia's branch depending on the data). At one rank only the two allgathers per
    iteration are made (the mask's counts; the others are skipped there)."""
    if p == 1:  # only the selections' (local) count exchanges
        selections = 2 * (iterations - 1) if select else 0
        return {"allgather": Traffic(selections, 0, 0)} if selections else {}
    per_iter = {"allreduce": Traffic(1, k * (d + 1) * itemsize, p - 1)}
    if select:
        changed = {"allgather": Traffic(2, 16, 2 * (p - 1))}
    else:
        changed = {"allreduce": Traffic(1, 8, p - 1)}
    checks = int(check_replicated)
    setup = merged(
        {"allreduce": Traffic(4, 8 * d + 13 + last_bytes, 4 * (p - 1))}, _agreements(p, 1, checks)
    )
    return merged(setup, scaled(per_iter, iterations), scaled(changed, iterations - 1))


def lasso(
    p: int,
    d: int,
    epochs: int,
    gram: bool,
    check_replicated: bool = False,
    block: int = 16,
    changed: int | None = None,
) -> Cost:
    """``xdist.ml.Lasso(tol=0)`` on float64 data split along samples. With the Gram matrix: a
    fixed number of reductions (means, X^T X, X^T y, norms) and a replicated descent with no
    message; without: the Gram matrix of each block of ``block`` coordinates once (one
    allreduce each), each block's scores ``X[:, B].T @ R`` once (one allreduce each, when the
    first sweep enters it), and the Gram columns ``X.T @ X[:, B]`` of each of the ``changed``
    blocks whose coefficients change (default: all; one allreduce each, the first time),
    within the descent's budget of Gram columns (``CROSS_GRAM_ELEMENTS``, 2**22 elements:
    d x d fits for d up to 2048); then nothing per epoch: the duality gap takes ``X.T @ R``
    from the kept scores.
    Replicated arrays made inside (one with the Gram matrix, two without) agree on their
    metadata and fingerprint (``AGREEMENT`` each)."""
    if p == 1:
        return {}
    agree = _agreements(p, 1 if gram else 2, check_replicated)
    if gram:
        return merged(agree, {"allreduce": Traffic(6, 8 * (d * d + 2 * d + 4), 6 * (p - 1))})
    sizes = [min(block, d - s) for s in range(0, d, block)]
    nb = len(sizes)
    changed = nb if changed is None else changed
    grams = {"allreduce": Traffic(nb, 8 * sum(b * b for b in sizes), nb * (p - 1))}
    setup = merged(agree, grams, {"allreduce": Traffic(9, 8 * (2 * d + 7), 9 * (p - 1))})
    scores = {"allreduce": Traffic(nb, 8 * d, nb * (p - 1))}
    cross = {"allreduce": Traffic(changed, 8 * d * sum(sizes[:changed]), changed * (p - 1))}
    return merged(setup, scores, cross)


def cdist_expression(p: int, n: int, d: int, itemsize: int, budget: int = 65536) -> Cost:
    """``|a|^2[:, None] + |a|^2[None, :] - 2 a @ a.T`` with ``a`` ``(n, d)`` split along rows.
    The norms row is broadcast along its split axis, so it is gathered (one allgatherv).
    ``a.T`` is split along its columns; the matmul passes its column blocks around the ranks
    (the ``ringn`` plan: ``p - 1`` sendrecv, at step ``s`` rank ``r`` sends the ``d x n_q``
    block of rank ``q = r - s``), except on more than 2 ranks with at most ``budget``
    elements (``gather_warning_elements``), where one allgatherv of ``a.T`` moves as much in
    fewer calls (on 2 ranks both are one call and the ring, which never makes ``a.T``
    whole, wins the tie)."""
    if p == 1:
        return {}
    rows = balanced(n, p)
    norms = {"allgatherv": Traffic(1, max(rows) * itemsize, p - 1)}
    if n * d <= budget and p > 2:
        return merged(norms, {"allgatherv": Traffic(1, max(rows) * d * itemsize, p - 1)})
    return merged(norms, matmul_ring(p, n, d, itemsize, rows))


# -- time on a network ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Network:
    """The alpha-beta (Hockney) model: a message of b bytes costs ``alpha + b / bandwidth``.

    Collectives use the usual algorithms of MPICH and Open MPI for their message sizes:
    allreduce recursive doubling for small payloads and Rabenseifner (reduce-scatter +
    allgather) for large ones, ``ceil(log2 p)`` latencies and about ``2 b`` bytes on the wire;
    bcast a binomial tree (scatter + allgather when large); allgather(v) recursive doubling or
    a ring, ``ceil(log2 p)`` latencies and ``(p - 1) b`` bytes received; exscan recursive
    doubling (``log2 p`` steps of ``b``); alltoall (small metadata) Bruck's ``ceil(log2 p)``
    steps; alltoallv one message per nonempty peer (the transport picks its path for each
    message from its size, which both ends know: no agreement); sendrecv one message.
    """

    alpha: float = 1.5e-6  # seconds per message
    bandwidth: float = 12.5e9  # bytes per second per rank (100 Gb/s)

    def seconds(self, cost: Cost, p: int) -> float:
        if p == 1:
            return 0.0
        lg = math.ceil(math.log2(p))
        a, beta = self.alpha, 1.0 / self.bandwidth
        total = 0.0
        for kind, t in cost.items():
            b = max(t.bytes, 0) / max(t.calls, 1)  # bytes per call
            if kind == "allreduce":
                per = lg * a + (lg * b if b < 65536 else 2 * b) * beta
            elif kind == "bcast":
                per = lg * a + (lg * b if b < 65536 else 2 * b) * beta
            elif kind in ("allgather", "allgatherv"):
                per = lg * a + (p - 1) * b * beta
            elif kind == "exscan":
                per = lg * (a + b * beta)
            elif kind == "alltoall":
                per = lg * a + b * beta
            elif kind == "alltoallv":
                per = t.messages / max(t.calls, 1) * a + b * beta
            else:  # sendrecv
                per = a + b * beta
            total += t.calls * per
        return total


# -- the predictions of docs/scaling.md ---------------------------------------------------------
WORKLOADS: dict[str, Callable[[int], Cost]] = {
    "k-means 200000x64 float32, k=8, 30 iterations": lambda p: kmeans(p, 8, 64, 4, 30),
    "Lasso 100000x100 float64, 20 epochs, Gram": lambda p: lasso(p, 100, 20, True),
    "Lasso 100000x100 float64, 20 epochs, no Gram": lambda p: lasso(p, 100, 20, False),
    "mean all 8192x8192 float64": lambda p: reduction(p, 1, 8),
    "std all 8192x8192 float64": lambda p: reduction(p, 1, 32),
    "mean axis 0 8192x8192 float64": lambda p: reduction(p, 8192, 8),
    "std axis 0 8192x8192 float64": lambda p: reduction(p, 8192, 32),
    "cdist 20000x18 float32 (expression)": lambda p: cdist_expression(p, 20000, 18, 4),
}

# Each rank's share of the work: (bytes it streams from memory, floating-point operations),
# priced at ``memory`` bytes/s and ``flops`` per second per rank (one core): the compute side
# that the communication is compared with.
LOCAL_WORK: dict[str, Callable[[int], tuple[float, float]]] = {
    # 30 x (read [X, 1] block, k-means GEMM n/p x 65 x 9)
    "k-means 200000x64 float32, k=8, 30 iterations": lambda p: (
        30 * 200000 * 65 * 4 / p,
        30 * 2 * 200000 * 65 * 9 / p,
    ),
    # X^T X and X^T y once (the replicated descent on the 100 x 100 Gram matrix is left out:
    # it is the same on every rank and does not shrink with p)
    "Lasso 100000x100 float64, 20 epochs, Gram": lambda p: (
        100000 * 100 * 8 / p,
        2 * 100000 * 100 * 101 / p,
    ),
    # the scores X.T @ R, the blocks' Gram matrices and the Gram columns of the changing
    # block(s) (a pass over X each), then per epoch R -= X[:, B] @ dw (16 of the 100 columns)
    "Lasso 100000x100 float64, 20 epochs, no Gram": lambda p: (
        (3 * 100000 * 100 + 20 * 16 * 100000) * 8 / p,
        (2 * 100000 * 100 * (1 + 16 + 16) + 20 * 2 * 16 * 100000) / p,
    ),
    "mean all 8192x8192 float64": lambda p: (8192 * 8192 * 8 / p, 8192 * 8192 / p),
    "std all 8192x8192 float64": lambda p: (8192 * 8192 * 8 / p, 3 * 8192 * 8192 / p),
    "mean axis 0 8192x8192 float64": lambda p: (8192 * 8192 * 8 / p, 8192 * 8192 / p),
    "std axis 0 8192x8192 float64": lambda p: (8192 * 8192 * 8 / p, 3 * 8192 * 8192 / p),
    # the 20000 x 20000 output written, GEMM 2 n^2 d
    "cdist 20000x18 float32 (expression)": lambda p: (
        20000 * 20000 * 4 / p,
        2 * 20000 * 20000 * 18 / p,
    ),
}


def local_seconds(name: str, p: int, memory: float = 10e9, flops: float = 20e9) -> float:
    """The local work of workload ``name`` on one of ``p`` ranks: memory- or compute-bound."""
    nbytes, nflops = LOCAL_WORK[name](p)
    return max(nbytes / memory, nflops / flops)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alpha", type=float, default=1.5e-6, help="latency, seconds")
    parser.add_argument("--bandwidth", type=float, default=12.5e9, help="bytes per second")
    parser.add_argument("--memory", type=float, default=10e9, help="bytes/s one rank streams")
    parser.add_argument("--flops", type=float, default=20e9, help="flop/s of one rank")
    parser.add_argument("--ranks", default="64,1024,4096")
    args = parser.parse_args()
    net = Network(args.alpha, args.bandwidth)
    ranks = [int(r) for r in args.ranks.split(",")]
    print(
        f"alpha {net.alpha * 1e6:g} us, bandwidth {net.bandwidth / 1e9:g} GB/s per rank; "
        f"local work at {args.memory / 1e9:g} GB/s and {args.flops / 1e9:g} GFlop/s per rank"
    )
    print("| workload | " + " | ".join(f"p = {p}: comm / local" for p in ranks) + " |")
    print("|---|" + "---|" * len(ranks))
    for name, fn in WORKLOADS.items():
        cells = []
        for p in ranks:
            comm = net.seconds(fn(p), p)
            local = local_seconds(name, p, args.memory, args.flops)
            cells.append(f"{_ms(comm)} / {_ms(local)}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print("| workload | " + " | ".join(f"p = {p}: calls, bytes sent" for p in ranks) + " |")
    print("|---|" + "---|" * len(ranks))
    for name, fn in WORKLOADS.items():
        cells = []
        for p in ranks:
            cost = fn(p)
            calls = sum(t.calls for t in cost.values())
            cells.append(f"{calls}, {sum(t.bytes for t in cost.values())} B")
        print(f"| {name} | " + " | ".join(cells) + " |")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


if __name__ == "__main__":
    main()
