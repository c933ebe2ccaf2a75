"""The MPI communicator: the only module of xdist that imports mpi4py.

Array data always travels as typed buffers (``Allreduce``, ``Allgatherv``, ``Alltoallv``...),
never pickled. Counts and displacements of MPI calls are C ``int``s, so a message of more than
``max_message_elements`` (2**31 - 1 by default) elements is cut into chunks here, once, for
every collective (the BigMPI4py idea): contiguous collectives loop over chunks of the flat
buffer, and the v-collectives fall back to rounds of bounded point-to-point or broadcast
messages when a count or a displacement would overflow.

Buffers are host NumPy arrays or, when the MPI library is CUDA-aware (``cuda_aware()``),
``DeviceBuffer``s: contiguous device arrays handed to MPI in place (mpi4py reads their
``__cuda_array_interface__`` / DLPack), with receive buffers allocated by their backend on
the same device. Device memory is never converted to NumPy here.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import sys
import threading
import time
import traceback
import zlib
from collections.abc import Sequence
from functools import cache

import numpy as np
from mpi4py import MPI

from .. import _block_pool as block_pool
from .._config import get_config
from . import watchdog
from .comm import (
    DeviceBuffer,
    ReduceOp,
    _check_counts,
    _check_root,
    _counter,
    buffer_size,
    check_op,
    exscan_identity,
)
from .launcher import check_world
from .watchdog import EXITED, Guard, call_site_bits

__all__ = ["MPIComm", "cuda_aware", "library_cuda_support", "world"]

_BUILTIN = {
    "sum": MPI.SUM,
    "prod": MPI.PROD,
    "min": MPI.MIN,
    "max": MPI.MAX,
    "land": MPI.LAND,
    "lor": MPI.LOR,
}


@cache
def _mpi_type(dtype: np.dtype) -> MPI.Datatype | None:
    """The MPI datatype of ``dtype``, or None where the library has none. mpi4py may name one
    that the library then refuses (Open MPI 4.1's float16: MPI_ERR_TYPE at the first
    collective), so each is tried once in a one-element broadcast to this process alone."""
    try:
        mpitype = MPI.Datatype.fromcode(dtype.char)
        if mpitype == MPI.DATATYPE_NULL or mpitype.Get_size() != dtype.itemsize:
            return None
        MPI.COMM_SELF.Bcast([np.zeros(1, dtype), 1, mpitype], root=0)
    except (ValueError, KeyError, MPI.Exception):
        return None
    return mpitype


def _contiguous(buf: np.ndarray) -> np.ndarray:
    """``buf`` in C order with its shape (np.ascontiguousarray would make 0-d arrays 1-d)."""
    buf = np.asarray(buf)
    return buf if buf.flags.c_contiguous else np.array(buf, order="C")


def _typed(buf: np.ndarray | DeviceBuffer) -> tuple[object, MPI.Datatype, int]:
    """A flat buffer, its MPI datatype and how many MPI elements one array element is.

    A host dtype with no MPI type (float16, ...) travels as raw bytes. A ``DeviceBuffer``
    gives its flat device array (already contiguous and synchronized by its backend).
    """
    if isinstance(buf, DeviceBuffer):
        mpitype = _mpi_type(buf.dtype)
        if mpitype is None:
            raise TypeError(f"no MPI datatype for the device buffer's dtype {buf.dtype}")
        return buf.flat().data, mpitype, 1
    flat = _contiguous(buf).reshape(-1)
    mpitype = _mpi_type(flat.dtype)
    if mpitype is None:
        return flat.view(np.uint8), MPI.BYTE, flat.dtype.itemsize
    return flat, mpitype, 1


def _empty(like: np.ndarray | DeviceBuffer, n: int, scale: int):
    """A flat receive buffer of ``n`` elements like ``like`` (host, or the same device) and
    its view for MPI (bytes when ``scale != 1``)."""
    if isinstance(like, DeviceBuffer):
        out = like.empty(n)
        return out, out.data
    out = block_pool.empty(like, (n,))  # a large one lent by the pool: no page faults
    return out, (out.view(np.uint8) if scale != 1 else out)


@cache
def _record_op(op: ReduceOp) -> tuple[MPI.Op, MPI.Datatype]:
    """An MPI user op applying ``op.combine`` to records of ``op.record`` float64s.

    The records travel as one contiguous derived datatype, so MPI never cuts a record apart
    when it pipelines a large reduction.
    """
    record = op.record

    def combine(inmem, inoutmem, datatype):  # noqa: ARG001 (signature fixed by MPI)
        a = np.frombuffer(inmem, dtype=np.float64).reshape(-1, record)
        b = np.frombuffer(inoutmem, dtype=np.float64).reshape(-1, record)
        b[...] = op.combine(a, b)

    rtype = MPI.DOUBLE.Create_contiguous(record).Commit()
    return MPI.Op.Create(combine, commute=True), rtype


@cache
def _nan_op(kind: str, dtype: np.dtype) -> MPI.Op:
    """MIN/MAX that propagate NaN like the standard's min/max (MPI's builtins need not)."""
    fn = np.minimum if kind == "min" else np.maximum

    def combine(inmem, inoutmem, datatype):  # noqa: ARG001 (signature fixed by MPI)
        a = np.frombuffer(inmem, dtype=dtype)
        b = np.frombuffer(inoutmem, dtype=dtype)
        fn(a, b, out=b)

    return MPI.Op.Create(combine, commute=True)


def _reduction(op: str | ReduceOp, dtype: np.dtype):
    if isinstance(op, ReduceOp):
        return _record_op(op)
    if op in ("min", "max") and dtype.kind == "f":
        return _nan_op(op, dtype), None
    return _BUILTIN[op], None


def _nbytes(buf: np.ndarray | DeviceBuffer, elements: int | None = None) -> int:
    """Bytes of ``elements`` elements of ``buf``'s dtype (all of ``buf`` by default)."""
    n = buffer_size(buf) if elements is None else elements
    return n * np.dtype(buf.dtype).itemsize


