"""The communicators: every collective, on every communicator, including chunked messages."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from fake_device import FakeGPUBackend, device_buffer
from helpers import _COMMS, RANK, comm_params, distribute

import xdist
from xdist._transport.comm import ReduceOp, SelfComm
from xdist.backends.base import DeviceBuffer


@comm_params
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128", "bool", "float16"])
def test_allgatherv_uneven(comm, dtype):
    counts = [(r * 2) % 3 for r in range(comm.size)]  # zeros included
    parts = [(np.arange(c, dtype="int64") + r).astype(dtype) for r, c in enumerate(counts)]
    got = comm.allgatherv(parts[comm.rank], counts)
    expected = np.concatenate(parts) if parts else np.empty(0, dtype)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.dtype(dtype)


@comm_params
@pytest.mark.parametrize(
    "op,np_fn", [("sum", np.sum), ("prod", np.prod), ("min", np.min), ("max", np.max)]
)
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_allreduce_arith(comm, op, np_fn, dtype):
    data = [np.arange(5, dtype=dtype) + r + 1 for r in range(comm.size)]
    got = comm.allreduce(data[comm.rank], op)
    np.testing.assert_array_equal(got, np_fn(np.stack(data), axis=0).astype(dtype))


@comm_params
@pytest.mark.parametrize("op,np_fn", [("land", np.logical_and), ("lor", np.logical_or)])
def test_allreduce_logical(comm, op, np_fn):
    data = [np.array([r % 2 == 0, True, False, r == 0]) for r in range(comm.size)]
    got = comm.allreduce(data[comm.rank], op)
    np.testing.assert_array_equal(got, np_fn.reduce(np.stack(data), axis=0))


@comm_params
def test_allreduce_min_max_propagate_nan(comm):
    data = np.array([1.0, 2.0]) if comm.rank != comm.size - 1 else np.array([np.nan, 0.0])
    np.testing.assert_array_equal(comm.allreduce(data, "min"), [np.nan, 0.0])
    np.testing.assert_array_equal(
        comm.allreduce(data, "max"), [np.nan, 2.0 if comm.size > 1 else 0.0]
    )


@comm_params
def test_allreduce_record_op(comm):
    # A user op over records of 2 float64s: (sum, max) of each column.
    op = ReduceOp(
        "sum_max",
        2,
        lambda a, b: np.stack([a[:, 0] + b[:, 0], np.maximum(a[:, 1], b[:, 1])], axis=1),
    )
    mine = np.array([[comm.rank, comm.rank * 10.0], [1.0, -comm.rank]])
    got = comm.allreduce(mine, op)
    n = comm.size
    np.testing.assert_array_equal(got, [[n * (n - 1) / 2, (n - 1) * 10.0], [n, 0.0]])


@comm_params
def test_alltoallv_uneven(comm):
    size, me = comm.size, comm.rank
    # rank r sends (r + d) % 3 copies of the value 100*r + d to rank d
    sendcounts = [(me + d) % 3 for d in range(size)]
    send = np.concatenate(
        [np.full(c, 100 * me + d, dtype=np.int64) for d, c in enumerate(sendcounts)]
        or [np.empty(0, np.int64)]
    )
    recvcounts = [(s + me) % 3 for s in range(size)]
    got = comm.alltoallv(send, sendcounts, recvcounts)
    expected = np.concatenate(
        [np.full(c, 100 * s + me, dtype=np.int64) for s, c in enumerate(recvcounts)]
        or [np.empty(0, np.int64)]
    )
    np.testing.assert_array_equal(got, expected)


@comm_params
def test_bcast_exscan_sendrecv(comm):
    size, me = comm.size, comm.rank
    buf = np.arange(4.0) if me == size - 1 else np.zeros(4)
    np.testing.assert_array_equal(comm.bcast(buf, size - 1), np.arange(4.0))
    pre = comm.exscan(np.array([me + 1, 2], dtype=np.int64), "sum")
    np.testing.assert_array_equal(pre, [me * (me + 1) // 2, 2 * me])
    prod = comm.exscan(np.array([2.0]), "prod")
    np.testing.assert_array_equal(prod, [2.0**me])
    right, left = (me + 1) % size, (me - 1) % size
    got = comm.sendrecv(np.full(me + 1, float(me)), right, left + 1, left)
    np.testing.assert_array_equal(got, np.full(left + 1, float(left)))


@comm_params
def test_allgather_ints(comm):
    got = comm.allgather_ints([comm.rank, 7])
    np.testing.assert_array_equal(got, [[r, 7] for r in range(comm.size)])


@comm_params
def test_alltoall_ints(comm):
    # Rank r sends (r, q, r * 10 + q) to rank q: row q of the result comes from rank q.
    send = [v for q in range(comm.size) for v in (comm.rank, q, comm.rank * 10 + q)]
    with xdist.count_collectives() as sent:
        got = comm.alltoall_ints(send)
    assert sent == {"alltoall": 1}
    expected = [[q, comm.rank, q * 10 + comm.rank] for q in range(comm.size)]
    np.testing.assert_array_equal(got, np.array(expected, dtype=np.int64).reshape(comm.size, 3))
    assert got.dtype == np.int64


@comm_params
def test_split_and_dup(comm):
    sub = comm.split(comm.rank % 2, comm.rank)
    assert sub.size == len(range(comm.rank % 2, comm.size, 2))
    total = sub.allreduce(np.array([comm.rank]), "sum")[0]
    assert total == sum(range(comm.rank % 2, comm.size, 2))
    d = comm.dup()
    assert (d.rank, d.size) == (comm.rank, comm.size)


@comm_params
@pytest.mark.parametrize("limit", [1, 3, 7])
def test_chunked_messages(comm, limit):
    """Messages longer than the chunk limit are cut and reassembled exactly; the limit is
    lowered through the setting (2**31 - 1 by default) instead of allocating gigabytes."""
    size, me = comm.size, comm.rank
    with xdist.config_context(max_message_elements=limit):
        x = np.arange(20, dtype=np.float64) * (me + 1)
        np.testing.assert_array_equal(
            comm.allreduce(x, "sum"), np.arange(20.0) * size * (size + 1) / 2
        )
        counts = [5 + 3 * r for r in range(size)]
        parts = [np.arange(c, dtype=np.int32) + 1000 * r for r, c in enumerate(counts)]
        np.testing.assert_array_equal(comm.allgatherv(parts[me], counts), np.concatenate(parts))
        sendcounts = [4 + d + me for d in range(size)]
        send = np.concatenate(
            [np.full(c, 10 * me + d, dtype=np.complex128) for d, c in enumerate(sendcounts)]
        )
        recvcounts = [4 + me + s for s in range(size)]
        got = comm.alltoallv(send, sendcounts, recvcounts)
        expected = np.concatenate(
            [np.full(c, 10 * s + me, dtype=np.complex128) for s, c in enumerate(recvcounts)]
        )
        np.testing.assert_array_equal(got, expected)
        buf = np.arange(11, dtype=np.float16) if me == 0 else np.zeros(11, np.float16)
        np.testing.assert_array_equal(comm.bcast(buf, 0), np.arange(11, dtype=np.float16))
        pre = comm.exscan(np.ones(9, dtype=np.int64), "sum")
        np.testing.assert_array_equal(pre, np.full(9, me))


@comm_params
@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_alltoallv_mixes_small_and_large_messages_without_agreeing(comm, dtype):
    """Messages above ``max_message_elements // p`` go pairwise in chunks, the others in one
    Alltoallv: rank 0 (only small messages) and the others (large ones among themselves,
    themselves included) meet in the same calls, exactly, with no collective to agree on the
    path (no MPI Allreduce inside the call)."""
    size, me = comm.size, comm.rank

    def n(s, q):  # elements rank s sends rank q
        return 3 if 0 in (s, q) else 9

    def values(s, q):
        return (np.arange(n(s, q)) + 100 * s + 10 * q).astype(dtype)

    send = np.concatenate([values(me, q) for q in range(size)])
    inner, seen = getattr(comm, "_comm", None), []

    class Spy:  # the MPI communicator, noting any Allreduce
        def __getattr__(self, name):
            if name in ("Allreduce", "allreduce"):
                seen.append(name)
            return getattr(inner, name)

    with xdist.config_context(max_message_elements=4 * size):  # 4 elements: small
        if inner is not None:
            comm._comm = Spy()
        try:
            got = comm.alltoallv(
                send, [n(me, q) for q in range(size)], [n(s, me) for s in range(size)]
            )
        finally:
            if inner is not None:
                comm._comm = inner
    np.testing.assert_array_equal(got, np.concatenate([values(s, me) for s in range(size)]))
    assert seen == []


@comm_params
def test_counting_hook_counts_logical_calls(comm):
    with xdist.config_context(max_message_elements=2):
        with xdist.count_collectives() as counts:
            comm.allreduce(np.ones(10), "sum")
            comm.allgatherv(np.ones(3), [3] * comm.size)
    assert counts == {"allreduce": 1, "allgatherv": 1}


@comm_params
def test_counting_hook_counts_bytes_and_messages(comm):
    """Each rank's payload for other ranks and how many ranks it is addressed to, exactly, for
    every collective (``CollectiveCounts``); chunking does not change them."""
    size, me = comm.size, comm.rank
    many = size > 1
    with xdist.config_context(max_message_elements=3), xdist.count_collectives() as counts:
        comm.allreduce(np.ones(10), "sum")  # 80 bytes to p - 1 ranks
        comm.allreduce(np.ones(0), "sum")  # nothing
        comm.exscan(np.ones(4, np.int64), "sum")  # 32 bytes to the ranks after this one
        comm.bcast(np.zeros(5, np.float32), size - 1)  # 20 bytes from the last rank
        comm.allgather_ints([me, 1, 2])  # 24 bytes
        comm.allgatherv(np.ones(me, np.int16), list(range(size)))  # 2 * me bytes
        comm.alltoall_ints([7] * (2 * size))  # 16 bytes for each other rank
        # rank r sends q + 1 complex64 (8 bytes each) to rank q; its own part stays
        sendcounts = [q + 1 if q != (me + 1) % size else 0 for q in range(size)]
        recvcounts = [me + 1 if (s + 1) % size != me else 0 for s in range(size)]
        comm.alltoallv(np.zeros(sum(sendcounts), np.complex64), sendcounts, recvcounts)
        comm.sendrecv(np.zeros(6, np.uint8), (me + 1) % size, 6, (me - 1) % size)
    assert counts == {
        "allreduce": 2,
        "exscan": 1,
        "bcast": 1,
        "allgather": 1,
        "allgatherv": 1,
        "alltoall": 1,
        "alltoallv": 1,
        "sendrecv": 1,
    }
    to_others = [q for q in range(size) if q != me and sendcounts[q]]
    assert counts.bytes == Counter(
        {  # a Counter compares missing keys as zeros
            "allreduce": 80 * many,
            "exscan": 32 * (me < size - 1),
            "bcast": 20 * (many and me == size - 1),
            "allgather": 24 * many,
            "allgatherv": 2 * me,
            "alltoall": 16 * (size - 1),
            "alltoallv": 8 * sum(sendcounts[q] for q in to_others),
            "sendrecv": 6 * many,
        }
    )
    assert counts.messages == Counter(
        {
            "allreduce": size - 1,
            "exscan": size - 1 - me,
            "bcast": (size - 1) * (me == size - 1),
            "allgather": size - 1,
            "allgatherv": (size - 1) * (me > 0),
            "alltoall": size - 1,
            "alltoallv": len(to_others),
            "sendrecv": int(many),
        }
    )


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_counted_bytes_of_array_operations(dtype):
    """A sum over the split axis is one allreduce of the result's bytes; resplit from rows to
    columns is one alltoallv of every element this rank holds outside its new block."""
    require = np.dtype(dtype)
    comm = xdist.default_comm()
    size, me = comm.size, comm.rank
    g = np.arange(7 * 5, dtype=require).reshape(7, 5)
    x = distribute(g, split=0)
    with xdist.count_collectives() as counts:
        s = xdist.sum(x, axis=0)
    np.testing.assert_array_equal(s.to_numpy(), g.sum(axis=0))
    partial = s.dtype.itemsize * 5  # the partial sum of 5 columns in the result's dtype
    assert counts == ({"allreduce": 1} if size > 1 else {})  # one rank: nothing to combine
    assert counts.bytes == Counter({"allreduce": partial * (size > 1)})
    assert counts.messages == Counter({"allreduce": size - 1})

    with xdist.count_collectives() as counts:
        y = xdist.resplit(x, 1)
    np.testing.assert_array_equal(y.to_numpy(), g)
    rows = x.layout.local_range(me)
    cols = [y.layout.local_range(q) for q in range(size)]
    kept = (rows[1] - rows[0]) * (cols[me][1] - cols[me][0])
    assert counts == ({"alltoallv": 1} if size > 1 else {})
    assert counts.bytes["alltoallv"] == (x.local.shape[0] * 5 - kept) * require.itemsize
    peers = sum(1 for q in range(size) if q != me and rows[1] > rows[0] and cols[q][1] > cols[q][0])
    assert counts.messages["alltoallv"] == peers


def test_bad_op_raises_before_communicating():
    comm = xdist.default_comm()
    with xdist.count_collectives() as counts, pytest.raises(ValueError, match="unknown op"):
        comm.allreduce(np.ones(2), "xor")
    assert sum(counts.values()) == 0


def test_world_is_default():
    assert xdist.default_comm().rank == RANK


# -- device buffers (a CUDA-aware MPI), with a fake device ---------------------------------------
# The fake device's arrays refuse np.asarray: these tests prove the transport hands device
# buffers to MPI as they are and allocates receive buffers through the backend.

_MPI_COMMS = {k: c for k, c in _COMMS.items() if not isinstance(c, SelfComm)}
mpi_comm_params = pytest.mark.parametrize("comm", list(_MPI_COMMS.values()), ids=list(_MPI_COMMS))


@mpi_comm_params
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128", "bool"])
def test_device_buffer_collectives(comm, dtype):
    backend = FakeGPUBackend()
    me, size = comm.rank, comm.size
    counts = [(r * 2) % 3 for r in range(size)]
    parts = [(np.arange(c) + r).astype(dtype) for r, c in enumerate(counts)]
    got = comm.allgatherv(device_buffer(parts[me], backend), counts)
    assert isinstance(got, DeviceBuffer) and got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.data.download(), np.concatenate(parts))

    sendcounts = [me + s + 1 for s in range(size)]
    send = np.concatenate([np.full(c, 10 * me + d) for d, c in enumerate(sendcounts)])
    recvcounts = [s + me + 1 for s in range(size)]
    got = comm.alltoallv(device_buffer(send.astype(dtype), backend), sendcounts, recvcounts)
    expected = np.concatenate([np.full(c, 10 * s + me) for s, c in enumerate(recvcounts)])
    np.testing.assert_array_equal(got.data.download(), expected.astype(dtype))

    got = comm.sendrecv(
        device_buffer(np.full(3, me).astype(dtype), backend), (me + 1) % size, 3, (me - 1) % size
    )
    np.testing.assert_array_equal(got.data.download(), np.full(3, (me - 1) % size).astype(dtype))
    assert backend.calls["empty_buffer"] == 3 and backend.calls["to_host"] == 0


@mpi_comm_params
def test_device_buffer_bcast_in_place_and_chunked(comm):
    backend = FakeGPUBackend()
    buf = device_buffer(np.arange(7.0) if comm.rank == 0 else np.zeros(7), backend)
    with xdist.config_context(max_message_elements=2):
        out = comm.bcast(buf, 0)
        got = comm.alltoallv(
            device_buffer(np.arange(5.0 * comm.size), backend), [5] * comm.size, [5] * comm.size
        )
    assert out is buf
    np.testing.assert_array_equal(buf.data.download(), np.arange(7.0))
    np.testing.assert_array_equal(
        got.data.download(), np.tile(np.arange(5.0) + 5 * comm.rank, comm.size)
    )


@mpi_comm_params
def test_device_buffer_reductions_are_staged(comm):
    """Reductions run NumPy ops on the host, so a device buffer goes through the backend's
    staging (to_host / from_host) and comes back as a device buffer."""
    backend = FakeGPUBackend()
    got = comm.allreduce(device_buffer(np.full(4, comm.rank + 1.0), backend), "max")
    assert isinstance(got, DeviceBuffer) and backend.calls["to_host"] == 1
    np.testing.assert_array_equal(got.data.download(), np.full(4, float(comm.size)))


@pytest.mark.parametrize("name", ["world", "reversed"])
def test_float16_where_the_mpi_library_has_none(monkeypatch, name):
    """Open MPI 4.1 refuses the float16 datatype that mpi4py names (MPI_ERR_TYPE, seen on a
    GPU machine): without one, float16 moves as bytes and reduces in float32."""
    from xdist._transport import mpi

    comm = _COMMS[name]
    if not isinstance(comm, mpi.MPIComm):
        pytest.skip("no MPI library: the one-process communicator sends nothing")
    real = mpi._mpi_type
    monkeypatch.setattr(mpi, "_mpi_type", lambda dt: None if dt == np.float16 else real(dt))
    parts = [np.arange(r % 3, dtype=np.float16) + 0.5 * r for r in range(comm.size)]
    got = comm.allgatherv(parts[comm.rank], [len(p) for p in parts])
    np.testing.assert_array_equal(got, np.concatenate(parts))
    assert got.dtype == np.float16
    root = np.array([1.5, -2.25, 65504.0], np.float16)
    got = comm.bcast(root if comm.rank == 0 else np.zeros(3, np.float16), 0)
    np.testing.assert_array_equal(got, root)
    data = [np.array([0.5, r, -r], np.float16) for r in range(comm.size)]
    got = comm.allreduce(data[comm.rank], "sum")
    np.testing.assert_array_equal(got, np.sum(data, axis=0, dtype=np.float32).astype(np.float16))
    assert got.dtype == np.float16
    got = comm.exscan(data[comm.rank], "sum")
    if comm.rank:
        want = np.sum(data[: comm.rank], axis=0, dtype=np.float32).astype(np.float16)
        np.testing.assert_array_equal(got, want)
