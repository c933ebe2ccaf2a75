"""Utility functions of the standard: ``all`` and ``any``, reductions over axes.

They share the reduction pipeline of ``_statistical_functions``: a reduction that leaves the
split axis alone sends nothing; over the split axis, one ``allreduce`` (logical and / or) of
the per-rank partial results. An empty block is the identity (``True`` for all, ``False`` for
any), which the local library already gives.
"""

from __future__ import annotations

from . import _array
from ._dtypes import bool as _bool
from ._statistical_functions import plan_reduction, reduce_simple

__all__ = ["all", "any"]


def _logical(func: str, op: str, identity: bool, x, axis, keepdims) -> _array.Array:
    plan = plan_reduction(x, axis, keepdims, func)
    fn = getattr(x._backend.xp, func)

    def local(block, axes):
        return fn(block, axis=axes, keepdims=True)

    return reduce_simple(x, plan, local, op, identity, _bool)


def all(x: _array.Array, /, *, axis=None, keepdims: bool = False) -> _array.Array:  # noqa: A001
    """The standard's ``all`` (any dtype; nonzero and NaN are true). Over the split axis: one
    ``allreduce`` with logical and."""
    return _logical("all", "land", True, x, axis, keepdims)


def any(x: _array.Array, /, *, axis=None, keepdims: bool = False) -> _array.Array:  # noqa: A001
    """The standard's ``any`` (any dtype; nonzero and NaN are true). Over the split axis: one
    ``allreduce`` with logical or."""
    return _logical("any", "lor", False, x, axis, keepdims)
