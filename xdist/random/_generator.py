"""``Generator``: NumPy's method names over the counter-based engine, and ``default_rng``.

Every method call takes the next stream of the generator (a call counter: SPMD programs make
the same calls in the same order on every rank, so every rank numbers them alike), checks its
arguments on every rank before anything is drawn or sent, and draws the elements of its block
by their global flat index (``_layouts``). Results are computed on the host in NumPy and
moved to the backend's device once, so they are bitwise the same on every backend.
"""

from __future__ import annotations

import math
import textwrap
from typing import Any

import numpy as np

from .. import _array
from .._movement.agreement import differing_copies
from .._movement.collectives import bcast_host
from .._pending import settle
from .._placement import DEFAULT, Placement
from .._transport.comm import Communicator
from .._validation import normalize_axis
from ._checks import check_dtype, check_integer, check_real, check_shape, check_xarray
from ._engine import Engine
from ._layouts import draw_block
from ._shuffling import choose, order_keys, permuted, weighted_keys

__all__ = ["Generator", "default_rng"]

_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)


def default_rng(seed: Any = None, *, comm: Any = None) -> Generator:
    """A generator whose draws are the same at every rank count, split and backend.

    Parameters
    ----------
    seed : None, int, sequence of ints, numpy.random.SeedSequence or Generator, optional
        As NumPy's ``default_rng``: ints >= 0 and sequences of them are hashed by a
        ``SeedSequence`` into the 128-bit Philox key. ``None`` draws fresh entropy on rank 0
        and gives it to every rank, so all ranks share one generator. An xdist
        ``Generator`` is returned unchanged.
    comm : Communicator, optional
        The ranks that share the generator (``None``: ``xdist.default_comm()``); its methods
        create arrays on it unless given another ``comm``.

    Returns
    -------
    Generator

    Notes
    -----
    Communication: ``seed=None`` broadcasts 16 bytes from rank 0. A given seed: the ranks
    compare a fingerprint of the key (one allgather of one int, the ``check_replicated``
    setting, on by default) and raise the same error when seeds differ; nothing with the
    setting off.
    """
    if isinstance(seed, Generator):
        return seed
    where = Placement(comm, None, "default_rng")
    comm = where.comm
    if seed is None:
        return Generator(np.random.SeedSequence(_shared_entropy(comm)), comm)
    if isinstance(seed, np.random.SeedSequence):
        seq = seed
    elif isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        raise TypeError(
            "default_rng: seed must be None, an int, a sequence of ints or a SeedSequence; "
            f"a NumPy {type(seed).__name__} cannot be drawn by global index"
        )
    else:
        seq = np.random.SeedSequence(_seed_entropy(seed))
    rng = Generator(seq, comm)
    differ = differing_copies(rng.key, comm, where.backend)
    if differ:
        raise ValueError(
            f"default_rng: the seed differs between ranks: {differ}; every rank must pass the "
            "same seed (seed=None agrees on one); per-rank streams are not needed: draws are "
            "split by global index. (The check_replicated setting, XDIST_CHECK_REPLICATED=0, "
            "turns this comparison off.)"
        )
    return rng


def _seed_entropy(seed: Any) -> int | list[int]:
    """An int >= 0 or a non-empty sequence of them, as ``SeedSequence`` takes them."""
    if isinstance(seed, (list, tuple, np.ndarray)):
        values = [check_integer(s, "default_rng", "seed") for s in np.asarray(seed).ravel()]
        if not values:
            raise ValueError("default_rng: seed must not be an empty sequence")
    else:
        values = [check_integer(seed, "default_rng", "seed")]
    if min(values) < 0:
        raise ValueError(f"default_rng: seed must be >= 0, got {seed!r}")
    return values if isinstance(seed, (list, tuple, np.ndarray)) else values[0]


def _shared_entropy(comm: Communicator) -> int:
    """128 bits of fresh entropy from rank 0, on every rank (one broadcast)."""
    words = np.zeros(2, dtype=np.uint64)
    if comm.rank == 0:
        entropy = np.random.SeedSequence().entropy
        words[:] = [entropy & 0xFFFFFFFFFFFFFFFF, (entropy >> 64) & 0xFFFFFFFFFFFFFFFF]
    if comm.size > 1:
        words = bcast_host(words, 0, comm)
    return int(words[0]) | int(words[1]) << 64


