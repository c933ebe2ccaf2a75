"""``einsum``: NumPy's, beyond the standard (``xarray.dot`` and ``weighted`` call
``xp.einsum``).

NumPy's subscripts (``"ij,jk->ik"``, implicit output, ``...`` for broadcast axes) over xdist
arrays and NumPy arrays (replicated operands), with NumPy's type promotion. The plan, from
global metadata only (as DTensor places an einsum):

- the operands' split axes name labels; the label of the largest split operand's split axis
  is the one to split along (``L``), with that operand's counts;
- every operand with ``L`` (not broadcast) takes that split: as it is, cut from a replicated
  operand (no message), or moved from another split (one ``alltoallv``); an operand without
  ``L`` is needed whole: replicated as it is, or gathered (a ``GatherWarning`` above the
  threshold: an operand split along a label the others split differently);
- each rank runs the backend's ``einsum`` on its blocks;
- if ``L`` is in the output, the result is split along it (no message); else the ranks'
  partial sums over their part of ``L`` are added by one ``allreduce`` (replicated result).
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from ._array import Array, replicated_operand
from ._data_type_functions import result_type
from ._layout import Layout
from ._movement.collectives import allreduce_block
from ._movement.gathers import implicit_gather
from ._movement.redistribute import redistribute_block
from .backends import Backend

__all__ = ["einsum"]

_LETTERS = set(string.ascii_letters)


def _parse(subscripts: Any, ndims: list[int]) -> tuple[list[str], str]:
    """Each operand's labels and the output's, with ``...`` spelled out in spare letters."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a str, got {type(subscripts).__name__}")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ndims):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operands, got {len(ndims)}"
        )
    for t in [*terms, output]:
        if (
            set(t.replace("...", "")) - _LETTERS
            or t.replace("...", "").count(".")
            or (t.count("...") > 1)
        ):
            raise ValueError(f"einsum: bad subscripts {subscripts!r} (letters and one '...')")
    used = set(spec) & _LETTERS
    spare = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in used]
    width = 0
    for t, nd in zip(terms, ndims):
        named = len(t.replace("...", ""))
        if ("..." not in t and named != nd) or ("..." in t and named > nd):
            raise ValueError(f"einsum: subscripts {t!r} do not fit an operand of {nd} dimensions")
        if "..." in t:
            width = max(width, nd - named)
    ellipsis = "".join(spare[:width])
    labels = []
    for t, nd in zip(terms, ndims):
        k = nd - len(t.replace("...", ""))
        labels.append(t.replace("...", ellipsis[width - k :]) if "..." in t else t)
    if arrow:
        out = output.replace("...", ellipsis)
        missing = set(out) - set("".join(labels))
        if missing or len(set(out)) != len(out):
            raise ValueError(f"einsum: bad output subscripts in {subscripts!r}")
    else:
        counts: dict[str, int] = {}
        for c in "".join(t.replace("...", "") for t in terms):
            counts[c] = counts.get(c, 0) + 1
        out = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    return labels, out


def _sizes(labels: list[str], shapes: list[tuple[int, ...]], subscripts: str) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for lab, shape in zip(labels, shapes):
        for c, n in zip(lab, shape):
            if sizes.get(c, 1) == 1:
                sizes[c] = n
            elif n not in (1, sizes[c]):
                raise ValueError(
                    f"einsum: label {c!r} of {subscripts!r} has lengths {sizes[c]} and {n}"
                )
    return sizes


def einsum(subscripts: str, /, *operands: Any, optimize: Any = False, **kwargs: Any) -> Array:
    """NumPy's ``einsum`` (xdist's extension) over xdist arrays and NumPy arrays.

    Along the label of the largest split operand's split axis: operands with that label are
    split alike (cut locally from replicated ones, one ``alltoallv`` for one split
    differently), the others used whole; a result with that label stays split (no message),
    one without it is one ``allreduce`` of the partial sums. ``optimize`` is accepted for
    NumPy's signature (the backend's own order of contraction is used).
    """
    if kwargs:
        raise TypeError(f"einsum: the arguments {sorted(kwargs)} are not supported")
    like = next((o for o in operands if isinstance(o, Array)), None)
    if like is None:
        raise TypeError("einsum: at least one operand must be an xdist array")
    arrays = [
        o if isinstance(o, Array) else replicated_operand(like, np.asarray(o), "einsum")
        for o in operands
    ]
    for a in arrays:
        if a._comm is not like._comm or a._backend is not like._backend:
            raise ValueError("einsum: the operands live on different communicators or backends")
    labels, out = _parse(subscripts, [a.ndim for a in arrays])
    sizes = _sizes(labels, [a.shape for a in arrays], subscripts)
    dtype = result_type(*arrays)
    comm, backend = like._comm, like._backend
    out_shape = tuple(sizes[c] for c in out)
    # The largest operand split along a label that no operand repeats (a diagonal, "ii",
    # cannot be cut along one of its two axes).
    split = [
        (a.size, i)
        for i, a in enumerate(arrays)
        if a.split is not None and all(la.count(labels[i][a.split]) <= 1 for la in labels)
    ]
    lab = labels[max(split)[1]][arrays[max(split)[1]].split] if split else None
    counts = arrays[max(split)[1]].counts if split else None
    blocks = []
    for a, la in zip(arrays, labels):
        if lab is not None and lab in la and a.shape[la.index(lab)] == sizes[lab]:
            target = Layout(a.shape, la.index(lab), counts)
            block = redistribute_block(a._local, a._layout, target, comm, backend)
        else:
            block = implicit_gather(a._local, a._layout, comm, backend, "einsum")
        blocks.append(_cast_block(backend, block, dtype))
    if lab is None:
        return _run(labels, out, blocks, Layout.replicated(out_shape), like, reduce=False)
    if lab in out:
        return _run(labels, out, blocks, Layout(out_shape, out.index(lab), counts), like, False)
    return _run(labels, out, blocks, Layout.replicated(out_shape), like, reduce=comm.size > 1)


def _cast_block(backend: Backend, block: Any, dtype: np.dtype) -> Any:
    if backend.dtype_of(block) == dtype:
        return block
    return backend.xp.astype(block, backend.native_dtype(dtype))


def _run(
    labels: list[str],
    out: str,
    blocks: list[Any],
    layout: Layout,
    like: Array,
    reduce: bool,
) -> Array:
    backend, comm = like._backend, like._comm
    spec = ",".join(labels) + "->" + out
    local = backend.xp.einsum(spec, *blocks)
    if not backend.is_block(local):
        local = backend.asarray(local)
    if reduce:
        local = allreduce_block(local, "sum", comm, backend)
    return Array._new(local, layout, comm, backend)
