"""``argwhere``: NumPy's, beyond the standard: the indices of the nonzero elements, one row
per element in C order (``nonzero``'s index arrays as columns).

Communication: that of ``nonzero`` (none for a replicated array; one allgather of the
per-rank counts for a split one, after one all-to-all for an array split along another axis
than the first). The result is split along its first axis with exact, uneven counts (rank r
holds the rows of its own nonzero elements); the columns join locally.
"""

from __future__ import annotations

from ._array import Array
from ._manipulation_functions import reshape, stack
from ._searching_functions import nonzero
from ._validation import check_array

__all__ = ["argwhere"]


def argwhere(a: Array, /) -> Array:
    """NumPy's ``argwhere`` (xdist's extension): an ``(N, a.ndim)`` array of the indices of
    the ``N`` nonzero elements of ``a`` in C order (``(N, 0)`` for a 0-d ``a``, ``N`` being 0
    or 1). Communication of ``nonzero``; the result is split along its first axis."""
    check_array(a, "argwhere", "a")
    if a.ndim == 0:
        return stack(nonzero(reshape(a, (1,))), axis=1)[:, :0]
    return stack(nonzero(a), axis=1)
