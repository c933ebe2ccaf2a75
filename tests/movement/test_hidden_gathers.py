"""No hidden gathers: a representative call of every operation family, on split operands
large enough for a gather to stand out, moves no whole array to every rank unless the user
asked for it (``to_numpy``, ``resplit(x, None)``), the operation says so with a
``GatherWarning`` (the gathers named in docs/architecture.md and docs/interop.md), or the
docs name the replicated result it makes (``named``: an int on the split axis, a reduction
of the split axis). Gathers the docs do not name yet are listed as ``known`` (expected to
fail, strictly, so that a fix shows).

The bytes come from ``Recorder``, a communicator wrapped around the test's own that notes,
for every call, the bytes this rank received (the collective counter,
``xdist.count_collectives()``, counts calls only). A call "gathers" when either

- it gives every rank the same data (``allgatherv``, ``allgather``, ``bcast``,
  ``allreduce``) and, over the operation, such calls brought some rank at least a quarter of
  the operand's bytes (a gather of the operand brings ``(p - 1) / p`` of them; the small
  metadata, samples, factors and partial results of the distributed algorithms bring a few
  percent at most), or
- it moves blocks point to point (``alltoallv``, ``sendrecv``) and the ranks together
  received more than the operand's bytes in that one call (a permutation delivers every
  element at most once; a gather delivers it ``p - 1`` times).

Runs at 1, 2 and 3 ranks; the gathers are asserted at more than one rank.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pytest
from helpers import COMM, SIZE, assert_equal, distribute, random_array, uneven_counts

import xdist

REPLICATING = ("allgatherv", "allgather", "bcast", "allreduce")
ROWS, COLS = 3000, 40  # 120000 float64: above the default GatherWarning threshold
SQUARE = 400  # a square matrix of 160000 elements


def _nbytes(buf) -> int:
    return int(getattr(buf, "nbytes", 0))


@dataclass
class Recorder:
    """A communicator that forwards every call to ``inner`` and notes ``(call, bytes this
    rank received)`` in ``calls`` (what a rank already held is not counted)."""

    inner: object
    calls: list[tuple[str, int]] = field(default_factory=list)

    @property
    def rank(self) -> int:
        return self.inner.rank

    @property
    def size(self) -> int:
        return self.inner.size

    @property
    def cuda_aware(self) -> bool:
        return self.inner.cuda_aware

    def node_rank(self) -> int:
        return self.inner.node_rank()

    def barrier(self) -> None:
        self.inner.barrier()

    def bcast(self, buf, root):
        out = self.inner.bcast(buf, root)
        self.calls.append(("bcast", 0 if root == self.rank else _nbytes(out)))
        return out

    def allreduce(self, buf, op):
        out = self.inner.allreduce(buf, op)
        self.calls.append(("allreduce", _nbytes(out) if self.size > 1 else 0))
        return out

    def exscan(self, buf, op):
        out = self.inner.exscan(buf, op)
        self.calls.append(("exscan", _nbytes(out) if self.size > 1 else 0))
        return out

    def allgather_ints(self, values):
        out = self.inner.allgather_ints(values)
        self.calls.append(("allgather", _nbytes(out) - _nbytes(out[self.rank])))
        return out

    def allgatherv(self, buf, counts):
        out = self.inner.allgatherv(buf, counts)
        own = int(counts[self.rank]) * out.itemsize
        self.calls.append(("allgatherv", _nbytes(out) - own))
        return out

    def alltoall_ints(self, values):
        out = self.inner.alltoall_ints(values)
        self.calls.append(("alltoall", _nbytes(out) - _nbytes(out[self.rank])))
        return out

    def alltoallv(self, buf, sendcounts, recvcounts):
        out = self.inner.alltoallv(buf, sendcounts, recvcounts)
        moved = sum(int(c) for c in recvcounts) - int(recvcounts[self.rank])
        self.calls.append(("alltoallv", moved * out.itemsize))
        return out

    def sendrecv(self, buf, dest, recvcount, source):
        out = self.inner.sendrecv(buf, dest, recvcount, source)
        self.calls.append(("sendrecv", 0 if source == self.rank else _nbytes(out)))
        return out

    def split(self, color: int, key: int = 0):
        return Recorder(self.inner.split(color, key))

    def dup(self):
        return Recorder(self.inner.dup())

    @contextmanager
    def recording(self):
        """The calls made inside the block (a fresh list)."""
        self.calls = []
        yield self.calls


@dataclass(frozen=True)
class Moved:
    """What one operation moved, agreed over the ranks."""

    replicated: int  # bytes the busiest rank received from calls that replicate data
    duplicated: int  # the most bytes one point-to-point call delivered, summed over ranks
    calls: tuple[str, ...]

    def gathers(self, whole: int, data: float = 1.0) -> bool:
        """Whether this looks like a gather of an operand of ``whole`` bytes, for an
        operation that moves ``data`` operands' worth of bytes (see the module docstring)."""
        return 4 * self.replicated >= whole or self.duplicated > data * whole


