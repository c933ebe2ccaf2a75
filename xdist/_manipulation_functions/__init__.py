"""Manipulation functions of the standard, one module per kind of operation:

- ``shapes``: ``reshape``, ``squeeze``, ``expand_dims``, ``permute_dims``, ``moveaxis``;
- ``broadcasting``: ``broadcast_to``, ``broadcast_arrays``, ``broadcast_shapes``;
- ``joining``: ``concat``, ``stack``, ``unstack``, ``tile``, ``repeat``;
- ``reordering``: ``flip``, ``roll``.

Where the split axis survives an operation, each rank transforms its own block and nothing
moves. Otherwise the data moves in one all-to-all of boxes of global index space (or, for
``flip``, one exchange with the mirror rank); nothing gathers a whole array except where a
module's docstring says so.
"""

from .broadcasting import broadcast_arrays, broadcast_shapes, broadcast_to
from .joining import concat, repeat, stack, tile, unstack
from .reordering import flip, roll
from .shapes import expand_dims, moveaxis, permute_dims, reshape, squeeze

__all__ = [
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
]
