"""One 1-D transform along the split axis, keeping that axis split: the six-step FFT.

Used when no other axis can take the split (a 1-D array, or other axes shorter than the
number of ranks). The other axes ride along as records of ``R`` values per index.

Six-step (Bailey's "four-step" with its transposes made explicit) for ``n = n1 * n2``, with
``n1`` the largest divisor of ``n`` not above ``sqrt(n)``: write the input index
``j = n2*j1 + j2`` and the output index ``k = k1 + n1*k2``; then

    X[k1 + n1*k2] = sum_j2 w_n2^(j2*k2) * w_n^(j2*k1) * sum_j1 x[n2*j1 + j2] * w_n1^(j1*k1)

with ``w_m = exp(-2*pi*i/m)`` (``+`` for an inverse). So: (1) all-to-all the input into
``A[j1, j2]`` split along ``j2``; (2) transform along ``j1`` locally; (3) multiply by the
twiddle factors ``w_n^(j2*k1)``; (4) all-to-all to ``k1`` split; (5) transform along
``j2`` locally; (6) all-to-all ``C[k1, k2]`` into natural order ``k`` in the output layout.
Three all-to-alls; each rank holds ``O(size / nranks)`` (for balanced ``n1``, ``n2`` >= the
number of ranks). The normalization of the two local transforms multiplies to the one of
length ``n``.

Every kind reduces to a complex transform of length ``n`` (``m = n//2 + 1``):
``rfft``/``ihfft`` are ``fft``/``ifft`` of the real input, first ``m`` outputs kept;
``irfft``/``hfft`` are the real part of ``ifft``/``fft`` of ``c[k] * a[k]`` (``k < m``,
zero beyond), where ``c[0] = 1``, ``c[k] = 2`` for ``1 <= k <= n - m`` and ``c[k] = 1``
above: the Hermitian mirror half ``conj(a[n - k])`` contributes the conjugate of the term
at ``k``, whose real part is the same, so the mirror is never built.

When ``n`` is prime (or 1) there is no useful factorization: ``gather_on_one_rank`` is then
the one place that gathers. The whole array goes to the rank that already holds most of it
(one all-to-all), is transformed there, and is spread back in the output layout (one more);
memory on that rank is the whole input plus the whole output, the others hold nothing
extra.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._layout import Layout, balanced_counts
from .._movement.collectives import alltoallv_host
from .._movement.gathers import warn_gather
from .._movement.redistribute import redistribute_block
from .._placement import iota
from ..backends import Backend
from ._steps import C2R, INVERSE, Step, complex_of, real_of, run_local

__all__ = ["transform_split_axis", "factor"]


def factor(n: int) -> int:
    """The largest divisor of ``n`` that is at most ``sqrt(n)`` (1 when ``n`` is prime)."""
    for d in range(math.isqrt(n), 1, -1):
        if n % d == 0:
            return d
    return 1


def transform_split_axis(
    block: Any, layout: Layout, step: Step, out: Layout, comm: Any, backend: Backend
) -> Any:
    """This rank's block of ``out`` (split along ``step.axis``, like ``layout``) holding the
    transform ``step`` of the array whose block under ``layout`` is ``block``."""
    xp, a = backend.xp, step.axis
    dtype = step.out_dtype(backend.dtype_of(block))
    records = math.prod(s for i, s in enumerate(layout.shape) if i != a)
    if records == 0:  # an empty result: nothing to transform, nothing to send
        return backend.empty(out.local_shape(comm.rank), dtype, backend.device_of(block))
    if factor(step.n) == 1:
        return gather_on_one_rank(block, layout, step, out, comm, backend)
    rows = _prepare(_as_records(block, a, records, xp), layout.offsets[comm.rank], step, backend)
    result = _six_step(rows, layout.counts, step, out.counts, comm, backend)
    rest = tuple(s for i, s in enumerate(out.shape) if i != a)
    local = xp.reshape(result, (out.counts[comm.rank], *rest))
    return xp.moveaxis(local, 0, a) if a else local


def gather_on_one_rank(
    block: Any, layout: Layout, step: Step, out: Layout, comm: Any, backend: Backend
) -> Any:
    """The documented gather: the whole array on the rank holding most of it, transformed
    there, spread back in ``out``. Two all-to-alls; memory there: the input and output.
    An implicit gather: issues the ``GatherWarning`` (see ``xdist/_movement/gathers.py``)."""
    warn_gather("fft", layout, backend.dtype_of(block), comm, onto="one rank (a prime length)")
    a, me = step.axis, comm.rank
    holder = int(np.argmax(layout.counts))
    one_in = Layout(layout.shape, a, _one_hot(layout.shape[a], holder, comm.size))
    one_out = Layout(out.shape, a, _one_hot(out.shape[a], holder, comm.size))
    whole = redistribute_block(block, layout, one_in, comm, backend)
    if me == holder:  # the only block with the axis whole; the others are empty
        result = run_local(whole, [step], backend)
    else:  # an empty block: its split-axis length is 0
        dtype = step.out_dtype(backend.dtype_of(block))
        result = backend.empty(one_out.local_shape(me), dtype, backend.device_of(block))
    return redistribute_block(result, one_out, out, comm, backend)


def _one_hot(n: int, holder: int, size: int) -> tuple[int, ...]:
    return tuple(n if r == holder else 0 for r in range(size))


def _as_records(block: Any, axis: int, records: int, xp: Any) -> Any:
    """The block with the split axis first and the other axes flattened: ``(count, R)``."""
    moved = xp.moveaxis(block, axis, 0) if axis else block
    return xp.reshape(moved, (moved.shape[0], records))


def _prepare(rows: Any, start: int, step: Step, backend: Backend) -> Any:
    """Turn the input of ``step`` (rows from global index ``start`` on) into the input of
    the equivalent complex transform: a complex cast, and the weights ``c`` for a real
    output."""
    xp = backend.xp
    real = backend.dtype_of(rows)
    rows = xp.astype(rows, backend.native_dtype(complex_of(real)))
    if step.kind not in C2R:
        return rows
    n, m = step.n, step.n // 2 + 1
    g = iota(start, start + rows.shape[0], backend, backend.device_of(rows))
    weight = xp.where((g >= 1) & (g <= n - m), 2.0, 1.0)
    return rows * xp.astype(weight, backend.native_dtype(real_of(real)))[:, None]


def _owner(index: np.ndarray, counts: tuple[int, ...]) -> np.ndarray:
    """The rank holding each global ``index`` under ``counts`` (blocks in rank order)."""
    return Layout((sum(counts),), 0, counts).owners(index)


def _shuffle(
    rows: np.ndarray,
    ids: np.ndarray,
    dest: np.ndarray,
    want: np.ndarray,
    owner: np.ndarray,
    comm: Any,
) -> np.ndarray:
    """One all-to-all moving rows named by global ids: this rank sends row ``i`` (id
    ``ids[i]``) to rank ``dest[i]`` (none if ``-1``) and receives, for each output row ``p``,
    the row with id ``want[p]`` from rank ``owner[p]`` (zeros if ``want[p]`` is ``-1``).
    Both sides order a message by id, so no index travels."""
    size, width = comm.size, rows.shape[1]
    keep = np.flatnonzero(dest >= 0)
    order = keep[np.lexsort((ids[keep], dest[keep]))]
    sendbuf = np.ascontiguousarray(rows[order]).reshape(-1)
    sendcounts = np.bincount(dest[keep], minlength=size) * width
    valid = np.flatnonzero(want >= 0)
    place = valid[np.lexsort((want[valid], owner[valid]))]
    recvcounts = np.bincount(owner[valid], minlength=size) * width
    recv = alltoallv_host(sendbuf, sendcounts, recvcounts, comm)
    result = np.zeros((want.size, width), dtype=rows.dtype)
    result[place] = recv.reshape(-1, width)
    return result


def _six_step(rows, in_counts, step: Step, out_counts, comm, backend: Backend) -> Any:
    """The six steps on ``(count, R)`` complex records; returns this rank's output records."""
    xp, me = backend.xp, comm.rank
    n = step.n
    n1 = factor(n)
    n2 = n // n1
    width = rows.shape[1]
    used = step.used(sum(in_counts))
    dtype = backend.dtype_of(rows)
    c2, c1 = balanced_counts(n2, comm.size), balanced_counts(n1, comm.size)
    q0, q1 = sum(c2[:me]), sum(c2[: me + 1])
    p0, p1 = sum(c1[:me]), sum(c1[: me + 1])
    device = backend.device_of(rows)

    # (1) x[n2*j1 + j2] -> A[j1, j2], split along j2.
    start = sum(in_counts[:me])
    ids = np.arange(start, start + in_counts[me])
    dest = np.where(ids < used, _owner(ids % n2, c2), -1)
    g = (np.arange(n1)[:, None] * n2 + np.arange(q0, q1)[None, :]).reshape(-1)
    want = np.where(g < used, g, -1)
    host = _shuffle(backend.to_host(rows), ids, dest, want, _owner(g, in_counts), comm)
    a = backend.from_host(host.reshape(n1, q1 - q0, width), device)

    # (2) transform along j1, (3) twiddle w_n^(j2*k1).
    inverse = step.kind in INVERSE
    fn = _same_length(xp.fft.ifft if inverse else xp.fft.fft)
    b = fn(a, axis=0, norm=step.norm)
    b = b * _twiddle(n, n1, q0, q1, inverse, dtype, backend, device)

    # (4) split along j2 -> split along k1.
    shape = (n1, n2, width)
    b = redistribute_block(b, Layout(shape, 1, c2), Layout(shape, 0, c1), comm, backend)

    # (5) transform along j2; a real output keeps the real part before moving.
    c = fn(b, axis=1, norm=step.norm)
    if step.kind in C2R:
        c = xp.real(c)

    # (6) C[k1, k2] -> X[k1 + n1*k2] in the output layout (k beyond it dropped).
    out_len = sum(out_counts)
    k = (np.arange(p0, p1)[:, None] + n1 * np.arange(n2)[None, :]).reshape(-1)
    dest = np.where(k < out_len, _owner(np.minimum(k, out_len - 1), out_counts), -1)
    o0 = sum(out_counts[:me])
    mine = np.arange(o0, o0 + out_counts[me])
    chost = backend.to_host(c).reshape(-1, width)
    host = _shuffle(chost, k, dest, mine, _owner(mine % n1, c1), comm)
    return backend.from_host(host, device)


def _same_length(fn):
    """``fn`` (a complex transform that keeps the length), passing empty blocks through:
    some libraries refuse to transform an empty array."""

    def run(block: Any, axis: int, norm: str) -> Any:
        return fn(block, axis=axis, norm=norm) if math.prod(block.shape) else block

    return run


def _twiddle(n, n1, q0, q1, inverse, dtype, backend: Backend, device) -> Any:
    """``exp(-+2*pi*i * (k1*j2 mod n) / n)`` for ``k1 < n1``, ``q0 <= j2 < q1``, shape
    ``(n1, q, 1)``; the exponent is reduced mod ``n`` and evaluated in double precision."""
    xp = backend.xp
    prod = (iota(0, n1, backend, device)[:, None] * iota(q0, q1, backend, device)[None, :]) % n
    sign = 1.0 if inverse else -1.0
    angle = xp.astype(prod, backend.native_dtype(np.dtype("float64"))) * (sign * 2 * math.pi / n)
    tw = xp.cos(angle) + 1j * xp.sin(angle)
    return xp.astype(tw[:, :, None], backend.native_dtype(dtype))