_COMMON = """\
shape : int or tuple of ints, optional
    The same as ``size`` (give one of them).
split : int or None, optional
    The axis to split the result along, in balanced blocks, or ``None`` for a full copy on
    every rank; by default the creation functions' default
    (``xdist.get_config().default_split``).
device : Device, optional
    Where the result lives (``None``: the backend's default device).
comm : Communicator, optional
    The communicator of the result (``None``: the generator's)."""


def _doc(text: str) -> str:
    """A method docstring with the parameters every drawing method shares inserted where
    ``{common}`` stands (indented as the method's parameters)."""
    return text.replace("        {common}", textwrap.indent(_COMMON, " " * 8))


class Generator:
    """Random numbers that are the same at any number of ranks, for any split, on any backend.

    Made by ``default_rng``. Element ``j`` (global C-order flat index) of the ``c``-th method
    call is a function of (seed, ``c``, ``j``) only, computed with Philox4x64-10 used as a
    counter-based generator, so each rank draws only its own block and the array equals the
    one drawn whole on one process. Every rank must make the same calls in the same order.

    The method names and arguments are NumPy's (``size`` or ``shape``), with xdist's
    ``split``, ``device`` and ``comm`` keywords. ``size=None`` gives a 0-d array.
    """

    __slots__ = ("_seq", "_comm", "_engine", "_calls")

    def __init__(self, seed_seq: np.random.SeedSequence, comm: Communicator) -> None:
        self._seq = seed_seq
        self._comm = comm
        self._engine = Engine(seed_seq.generate_state(2, np.uint64))
        self._calls = 0

    @property
    def key(self) -> np.ndarray:
        """The 128-bit Philox key (two uint64 words) hashed from the seed."""
        return self._engine.key.copy()

    @property
    def seed_seq(self) -> np.random.SeedSequence:
        """The ``SeedSequence`` the key comes from (its ``entropy`` reproduces ``seed=None``)."""
        return self._seq

    @property
    def comm(self) -> Any:
        return self._comm

    def __repr__(self) -> str:
        return f"Generator(Philox, entropy={self._seq.entropy!r}, calls={self._calls})"

    def spawn(self, n_children: int) -> list[Generator]:
        """``n_children`` independent generators (``SeedSequence.spawn``); no message."""
        n = check_integer(n_children, "spawn", "n_children")
        if n < 0:
            raise ValueError(f"spawn: n_children must be >= 0, got {n}")
        return [Generator(s, self._comm) for s in self._seq.spawn(n)]

    # -- shared steps ----------------------------------------------------------------------
    def _stream(self) -> int:
        """The stream of this call: the number of calls before it."""
        self._calls += 1
        return self._calls - 1

    def _request(self, func, size, shape, dtype, kinds, kind, split, device, comm):
        """Placement, layout and dtype of a drawing call, every argument checked."""
        t = Placement(self._comm if comm is None else comm, device, func)
        dims = check_shape(size, shape, func)
        dt = check_dtype(dtype, kinds, t.backend.default_dtypes()[kind], t.backend, func)
        return t, t.layout(dims, split, func), dt

    @staticmethod
    def _emit(t: Placement, layout: Any, dtype: np.dtype, fill: Any) -> _array.Array:
        host = draw_block(fill, layout, dtype, t.comm)
        return t.array(t.backend.from_host(host, t.device), layout)

    # -- continuous distributions ----------------------------------------------------------
    def random(
        self, size=None, dtype=None, *, shape=None, split=DEFAULT, device=None, comm=None
    ) -> _array.Array:
        """Uniform floats in [0, 1).

        Parameters
        ----------
        size : int or tuple of ints, optional
            The result shape (``None``: a 0-d array).
        dtype : float32 or float64, optional
            ``None``: the backend's default real floating dtype. float64 values are
            multiples of 2**-53 (53 random bits), float32 of 2**-24.
        {common}

        Returns
        -------
        Array

        Notes
        -----
        Communication: none, unless the result is split along an axis other than 0 in short
        runs (then one all-to-all; see ``docs/random.md``).
        """
        t, layout, dt = self._request(
            "random", size, shape, dtype, "f", "real floating", split, device, comm
        )
        s, eng = self._stream(), self._engine
        return self._emit(t, layout, dt, lambda lo, hi: eng.uniform(s, lo, hi, dt))

    def uniform(
        self,
        low=0.0,
        high=1.0,
        size=None,
        *,
        shape=None,
        dtype=None,
        split=DEFAULT,
        device=None,
        comm=None,
    ) -> _array.Array:
        """Uniform floats in [low, high): ``low + (high - low) * u`` with ``u`` as ``random``'s
        (computed in float64; rounding may give ``high`` itself, as in NumPy).

        Parameters
        ----------
        low, high : float
            Finite bounds (scalars).
        size : int or tuple of ints, optional
            The result shape (``None``: a 0-d array).
        dtype : float32 or float64, optional
            ``None``: the backend's default real floating dtype.
        {common}

        Returns
        -------
        Array

        Notes
        -----
        Communication: as ``random``.
        """
        func = "uniform"
        lo_, hi_ = check_real(low, func, "low"), check_real(high, func, "high")
        scale = hi_ - lo_
        if not math.isfinite(scale):
            raise ValueError(f"uniform: high - low overflows (low={low!r}, high={high!r})")
        t, layout, dt = self._request(
            func, size, shape, dtype, "f", "real floating", split, device, comm
        )
        s, eng = self._stream(), self._engine

        def fill(lo: int, hi: int) -> np.ndarray:
            u = eng.uniform(s, lo, hi, dt).astype(np.float64)
            u *= scale
            u += lo_
            return u.astype(dt, copy=False)

        return self._emit(t, layout, dt, fill)

    def standard_normal(
        self, size=None, dtype=None, *, shape=None, split=DEFAULT, device=None, comm=None
    ) -> _array.Array:
        """Standard normal floats, by Box-Muller on pairs of elements (no rejection: each
        element uses the same two 64-bit draws whatever the data).

        Parameters
        ----------
        size : int or tuple of ints, optional
            The result shape (``None``: a 0-d array).
        dtype : float32 or float64, optional
            ``None``: the backend's default real floating dtype. Computed in float64 and
            rounded, so float32 results are the float64 ones rounded. ``|x| <= 8.58``
            (``sqrt(-2 log 2**-53)``).
        {common}

        Returns
        -------
        Array

        Notes
        -----
        Communication: as ``random``. Bitwise equality holds on machines whose NumPy
        computes ``log``, ``cos``, ``sin`` alike (same build and SIMD level).
        """
        t, layout, dt = self._request(
            "standard_normal", size, shape, dtype, "f", "real floating", split, device, comm
        )
        s, eng = self._stream(), self._engine
        return self._emit(t, layout, dt, lambda lo, hi: eng.normal(s, lo, hi, dt))

    def normal(
        self,
        loc=0.0,
        scale=1.0,
        size=None,
        *,
        shape=None,
        dtype=None,
        split=DEFAULT,
        device=None,
        comm=None,
    ) -> _array.Array:
        """Normal floats ``loc + scale * z``, ``z`` as ``standard_normal``'s (in float64).

        Parameters
        ----------
        loc : float
            The mean (a finite scalar).
        scale : float
            The standard deviation (a finite scalar >= 0).
        size : int or tuple of ints, optional
            The result shape (``None``: a 0-d array).
        dtype : float32 or float64, optional
            ``None``: the backend's default real floating dtype.
        {common}

        Returns
        -------
        Array

        Notes
        -----
        Communication: as ``random``.
        """
        func = "normal"
        mu, sigma = check_real(loc, func, "loc"), check_real(scale, func, "scale", 0.0)
        t, layout, dt = self._request(
            func, size, shape, dtype, "f", "real floating", split, device, comm
        )
        s, eng = self._stream(), self._engine

        def fill(lo: int, hi: int) -> np.ndarray:
            z = eng.normal(s, lo, hi, _F64)
            z *= sigma
            z += mu
            return z.astype(dt, copy=False)

        return self._emit(t, layout, dt, fill)

    for _m in (random, uniform, standard_normal, normal):
        _m.__doc__ = _doc(_m.__doc__)
    del _m

    # -- integers ------------------------------------------------------------------------------
    def integers(
        self,
        low,
        high=None,
        size=None,
        dtype=None,
        endpoint=False,
        *,
        shape=None,
        split=DEFAULT,
        device=None,
        comm=None,
    ) -> _array.Array:
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint=True``; ``[0, low)``
        when ``high`` is None).

        Each element maps one draw to ``low + floor(w * r / 2**b)``, ``r`` the number of
        values: a 32-bit draw (``b = 32``, half a 64-bit output) when ``r <= 2**16``, else a
        64-bit one; no rejection, so every element costs a fixed draw. Each value has
        probability within ``2**-b`` of ``1 / r``, a relative bias below ``r / 2**b`` (at most
        ``2**-16`` for the 32-bit draws, ``2**-32`` for ``r <= 2**32``); none when ``r`` is a
        power of two.

        Parameters
        ----------
        low, high : int
            The bounds (scalars); the values must fit ``dtype``.
        size : int or tuple of ints, optional
            The result shape (``None``: a 0-d array).
        dtype : integer dtype, optional
            ``None``: the backend's default integer dtype (int64).
        endpoint : bool, optional
            Whether ``high`` is included.
        {common}

        Returns
        -------
        Array

        Notes
        -----
        Communication: as ``random``.
        """
        func = "integers"
        first = check_integer(low, func, "low")
        if high is None:
            first, stop = 0, first
        else:
            stop = check_integer(high, func, "high")
        if not isinstance(endpoint, bool):
            raise TypeError(f"integers: endpoint must be a bool, got {endpoint!r}")
        last = stop if endpoint else stop - 1
        t, layout, dt = self._request(
            func, size, shape, dtype, "iu", "integral", split, device, comm
        )
        if last < first:
            sign = ">" if endpoint else ">="
            raise ValueError(f"integers: low {sign} high (low={first}, high={stop})")
        info = np.iinfo(dt)
        if first < info.min or last > info.max:
            raise ValueError(
                f"integers: [{first}, {last}] does not fit dtype {dt} ([{info.min}, {info.max}])"
            )
        s, eng, span = self._stream(), self._engine, last - first + 1
        return self._emit(t, layout, dt, lambda lo, hi: eng.integers(s, lo, hi, first, span, dt))

    for _m in (integers,):
        _m.__doc__ = _doc(_m.__doc__)
    del _m

    # -- permutations --------------------------------------------------------------------------
    def permutation(self, x, axis=0, *, split=DEFAULT, device=None, comm=None) -> _array.Array:
        """A random permutation of ``range(x)``, or a copy of the array ``x`` with its indices
        along ``axis`` permuted (in ``x``'s layout).

        The permutation is the stable argsort of one random 64-bit key per index, so it is
        the same at every rank count, split and backend.

        Parameters
        ----------
        x : int or Array
            The number of indices, or the array to permute.
        axis : int, optional
            The axis of ``x`` to permute (an array ``x`` only).
        split, device, comm : optional
            For an int ``x``: the result's split (as the creation functions'), device and
            communicator (``None``: the generator's).

        Returns
        -------
        Array
            int64 indices for an int ``x``; else an array like ``x``.

        Notes
        -----
        Communication: none along an axis that is not split (every rank sorts the ``n``
        keys of the axis itself; for ``range(x)``: a replicated result). Along the split axis
        (a split ``range(x)``): a distributed stable ``argsort`` of the keys (sample sort:
        an allgather of samples and all-to-alls) and, for an array, ``take`` (an all-to-all of
        indices and one of the slices), plus one all-to-all for unbalanced blocks.
        """
        func = "permutation"
        if isinstance(x, _array.Array):
            if split is not DEFAULT or device is not None or comm is not None:
                raise TypeError(
                    "permutation: split, device and comm apply to an int x only (an array "
                    "keeps its layout)"
                )
            check_xarray(x, func)
            ax = normalize_axis(axis, x.ndim, func)
            return permuted(x, ax, order_keys(self._engine, self._stream()), func)
        n = check_integer(x, func, "x")
        if n < 0:
            raise ValueError(f"permutation: x must be >= 0, got {n}")
        if axis != 0:
            raise ValueError(f"permutation: axis applies to an array x only, got axis={axis!r}")
        t = Placement(self._comm if comm is None else comm, device, func)
        layout = t.layout((n,), split, func)
        keys = order_keys(self._engine, self._stream())
        return choose(None, n, layout, False, None, keys, t)

    def shuffle(self, x, axis=0) -> None:
        """Permute the array ``x`` in place along ``axis`` (as ``permutation(x, axis)``).

        Parameters
        ----------
        x : Array
            The array to shuffle (its layout is kept).
        axis : int, optional
            The axis to permute.

        Notes
        -----
        Communication: as ``permutation``.
        """
        check_xarray(x, "shuffle")
        ax = normalize_axis(axis, x.ndim, "shuffle")
        out = permuted(x, ax, order_keys(self._engine, self._stream()), "shuffle")
        settle()  # a pending chain may read x's block
        x._local[...] = out._local

    # -- sampling ------------------------------------------------------------------------------
    def choice(
        self,
        a,
        size=None,
        replace=True,
        p=None,
        *,
        shape=None,
        split=DEFAULT,
        device=None,
        comm=None,
    ) -> _array.Array:
        """Random samples of ``range(a)`` or of the 1-D array ``a``.

        With replacement each sample is an index drawn by ``integers`` (with ``p``: by the
        inverse of the cumulative weights at a uniform draw); without, the samples are the
        first ones of a random permutation (with ``p``: ordered by the keys ``E / p`` of
        Efraimidis and Spirakis, ``E`` exponential, which is sampling one at a time by
        weight, as NumPy's).

        Parameters
        ----------
        a : int or Array
            The population: ``range(a)``, or the values of a 1-D array.
        size : int or tuple of ints, optional
            The result shape (``None``: a 0-d array).
        replace : bool, optional
            Whether a population element can be drawn more than once.
        p : array_like of float, optional
            The probability of each population element (1-D, >= 0, summing to 1). Read on
            every rank: an xdist array is gathered.
        {common}
            For an array ``a``, ``device`` and ``comm`` are ``a``'s.

        Returns
        -------
        Array
            int64 indices for an int ``a``; else values of ``a``.

        Notes
        -----
        Communication: with replacement from ``range(a)`` or a replicated ``a``: as
        ``random``. From a split ``a``: ``take`` (an all-to-all of indices and one of values,
        or an allgather of the samples for a replicated result). Without replacement into a
        split result: a distributed ``argsort`` of ``len(a)`` keys (the work shared by the ranks);
        into a replicated one, each rank sorts the keys itself. Moving the flat samples into
        the requested shape and split: at most two all-to-alls.
        """
        func = "choice"
        pool, n, t = self._population(a, device, comm)
        if not isinstance(replace, bool):
            raise TypeError(f"choice: replace must be a bool, got {replace!r}")
        layout = t.layout(check_shape(size, shape, func), split, func)
        k = math.prod(layout.shape)
        weights = None if p is None else _check_p(p, n)
        if k and n == 0:
            raise ValueError("choice: a is empty but size asks for samples")
        available = n if weights is None else int(np.count_nonzero(weights))
        if not replace and k > available:
            what = "the population" if weights is None else "the non-zero entries of p"
            raise ValueError(
                f"choice: cannot take {k} samples without replacement from {what} ({available})"
            )
        index_fill, keys = _samplers(self._engine, self._stream(), n, weights)
        return choose(pool, n, layout, replace, index_fill, keys, t)

    def _population(self, a: Any, device: Any, comm: Any):
        """``choice``'s population: the pool array (``None`` for ``range(a)``), its size and
        the placement of the result."""
        if not isinstance(a, _array.Array):
            n = check_integer(a, "choice", "a")
            if n < 0:
                raise ValueError(f"choice: a must be >= 0, got {n}")
            return None, n, Placement(self._comm if comm is None else comm, device, "choice")
        check_xarray(a, "choice", "a")
        if a.ndim != 1:
            raise ValueError(f"choice: a must be 1-D, got {a.ndim} dimensions")
        if device is not None or comm is not None:
            raise TypeError("choice: device and comm apply to an int a only")
        return a, a.shape[0], Placement(a._comm, a.device, "choice", backend=a._backend)

    for _m in (choice,):
        _m.__doc__ = _doc(_m.__doc__)
    del _m


def _samplers(eng: Engine, s: int, n: int, weights: np.ndarray | None):
    """``choice``'s index draws with replacement, ``index_fill(lo, hi)``, and the keys that
    order the population for sampling without (both of stream ``s``)."""
    if weights is None:
        fill = lambda lo, hi: eng.integers(s, lo, hi, 0, max(n, 1), _I64)  # noqa: E731
        return fill, order_keys(eng, s)
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]

    def fill(lo: int, hi: int) -> np.ndarray:
        u = eng.uniform(s, lo, hi, _F64)
        return np.minimum(np.searchsorted(cdf, u, side="right"), n - 1)

    return fill, weighted_keys(eng, s, weights)


def _check_p(p: Any, n: int) -> np.ndarray:
    """The weights of ``choice`` as float64: 1-D, ``n`` of them, finite, >= 0, summing to 1
    within ``sqrt(eps)`` (NumPy's tolerance)."""
    try:
        w = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"choice: p must be an array of floats, got {type(p).__name__}") from None
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"choice: p must be 1-D with {n} entries (as a), got shape {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("choice: p must hold finite probabilities >= 0")
    total = float(w.sum())
    if abs(total - 1.0) > math.sqrt(np.finfo(np.float64).eps):
        raise ValueError(f"choice: the probabilities p sum to {total}, not 1")
    return w
