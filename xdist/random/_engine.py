"""The counter-based engine: element values as a pure function of (key, stream, index).

Everything here is host NumPy and sends no message. The bit source is NumPy's Philox4x64-10
(``np.random.Philox``), used as a counter-based generator: the 64-bit output number ``i`` of
stream ``s`` under key ``k`` is lane ``i % 4`` of Philox4x64-10 with key ``k`` applied to the
256-bit counter ``(s << 128) + i // 4 + 1`` (NumPy increments the counter before each block,
so a ``Philox`` whose counter is set to ``(s << 128) + b`` produces block ``b`` next). Any
rank can therefore start drawing at any global index, and a block of an array equals the same
slice of the array drawn whole.

Each distribution uses a fixed number of outputs per element (no rejection), so element ``j``
of a call depends on outputs at fixed positions only:

- ``uniform(float64)``: output ``j``, as NumPy's ``Generator.random``: ``(o >> 11) * 2**-53``;
- ``uniform(float32)``: half of output ``j // 2`` (low 32 bits for even ``j``, high for odd),
  as NumPy's ``random(dtype=float32)``: ``(h >> 8) * 2**-24``;
- ``normal``: Box-Muller on pair ``k = j // 2``: ``u1, u2`` the float64 uniforms of outputs
  ``2k`` and ``2k+1``, ``r = sqrt(-2 log(1 - u1))``, ``psi = 2 pi u2 - pi/2``; element ``2k``
  is ``r cos(psi)`` and ``2k+1`` is ``r sin(psi)`` (computed in float64 as ``_box_muller``
  says, rounded to the dtype);
- ``integers``: ``r`` values, no rejection. For ``r <= 2**16`` (``SMALL_SPAN``) the 32-bit
  half ``h`` of output ``j // 2`` that ``uniform(float32)`` uses, mapped to ``[0, r)`` by
  ``floor(h * r / 2**32)``; above, output ``j`` by ``floor(o * r / 2**64)`` (the high word of
  a 64 x 64-bit product).

The fast paths are NumPy's own C loops (``random_raw``, ``Generator.random``); the other maps
run in chunks that stay in cache.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

__all__ = ["Engine", "CHUNK", "SMALL_SPAN"]

CHUNK = 1 << 15  # elements per pass of the multi-step maps (256 KiB of float64: in L2)
# integers of at most this many values take 32 bits each: half a Philox output per element,
# which keeps them as cheap as NumPy's PCG64 integers (docs/random.md has the speeds)
SMALL_SPAN = 1 << 16
_LOW32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)
_HALF_PI = 0.5 * math.pi


class Engine:
    """Draws of one key: ``key`` is two uint64 words. Holds one NumPy ``Philox`` and the
    ``Generator`` on it, repositioned for every draw (not thread-safe, like NumPy's)."""

    __slots__ = ("key", "_bits", "_gen", "_state")

    def __init__(self, key: np.ndarray) -> None:
        self.key = np.asarray(key, dtype=np.uint64).copy()
        self._bits = np.random.Philox(key=self.key)
        self._gen = np.random.Generator(self._bits)
        self._state = self._bits.state

    def _at(self, stream: int, start: int) -> np.random.Generator:
        """NumPy's generator positioned so that its next 64-bit output is number ``start`` of
        ``stream``."""
        state = self._state
        counter = state["state"]["counter"]
        counter[0] = start // 4
        counter[1] = 0
        counter[2] = stream & 0xFFFFFFFFFFFFFFFF
        counter[3] = stream >> 64
        state["buffer_pos"] = 4
        state["has_uint32"] = 0
        self._bits.state = state
        if start % 4:
            self._bits.random_raw(start % 4)
        return self._gen

    # -- the distributions: flat global indices [lo, hi) of one stream -------------------------
    def raw(self, stream: int, lo: int, hi: int) -> np.ndarray:
        """The uint64 outputs ``lo:hi``."""
        self._at(stream, lo)
        return self._bits.random_raw(hi - lo)

    def uniform(self, stream: int, lo: int, hi: int, dtype: np.dtype) -> np.ndarray:
        """Uniform floats in [0, 1) of ``dtype`` (float64: 53 bits, float32: 24 bits)."""
        if dtype == np.float32:
            gen = self._at(stream, lo // 2)
            if lo % 2:
                gen.random(1, dtype=np.float32)  # skip the low half of the first output
            return gen.random(hi - lo, dtype=np.float32)
        return self._at(stream, lo).random(hi - lo)

    def normal(self, stream: int, lo: int, hi: int, dtype: np.dtype) -> np.ndarray:
        """Standard normals by Box-Muller on pairs of float64 uniforms, rounded to ``dtype``."""
        first = lo - lo % 2
        last = hi + hi % 2
        out = np.empty(last - first, dtype=np.float64)
        gen = self._at(stream, first)
        work = np.empty((5, CHUNK), dtype=np.float64)  # reused: fresh pages cost a fault each
        for a in range(0, last - first, 2 * CHUNK):
            b = min(a + 2 * CHUNK, last - first)
            u = work[:2].reshape(-1)[: b - a]
            gen.random(out=u)
            _box_muller(u, out[a:b], work[2:, : (b - a) // 2])
        out = out[lo - first : hi - first]
        return out if dtype == np.float64 else out.astype(dtype)

    def integers(self, stream: int, lo: int, hi: int, low: int, span: int, dtype: Any):
        """Integers ``low + floor(o * span / 2**64)`` in ``[low, low + span)`` (``1 <= span <=
        2**64``), as ``dtype``; from 32-bit halves for ``span <= SMALL_SPAN``."""
        dtype = np.dtype(dtype)
        if span <= SMALL_SPAN:
            return self._small_integers(stream, lo, hi, low, span, dtype)
        self._at(stream, lo)
        out = np.empty(hi - lo, dtype=dtype)
        wide = dtype.itemsize == 8  # computed in place in the result's bytes
        work = None if wide else np.empty(CHUNK, dtype=np.uint64)
        offset = np.uint64(low % (1 << 64))  # modular: low may be negative
        for a in range(0, hi - lo, CHUNK):
            b = min(a + CHUNK, hi - lo)
            into = out[a:b].view(np.uint64) if wide else work[: b - a]  # type: ignore[index]
            _scaled(self._bits.random_raw(b - a), span, into)
            into += offset
            if not wide:
                out[a:b] = into.view(np.int64) if dtype.kind == "i" else into
        return out

    def _small_integers(self, stream: int, lo: int, hi: int, low: int, span: int, dtype):
        """``low + floor(h * span / 2**32)``, ``h`` the low (even index) or high (odd) 32-bit
        half of output ``j // 2``, in ``[low, low + span)`` (``span <= 2**32``)."""
        first = lo - lo % 2  # the first element of the first output used
        self._at(stream, first // 2)
        out = np.empty(hi - lo, dtype=dtype)
        work = np.empty(2 * CHUNK, dtype=np.uint64)
        r, offset = np.uint64(span), np.uint64(low % (1 << 64))  # modular: low may be < 0
        for a in range(first, hi, 2 * CHUNK):
            b = min(a + 2 * CHUNK, hi)
            w = work[: b - a]
            np.multiply(_halves(self._bits.random_raw(-(-(b - a) // 2)))[: b - a], r, out=w)
            w >>= _32
            w += offset
            w = w[max(lo - a, 0) :]
            out[max(a, lo) - lo : b - lo] = w.view(np.int64) if dtype.kind == "i" else w
        return out


def _halves(outputs: np.ndarray) -> np.ndarray:
    """The 32-bit halves of 64-bit outputs, low then high (NumPy's ``next_uint32`` order)."""
    if sys.byteorder == "little":
        return outputs.view(np.uint32)
    return np.stack([outputs & _LOW32, outputs >> _32], axis=1).astype(np.uint32).ravel()


def _box_muller(u: np.ndarray, out: np.ndarray, work: np.ndarray) -> None:
    """``out[2k], out[2k+1]`` from the uniforms ``u[2k], u[2k+1]`` (``len(u)`` even):
    ``r cos(psi)`` and ``r sin(psi)`` with ``r = sqrt(-2 log(1 - u[2k]))`` and the angle
    ``psi = 2 pi u[2k+1] - pi/2``, uniform on the circle. ``work``: three float64 rows of
    ``len(u) // 2``.

    The angle is a half turn ``h = floor(2 u)`` plus ``phi = pi w`` with ``w = 2u - h - 1/2``
    in ``[-1/2, 1/2)``; with ``t = tan(phi / 2)`` (in ``[-1, 1)``), ``cos(phi) = (1 - t**2) /
    (1 + t**2)`` and ``sin(phi) = 2t / (1 + t**2)``, negated for ``h = 1``. NumPy's ``tan``
    is vectorized where its ``sin`` and ``cos`` are not (one ``tan`` costs a fifth of a
    ``sin`` and a ``cos``), and the formulas lose no precision on that range.

    Every operand is contiguous: NumPy's vectorized transcendental loops and scalar
    fallbacks may differ in the last bit, and the same path must serve every element however
    the array is cut into blocks and chunks."""
    pairs = u.reshape(-1, 2)
    r, t, h = work
    np.copyto(r, pairs[:, 0])
    np.copyto(t, pairs[:, 1])
    np.subtract(1.0, r, out=r)  # in (0, 1]: log is finite
    np.log(r, out=r)
    r *= -2.0
    np.sqrt(r, out=r)
    t *= 2.0
    np.floor(t, out=h)
    t -= h
    t -= 0.5
    t *= _HALF_PI  # phi / 2 = pi w / 2
    np.tan(t, out=t)
    h *= -2.0  # (-1)**h, folded into r with 1 / (1 + t**2): the factor of both elements
    h += 1.0
    r *= h
    np.multiply(t, t, out=h)
    r /= h + 1.0
    np.subtract(1.0, h, out=h)
    res = out.reshape(-1, 2)
    np.multiply(r, h, out=res[:, 0])
    t *= 2.0
    np.multiply(r, t, out=res[:, 1])


def _scaled(word: np.ndarray, span: int, out: np.ndarray) -> None:
    """``out = floor(word * span / 2**64)`` elementwise in uint64 arithmetic, for ``1 <= span
    <= 2**64``: the high word of the 128-bit product, from 32-bit halves. ``word`` is
    overwritten."""
    if span & (span - 1) == 0:  # a power of two: the top bits, exactly
        shift = 64 - (span.bit_length() - 1)
        if shift == 64:
            out[...] = 0
        else:
            np.right_shift(word, np.uint64(shift), out=out)
        return
    if span <= 1 << 32:
        # a*span + (b*span >> 32) < 2**64 since a, b < 2**32 and span <= 2**32.
        r = np.uint64(span)
        np.right_shift(word, _32, out=out)  # a
        word &= _LOW32  # b
        word *= r
        word >>= _32
        out *= r
        out += word
        out >>= _32
        return
    a = word >> _32
    b = word & _LOW32
    c, d = np.uint64(span >> 32), np.uint64(span & 0xFFFFFFFF)
    ad, bc = a * d, b * c
    mid = b * d
    mid >>= _32
    mid += ad & _LOW32
    mid += bc & _LOW32  # < 3 * 2**32
    np.multiply(a, c, out=out)
    out += ad >> _32
    out += bc >> _32
    out += mid >> _32
