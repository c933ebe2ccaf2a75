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
B     split on batch axis j (whole   split on batch axis j (whole  split on j
      where it broadcasts along j)   where it broadcasts along j)
K     split on k, counts c           split on k, the same counts   partial sums, then ONE
                                                                   allreduce: replicated
====  =============================  ============================  ==========================

Every plan is feasible for any input layouts: an operand is brought to the layout the plan
needs by ``redistribute_block`` (same layout or replicated source: free, a local slice at
most; to whole: one allgather; to another split: one all-to-all of what changes owner).

Cost model, from global metadata only so that every rank picks the same plan: the elements
received by the busiest rank to move both operands, plus the result's size for K's
allreduce. Ties go to fewer collective calls, then to fewer operands changing layout (so a
plan that uses the operands as they are wins, also on one rank), then to table order.
Candidates: N; R and C with the counts of an operand already split there (else balanced;
never along a dimension added by promotion); B for each batch axis an operand is split on,
with its counts; K with the counts of either operand's split on k, and balanced counts.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

from .._layout import Layout, balanced_counts

__all__ = ["Cost", "Plan", "candidate_plans", "choose_plan", "move_cost", "plan_cost"]


@dataclass(frozen=True, order=True)
class Cost:
    """What a plan costs; compared field by field, the first field first."""

    elements: int = 0  # elements received by the busiest rank
    messages: int = 0  # collective calls
    relayouts: int = 0  # operands whose layout changes (a free local slice included)

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.elements + other.elements,
            self.messages + other.messages,
            self.relayouts + other.relayouts,
        )


@dataclass(frozen=True)
class Plan:
    """The layouts the (promoted) operands are brought to, and the local products' layout."""

    name: str
    x1: Layout
    x2: Layout
    out: Layout  # for K: the layout after the allreduce (replicated)
    reduce: bool = False  # the local products are partial sums, added by one allreduce


def _ranges(layout: Layout, rank: int) -> list[tuple[int, int]]:
    ranges = [(0, n) for n in layout.shape]
    if layout.split is not None:
        ranges[layout.split] = layout.local_range(rank)
    return ranges


def _block_size(ranges: list[tuple[int, int]]) -> int:
    size = 1
    for lo, hi in ranges:
        size *= max(0, hi - lo)
    return size


def move_cost(src: Layout, dst: Layout, nranks: int) -> Cost:
    """Cost of bringing an operand from ``src`` to ``dst``: a rank receives its ``dst`` block
    less what its ``src`` block already holds (a replicated source holds everything)."""
    if src == dst:
        return Cost()
    if src.split is None or nranks == 1:
        return Cost(relayouts=1)
    received = 0
    for rank in range(nranks):
        have, want = _ranges(src, rank), _ranges(dst, rank)
        common = [(max(a[0], b[0]), min(a[1], b[1])) for a, b in zip(have, want)]
        received = max(received, _block_size(want) - _block_size(common))
    return Cost(received, 1, 1)


def plan_cost(plan: Plan, x1: Layout, x2: Layout, nranks: int) -> Cost:
    cost = move_cost(x1, plan.x1, nranks) + move_cost(x2, plan.x2, nranks)
    if plan.reduce and nranks > 1:
        cost = cost + Cost(_block_size([(0, n) for n in plan.out.shape]), 1)
    return cost


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


@functools.lru_cache(maxsize=1024)
def choose_plan(
    x1: Layout,
    x2: Layout,
    shape: tuple[int, ...],
    nranks: int,
    promoted: tuple[bool, bool] = (False, False),
) -> Plan:
    """The cheapest candidate plan (the first of equal ones). Remembered for the last 1024
    distinct arguments (layouts are values): an iterative algorithm multiplies the same
    layouts on every iteration, and costing the candidates takes longer than a small
    product."""
    plans = list(candidate_plans(x1, x2, shape, nranks, promoted))
    costs = [plan_cost(p, x1, x2, nranks) for p in plans]
    return plans[min(range(len(plans)), key=lambda i: (costs[i], i))]