def _others(counts: Sequence[int], me: int) -> tuple[int, int]:
    """Elements for other ranks in per-rank ``counts``, and how many of them are nonempty."""
    total = sum(counts) - counts[me]
    nonempty = sum(1 for q, c in enumerate(counts) if c and q != me)
    return total, nonempty


def _displacements(counts) -> np.ndarray:
    """Where each of ``counts`` consecutive runs begins in one flat buffer (int64)."""
    return np.concatenate([[0], np.cumsum(counts, dtype=np.int64)[:-1]]).astype(np.int64)


def _chunks(n: int, limit: int):
    for start in range(0, n, limit):
        yield start, min(start + limit, n)


def _loaded_libmpi() -> ctypes.CDLL | None:
    """The MPI library mpi4py loaded (privately, so ``CDLL(None)`` does not see it)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libmpi" in line.rsplit("/", 1)[-1]}
    except OSError:
        return None
    for path in sorted(paths):  # libmpi.so.N before libmpi_mpifh.so, libmpi_cxx.so ...
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(lib, "MPI_Init"):
            return lib
    return None


@cache
def library_cuda_support() -> tuple[bool, str]:
    """Whether the MPI library says it is CUDA-aware at run time, and which query said so.

    Asks, in order: mpi4py's ``MPI.Query_cuda_support`` (where the mpi4py build has it),
    then the library's own extensions through the loaded libmpi: ``MPIX_Query_cuda_support``
    (Open MPI >= 4, MPICH >= 4) and MPICH's ``MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA)``.
    No query available: not CUDA-aware (staging is always correct).
    """
    query = getattr(MPI, "Query_cuda_support", None)
    if query is not None:
        return bool(query()), "mpi4py MPI.Query_cuda_support"
    lib = _loaded_libmpi()
    if lib is None:
        return False, "no MPI library to ask"
    if hasattr(lib, "MPIX_Query_cuda_support"):
        lib.MPIX_Query_cuda_support.restype = ctypes.c_int
        return bool(lib.MPIX_Query_cuda_support()), "MPIX_Query_cuda_support"
    if hasattr(lib, "MPIX_GPU_query_support"):
        flag = ctypes.c_int(0)
        lib.MPIX_GPU_query_support(ctypes.c_int(0), ctypes.byref(flag))  # 0: SUPPORT_CUDA
        return bool(flag.value), "MPIX_GPU_query_support"
    return False, "the MPI library has no CUDA query"


def cuda_aware() -> bool:
    """Whether collectives hand device buffers to MPI: the ``cuda_aware`` setting
    (``XDIST_CUDA_AWARE=0|1``) when set, else the library's answer."""
    override = get_config().cuda_aware
    return library_cuda_support()[0] if override is None else override


