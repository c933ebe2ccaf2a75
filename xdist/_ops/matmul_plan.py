"""The matmul planner: the layouts a distributed ``matmul`` brings its operands to, priced by
a cost model (``Cost``, compared as data) so that the cheapest plan is chosen.

``matmul`` promotes 1-D operands (``(k,)`` to ``(1, k)`` for ``x1``, ``(k, 1)`` for ``x2``), so
that ``x1`` is ``(..., m, k)``, ``x2`` is ``(..., k, n)`` and the result ``(..., m, n)``, the
batch dimensions ``...`` broadcast; a dimension added by promotion is removed at the end.
A plan says which layout each operand must have for one local ``matmul`` of the blocks to
give this rank's block of the result:

====  =============================  ============================  ==========================
plan  x1 must be                     x2 must be                    result
====  =============================  ============================  ==========================
N     whole                          whole                         replicated
R     split on m                     whole                         split on m (x1's counts)
C     whole                          split on n                    split on n (x2's counts)
ring  split on m                     split on k                    split on m (x1's counts)
ringn split on m                     split on n                    split on m (x1's counts)
B     split on batch axis j (whole   split on batch axis j (whole  split on j
      where it broadcasts along j)   where it broadcasts along j)
K     split on k, counts c           split on k, the same counts   partial sums, then ONE
                                                                   allreduce: replicated
====  =============================  ============================  ==========================

``ring`` passes x2's blocks around the ranks: at each of ``p`` steps a rank multiplies the
columns of its x1 block that match the x2 block it holds, adds the product to its result
block and sends that x2 block on to the next rank (``p - 1`` ``sendrecv``). Memory per rank:
its x1 block, two x2 blocks (the one held and the one arriving) and its result block; no
operand is ever whole on a rank. ``ringn`` passes x2's column blocks around the same way
(x2 split on n, as ``a.T`` of an ``a`` split on rows is): at each step a rank writes the
product of its x1 block and the x2 block it holds into those columns of its result block, so
no step adds a partial product of the result's size (the k ring adds ``p``), and x2 needs no
all-to-all to rows when it is split on n already. Memory: the same as the ring's.

Every plan is feasible for any input layouts: an operand is brought to the layout the plan
needs by ``redistribute_block`` (same layout or replicated source: free, a local slice at
most; to whole: one allgather; to another split: one all-to-all of what changes owner).

Cost model, from global metadata only so that every rank picks the same plan (the layouts,
the rank count and the gather budget, a process-wide setting). First the memory bound: the
elements of split operands a plan gathers whole on every rank beyond the budget
(``gather_warning_elements``, the size above which an implicit gather would warn), so that
no plan gathers a large operand while one that does not exists (K and ring never gather an
operand, so one always does). Then the elements received by the busiest rank: to move both
operands, plus the result's size for K's allreduce, plus for the ring every x2 block but its
own. Ties go to fewer collective calls (the ring's ``p - 1``: a small x2 is gathered in one),
then to fewer operands changing layout (so a plan that uses the operands as they are wins,
also on one rank), then to table order.
Candidates: N; R and C with the counts of an operand already split there (else balanced;
never along a dimension added by promotion); ring with R's counts for x1 and x2's counts on
k (else balanced); ringn with R's counts for x1 and x2's counts on n (else balanced); B for
each batch axis an operand is split on, with its counts; K with the counts of either
operand's split on k, and balanced counts.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._config import get_config
from .._layout import Layout, balanced_counts

__all__ = [
    "Cost",
    "Plan",
    "candidate_plans",
    "choose_plan",
    "move_cost",
    "plan_cost",
    "ring_cost",
]


@functools.total_ordering
@dataclass(frozen=True)
class Cost:
    """What a plan costs; compared field by field in the order of ``key``: the memory bound
    (``excess``) first, then the elements, messages and relayouts."""

    elements: int = 0  # elements received by the busiest rank
    messages: int = 0  # collective calls
    relayouts: int = 0  # operands whose layout changes (a free local slice included)
    excess: int = 0  # elements of split operands gathered whole on every rank, past the budget

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.elements + other.elements,
            self.messages + other.messages,
            self.relayouts + other.relayouts,
            self.excess + other.excess,
        )

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.excess, self.elements, self.messages, self.relayouts)

    def __lt__(self, other: Cost) -> bool:
        return self.key < other.key


@dataclass(frozen=True)
class Plan:
    """The layouts the (promoted) operands are brought to, and the local products' layout."""

    name: str
    x1: Layout
    x2: Layout
    out: Layout  # for K: the layout after the allreduce (replicated)
    reduce: bool = False  # the local products are partial sums, added by one allreduce
    ring: bool = False  # x2's blocks pass around the ranks (p steps, p - 1 sendrecv)
    # ring over x2's columns (n): each step fills columns of the result (False: over k, each
    # step adds a partial product)
    columns: bool = False


