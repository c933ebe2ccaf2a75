"""Bad calls raise the same clear error on every rank, before any message, and write nothing:
wrong types, shapes, axes, dtypes, splits, contexts and
per-rank disagreement, across the chapters. Runs at 1, 2 and 3 ranks; each case checks that
every rank raised the same exception type (an allgather of its name) and that no operand
changed."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from helpers import COMM, RANK, SIZE, SelfComm, distribute, random_array

import xdist

G = random_array((7, 4), seed=21)
V = random_array((7,), seed=22)


def _arrays():
    return {
        "x": distribute(G, 0),
        "xr": distribute(G, None),
        "xc": distribute(G, 1),
        "v": distribute(V, 0),
        "i": distribute(np.arange(7), 0),
        "b": distribute(G > 0, 0),
    }


CASES = {
    # creation
    "zeros negative shape": (lambda a: xdist.zeros((-1, 2)), ValueError),
    "ones bad shape type": (lambda a: xdist.ones("3"), TypeError),
    "full bad split": (lambda a: xdist.full((3,), 1.0, split=2), (ValueError, IndexError)),
    "asarray bad dtype": (
        lambda a: xdist.asarray([1, 2], dtype="float16"),
        (TypeError, ValueError),
    ),
    "arange zero step": (lambda a: xdist.arange(0, 5, 0), ValueError),
    "eye bad k": (lambda a: xdist.eye(3, k=1.5), TypeError),
    "linspace negative num": (lambda a: xdist.linspace(0, 1, -2), ValueError),
    # elementwise
    "add shapes": (lambda a: a["x"] + a["v"], ValueError),
    "add a string": (lambda a: xdist.add(a["x"], "1"), TypeError),
    "bitwise on float": (lambda a: xdist.bitwise_and(a["x"], a["x"]), TypeError),
    "add other communicator": (
        lambda a: a["x"] + xdist.ones((7, 4), comm=SelfComm()),
        ValueError,
    ),
    # statistical and utility
    "sum bad axis": (lambda a: xdist.sum(a["x"], axis=2), (ValueError, IndexError)),
    "mean of ints": (lambda a: xdist.mean(a["i"]), TypeError),
    "std bad correction": (lambda a: xdist.std(a["x"], correction="1"), TypeError),
    "sum keepdims not bool": (lambda a: xdist.sum(a["x"], keepdims=1), TypeError),
    "diff bad n": (lambda a: xdist.diff(a["x"], n=-1), ValueError),
    # searching and sorting
    "argmax bad axis": (lambda a: xdist.argmax(a["x"], axis=5), (ValueError, IndexError)),
    "where shapes": (lambda a: xdist.where(a["b"], a["x"], a["v"]), ValueError),
    "searchsorted 2-D": (lambda a: xdist.searchsorted(a["x"], a["v"]), ValueError),
    "sort bad axis": (lambda a: xdist.sort(a["x"], axis=3), (ValueError, IndexError)),
    "unique of a non-array": (lambda a: xdist.unique_values([1, 2]), TypeError),
    # manipulation
    "reshape size": (lambda a: xdist.reshape(a["x"], (5, 5)), ValueError),
    "concat dims": (lambda a: xdist.concat([a["x"], a["v"]]), ValueError),
    "permute_dims repeat": (lambda a: xdist.permute_dims(a["x"], (0, 0)), ValueError),
    "expand_dims axis": (lambda a: xdist.expand_dims(a["x"], axis=9), (ValueError, IndexError)),
    "squeeze non-1": (lambda a: xdist.squeeze(a["x"], axis=0), ValueError),
    "roll bad shift": (lambda a: xdist.roll(a["x"], 1.5), TypeError),
    "tile bad reps": (lambda a: xdist.tile(a["x"], (2, -1)), ValueError),
    "broadcast_to shape": (lambda a: xdist.broadcast_to(a["x"], (3, 4)), ValueError),
    # linear algebra
    "matmul shapes": (lambda a: a["x"] @ a["x"], ValueError),
    "matmul 0-d": (lambda a: xdist.matmul(a["x"], xdist.asarray(1.0)), ValueError),
    "tensordot axes": (lambda a: xdist.tensordot(a["x"], a["x"], axes=3), ValueError),
    "vecdot shapes": (lambda a: xdist.vecdot(a["x"], a["v"]), ValueError),
    "inv not square": (lambda a: xdist.linalg.inv(a["x"]), ValueError),
    "qr 1-D": (lambda a: xdist.linalg.qr(a["v"]), ValueError),
    # indexing
    "index out of bounds": (lambda a: a["x"][7], IndexError),
    "slice step 0": (lambda a: a["x"][::0], (ValueError, IndexError)),
    "too many indices": (lambda a: a["x"][1, 2, 3], IndexError),
    "float index": (lambda a: a["x"][1.5], IndexError),
    "integer array out of bounds": (lambda a: a["x"][xdist.asarray([0, 9])], IndexError),
    "mask shape": (lambda a: a["x"][a["b"][:, 0:2]], IndexError),
    "take out of bounds": (lambda a: xdist.take(a["v"], xdist.asarray([1, 99])), IndexError),
    "setitem shape": (lambda a: a["x"].__setitem__(slice(0, 2), a["v"]), ValueError),
    "setitem dtype": (lambda a: a["i"].__setitem__(0, 1.5), TypeError),
    "setitem out of bounds": (lambda a: a["x"].__setitem__((9, 0), 1.0), IndexError),
    "iadd result dtype": (lambda a: a["i"].__iadd__(a["v"]), TypeError),
    # distribution
    "resplit bad axis": (lambda a: xdist.resplit(a["x"], 2), (ValueError, IndexError)),
    "from_local 0-d split": (lambda a: xdist.from_local(np.float64(1.0), split=0), ValueError),
    "to_device other backend": (
        lambda a: a["x"].to_device(xdist.backends.Device("nope", "cpu", 0)),
        ValueError,
    ),
    # data types
    "astype bad dtype": (lambda a: xdist.astype(a["x"], "float16"), (TypeError, ValueError)),
    "finfo of int": (lambda a: xdist.finfo(xdist.int32), (TypeError, ValueError)),
    # per-rank disagreement
    "from_local dtype differs": (
        lambda a: xdist.from_local(np.ones((2, 3), np.float32 if RANK == SIZE - 1 else np.float64)),
        ValueError,
    ),
    "from_local trailing shape differs": (
        lambda a: xdist.from_local(np.ones((2, 3 + (RANK == SIZE - 1)))),
        ValueError,
    ),
}


def _agreed_name(error: BaseException | None) -> list[int]:
    code = zlib.crc32(type(error).__name__.encode()) if error is not None else 0
    return [int(c) for c in COMM.allgather_ints([code])[:, 0]]


@pytest.mark.parametrize("name", list(CASES))
def test_bad_call_raises_the_same_error_everywhere_and_writes_nothing(name):
    call, expected = CASES[name]
    if "differs" in name and SIZE == 1:
        expected = ()  # one rank cannot disagree with itself: nothing to raise
    arrays = _arrays()
    before = {k: v.to_numpy() for k, v in arrays.items()}
    error = None
    try:
        call(arrays)
    except Exception as e:  # noqa: BLE001 - the type is checked below, on every rank
        error = e
    codes = _agreed_name(error)
    assert len(set(codes)) == 1, f"{name}: ranks raised different errors ({codes})"
    if expected:
        assert isinstance(error, expected), f"{name}: {type(error).__name__}: {error}"
        text = str(error)
        assert text and len(text) > 15, f"{name}: the message says too little: {text!r}"
    for k, v in arrays.items():
        np.testing.assert_array_equal(v.to_numpy(), before[k], err_msg=f"{name} wrote to {k}")
