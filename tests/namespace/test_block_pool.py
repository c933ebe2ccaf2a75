"""The pool of large result blocks (``xdist/_block_pool.py``): a fused chain's block of 4 MiB
or more is lent by the pool, returned when the block and every view of it are gone, and lent
again to the next block of its size class; the pool holds at most ``block_pool_bytes``
unused; ``empty_cache`` drops what it holds. Values are the eager ones bit for bit, at every
rank count, with an empty block on a rank."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from helpers import BACKEND, ON_HOST, RANK, SIZE, distribute, host, random_array

import xdist
from xdist import _block_pool

if not (BACKEND.name == "numpy" or (BACKEND.name == "torch" and ON_HOST)):
    pytest.skip("fused chains (the pool's blocks) run on the host only", allow_module_level=True)

ROWS, COLS = 3 * 700, 1024  # float64: 5.6 MB a block at 3 ranks, 17 MB at 1
MIB = 1 << 20


@pytest.fixture(autouse=True)
def a_large_empty_pool():
    with xdist.config_context(block_pool_bytes=1 << 30, fuse_min_elements=1):
        xdist.empty_cache()
        yield
        xdist.empty_cache()


def _pointer(block) -> int:
    return block.ctypes.data if isinstance(block, np.ndarray) else block.data_ptr()


def _source(counts=None):
    data = random_array((ROWS, COLS), "float64", seed=5)
    return distribute(data, 0, counts) * 1.0  # (a chain: its block is xdist's own)


def _eager(make):
    """``make()``'s block made eagerly (no chain, no pool), as NumPy."""
    with xdist.config_context(fuse_min_elements=0):
        return host(make().local).copy()