def _extents(layout: Layout) -> list[tuple[Any, Any]]:
    """Every rank's block as ``(lo, hi)`` per axis: NumPy arrays over the ranks along the
    split axis (the blocks' bounds), the whole axis elsewhere (scalars, broadcast)."""
    out: list[tuple[Any, Any]] = [(0, n) for n in layout.shape]
    if layout.split is not None:
        out[layout.split] = (layout.bounds[:-1], layout.bounds[1:])
    return out


def _sizes(extents: list[tuple[Any, Any]]) -> Any:
    """The elements of each rank's block (or of each rank's part of two blocks in common)."""
    size = np.int64(1)
    for lo, hi in extents:
        size = size * np.maximum(np.subtract(hi, lo), 0)
    return size


def move_cost(src: Layout, dst: Layout, nranks: int) -> Cost:
    """Cost of bringing an operand from ``src`` to ``dst``: a rank receives its ``dst`` block
    less what its ``src`` block already holds (a replicated source holds everything). By
    NumPy over the ranks' bounds, not a loop over the ranks (thousands of them)."""
    if src == dst:
        return Cost()
    if src.split is None or nranks == 1:
        return Cost(relayouts=1)
    have, want = _extents(src), _extents(dst)
    common = [(np.maximum(a[0], b[0]), np.minimum(a[1], b[1])) for a, b in zip(have, want)]
    received = np.max(_sizes(want) - _sizes(common), initial=0)
    return Cost(int(received), 1, 1)


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def ring_cost(x2: Layout, nranks: int) -> Cost:
    """Cost of passing the blocks of ``x2`` (split on k) around ``nranks`` ranks: each rank
    receives every block but its own, in ``nranks - 1`` messages."""
    if nranks == 1:
        return Cost()
    own = int(np.min(_sizes(_extents(x2)), initial=_size(x2.shape)))
    return Cost(_size(x2.shape) - own, nranks - 1)


def plan_cost(plan: Plan, x1: Layout, x2: Layout, nranks: int, budget: int | None = None) -> Cost:
    """The cost of ``plan`` for operands laid out as ``x1`` and ``x2``; ``budget``: the
    elements of split operands a plan may gather whole before it counts as ``excess``
    (default: the ``gather_warning_elements`` setting)."""
    cost = move_cost(x1, plan.x1, nranks) + move_cost(x2, plan.x2, nranks)
    if nranks == 1:
        return cost
    if plan.reduce:
        cost = cost + Cost(_size(plan.out.shape), 1)
    if plan.ring:
        cost = cost + ring_cost(plan.x2, nranks)
    gathered = sum(
        _size(dst.shape)
        for src, dst in ((x1, plan.x1), (x2, plan.x2))
        if src.split is not None and dst.split is None
    )
    limit = get_config().gather_warning_elements if budget is None else budget
    return cost + Cost(excess=max(0, gathered - limit))


def _counts_on(layout: Layout, axis: int, nranks: int) -> tuple[int, ...]:
    """The counts of ``layout`` if it is split on ``axis``, else balanced ones."""
    if layout.split == axis:
        return layout.counts  # type: ignore[return-value]
    return balanced_counts(layout.shape[axis], nranks)


