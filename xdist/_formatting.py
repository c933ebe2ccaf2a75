"""Text of an array's values, summarised as NumPy summarises them, from the few elements that
are printed.

NumPy prints an array of more than ``threshold`` elements with ``edgeitems`` elements at
each end of every long axis and ``...`` between. ``summary_indices`` names those elements,
plus one filler in the middle of each long axis; NumPy, printing the small array they form
with ``threshold=0``, elides exactly the fillers, so the text is NumPy's text of the whole
array (the widths come from the printed elements only). Only the printed elements are read:
for ``repr``, from this rank's block (no message); for ``xdist.show``, fetched from their
owners.
"""

from __future__ import annotations

import numpy as np

__all__ = ["summary_indices", "format_values"]


def summary_indices(shape: tuple[int, ...]) -> list[np.ndarray] | None:
    """Per axis, the indices of the elements NumPy prints (with one filler in the middle of a
    summarised axis), or ``None`` when NumPy prints every element."""
    options = np.get_printoptions()
    if int(np.prod(shape, dtype=np.int64)) <= options["threshold"]:
        return None
    edge = options["edgeitems"]
    out = []
    for n in shape:
        if n > 2 * edge:
            out.append(np.r_[np.arange(edge), edge, np.arange(n - edge, n)].astype(np.int64))
        else:
            out.append(np.arange(n, dtype=np.int64))
    return out


def format_values(
    values: np.ndarray, summarised: bool, prefix: str = "", separator: str = ", "
) -> str:
    """NumPy's text of ``values`` (the elements ``summary_indices`` picked when
    ``summarised``), with ``prefix`` before the first line as in ``np.array2string``
    (``repr``'s separator by default; ``" "`` gives ``str``'s)."""
    if summarised:
        return np.array2string(values, separator=separator, prefix=prefix, threshold=0)
    return np.array2string(values, separator=separator, prefix=prefix)