def _class_bytes(x) -> int:
    """The size class of ``x``'s block: its bytes rounded up to 2 MiB."""
    nbytes = x.lshape[0] * COLS * 8
    return -(-nbytes // (2 * MIB)) * 2 * MIB


def test_a_dropped_block_is_lent_to_the_next_block_of_its_size():
    x = _source()
    y = xdist.sqrt(x * x + 1.0)
    first = y.local
    assert np.array_equal(host(first), _eager(lambda: xdist.sqrt(x * x + 1.0)))
    held = _pointer(first)
    del y, first
    gc.collect()
    assert _block_pool.held_bytes() == _class_bytes(x)
    z = xdist.exp(x * 0.5) - 1.0
    second = z.local
    assert _pointer(second) == held  # the same memory, written again
    assert _block_pool.held_bytes() == 0
    assert np.array_equal(host(second), _eager(lambda: xdist.exp(x * 0.5) - 1.0))


def test_a_block_still_viewed_is_not_lent():
    x = _source()
    y = x + 2.0
    block = y.local
    lent = _pointer(block)
    view = block[1:]  # a user's view outlives the array
    before = host(view).copy()
    del y, block
    gc.collect()
    assert _block_pool.held_bytes() == 0
    z = x * 3.0
    assert _pointer(z.local) != lent
    assert np.array_equal(host(view), before)  # z was written elsewhere
    assert np.array_equal(host(z.local), _eager(lambda: x * 3.0))
    del view
    gc.collect()
    assert _block_pool.held_bytes() == _class_bytes(x)


def test_a_function_run_now_writes_into_a_lent_block():
    """A function of a block a user can write (a chain cannot read it later, so the function
    runs now) is written into a lent block where it takes ``out=``: NumPy's ufuncs, Torch's
    own functions; the bits are the library's own call's. A function of a small block is
    left to the library."""
    data = random_array((ROWS, COLS), "float64", seed=6)
    x = distribute(data, 0)  # the user's data: not xdist's own block
    y = x * 0.5  # runs now, into a new lent block
    y.local  # noqa: B018
    del y
    gc.collect()
    assert _block_pool.held_bytes() == _class_bytes(x)
    held = _block_pool.held_bytes()
    z = xdist.exp(x)
    assert _block_pool.held_bytes() == 0  # z's block is the buffer y's was
    assert np.array_equal(host(z.local), _eager(lambda: xdist.exp(x)))
    w = x < 0.0  # bool: an eighth of the bytes (under 4 MiB: the library's own)
    assert np.array_equal(host(w.local), _eager(lambda: x < 0.0))
    del z, w
    gc.collect()
    assert _block_pool.held_bytes() == held
    small = distribute(random_array((SIZE * 8, 4), "float64", seed=7), 0)
    before = _block_pool.held_bytes()
    s = xdist.exp(small)
    assert np.array_equal(host(s.local), _eager(lambda: xdist.exp(small)))
    del s
    gc.collect()
    assert _block_pool.held_bytes() == before  # never lent


@pytest.mark.parametrize("blas_views", [True, False])
def test_a_product_run_now_writes_into_a_lent_block(blas_views, monkeypatch):
    """A product that starts no chain (its rows the user's data, as large as the product) is
    written by BLAS into a lent block where NumPy's BLAS makes the backend's product
    (``blas_views``): NumPy's ``matmul`` with ``out=``, and on the Torch backend NumPy's
    BLAS on the float tensors' memory, where it runs as many threads as Torch (else Torch's
    own product, not lent). The eager call's bits."""
    if BACKEND.name == "torch":
        import torch

        from xdist.backends import torch as torch_backend

        threads = torch.get_num_threads() + (0 if blas_views else 1)
        monkeypatch.setattr(torch_backend, "_blas_threads", lambda: threads)
    elif not blas_views:
        pytest.skip("NumPy's matmul always writes into out=")
    x = distribute(random_array((ROWS, COLS), "float64", seed=8), 0)
    w = random_array((COLS, COLS), "float64", seed=9)
    W = xdist.asarray(w)
    expected = host(x.local) @ w
    first = x @ W
    if not blas_views:  # Torch's own GEMM (its rounding), into Torch's memory
        np.testing.assert_allclose(host(first.local), expected, rtol=1e-12, atol=1e-9)
        del first
        gc.collect()
        assert _block_pool.held_bytes() == 0
        return
    assert np.array_equal(host(first.local), expected)
    held = _pointer(first.local)
    del first
    gc.collect()
    assert _block_pool.held_bytes() == _class_bytes(x)
    second = x @ W
    assert _pointer(second.local) == held
    assert np.array_equal(host(second.local), expected)


def test_a_cast_writes_into_a_lent_block():
    """``astype`` of a large C-ordered block on the NumPy backend casts into a lent block:
    NumPy's cast, ``astype``'s bits."""
    if BACKEND.name != "numpy":
        pytest.skip("the NumPy backend's casts only")
    data = random_array((ROWS, COLS), "float64", seed=10) * 1e3
    x = distribute(data, 0)
    first = xdist.astype(x, xdist.float64)  # a copy: 5.6 MB a block at 3 ranks
    assert np.array_equal(host(first.local), host(x.local))
    held = _pointer(first.local)
    del first
    gc.collect()
    assert _block_pool.held_bytes() == _class_bytes(x)
    again = xdist.astype(x, xdist.float64)
    assert _pointer(again.local) == held
    assert _block_pool.held_bytes() == 0
    for dtype in (np.float32, np.int64):  # the same bits as NumPy's (unsafe) cast
        cast = xdist.astype(x, dtype)
        assert np.array_equal(host(cast.local), host(x.local).astype(dtype))


def test_a_concatenation_writes_into_a_lent_block():
    """``concat`` of blocks that join where they are (split alike along another axis) writes
    into a lent block: NumPy's copy, on the Torch backend's CPU tensors too."""
    data = random_array((ROWS, COLS // 2), "float64", seed=11)
    x = distribute(data, 0)
    first = xdist.concat([x, x], axis=1)  # 5.6 MB a block at 3 ranks
    mine = host(x.local)
    assert np.array_equal(host(first.local), np.concatenate([mine, mine], axis=1))
    held = _pointer(first.local)
    del first
    gc.collect()
    assert _block_pool.held_bytes() == _class_bytes(x)
    again = xdist.concat([x, x], axis=1)
    assert _pointer(again.local) == held
    assert np.array_equal(host(again.local), np.concatenate([mine, mine], axis=1))


@pytest.mark.parametrize("counts", ["balanced", "uneven", "split along the other axis"])
def test_a_shuffled_selection_runs_in_lent_memory(counts):
    """``x[r]`` with replicated shuffled indices (``train_test_split``'s, a shuffled fold's):
    the rows a rank gathers and sends, the rows it receives and its result block are lent by
    the pool, so that the same selection again takes no new memory; so is a selection from
    a rank's own block (one rank, or split along another axis). The rows are NumPy's."""
    if counts == "uneven" and SIZE == 1:
        pytest.skip("one rank holds one block: nothing uneven")
    data = random_array((ROWS, COLS), "float64", seed=7)
    if counts == "split along the other axis":
        x = distribute(data, 1)
    else:
        x = distribute(
            data, 0, None if counts == "balanced" else [ROWS - 700, 700] + [0] * (SIZE - 2)
        )
    r = distribute(np.random.default_rng(3).permutation(ROWS)[: ROWS - 5], None)
    want = data[host(r.local)]
    y = x[r]
    first = _pointer(y.local)
    lo = sum(y.counts[:RANK]) if y.split == 0 else 0
    cols = slice(None) if y.split != 1 else slice(sum(y.counts[:RANK]), sum(y.counts[: RANK + 1]))
    assert np.array_equal(host(y.local), want[lo : lo + y.lshape[0], cols])
    del y
    gc.collect()
    free = {int(b.ctypes.data) for b in _block_pool._FREE}
    assert first in free  # the result was lent, and returned with the array
    held = _block_pool.held_bytes()
    for _ in range(2):
        z = x[r]
        assert _pointer(z.local) in free
        assert np.array_equal(host(z.local), want[lo : lo + z.lshape[0], cols])
        del z
        gc.collect()
        assert _block_pool.held_bytes() == held  # nothing new taken from the system
        assert {int(b.ctypes.data) for b in _block_pool._FREE} == free


@pytest.mark.skipif(SIZE < 2, reason="one rank sends no MPI message (its transport copies)")
def test_the_transport_receives_into_lent_buffers():
    """A large ``alltoallv``'s (and ``allgatherv``'s) receive buffer is lent by the pool and,
    once dropped, lent to the next message of its size; what arrives is what was sent."""
    comm = xdist.default_comm()
    per = (5 * MIB) // 8 // SIZE + 1  # float64 elements to each rank: 5 MiB received
    sent = np.arange(per * SIZE, dtype=np.float64) + RANK * per * SIZE
    want = np.concatenate([np.arange(per) + q * per * SIZE + RANK * per for q in range(SIZE)])
    got = comm.alltoallv(sent, [per] * SIZE, [per] * SIZE)
    assert isinstance(got.base, _block_pool._Lease)
    np.testing.assert_array_equal(got, want)
    at = _pointer(got)
    del got
    gc.collect()
    assert _block_pool.held_bytes() > 0
    again = comm.allgatherv(sent[:per], [per] * SIZE)  # the same size: the same buffer
    assert _pointer(again) == at
    np.testing.assert_array_equal(
        again, np.concatenate([np.arange(per) + q * per * SIZE for q in range(SIZE)])
    )


@pytest.mark.skipif(SIZE < 2, reason="one rank sends no MPI message (its transport copies)")
def test_records_are_received_into_the_librarys_buffers():
    """Records (the fields a sample sort sends together) keep their fields: their receive
    buffer is NumPy's own, never lent (a lent buffer is plain bytes of one dtype)."""
    from xdist._movement.collectives import alltoallv_fields

    comm = xdist.default_comm()
    per = (5 * MIB) // 16 // SIZE + 1  # records of a float64 and an int64: 5 MiB received
    keys = np.arange(per * SIZE, dtype=np.float64) + RANK
    rows = np.arange(per * SIZE, dtype=np.int64) * SIZE + RANK
    got_keys, got_rows = alltoallv_fields([keys, rows], [per] * SIZE, [per] * SIZE, comm)
    sources = np.repeat(np.arange(SIZE), per)
    at = np.tile(np.arange(per), SIZE) + RANK * per
    np.testing.assert_array_equal(got_keys, at + sources)
    np.testing.assert_array_equal(got_rows, at * SIZE + sources)


@pytest.mark.skipif(BACKEND.name != "torch", reason="Torch tensors' allocator")
def test_small_torch_blocks_come_from_numpys_allocator():
    """A Torch CPU block below the pool's size (a k-means score matrix, 3.2 MB) is allocated
    by NumPy, whose heap reuses freed memory, not by Torch's huge-page allocation, which maps
    it anew each time; the tensor is writable through ``numpy()`` and back. A dtype NumPy
    lacks (bfloat16) is Torch's own."""
    import torch

    like = torch.zeros(1, dtype=torch.float32, device="cpu")
    block = _block_pool.library_empty(like, (100000, 8))
    assert block.dtype == torch.float32 and tuple(block.shape) == (100000, 8)
    view = block.numpy()
    view[...] = 2.0
    assert float(block.sum()) == 2.0 * 800000
    other = _block_pool.library_empty(torch.zeros(1, dtype=torch.bfloat16, device="cpu"), (4, 2))
    assert other.dtype == torch.bfloat16 and tuple(other.shape) == (4, 2)


def test_the_pool_holds_at_most_its_bound():
    x = _source()
    one = _class_bytes(x)
    with xdist.config_context(block_pool_bytes=one):
        a, b = x + 1.0, x + 2.0
        a.local, b.local  # noqa: B018  (two blocks made, two buffers lent)
        del a, b
        gc.collect()
        assert _block_pool.held_bytes() == one
    with xdist.config_context(block_pool_bytes=0):
        xdist.empty_cache()
        c = x - 1.0
        assert np.array_equal(host(c.local), _eager(lambda: x - 1.0))
        del c
        gc.collect()
        assert _block_pool.held_bytes() == 0  # off: nothing lent, nothing held


def test_empty_cache_drops_what_the_pool_holds():
    x = _source()
    y = x * x
    y.local  # noqa: B018
    del y
    gc.collect()
    assert _block_pool.held_bytes() == _class_bytes(x)
    xdist.empty_cache()
    assert _block_pool.held_bytes() == 0


@pytest.mark.skipif(SIZE < 2, reason="an empty block needs a second rank")
def test_uneven_and_empty_blocks():
    counts = [ROWS - 5, 5] + [0] * (SIZE - 2) if SIZE > 2 else [ROWS, 0]
    x = _source(counts)
    for _ in range(3):  # lent, returned and lent again where the block is large
        y = xdist.sqrt(x * x + 1.0)
        assert np.array_equal(host(y.local), _eager(lambda: xdist.sqrt(x * x + 1.0)))
        del y
        gc.collect()


def test_the_setting_is_checked():
    with pytest.raises(ValueError, match="block_pool_bytes must be an int >= 0 or None"):
        xdist.set_config(block_pool_bytes=-1)
    with pytest.raises(ValueError, match="block_pool_bytes must be an int >= 0 or None"):
        xdist.set_config(block_pool_bytes=1.5)