def _batch_target(x: Layout, out: Layout) -> Layout:
    """``x`` split like ``out`` on a batch axis, or whole where ``x`` broadcasts along it."""
    axis = out.split - (out.ndim - x.ndim)  # type: ignore[operator]
    if axis < 0 or x.shape[axis] != out.shape[out.split]:  # type: ignore[index]
        return Layout.replicated(x.shape)
    return Layout(x.shape, axis, out.counts)


def candidate_plans(
    x1: Layout,
    x2: Layout,
    shape: tuple[int, ...],
    nranks: int,
    promoted: tuple[bool, bool] = (False, False),
) -> Iterator[Plan]:
    """Every plan worth costing, in tie-break order. ``promoted``: x1 / x2 was 1-D (its m / n
    dimension was added by promotion; the result is never split along it)."""
    rep = Layout.replicated
    nd = len(shape)
    yield Plan("N", rep(x1.shape), rep(x2.shape), rep(shape))
    if not promoted[0]:
        c = _counts_on(x1, x1.ndim - 2, nranks)
        yield Plan("R", Layout(x1.shape, x1.ndim - 2, c), rep(x2.shape), Layout(shape, nd - 2, c))
    if not promoted[1]:
        c = _counts_on(x2, x2.ndim - 1, nranks)
        yield Plan("C", rep(x1.shape), Layout(x2.shape, x2.ndim - 1, c), Layout(shape, nd - 1, c))
    if not promoted[0]:  # x2's blocks around the ranks, split on k or (not promoted) on n
        c = _counts_on(x1, x1.ndim - 2, nranks)
        rows, out = Layout(x1.shape, x1.ndim - 2, c), Layout(shape, nd - 2, c)
        for name, axis in (("ring", x2.ndim - 2), ("ringn", x2.ndim - 1)):
            if name == "ring" or not promoted[1]:
                x2_at = Layout(x2.shape, axis, _counts_on(x2, axis, nranks))
                yield Plan(name, rows, x2_at, out, ring=True, columns=name == "ringn")
    for x in (x1, x2):
        if x.split is not None and x.split < x.ndim - 2:
            axis = x.split + nd - x.ndim
            if x.shape[x.split] == shape[axis]:  # not split along a broadcast axis
                out = Layout(shape, axis, x.counts)
                yield Plan("B", _batch_target(x1, out), _batch_target(x2, out), out)
    k = x1.shape[-1]
    options = [
        _counts_on(x1, x1.ndim - 1, nranks),
        _counts_on(x2, x2.ndim - 2, nranks),
        balanced_counts(k, nranks),
    ]
    for c in dict.fromkeys(options):  # distinct, in order
        yield Plan(
            "K",
            Layout(x1.shape, x1.ndim - 1, c),
            Layout(x2.shape, x2.ndim - 2, c),
            rep(shape),
            reduce=True,
        )


def choose_plan(
    x1: Layout,
    x2: Layout,
    shape: tuple[int, ...],
    nranks: int,
    promoted: tuple[bool, bool] = (False, False),
    budget: int | None = None,
) -> Plan:
    """The cheapest candidate plan (the first of equal ones). ``budget``: see ``plan_cost``
    (default: the ``gather_warning_elements`` setting, read on every call)."""
    limit = get_config().gather_warning_elements if budget is None else budget
    return _cheapest(x1, x2, shape, nranks, promoted, limit)


@functools.lru_cache(maxsize=1024)
def _cheapest(
    x1: Layout,
    x2: Layout,
    shape: tuple[int, ...],
    nranks: int,
    promoted: tuple[bool, bool],
    budget: int,
) -> Plan:
    """``choose_plan``, remembered for the last 1024 distinct arguments (layouts are values):
    an iterative algorithm multiplies the same layouts on every iteration, and costing the
    candidates takes longer than a small product."""
    plans = list(candidate_plans(x1, x2, shape, nranks, promoted))
    costs = [plan_cost(p, x1, x2, nranks, budget) for p in plans]
    return plans[min(range(len(plans)), key=lambda i: (costs[i].key, i))]
