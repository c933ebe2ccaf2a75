"""``unique``: NumPy's, beyond the standard, with its flags: the sorted unique values of the
flattened array, and on request each value's first index, the inverse (the index of each
element's value, with the input's shape) and the counts.

It is the standard's set functions' algorithm (``_set_functions``: local runs, a sample sort
of the run records, runs joined across ranks), asked only for what the flags want. NumPy's
default ``equal_nan=True`` makes all NaNs one value; the standard's functions keep each NaN
apart. The NaNs sort last and each is a record of its own (count one, first indices
ascending), so they become one by cutting the results after the first NaN: its first index
is the first NaN's, its count the number of NaNs, and the inverse of every NaN is clipped to
it.

Communication: that of the set functions for a split array (allgathers of counts and samples,
one all-to-all of the records, an allgatherv of at most one value per rank, and one
all-to-all more for the inverse), plus, for a floating-point array with ``equal_nan``, one
``allreduce`` of one int counting the NaNs. Results are split along their axis with exact
counts (the inverse laid out as ``ar``); none of this for a replicated array, whose results
are replicated. Nothing is gathered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array
from ._elementwise_functions import isnan, minimum
from ._numpy_aliases import refuse
from ._set_functions import _unique
from ._statistical_functions import sum
from ._validation import check_array

__all__ = ["unique"]


def _one_nan(values: Array, index: Any, inverse: Any, counts: Any) -> tuple:
    """The results with all NaNs made one value (none when there are fewer than two)."""
    nans = int(sum(isnan(values)))
    if nans < 2:
        return values, index, inverse, counts
    m = values.shape[0] - nans + 1  # the NaN's position is m - 1
    values = values[:m]
    index = None if index is None else index[:m]
    inverse = None if inverse is None else minimum(inverse, m - 1)
    if counts is not None:
        counts = counts[:m]
        block = counts._backend.xp.asarray(counts._local, copy=True)
        layout = counts._layout
        start, stop = (0, m) if layout.split is None else layout.local_range(counts._comm.rank)
        if start <= m - 1 < stop:
            block[m - 1 - start] = nans
        counts = Array._new(block, layout, counts._comm, counts._backend)
    return values, index, inverse, counts


def unique(
    ar: Array,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,
) -> Array | tuple[Array, ...]:
    """NumPy's ``unique`` (xdist's extension): the sorted unique values of the flattened
    ``ar``, followed, as asked, by the first index of each value in the flattened array, the
    inverse (``ar``'s shape) and the counts, NumPy's order. All NaNs are one value unless
    ``equal_nan=False`` (then each is its own, as in the standard's functions). ``axis`` must
    be None; the values come sorted whatever ``sorted`` says. Communication of the standard's
    ``unique_all`` (less what the flags do not ask), and one ``allreduce`` counting the NaNs
    of a split floating-point ``ar`` with ``equal_nan``; results split with exact counts."""
    check_array(ar, "unique", "ar")
    flags = {
        "return_index": return_index,
        "return_inverse": return_inverse,
        "return_counts": return_counts,
        "equal_nan": equal_nan,
        "sorted": sorted,
    }
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"unique: {name} must be a bool, got {value!r}")
    refuse("unique", axis=axis)
    out = _unique(
        ar, indices=bool(return_index), inverse=bool(return_inverse), counts=bool(return_counts)
    )
    if equal_nan and ar.dtype.kind in "fc":
        out = _one_nan(*out)
    values, index, inverse, counts = out
    asked = [
        v
        for v, want in ((index, return_index), (inverse, return_inverse), (counts, return_counts))
        if want
    ]
    return (values, *asked) if asked else values