def measure(calls: list[tuple[str, int]]) -> Moved:
    """Combine every rank's record of one operation (every rank made the same calls)."""
    replicated = sum(b for name, b in calls if name in REPLICATING)
    p2p = np.array([b for name, b in calls if name not in REPLICATING] or [0], np.int64)
    busiest = int(COMM.allreduce(np.array([replicated], np.int64), "max")[0])
    duplicated = int(COMM.allreduce(p2p, "sum").max())
    return Moved(busiest, duplicated, tuple(name for name, _ in calls))


RECORDER = Recorder(COMM)


def _arrays() -> dict[str, xdist.Array]:
    """The operands, on ``RECORDER`` (built without messages)."""
    g = random_array((ROWS, COLS), "float64", seed=1)
    h = random_array((ROWS, COLS), "float64", seed=2)
    flat = g.reshape(-1)
    ints = (np.abs(g[:, 0]) * 10).astype(np.int64)
    counts = uneven_counts(ROWS, SIZE)
    return {
        "x": distribute(g, 0, comm=RECORDER),
        "y": distribute(h, 0, comm=RECORDER),
        "x_uneven": distribute(g, 0, counts, comm=RECORDER),
        "x_cols": distribute(g, 1, comm=RECORDER),
        "x3": distribute(random_array((4, ROWS, COLS), "float64", seed=6), 0, comm=RECORDER),
        "v": distribute(flat, 0, comm=RECORDER),
        "sorted": distribute(np.sort(flat), 0, comm=RECORDER),
        "rounded": distribute(np.round(flat, 1), 0, comm=RECORDER),
        "ints": distribute(ints, 0, comm=RECORDER),
        "idx": distribute((np.arange(ROWS) * 7) % ROWS, 0, comm=RECORDER),
        "mask": distribute(g[:, 0] > 0, 0, comm=RECORDER),
        "order": distribute(np.argsort(g, axis=0, kind="stable"), 0, comm=RECORDER),
        "wide": distribute(random_array((200, ROWS), "float64", seed=3), 0, comm=RECORDER),
        "w": distribute(random_array((COLS, 5), "float64", seed=4), comm=RECORDER),
        "square": distribute(
            random_array((SQUARE, SQUARE), "float64", seed=5) + SQUARE * np.eye(SQUARE),
            0,
            comm=RECORDER,
        ),
    }


A = _arrays()
IDX = (np.arange(ROWS) * 7) % ROWS  # NumPy: a replicated index
PRIME = 119993
SQUARE_DATA = SQUARE * SQUARE / (ROWS * COLS)
lin, fft = xdist.linalg, xdist.fft


def _setitem_mask():
    z = xdist.zeros_like(A["x"])
    z[A["mask"]] = 1.0
    return z


def _setitem_index():
    z = xdist.zeros_like(A["x"])
    z[A["idx"]] = A["y"]
    return z


def _op(name: str, call: Callable[[], object], data: float = 1.0, named: str = "", known: str = ""):
    """One representative call. ``data``: the bytes it may move, in operands' worth (argsort
    moves (value, index) records, concat two operands, an FFT complex values); ``named``:
    where the docs name a whole result it replicates without a warning; ``known``: a gather
    this test finds that the docs do not name yet (the test expects it to fail)."""
    marks = [pytest.mark.xfail(reason=known, strict=True)] if known and SIZE > 1 else []
    return pytest.param(name, call, data, named, id=name, marks=marks)