class MPIComm:
    """A ``Communicator`` on an ``mpi4py.MPI.Comm``."""

    def __init__(self, comm: MPI.Comm, ident: int | None = None) -> None:
        self._comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self._node_rank: int | None = None
        self._stamps: dict = {}  # (dtype, op) -> _stamp_plan
        members = _world_ranks(comm)
        if ident is None:  # the world, or a communicator the program made: named by its ranks
            ident = 0 if comm == MPI.COMM_WORLD else _ident_of(members)
        self._guard = Guard(
            self.rank,
            self.size,
            self._allgather_unguarded,
            _abort,
            members=members,
            ident=ident,
            exchange=comm.allgather,
        )

    def _allgather_unguarded(self, send: np.ndarray) -> np.ndarray:
        """The debug check's own allgather (it must not enter the guard again)."""
        out = np.empty((self.size, send.size), dtype=np.int64)
        self._comm.Allgather(send, out)
        return out

    @property
    def cuda_aware(self) -> bool:
        return cuda_aware()

    def node_rank(self) -> int:
        """Rank among the ranks sharing this node's memory (``COMM_TYPE_SHARED``); collective
        on the first call, cached after."""
        if self._node_rank is None:
            node = self._comm.Split_type(MPI.COMM_TYPE_SHARED)
            self._node_rank = node.Get_rank()
            node.Free()
        return self._node_rank

    @property
    def mpi_comm(self) -> MPI.Comm:
        """The underlying mpi4py communicator (for users mixing xdist with raw MPI)."""
        return self._comm

    def __repr__(self) -> str:
        return f"MPIComm(rank={self.rank}, size={self.size})"

    def barrier(self) -> None:
        self._guard.enter("barrier")
        self._comm.Barrier()

    def bcast(self, buf: np.ndarray, root: int) -> np.ndarray:
        _check_root(root, self.size)
        self._guard.enter("bcast", buffer_size(buf), root)
        if _counter.active and self.rank == root and self.size > 1 and buffer_size(buf):
            _counter.traffic("bcast", _nbytes(buf), self.size - 1)
        flat, mpitype, scale = _typed(buf)
        limit = get_config().max_message_elements
        for lo, hi in _chunks(buffer_size(buf) * scale, limit):
            self._comm.Bcast([flat[lo:hi], hi - lo, mpitype], root=root)
        if isinstance(buf, DeviceBuffer):
            return buf  # received in place: flat is a view of buf.data
        return flat.view(buf.dtype).reshape(buf.shape)

    def allreduce(self, buf: np.ndarray, op: str | ReduceOp) -> np.ndarray:
        check_op(op)
        if isinstance(buf, DeviceBuffer):  # reductions run NumPy ops on the host: stage
            return _restage(buf, self.allreduce(buf.backend.to_host(buf.data), op))
        self._guard.enter("allreduce", buffer_size(buf))
        if _counter.active and self.size > 1 and buffer_size(buf):
            _counter.traffic("allreduce", _nbytes(buf), self.size - 1)
        if self.size == 1:  # the hot path of reductions at one rank: no MPI call
            return np.array(buf, copy=True)
        send = _contiguous(buf)
        if 0 < send.size <= _STAMPED and get_config().check_call_sites:
            stamped = self._stamped_allreduce(send, op)
            if stamped is not None:
                return stamped
        out = np.empty_like(send)
        if send.size == 0:
            return out
        mpiop, rtype = _reduction(op, send.dtype)
        if rtype is not None:  # records of op.record float64 values
            record = op.record  # type: ignore[union-attr]
            s = send.reshape(-1, record)
            o = out.reshape(-1, record)
            limit = max(1, get_config().max_message_elements // record)
            for lo, hi in _chunks(s.shape[0], limit):
                self._comm.Allreduce([s[lo:hi], hi - lo, rtype], [o[lo:hi], hi - lo, rtype], mpiop)
            return out
        mpitype = _mpi_type(send.dtype)
        if mpitype is None and send.dtype == np.float16:  # a library without float16
            return self.allreduce(send.astype(np.float32), op).astype(np.float16)
        if mpitype is None:
            raise TypeError(f"allreduce: no MPI datatype for dtype {send.dtype}")
        s, o = send.reshape(-1), out.reshape(-1)
        for lo, hi in _chunks(s.size, get_config().max_message_elements):
            self._comm.Allreduce([s[lo:hi], hi - lo, mpitype], [o[lo:hi], hi - lo, mpitype], mpiop)
        return out

    def _stamped_allreduce(self, send: np.ndarray, op: str | ReduceOp) -> np.ndarray | None:
        """A small allreduce that carries the number of the program's line that called it
        (watchdog.py: ``[s, s*s]`` for a sum, ``[s, -s]`` for min and max), and raises the
        same ``CollectiveMismatchError`` on every rank where the lines differ. None where the
        dtype and op carry no such number."""
        plan = self._stamps.get((send.dtype, op))
        if plan is None:
            plan = self._stamps[(send.dtype, op)] = _stamp_plan(send.dtype, op, self.size)
        if not plan:
            return None
        real, bits, scale, mpiop = plan
        flat = send.reshape(-1) if real is None else send.reshape(-1).view(real)
        n = flat.size
        s = self._guard.site_number(bits)
        t = s * s if op == "sum" else -s
        got = np.empty(n + 2, flat.dtype)
        got[:n] = flat
        got[n] = s
        got[n + 1] = t
        self._comm.Allreduce(MPI.IN_PLACE, got, mpiop)
        if got[n:].tolist() != [scale * s, scale * t]:
            self._guard.sites_differ("allreduce")
        out = got[:n]
        return (out if real is None else out.view(send.dtype)).reshape(send.shape)

    def exscan(self, buf: np.ndarray, op: str) -> np.ndarray:
        if isinstance(buf, DeviceBuffer):
            return _restage(buf, self.exscan(buf.backend.to_host(buf.data), op))
        self._guard.enter("exscan", buffer_size(buf))
        if _counter.active and self.rank < self.size - 1 and buffer_size(buf):
            _counter.traffic("exscan", _nbytes(buf), self.size - 1 - self.rank)
        out = exscan_identity(_contiguous(buf), op)  # rank 0 keeps the identity
        send = _contiguous(buf).reshape(-1)
        mpitype = _mpi_type(send.dtype)
        if mpitype is None and send.dtype == np.float16:  # a library without float16
            return self.exscan(buf.astype(np.float32), op).astype(np.float16)
        if mpitype is None:
            raise TypeError(f"exscan: no MPI datatype for dtype {send.dtype}")
        recv = np.empty_like(send)
        for lo, hi in _chunks(send.size, get_config().max_message_elements):
            self._comm.Exscan(
                [send[lo:hi], hi - lo, mpitype], [recv[lo:hi], hi - lo, mpitype], _BUILTIN[op]
            )
        if self.rank > 0:
            out.reshape(-1)[...] = recv
        return out

    def allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        self._guard.enter("allgather", len(values))
        send = np.asarray(values, dtype=np.int64).reshape(-1)
        if _counter.active and self.size > 1 and send.size:
            _counter.traffic("allgather", send.nbytes, self.size - 1)
        if self.size > 1 and get_config().check_call_sites:  # and the program's line
            stamped = np.empty(send.size + 1, np.int64)
            stamped[:-1] = send
            stamped[-1] = self._guard.site_number(32)
            table = np.empty((self.size, send.size + 1), dtype=np.int64)
            self._comm.Allgather(stamped, table)
            if (table[:, -1] != stamped[-1]).any():
                self._guard.sites_differ("allgather")
            return np.ascontiguousarray(table[:, :-1])
        out = np.empty((self.size, send.size), dtype=np.int64)
        self._comm.Allgather(send, out)
        return out

    def alltoall_ints(self, values: Sequence[int]) -> np.ndarray:
        send = np.asarray(values, dtype=np.int64).reshape(-1)
        if send.size % self.size:
            raise ValueError(
                f"alltoall_ints: {send.size} values do not split into {self.size} equal parts"
            )
        self._guard.enter("alltoall", send.size)
        if _counter.active and self.size > 1 and send.size:
            _counter.traffic("alltoall", send.nbytes // self.size * (self.size - 1), self.size - 1)
        out = np.empty((self.size, send.size // self.size), dtype=np.int64)
        # m ints per rank: metadata, far below max_message_elements, so one call suffices.
        self._comm.Alltoall(send, out)
        return out

    def allgatherv(self, buf: np.ndarray, counts: Sequence[int]) -> np.ndarray:
        counts = [int(c) for c in counts]
        _check_counts("allgatherv", sum(counts), counts, self.size)
        if buffer_size(buf) != counts[self.rank]:
            raise ValueError(
                f"allgatherv: rank {self.rank} gives {buffer_size(buf)} elements, counts say "
                f"{counts[self.rank]}"
            )
        self._guard.enter("allgatherv", sum(counts))
        if _counter.active and self.size > 1 and counts[self.rank]:
            _counter.traffic("allgatherv", _nbytes(buf), self.size - 1)
        flat, mpitype, scale = _typed(buf)
        out, oflat = _empty(buf, sum(counts), scale)
        scounts = [c * scale for c in counts]
        displs = _displacements(scounts)
        limit = get_config().max_message_elements
        if sum(scounts) <= limit:
            self._comm.Allgatherv(
                [flat, scounts[self.rank], mpitype], [oflat, scounts, displs.tolist(), mpitype]
            )
            return out
        # Too large for int counts/displacements: every rank broadcasts its part in chunks.
        for root in range(self.size):
            part = oflat[displs[root] : displs[root] + scounts[root]]
            if root == self.rank:
                part[...] = flat
            for lo, hi in _chunks(scounts[root], limit):
                self._comm.Bcast([part[lo:hi], hi - lo, mpitype], root=root)
        return out

    def alltoallv(
        self, buf: np.ndarray, sendcounts: Sequence[int], recvcounts: Sequence[int]
    ) -> np.ndarray:
        sendcounts = [int(c) for c in sendcounts]
        recvcounts = [int(c) for c in recvcounts]
        _check_counts("alltoallv", buffer_size(buf), sendcounts, self.size)
        if len(recvcounts) != self.size:
            raise ValueError(f"alltoallv: expected {self.size} recvcounts, got {len(recvcounts)}")
        self._guard.enter("alltoallv")
        if _counter.active:
            elements, peers = _others(sendcounts, self.rank)
            _counter.traffic("alltoallv", _nbytes(buf, elements), peers)
        flat, mpitype, scale = _typed(buf)
        out, oflat = _empty(buf, sum(recvcounts), scale)
        sc = [c * scale for c in sendcounts]
        rc = [c * scale for c in recvcounts]
        sd = _displacements(sc)
        rd = _displacements(rc)
        # One Alltoallv carries every message of at most `limit // p` elements, so that no
        # rank's counts or displacements pass `limit`; larger messages go pairwise, in chunks
        # of at most `limit`. Both ends of a message know its size, so every rank takes the
        # same path for it with no agreement (no extra collective on any call).
        cap = max(1, get_config().max_message_elements // self.size)
        if max(sc, default=0) <= cap and max(rc, default=0) <= cap:
            self._comm.Alltoallv(
                [flat, sc, sd.tolist(), mpitype], [oflat, rc, rd.tolist(), mpitype]
            )
            return out
        self._large_alltoallv(buf, scale, (flat, sc, sd), (oflat, rc, rd), cap, mpitype)
        return out

    def _large_alltoallv(self, like, scale: int, sent, got, cap: int, mpitype) -> None:
        """``alltoallv`` with some message above ``cap``: the small ones in one Alltoallv of
        compact copies (their displacements stay small), the large ones by Isend/Irecv in
        chunks of at most ``max_message_elements`` (MPI keeps one source's messages of one
        tag in order). ``sent`` and ``got``: the flat buffer, counts and displacements of
        each side; the copies are made like ``like`` (host, or its device)."""
        flat, sc, sd = sent
        oflat, rc, rd = got
        small_s = [c if c <= cap else 0 for c in sc]
        small_r = [c if c <= cap else 0 for c in rc]
        send = _empty(like, sum(small_s) // scale, scale)[1]
        at = 0
        for j, c in enumerate(small_s):
            if c:
                send[at : at + c] = flat[sd[j] : sd[j] + c]
                at += c
        recv = _empty(like, sum(small_r) // scale, scale)[1]
        displs = [_displacements(c).tolist() for c in (small_s, small_r)]
        self._comm.Alltoallv(
            [send, small_s, displs[0], mpitype], [recv, small_r, displs[1], mpitype]
        )
        at = 0
        for i, c in enumerate(small_r):
            if c:
                oflat[rd[i] : rd[i] + c] = recv[at : at + c]
                at += c
        limit = get_config().max_message_elements
        requests = []
        for i, c in enumerate(rc):
            if c > cap:
                for lo, hi in _chunks(c, limit):
                    part = oflat[rd[i] + lo : rd[i] + hi]
                    requests.append(self._comm.Irecv([part, hi - lo, mpitype], i, 8))
        for j, c in enumerate(sc):
            if c > cap:
                for lo, hi in _chunks(c, limit):
                    part = flat[sd[j] + lo : sd[j] + hi]
                    requests.append(self._comm.Isend([part, hi - lo, mpitype], j, 8))
        MPI.Request.Waitall(requests)

    def sendrecv(self, buf: np.ndarray, dest: int, recvcount: int, source: int) -> np.ndarray:
        _check_root(dest, self.size)
        _check_root(source, self.size)
        self._guard.enter("sendrecv")
        if _counter.active and dest != self.rank and buffer_size(buf):
            _counter.traffic("sendrecv", _nbytes(buf), 1)
        flat, mpitype, scale = _typed(buf)
        out, oflat = _empty(buf, recvcount, scale)
        self._chunked_sendrecv(flat, dest, oflat, source, mpitype)
        return out

    def _chunked_sendrecv(self, send, dest: int, recv, source: int, mpitype: MPI.Datatype) -> None:
        limit = get_config().max_message_elements
        requests = [
            self._comm.Irecv([recv[lo:hi], hi - lo, mpitype], source, 7)
            for lo, hi in _chunks(recv.shape[0], limit)
        ]
        requests += [
            self._comm.Isend([send[lo:hi], hi - lo, mpitype], dest, 7)
            for lo, hi in _chunks(send.shape[0], limit)
        ]
        MPI.Request.Waitall(requests)

    def split(self, color: int, key: int = 0) -> MPIComm:
        self._guard.enter("split")
        return MPIComm(self._comm.Split(color, key), self._child_ident(color))

    def dup(self) -> MPIComm:
        self._guard.enter("dup")
        return MPIComm(self._comm.Dup(), self._child_ident("dup"))

    def _child_ident(self, color: object) -> int:
        """The same number on every member of a communicator made by this call (members of
        one child share the parent, its call number and the color)."""
        return zlib.crc32(f"{self._guard.ident}/{self._guard.calls}/{color}".encode()) or 1


def _restage(like: DeviceBuffer, host: np.ndarray) -> DeviceBuffer:
    """A host result back on ``like``'s device, as a buffer of its backend."""
    backend = like.backend
    return backend.to_buffer(backend.from_host(host, backend.device_of(like.data)), True)


# Allreduces of at most this many elements carry the program's line (watchdog.py).
_STAMPED = 1024

_IDENTS: dict[tuple[int, ...], int] = {}


def _stamp_plan(dtype: np.dtype, op: object, size: int) -> tuple | None:
    """How a small allreduce of ``dtype`` with ``op`` carries its call site: (the real dtype a
    complex sum travels as, or None; bits of the site number; what the stamp is multiplied
    by; the MPI op), or None where it cannot."""
    real = None
    if dtype.kind == "c" and op == "sum":  # a complex sum is a sum of its parts
        real = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    bits = call_site_bits(real or dtype, op, size)
    if not bits:
        return None
    return real, bits, size if op == "sum" else 1, _reduction(op, real or dtype)[0]


def _world_ranks(comm: MPI.Comm) -> tuple[int, ...] | None:
    """The world ranks of ``comm``'s ranks, in order (None for an inter-communicator)."""
    if comm == MPI.COMM_WORLD:
        return tuple(range(comm.Get_size()))
    try:
        ranks = MPI.Group.Translate_ranks(
            comm.Get_group(), list(range(comm.Get_size())), MPI.COMM_WORLD.Get_group()
        )
    except MPI.Exception:
        return None
    return None if MPI.UNDEFINED in ranks else tuple(ranks)


def _ident_of(members: tuple[int, ...] | None) -> int:
    """A number for a communicator the program wrapped itself: its ranks and how many such
    communicators of the same ranks this process wrapped before (the same on each member
    when they wrap them in the same order)."""
    key = members or ()
    _IDENTS[key] = _IDENTS.get(key, 0) + 1
    return zlib.crc32(f"{key}/{_IDENTS[key]}".encode()) or 1


class _Side:
    """The watchdog's out-of-band messages: pickled point-to-point messages on a private
    duplicate of the world communicator, and one small nonblocking allgather when a rank
    ends (at exit, or in the excepthook). Used from the watchdog thread and the main thread
    (MPI_THREAD_MULTIPLE)."""

    def __init__(self, comm: MPI.Comm) -> None:
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self._lock = threading.Lock()
        self._sent: list[MPI.Request] = []
        self._ended: MPI.Request | None = None

    def send(self, dest: int, tag: int, obj: object) -> None:
        with self._lock:
            self._sent = [r for r in self._sent if not r.Test()]
            self._sent.append(self.comm.isend(obj, dest, tag))

    def poll(self) -> list[tuple[int, int, object]]:
        got = []
        status = MPI.Status()
        while True:
            message = self.comm.improbe(MPI.ANY_SOURCE, MPI.ANY_TAG, status)
            if message is None:
                return got
            got.append((status.Get_source(), status.Get_tag(), message.recv()))

    def usable(self) -> bool:
        return not MPI.Is_finalized()

    def end(self, row: Sequence[int], wait: float | None) -> np.ndarray | None:
        """This rank ends: ``row`` (a kind, 1 exit or 2 error, and two numbers) is gathered
        from every rank. The table, or None when some rank has not come within ``wait``
        seconds (None: wait as long as it takes, and after half a second tell every other
        rank, out of band, that this one has exited)."""
        table = np.zeros((self.size, 3), np.int64)
        if self._ended is None:
            self._ended = self.comm.Iallgather(np.asarray(row, np.int64), table)
        else:
            return None  # an exit hook after an excepthook: already ended once
        start = time.monotonic()
        told = wait is not None or not watchdog._WATCHING[0]
        while not self._ended.Test():
            waited = time.monotonic() - start
            if wait is not None and waited > wait:
                return None
            if not told and waited > 0.5:
                told = True
                notice = (int(row[1]), watchdog.last_call())
                for r in range(self.size):
                    if r != self.rank:
                        self.send(r, EXITED, notice)
            time.sleep(0.005)
        return table


_SIDE: list[_Side | None] = [None]


def _same_error(exc_type, exc) -> tuple[int, list[int], int] | None:
    """Which ranks raised the same error as this one: (the first of them, all of them, the
    first failing rank), or None when not every rank has come within about a second."""
    side = _SIDE[0]
    if side is None or MPI.Is_finalized():
        return None
    name = f"{exc_type.__module__}.{exc_type.__qualname__}"
    row = (2, zlib.crc32(name.encode()), zlib.crc32(str(exc).encode(errors="replace")))
    table = side.end(row, wait=1.5)
    if table is None:
        return None
    same = [r for r in range(side.size) if tuple(table[r]) == row]
    failed = [r for r in range(side.size) if table[r, 0] == 2]
    return same[0], same, failed[0]


def _ranks(ranks: list[int]) -> str:
    return ", ".join(map(str, ranks))


def _abort_on_uncaught(exc_type, exc, tb) -> None:
    """Print the traceback and abort the whole job: a rank that dies must not leave the
    others waiting forever in a collective. Where every rank raises the same error (within
    about a second of each other), the first prints its traceback and the others one line."""
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    watchdog.set_failing()
    try:
        agreed = _same_error(exc_type, exc)
    except Exception:  # MPI itself failing: print this rank's own traceback
        agreed = None
    side = _SIDE[0]
    rank, size = (side.rank, side.size) if side else (MPI.COMM_WORLD.Get_rank(), 0)
    if agreed is None:
        head = f"xdist: rank {rank} of {size} failed:\n" if size else ""
        os.write(2, (head + text).encode(errors="replace"))  # one write: forwarded whole
        _abort(1)
        return
    first, same, first_failed = agreed
    if rank == first:
        who = "every rank" if len(same) == size else f"ranks {_ranks(same)} of {size}"
        if len(same) == 1:
            who = f"rank {rank} of {size}"
        head = f"xdist: {who} raised this error (the traceback of rank {rank}):\n"
        os.write(2, (head + text).encode(errors="replace"))
    else:
        os.write(2, f"xdist: rank {rank}: the same {exc_type.__name__} as rank {first}\n".encode())
    if rank != first_failed:
        time.sleep(3.0)  # the first failing rank ends the job; if it has not, this one does
    _abort(1)


def _at_exit() -> None:
    """Before MPI is finalized: tell the others this rank has exited, wait for every rank to
    exit (answering the watchdogs' questions meanwhile), and compare the numbers of
    collectives made on the world: ranks that made different numbers were out of step, and
    the job ends with an error instead of a silent success."""
    side = _SIDE[0]
    if side is None or MPI.Is_finalized():
        return
    watchdog.set_exiting()
    calls = watchdog.world_calls()
    table = side.end((1, calls, 0), wait=None)
    watchdog.stop_watchdog()
    if table is None:
        return
    if (table[:, 0] == 2).any():
        time.sleep(5.0)  # a rank is printing its error and ending the job
        return
    counts = table[:, 1]
    if (counts == counts[0]).all():
        return
    if side.rank == 0:
        rows = "; ".join(f"rank {r}: {int(c)}" for r, c in enumerate(counts))
        text = (
            "xdist: the ranks ended after different numbers of collectives on the world "
            f"communicator ({rows}). Some rank skipped a collective (an exception caught on "
            "some ranks only, a call under `if rank == 0:`) and MPI matched calls that do not "
            "belong together: results may be wrong. Every xdist call is collective: each rank "
            "must make the same calls in the same order.\n"
        )
        os.write(2, text.encode(errors="replace"))
    else:
        time.sleep(2.0)
    _abort(3)


def _abort(code: int) -> None:
    """End the whole job: MPI_Abort kills every process at once (after a moment, so that
    mpiexec forwards what was just written to stderr)."""
    time.sleep(0.2)
    MPI.COMM_WORLD.Abort(code)


def world() -> MPIComm:
    """``MPI.COMM_WORLD``; under several ranks an uncaught exception aborts the job, and the
    watchdog gets its side channel (when MPI allows threads: ``MPI_THREAD_MULTIPLE``)."""
    comm = MPIComm(MPI.COMM_WORLD)
    # a launcher that started several ranks and a world of one: another library's mpiexec
    check_world(comm.size, " ".join(MPI.Get_library_version().splitlines()[0].split()))
    if comm.size > 1 and _SIDE[0] is None and MPI.Query_thread() == MPI.THREAD_MULTIPLE:
        _SIDE[0] = _Side(MPI.COMM_WORLD.Dup())
        watchdog.use_side_channel(_SIDE[0], _abort)
        atexit.register(_at_exit)
    if comm.size > 1 and sys.excepthook is sys.__excepthook__:
        sys.excepthook = _abort_on_uncaught
    return comm