SLAB = (
    "docs/architecture.md, indexing: an int on the split axis is one bcast; the slab it "
    "selects is the result, replicated on every rank"
)
REDUCED = (
    "docs/architecture.md, reductions: one allreduce of result-sized partials; the result of "
    "reducing the split axis is replicated on every rank"
)
# Each family's representative calls on split operands.
OPERATIONS = [
    # elementwise
    _op("add same layout", lambda: A["x"] + A["y"]),
    _op("add other split", lambda: A["x"] + A["x_cols"]),
    _op("add other counts", lambda: A["x"] + A["x_uneven"]),
    _op("where", lambda: xdist.where(A["x"] > 0, A["x"], A["y"])),
    _op("clip", lambda: xdist.clip(A["x"], -1.0, 1.0)),
    _op("special.erf", lambda: xdist.special.erf(A["x"])),
    _op("astype", lambda: xdist.astype(A["x"], xdist.float32)),
    # reductions and statistics
    _op("sum split axis", lambda: xdist.sum(A["x"], axis=0)),
    _op("sum other axis", lambda: xdist.sum(A["x"], axis=1)),
    _op("sum split axis, large result", lambda: xdist.sum(A["x3"], axis=0), named=REDUCED),
    _op("var split axis", lambda: xdist.var(A["x"], axis=0)),
    _op("max all", lambda: xdist.max(A["x"])),
    _op("cumulative_sum split axis", lambda: xdist.cumulative_sum(A["x"], axis=0)),
    _op("all", lambda: xdist.all(A["x"] > -100)),
    _op("count_nonzero", lambda: xdist.count_nonzero(A["x"] > 0, axis=0)),
    _op("diff split axis", lambda: xdist.diff(A["x"], axis=0)),
    _op("median split axis", lambda: xdist.median(A["x"], axis=0)),
    _op("median all", lambda: xdist.median(A["x"])),
    _op("bincount", lambda: xdist.bincount(A["ints"], weights=A["v"][:ROWS])),
    # searching
    _op("argmax split axis", lambda: xdist.argmax(A["x"], axis=0)),
    _op("nonzero", lambda: xdist.nonzero(A["v"] > 0)),
    _op("searchsorted split values", lambda: xdist.searchsorted(A["sorted"], A["v"])),
    # sorting
    _op("sort 1-D", lambda: xdist.sort(A["v"])),
    _op("argsort 1-D", lambda: xdist.argsort(A["v"]), data=2),
    _op("sort split axis", lambda: xdist.sort(A["x"], axis=0)),
    _op("sort other axis", lambda: xdist.sort(A["x"], axis=1)),
    # sets
    _op("unique_values", lambda: xdist.unique_values(A["rounded"])),
    _op("unique_inverse", lambda: xdist.unique_inverse(A["rounded"])),
    _op("unique_all", lambda: xdist.unique_all(A["rounded"])),
    _op("isin split", lambda: xdist.isin(A["ints"], A["ints"][:1000])),
    # indexing
    _op("slice", lambda: A["x"][10:2000, 3:]),
    _op("negative step", lambda: A["x"][::-1]),
    _op("integer on split axis", lambda: A["x"][5]),
    _op("integer on split axis, 3-D", lambda: A["x3"][2], named=SLAB),
    _op("integer array split", lambda: A["x"][A["idx"]]),
    _op("integer array replicated", lambda: A["x"][IDX]),
    _op("boolean mask", lambda: A["x"][A["mask"]]),
    _op("boolean mask across the split", lambda: A["x_cols"][A["mask"]]),
    _op("take", lambda: xdist.take(A["x"], A["idx"], axis=0)),
    _op("take_along_axis", lambda: xdist.take_along_axis(A["x"], A["order"], axis=0), data=2),
    _op("setitem mask", _setitem_mask),
    _op("setitem integer array", _setitem_index),
    # manipulation
    _op("reshape keeps split", lambda: xdist.reshape(A["x"], (ROWS, 4, 10))),
    _op("reshape moves", lambda: xdist.reshape(A["x"], (COLS, ROWS))),
    _op("reshape flat", lambda: xdist.reshape(A["x"], (-1,))),
    _op("permute_dims", lambda: xdist.permute_dims(A["x"], (1, 0))),
    _op("moveaxis", lambda: xdist.moveaxis(A["x"], 0, 1)),
    _op("concat split axis", lambda: xdist.concat([A["x"], A["y"]], axis=0), data=2),
    _op("concat other axis", lambda: xdist.concat([A["x"], A["y"]], axis=1), data=2),
    _op("stack", lambda: xdist.stack([A["x"], A["y"]]), data=2),
    _op("concat other layouts", lambda: xdist.concat([A["x"], A["x_cols"]]), data=2),
    _op("flip", lambda: xdist.flip(A["x"], axis=0)),
    _op("roll", lambda: xdist.roll(A["x"], 7, axis=0)),
    _op("tile", lambda: xdist.tile(A["x"], (2, 1)), data=2),
    _op("repeat", lambda: xdist.repeat(A["x"], 2, axis=0)),
    _op("expand_dims", lambda: xdist.expand_dims(A["x"], axis=0)),
    _op("squeeze", lambda: xdist.squeeze(xdist.expand_dims(A["x"], axis=0), axis=0)),
    _op("broadcast_to", lambda: xdist.broadcast_to(A["x"], (2, ROWS, COLS))),
    _op("unstack other axis", lambda: xdist.unstack(A["x"], axis=1)),
    _op("unstack split axis", lambda: xdist.unstack(A["x_cols"], axis=1)),
    # creation
    _op("zeros_like", lambda: xdist.zeros_like(A["x"])),
    _op("asarray copy", lambda: xdist.asarray(A["x"], copy=True)),
    _op("tril", lambda: xdist.tril(A["x"])),
    _op("meshgrid", lambda: xdist.meshgrid(A["v"][:ROWS], A["v"][:COLS])),
    # distribution
    _op("resplit other axis", lambda: xdist.resplit(A["x"], 1)),
    _op("balance", lambda: xdist.balance(A["x_uneven"])),
    # linear algebra
    _op("matmul replicated right", lambda: A["x"] @ A["w"]),
    _op("matmul gram", lambda: A["x"].mT @ A["x"]),
    _op("matmul rows @ rows", lambda: A["wide"] @ A["x"]),
    _op("matmul rows @ columns", lambda: A["wide"] @ A["x_cols"]),
    _op("matmul vector", lambda: A["x"] @ A["v"][:COLS]),
    _op("matmul square rows @ rows", lambda: A["square"] @ A["square"], data=SQUARE_DATA),
    _op("tensordot", lambda: xdist.tensordot(A["x"], A["y"], axes=([0], [0]))),
    _op("vecdot split axis", lambda: xdist.vecdot(A["x"], A["y"], axis=-2)),
    _op("vecdot other splits", lambda: xdist.vecdot(A["x"], A["x_cols"])),
    _op("linalg.qr", lambda: lin.qr(A["x"])),
    _op("linalg.svdvals", lambda: lin.svdvals(A["x"])),
    _op("linalg.matrix_norm", lambda: lin.matrix_norm(A["x"])),
    _op("linalg.vector_norm", lambda: lin.vector_norm(A["x"], axis=0)),
    _op("linalg.diagonal", lambda: lin.diagonal(A["x"])),
    _op("linalg.inv", lambda: lin.inv(A["square"]), data=SQUARE_DATA),
    _op("linalg.solve", lambda: lin.solve(A["square"], A["square"][:, :1]), data=SQUARE_DATA),
    _op("linalg.eigh", lambda: lin.eigh(A["square"]), data=SQUARE_DATA),
    _op("linalg.matrix_power", lambda: lin.matrix_power(A["square"], 3), data=SQUARE_DATA),
    _op("linalg.svd", lambda: lin.svd(A["x"], full_matrices=False)),
    _op("linalg.outer", lambda: lin.outer(A["v"][:400], A["v"][:400])),
    # fft
    _op("fft split axis", lambda: fft.fft(A["x"], axis=0), data=2),
    _op("fft other axis", lambda: fft.rfft(A["x"], axis=1), data=2),
    _op("fft 1-D", lambda: fft.fft(A["v"]), data=2),
    _op("fft 1-D prime length", lambda: fft.fft(A["v"][:PRIME]), data=2),
    _op("fftshift", lambda: fft.fftshift(A["x"], axes=0)),
    # NumPy's functions and ndarray methods on xdist arrays
    _op("np.where scalars", lambda: np.where(A["x"] > 0, 1.0, 0)),
    _op("np.where one argument", lambda: np.where(A["v"] > 0)),
    _op("x.astype", lambda: A["x"].astype(np.float32)),
    _op("x.sum split axis", lambda: A["x"].sum(axis=0)),
    _op("x.std split axis", lambda: A["x"].std(axis=0, ddof=1)),
    _op("x.argmax", lambda: A["x"].argmax()),
    _op("x.cumsum flat", lambda: A["x"].cumsum()),
    _op("x.reshape", lambda: A["x"].reshape(COLS, -1)),
    _op("x.ravel", lambda: A["x_cols"].ravel()),
    _op("x.transpose", lambda: A["x"].transpose()),
    _op("x.clip", lambda: A["x"].clip(-1.0, 1.0)),
    _op("x.dot", lambda: A["x"].dot(A["w"])),
    _op("x.nonzero", lambda: (A["v"] > 0).nonzero()),
    _op("x.item", lambda: A["x"].item(ROWS * COLS - 1)),
    _op("x.fill", lambda: A["x"].copy().fill(2.0)),
    # leaving xdist (a NumPy function without a distributed version: NumPy on gathered
    # copies, with the warning above the threshold)
    _op("np.asarray", lambda: np.asarray(A["x"])),
    _op("np.unique (no distributed version)", lambda: np.unique(A["rounded"])),
]

WHOLE = ROWS * COLS * 8  # the bytes of the largest operands


def run_recorded(call: Callable[[], object]) -> tuple[Moved, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught, RECORDER.recording() as calls:
        warnings.simplefilter("always")
        call()
    gathers = [w for w in caught if issubclass(w.category, xdist.GatherWarning)]
    return measure(calls), gathers


@pytest.mark.parametrize("name,call,data,named", OPERATIONS)
def test_no_hidden_gather(name, call, data, named):
    moved, warned = run_recorded(call)
    if SIZE == 1:
        assert moved.replicated == moved.duplicated == 0, moved
        return
    if moved.gathers(WHOLE, data) and not named:
        assert warned, f"{name}: a gather without a GatherWarning: {moved}"


@pytest.mark.parametrize(
    "call",
    [lambda: xdist.resplit(A["x"], None), lambda: A["x"].to_numpy(), lambda: A["x"].tolist()],
    ids=["resplit(x, None)", "to_numpy", "tolist"],
)
def test_the_measure_sees_an_explicit_gather(call):
    """Gathers the user asks for are found by the measure and issue no warning."""
    moved, warned = run_recorded(call)
    assert moved.gathers(WHOLE) == (SIZE > 1), moved
    assert not warned


@pytest.mark.parametrize("x2", ["x", "x_uneven"])
def test_rows_times_rows_holds_one_block_of_x2_at_a_time(x2):
    """The ring: ``p - 1`` sendrecv, each bringing one block of x2; together every block but
    this rank's own, so never the whole of x2 at once."""
    a, b = A["wide"], A[x2]
    with RECORDER.recording() as calls:
        y = a @ b
    assert [name for name, _ in calls] == ["sendrecv"] * (SIZE - 1)
    block = COLS * 8
    assert all(n <= max(b.counts) * block for _, n in calls), calls
    assert sum(n for _, n in calls) == WHOLE - b.counts[COMM.rank] * block
    assert (y.split, y.counts) == (0, a.counts)
    expected = a.to_numpy() @ b.to_numpy()
    assert_equal(y, expected, rtol=1e-12, atol=1e-12)
